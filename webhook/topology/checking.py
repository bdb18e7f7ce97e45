"""`draguard topology --check SLICES`: load slices, keep this node's, check them, report like `validate`.

Exit codes as `draguard validate`: 0 no deny finding, 1 a mismatch (deny), 2 input problems (unreadable
files, no ResourceSlice for this node).
"""

from __future__ import annotations

import socket
import sys
from collections import Counter
from collections.abc import Sequence

from webhook.commands.validate import read_objects
from webhook.findings import Action, Finding
from webhook.topology.check import DEFAULT_ALIASES, check_slice
from webhook.topology.numa import Form, Topology
from webhook.wire import get_str, kind_of

RESOURCE_SLICE = "ResourceSlice"


def host_node_name() -> str:
    """The node name kubelet registers by default: the host name, trimmed and lower-cased."""
    return socket.gethostname().strip().lower()


def run_check(
    topology: Topology,
    paths: Sequence[str],
    *,
    form: Form | None,
    node: str | None,
    policy: str | None,
    format: str,
) -> int:
    from webhook.report import FORMATS, Summary, render

    fmt = "text" if format == "table" else format
    if fmt not in FORMATS:
        from webhook.errors import DraguardError

        raise DraguardError(f"unknown format {format!r} for --check; use table or one of {', '.join(sorted(FORMATS))}")
    aliases: Sequence[str] = DEFAULT_ALIASES
    ignore: tuple[str, ...] = ()
    if policy is not None:
        from webhook.policy import Policy

        loaded_policy = Policy.load(policy)
        aliases, ignore = loaded_policy.aliases, loaded_policy.ignore
    if node == "":
        from webhook.errors import DraguardError

        raise DraguardError(
            "--node: empty node name; pass the Kubernetes node name, or leave --node out for this host's"
        )
    node_name = node if node is not None else host_node_name()
    # validate's reader: JSON and libyaml fast paths (a cluster-wide `kubectl get resourceslices -o yaml`
    # is megabytes), `List` items expanded, `-` for stdin, `ignore` globs as validate applies them.
    objects, loaded_problems = read_objects(list(paths), ignore)
    problems = [str(p) for p in loaded_problems]
    findings: list[Finding] = []
    skipped: Counter[str] = Counter()
    checked = 0
    other_nodes: set[str] = set()
    for manifest in objects:
        kind = kind_of(manifest.obj)
        if kind != RESOURCE_SLICE:
            skipped[kind or "<no kind>"] += 1
            continue
        slice_node = get_str(manifest.obj, "spec", "nodeName")
        if slice_node != node_name:
            skipped[f"{RESOURCE_SLICE} of other nodes"] += 1
            if slice_node:
                other_nodes.add(slice_node)
            continue
        checked += 1
        for finding in check_slice(manifest.obj, topology, form=form, aliases=aliases):
            findings.append(
                finding.stamped(finding.rule, finding.action or Action.DENY, manifest.locator.position(finding.path))
            )
    if checked == 0 and not problems:
        seen = f" (slices name {', '.join(sorted(other_nodes))})" if other_nodes else ""
        problems.append(f"no ResourceSlice has spec.nodeName {node_name!r}{seen}; pass --node NAME")
    findings.sort(key=_order)
    summary = Summary(objects=checked, skipped=dict(skipped), problems=problems)
    sys.stdout.write(render(fmt, findings, summary, color=sys.stdout.isatty()))
    sys.stdout.flush()
    for problem in problems:  # after the report, one line each, as `draguard validate` does
        print(problem, file=sys.stderr)
    if problems:
        return 2
    return 1 if any(f.action is Action.DENY for f in findings) else 0


def _order(finding: Finding) -> tuple[str, int, int, str]:
    pos = finding.position
    if pos is None:
        return ("", 0, 0, str(finding.path))
    return (pos.file, pos.line, pos.column, str(finding.path))
