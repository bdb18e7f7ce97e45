"""numaNode rules on one device. draguard's own: Kubernetes checks only the attribute union and limits.

KEP-6072 names `resource.kubernetes.io/numaNode`: the physical NUMA node as an `int`, or (KEP-5491
list form) the physical node first, then the nodes at the same minimal SLIT distance in ascending order.

    passes: resource.kubernetes.io/numaNode: {int: 4}
    passes: resource.kubernetes.io/numaNode: {ints: [4, 5, 6, 7]}
    fails:  resource.kubernetes.io/numaNode: {int: -1}       (numa-node-range: omit an unknown node)
    fails:  resource.kubernetes.io/numaNode: {string: "0"}   (numa-node-type)
"""

from __future__ import annotations

from collections.abc import Iterator

from webhook.findings import Action, Finding
from webhook.rules.base import RESOURCE_SLICE, Rule, RuleContext
from webhook.rules.devices import attributes, devices, int_values, is_int, members, value_path
from webhook.wire import Obj

NUMA = "resource.kubernetes.io/numaNode"
MAX_NODE = 1024  # maxNUMANodes in the KEP-6072 helper (deviceattribute/numa_linux.go)
_ALLOWED = frozenset({"int", "ints"})
_SLICE = frozenset({RESOURCE_SLICE})


def _type(slice_: Obj, ctx: RuleContext) -> Iterator[Finding]:
    for path, device in devices(slice_):
        attribute = attributes(device).get(NUMA)
        if not isinstance(attribute, dict):
            continue
        wrong = [m for m in members(attribute) if m not in _ALLOWED]
        if wrong:
            yield Finding(
                path.child("attributes").key(NUMA),
                f"{NUMA} is a {' and a '.join(wrong)} value; it must be int or ints",
                hint="publish the physical NUMA node as `int: N`, or the KEP-6072 list as `ints: [N, ...]`",
            )


def _range(slice_: Obj, ctx: RuleContext) -> Iterator[Finding]:
    for path, device in devices(slice_):
        attribute = attributes(device).get(NUMA)
        if not isinstance(attribute, dict):
            continue
        attr_path = path.child("attributes").key(NUMA)
        for where, node in int_values(attribute):
            if not is_int(node):
                continue  # k8s-schema reports it
            assert isinstance(node, int)
            if node < 0:
                yield Finding(
                    value_path(attr_path, where),
                    f"numaNode {node} is negative",
                    hint="omit the attribute while the NUMA node is unknown (drivers publish -1 for unknown; "
                    "the KEP-6072 helper publishes nothing then)",
                )
            elif node >= MAX_NODE:
                yield Finding(
                    value_path(attr_path, where),
                    f"numaNode {node} must be below {MAX_NODE}",
                    hint=f"publish the node id the kernel reports; NUMA node ids are below {MAX_NODE}",
                )


NUMA_NODE_TYPE = Rule(
    "numa-node-type",
    kinds=_SLICE,
    default=Action.DENY,
    summary=f"`{NUMA}` is an `int` or an `ints` list",
    remediation="publish the physical NUMA node as `int: N`, or the KEP-6072 list as `ints: [N, ...]`",
    check=_type,
)
NUMA_NODE_RANGE = Rule(
    "numa-node-range",
    kinds=_SLICE,
    default=Action.DENY,
    summary=f"every numaNode value is >= 0 and < {MAX_NODE}",
    remediation="omit the attribute while the NUMA node is unknown instead of publishing -1",
    check=_range,
)

RULES = (NUMA_NODE_TYPE, NUMA_NODE_RANGE)
