"""The node check behind `draguard topology --check SLICES`: read the slices, keep this node's, compare
their numaNode values with what sysfs says. Returns findings placed in the files; the command renders
them like `validate` and chooses the exit code.
"""

from __future__ import annotations

import socket
from collections import Counter
from collections.abc import Sequence
from functools import partial
from typing import Protocol

from msgspec import Struct, field

from webhook.findings import Action, Finding
from webhook.manifests import read
from webhook.manifests.shapes import malformed
from webhook.policy import Policy
from webhook.run import sort_key
from webhook.topology.check import check_slice, on_node
from webhook.topology.numa import Form, Topology
from webhook.wire import Obj, get_str, kind_of

RESOURCE_SLICE = "ResourceSlice"


class NodeCheck(Struct):
    """What `check_node` found: findings in file order, and the counts and problems of a report summary."""

    node: str
    findings: list[Finding] = field(default_factory=list)
    checked: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)


def host_node_name() -> str:
    """The node name kubelet registers by default: the host name, trimmed and lower-cased."""
    return socket.gethostname().strip().lower()


class SliceCheck(Protocol):
    def __call__(self, slice_: Obj, *, node: str) -> list[Finding]: ...


def against(topology: Topology, *, form: Form | None = None, aliases: Sequence[str] | None = None,
            policy: Policy | None = None) -> SliceCheck:
    """The check of one slice's devices on a node against this machine's sysfs
    (`webhook.topology.check.check_slice`): actions from `policy` (the default one without), aliases from it
    unless given."""
    return partial(check_slice, topology=topology, form=form, aliases=aliases, policy=policy)


def check_node(
    paths: Sequence[str],
    node: str,
    check: SliceCheck,
    *,
    ignore: Sequence[str] = (),
) -> NodeCheck:
    """`check` on every ResourceSlice of `node` in `paths` (see `against`), findings placed in the files;
    a misshapen slice (each field a problem, as `eval` words it) or no slice for the node is a problem."""
    # (A cluster-wide `kubectl get resourceslices -o json` is megabytes: the JSON backend reads its values and
    # looks up places only for the findings.)
    objects, read_problems = read(paths, ignore=ignore)
    result = NodeCheck(node, problems=[str(p) for p in read_problems])
    other_nodes: set[str] = set()
    for located in objects:
        kind = kind_of(located.obj)
        if kind != RESOURCE_SLICE:
            result.skipped[kind or "<no kind>"] += 1
            continue
        misshapen = list(malformed(located))
        if misshapen:  # an input problem, as `eval` refuses it: its node and devices cannot be trusted
            result.problems += misshapen
            continue
        if not on_node(located.obj, node):
            result.skipped[f"{RESOURCE_SLICE} of other nodes"] += 1
            other_nodes.update(n for n in [get_str(located.obj, "spec", "nodeName")] if n)
            continue
        result.checked += 1
        for finding in check(located.obj, node=node):
            result.findings.append(
                finding.stamped(finding.rule, finding.action or Action.DENY, located.position(finding.path))
            )
    if result.checked == 0 and not result.problems:
        seen = f" (slices name {', '.join(sorted(other_nodes))})" if other_nodes else ""
        result.problems.append(f"no ResourceSlice has spec.nodeName {node!r}{seen}; pass --node NAME")
    result.findings.sort(key=sort_key)
    return result
