"""`draguard explain CLAIM --slices PATH`: can this claim be allocated on each node, and if not, why.

The pipeline is `webhook.explaining`. CLAIM is a file (or directory, or '-') with ResourceClaims and/or
ResourceClaimTemplates; each is explained on its own against an otherwise empty cluster. DeviceClasses come
from `--classes` and from any DeviceClass found beside the claims or slices; Node objects among the slices
supply node labels for slices with a node selector. Exit codes (draguard's own): 0 when every claim fits on at least one
node, 1 when some claim fits nowhere (or the allocator would abort it), 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from webhook.commands.common import add_output_arguments, tell
from webhook.wire import printable

if TYPE_CHECKING:
    from celext.alloc.explain import ClaimResult, NodeResult
    from webhook.manifests import Problem

HELP = "explain whether and how a ResourceClaim can be allocated on each node"
FORMATS = ("text", "json")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, not {text!r}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("claim", metavar="CLAIM", help="ResourceClaim / ResourceClaimTemplate file or directory")
    parser.add_argument("--slices", metavar="PATH", action="append", required=True,
                        help="ResourceSlice (and optional Node) files or directories (repeatable)")
    parser.add_argument("--classes", metavar="PATH", action="append", default=[],
                        help="DeviceClass files or directories (repeatable)")
    parser.add_argument("--semantics", choices=("list", "scalar"), default="list",
                        help="constraint semantics: list = KEP-5491 set intersection (kube-scheduler 1.37 with the "
                             "alpha gate DRAListTypeAttributes), scalar = pre-list equality, lists fail closed "
                             "(1.36, and 1.37 by default); default list")
    parser.add_argument("--node", metavar="NAME", help="explain on this node only")
    parser.add_argument("--max-steps", metavar="N", type=_positive, default=None,
                        help="bound on placement attempts per node (default 200000)")
    add_output_arguments(parser, FORMATS, findings=False)


def run(args: argparse.Namespace) -> int:
    import sys

    from webhook.commands.common import outputs, write_output
    from webhook.errors import DraguardError
    from webhook.exits import exit_code
    from webhook.explaining import explain_paths

    targets = outputs(args.format, FORMATS, [args.claim, *args.slices, *args.classes])
    # '-' may stand for stdin in CLAIM, --slices and --classes at once: read it once, give each the same text
    text = None
    if "-" in (args.claim, *args.slices, *args.classes):
        from webhook.manifests.sources import read_stdin

        problems: list[Problem] = []
        text = read_stdin(sys.stdin, problems)
        if text is None:
            raise DraguardError(str(problems[0]))
    explained = explain_paths(args.claim, args.slices, args.classes, semantics=args.semantics, node=args.node,
                              max_steps=args.max_steps, stdin_text=text)
    for note in explained.notes:
        tell(f"note: {note}")  # node names are the inputs' words
    results = explained.results
    for name, target in targets:
        text = render_json(args.semantics, results) if name == "json" else render_text(results)
        write_output(name, target, text + "\n", sys.stdout)
    return exit_code(problems=False, failing=not all(r.fits for r in results))


def _node_name(name: str) -> str:
    return name or "(any node)"


def _values(result: NodeResult) -> list[str]:
    from celext.alloc.constraints import lookup_attribute, render_attribute
    from celext.vocabulary import NUMA_NODE

    out = []
    for pick in result.picks:
        attribute = lookup_attribute(pick.device.wire, pick.device.driver, NUMA_NODE)
        out.append(render_attribute(attribute) if attribute is not None else "")
    return out


def render_text(results: Sequence[ClaimResult]) -> str:
    lines: list[str] = []
    for result in results:
        lines.append(result.claim)
        lines += [f"  note: {note}" for note in result.notes]
        if result.error:
            lines += [f"  cannot allocate on any node: {result.error}"]
            continue
        for node in result.nodes:
            lines += _node_text(node)
        fits = sum(1 for n in result.nodes if n.status == "fits")
        lines.append(f"  {fits} of {len(result.nodes)} node(s) can allocate it")
    return "\n".join(map(printable, lines))  # names come from the input: no escape sequence reaches the terminal


def _node_text(node: NodeResult) -> list[str]:
    name = _node_name(node.node)
    if node.status != "fits":
        word = {"no-fit": "cannot allocate", "error": "allocation aborted", "bound": "undecided"}[node.status]
        return [f"  node {name}: {word}: {node.reason}", *(f"    {d}" for d in node.details)]
    lines = [f"  node {name}: fits"]
    width = max((len(p.request) for p in node.picks), default=0)
    id_width = max((len(p.device.id) for p in node.picks), default=0)
    for pick, numa in zip(node.picks, _values(node), strict=True):
        row = f"    {pick.request:<{width}}  {pick.device.id:<{id_width}}" + (f"  numaNode {numa}" if numa else "")
        lines.append(row.rstrip())
    lines += [f"    {label}: {values}" for label, values in node.common]
    if node.numa:
        lines.append(f"    common numaNode: {node.numa}")
    lines += [f"    note: {d}" for d in node.details]
    return lines


def render_json(semantics: str, results: Sequence[ClaimResult]) -> str:
    def node(n: NodeResult) -> dict[str, Any]:
        return {
            "node": n.node, "status": n.status,
            "allocation": [{"request": p.request, "device": p.device.id, "numaNode": v}
                           for p, v in zip(n.picks, _values(n), strict=True)],
            "common": [{"constraint": label, "values": values} for label, values in n.common],
            "numaNode": n.numa, "reason": n.reason, "details": list(n.details), "steps": n.steps,
        }

    return json.dumps({"semantics": semantics, "claims": [
        {"claim": r.claim, "fits": r.fits, "error": r.error, "notes": list(r.notes),
         "nodes": [node(n) for n in r.nodes]} for r in results
    ]}, indent=2)
