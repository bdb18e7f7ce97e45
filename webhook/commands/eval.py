"""`draguard eval EXPR --slices PATH`: which devices a CEL selector matches, grouped by node and driver.

Exit codes (draguard's own): 0 when some device matches and no device errors, 1 when none matches or
any device errors (the scheduler would abort a claim on that error), 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from webhook.commands.common import add_output_arguments

if TYPE_CHECKING:
    from webhook.manifests import Manifest

HELP = "evaluate a device selector on every device of some ResourceSlices"
FORMATS = ("text", "json")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("expression", metavar="EXPR", help="a DRA CEL selector, e.g. 'device.driver == \"dra.net\"'")
    parser.add_argument("--slices", metavar="PATH", action="append", required=True,
                        help="ResourceSlice files or directories (repeatable; '-' for stdin)")
    add_output_arguments(parser, FORMATS, findings=False)


@dataclass(slots=True)
class Group:
    """The devices of one pool of one driver as seen from one node."""

    node: str
    driver: str
    pool: str
    matches: list[str] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)


def node_key(spec: Mapping[str, Any]) -> str:
    """Where a slice's devices live, as eval groups them."""
    name = spec.get("nodeName")
    if isinstance(name, str) and name:
        return name
    if spec.get("allNodes") is True:
        return "(all nodes)"
    if spec.get("perDeviceNodeSelection") is True:
        return "(per-device node selection)"
    return "(node selector)"


def evaluate(expression: str, slices: Sequence[Mapping[str, Any]]) -> list[Group]:
    """Evaluate on every device; raises DraguardError when the expression does not compile."""
    import celext
    from celext.alloc.explain import enhance
    from celext.errors import CELError, CompileError
    from webhook.errors import DraguardError
    from webhook.wire import get_list, get_map, get_str

    try:
        selector = celext.compile(expression)
    except CompileError as err:
        raise DraguardError(f"cannot compile EXPR: {err}") from None
    groups: dict[tuple[str, str, str], Group] = {}
    for obj in slices:
        spec = get_map(obj, "spec")
        driver = get_str(spec, "driver")
        key = (node_key(spec), driver, get_str(spec, "pool", "name"))
        group = groups.setdefault(key, Group(*key))
        for device in get_list(spec, "devices"):
            if not isinstance(device, Mapping):
                continue
            name = str(device.get("name") or "")
            try:
                (group.matches if selector.matches(device, driver) else group.misses).append(name)
            except CELError as err:
                group.errors.append((name, f"CEL runtime error: {enhance(str(err))}"))
    named = sorted(k for k in groups if not k[0].startswith("("))
    return [groups[k] for k in named + sorted(k for k in groups if k[0].startswith("("))]


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
    matches, misses, errors = _totals(groups)
    noun = "error" if errors == 1 else "errors"
    lines.append(f"{matches + misses + errors} devices: {matches} match, {misses} no match, {errors} {noun}")
    return "\n".join(lines)


def render_json(expression: str, groups: Sequence[Group]) -> str:
    matches, misses, errors = _totals(groups)
    return json.dumps({
        "expression": expression,
        "groups": [{"node": g.node, "driver": g.driver, "pool": g.pool, "matches": g.matches, "nonMatches": g.misses,
                    "errors": [{"device": n, "message": m} for n, m in g.errors]} for g in groups],
        "summary": {"devices": matches + misses + errors, "matches": matches, "nonMatches": misses, "errors": errors},
    }, indent=2)


def _totals(groups: Sequence[Group]) -> tuple[int, int, int]:
    return (sum(len(g.matches) for g in groups), sum(len(g.misses) for g in groups),
            sum(len(g.errors) for g in groups))


# The fields eval and explain walk, and the shape each must have when present (the API server would refuse
# anything else); checked up front so a malformed object is a one-line usage error, not a crash or a guess.
_SHAPES: Mapping[str, tuple[tuple[tuple[str, ...], type], ...]] = {
    "ResourceSlice": ((("spec",), dict), (("spec", "devices"), list)),
    "ResourceClaim": ((("spec",), dict), (("spec", "devices"), dict), (("spec", "devices", "requests"), list),
                      (("spec", "devices", "constraints"), list)),
    "ResourceClaimTemplate": ((("spec",), dict), (("spec", "spec"), dict), (("spec", "spec", "devices"), dict),
                              (("spec", "spec", "devices", "requests"), list),
                              (("spec", "spec", "devices", "constraints"), list)),
    "DeviceClass": ((("spec",), dict), (("spec", "selectors"), list)),
}


def check_shape(manifest: Manifest) -> None:
    """Raise DraguardError naming the first field of the wrong shape (a mapping where a list belongs, ...)."""
    from webhook.errors import DraguardError
    from webhook.fieldpath import FieldPath
    from webhook.wire import kind_of, name_of

    kind = kind_of(manifest.obj)
    for path, shape in _SHAPES.get(kind, ()):
        value: Any = manifest.obj
        for step in path:
            value = value.get(step) if isinstance(value, dict) else None
        if value is None or isinstance(value, shape):
            continue
        position = manifest.position(FieldPath.root(*path))
        where = str(position) if position is not None else manifest.source
        wanted = "a list" if shape is list else "a mapping"
        raise DraguardError(f"{where}: {kind} {name_of(manifest.obj) or '<unnamed>'}: {'.'.join(path)} must be "
                            f"{wanted}, not {_json_type(value)}")


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    names: dict[type, str] = {str: "a string", list: "a list", dict: "a mapping"}
    return names.get(type(value), type(value).__name__)


def load(paths: Sequence[str], kinds: frozenset[str], *, stdin_text: str | None = None) -> list[Mapping[str, Any]]:
    """Objects of the given kinds from files; an unreadable input or a malformed object is a user error (exit 2).

    `stdin_text`: what '-' reads, when the caller read stdin once for several option values."""
    import io

    from webhook.errors import DraguardError
    from webhook.manifests import load_paths

    loaded = load_paths(paths, stdin=None if stdin_text is None else io.StringIO(stdin_text))
    if loaded.problems:
        more = len(loaded.problems) - 1
        raise DraguardError(str(loaded.problems[0]) + (f" (and {more} more problems)" if more else ""))
    wanted = [m for m in loaded.manifests if m.obj.get("kind") in kinds]
    for manifest in wanted:
        check_shape(manifest)
    return [m.obj for m in wanted]


def run(args: argparse.Namespace) -> int:
    import sys

    from webhook.commands.common import outputs, write_output
    from webhook.errors import DraguardError

    targets = outputs(args.format, FORMATS)
    slices = load(args.slices, frozenset({"ResourceSlice"}))
    if not slices:
        raise DraguardError(f"no ResourceSlice in {', '.join(args.slices)}")
    groups = evaluate(args.expression, slices)
    for name, target in targets:
        text = render_json(args.expression, groups) if name == "json" else render_text(groups)
        write_output(name, target, text + "\n", sys.stdout)
    matches, _, errors = _totals(groups)
    return 0 if matches and not errors else 1
