"""`draguard eval EXPR --slices PATH`: which devices a CEL selector matches, grouped by node and driver.

The pipeline is `webhook.evaluate`; slices are read by `webhook.manifests.shapes.read_strict`.

Exit codes (draguard's own): 0 when some device matches and no device errors, 1 when none matches or
any device errors (the scheduler would abort a claim on that error), 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

from webhook.commands.common import add_output_arguments
from webhook.evaluate import Group, totals
from webhook.wire import printable

HELP = "evaluate a device selector on every device of some ResourceSlices"
FORMATS = ("text", "json")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("expression", metavar="EXPR", help="a DRA CEL selector, e.g. 'device.driver == \"dra.net\"'")
    parser.add_argument("--slices", metavar="PATH", action="append", required=True,
                        help="ResourceSlice files or directories (repeatable; '-' for stdin)")
    add_output_arguments(parser, FORMATS, findings=False)


def render_text(groups: Sequence[Group]) -> str:
    lines: list[str] = []
    node = None
    for g in groups:
        if g.node != node:
            node = g.node
            lines.append(node)
        total = len(g.matches) + len(g.misses) + len(g.errors)
        lines.append(f"  {g.driver} (pool {g.pool}): {len(g.matches)} of {total} match")
        lines += [f"    match     {name}" for name in g.matches]
        lines += [f"    no match  {name}" for name in g.misses]
        lines += [f"    error     {name}: {message}" for name, message in g.errors]
    matches, misses, errors = totals(groups)
    noun = "error" if errors == 1 else "errors"
    lines.append(f"{matches + misses + errors} devices: {matches} match, {misses} no match, {errors} {noun}")
    return "\n".join(map(printable, lines))  # names come from the input: no escape sequence reaches the terminal


def render_json(expression: str, groups: Sequence[Group]) -> str:
    matches, misses, errors = totals(groups)
    return json.dumps({
        "expression": expression,
        "groups": [{"node": g.node, "driver": g.driver, "pool": g.pool, "matches": g.matches, "nonMatches": g.misses,
                    "errors": [{"device": n, "message": m} for n, m in g.errors]} for g in groups],
        "summary": {"devices": matches + misses + errors, "matches": matches, "nonMatches": misses, "errors": errors},
    }, indent=2)


def _note_draft_includes(expression: str) -> None:
    """celext takes `include()`, the API server does not: say so, as `lint` does (selector-includes-spelling)."""
    import sys

    import celext

    try:
        draft = celext.analyze(expression).draft_includes
    except celext.CELError:
        return
    if draft:
        from webhook.rules.selectors_cel import DRAFT_INCLUDE

        print(f"draguard: note: {DRAFT_INCLUDE.replace('`', '')}; write includes()", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    import sys

    from webhook.commands.common import outputs, write_output
    from webhook.errors import DraguardError
    from webhook.evaluate import evaluate
    from webhook.exits import exit_code
    from webhook.manifests.shapes import read_strict

    targets = outputs(args.format, FORMATS, args.slices)
    slices = read_strict(args.slices, frozenset({"ResourceSlice"}))
    if not slices:
        raise DraguardError(f"no ResourceSlice in {', '.join(args.slices)}")
    groups = evaluate(args.expression, slices)
    _note_draft_includes(args.expression)
    for name, target in targets:
        text = render_json(args.expression, groups) if name == "json" else render_text(groups)
        write_output(name, target, text + "\n", sys.stdout)
    matches, _, errors = totals(groups)
    return exit_code(problems=False, failing=not matches or bool(errors))
