"""numaNode rules on one device. draguard's own: Kubernetes checks only the attribute union and limits.

KEP-6072 names `resource.kubernetes.io/numaNode`: the physical NUMA node as an `int`, or (KEP-5491
list form) the physical node first, then the same-socket nodes at the minimal SLIT distance, "unordered and
equal-weight" (the KEP's own example is `[6, 4, 5, 7]`): numa-node-order is an opt-in style check.

    passes: resource.kubernetes.io/numaNode: {int: 4}
    passes: resource.kubernetes.io/numaNode: {ints: [4, 5, 6, 7]}
    fails:  resource.kubernetes.io/numaNode: {int: -1}         (numa-node-range: omit an unknown node)
    fails:  resource.kubernetes.io/numaNode: {string: "0"}     (numa-node-type)
    fails:  resource.kubernetes.io/numaNode: {ints: [4, 5, 4]} (numa-node-duplicates)
    passes: resource.kubernetes.io/numaNode: {ints: [6, 4, 5, 7]} (numa-node-order is off by default)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from celext.vocabulary import NUMA_NODE
from webhook.findings import Action, Finding
from webhook.rules.base import RESOURCE_SLICE, Rule, RuleContext
from webhook.rules.devices import (
    Named,
    attribute_path,
    int_values,
    members,
    named_attribute,
    stored_int,
    stored_ints,
    stored_item,
    value_path,
)
from webhook.rules.plain import MAX_NODE, digest
from webhook.wire import Obj
from webhook.words import with_article

NUMA: Final = NUMA_NODE
_ALLOWED = frozenset({"int", "ints"})
_SLICE = frozenset({RESOURCE_SLICE})


def numa_attributes(slice_: Obj, ctx: RuleContext) -> Named:
    """`(device index, device, attribute)` for each device that publishes a numaNode attribute (once per run)."""
    return named_attribute(slice_, ctx, NUMA)


def node_list(attribute: Obj) -> list[int] | None:
    """The non-empty `ints` list as the API server stores it (a null item 0, `1.0` as 1), else None."""
    values = stored_ints(attribute.get("ints"))
    return values or None


def physical_node(attribute: Obj) -> int | None:
    """The scalar, or the first list element, as stored: the device's own NUMA node."""
    scalar = attribute.get("int")
    if scalar is not None:
        return stored_int(scalar)
    values = attribute.get("ints")
    return stored_item(values[0]) if isinstance(values, list) and values else None


def _type(slice_: Obj, ctx: RuleContext) -> Iterator[Finding]:
    if digest(slice_, ctx).numa:
        return
    for i, _device, attribute in numa_attributes(slice_, ctx):
        wrong = [m for m in members(attribute) if m not in _ALLOWED]
        if wrong:
            yield Finding(
                attribute_path(i, NUMA),
                f"{NUMA} is {' and '.join(map(with_article, wrong))} value; it must be int or ints",
                hint="publish the physical NUMA node as `int: N`, or the KEP-6072 list as `ints: [N, ...]`",
            )


def _range(slice_: Obj, ctx: RuleContext) -> Iterator[Finding]:
    if digest(slice_, ctx).numa:
        return
    for i, _device, attribute in numa_attributes(slice_, ctx):
        for where, node in int_values(attribute):  # values the decoder refuses are k8s-wire-type's
            if node < 0:
                yield Finding(
                    value_path(attribute_path(i, NUMA), where),
                    f"numaNode {node} is negative",
                    hint="omit the attribute while the NUMA node is unknown (drivers publish -1 for unknown; "
                    "the KEP-6072 helper publishes nothing then)",
                )
            elif node >= MAX_NODE:
                yield Finding(
                    value_path(attribute_path(i, NUMA), where),
                    f"numaNode {node} must be below {MAX_NODE}",
                    hint=f"publish the node id the kernel reports; NUMA node ids are below {MAX_NODE}",
                )


def _duplicates(slice_: Obj, ctx: RuleContext) -> Iterator[Finding]:
    if digest(slice_, ctx).numa:
        return
    for i, _device, attribute in numa_attributes(slice_, ctx):
        values = node_list(attribute)
        if values is None or len(set(values)) == len(values):
            continue
        first: dict[int, int] = {}
        for j, node in enumerate(values):
            if node in first:
                written = "null (stored as 0)" if attribute["ints"][j] is None else str(node)
                yield Finding(
                    attribute_path(i, NUMA).child("ints").index(j),
                    f"numaNode {written} appears twice in the list (also at index {first[node]})",
                    hint="list each NUMA node once: matchAttribute treats the list as a set, CEL counts every entry",
                )
            else:
                first[node] = j


def _order(slice_: Obj, ctx: RuleContext) -> Iterator[Finding]:
    if digest(slice_, ctx).numa:
        return
    for i, _device, attribute in numa_attributes(slice_, ctx):
        values = node_list(attribute)
        if values is None or len(values) < 3:
            continue
        rest = values[1:]
        for j in range(1, len(rest)):
            if rest[j] < rest[j - 1]:
                expected = [values[0], *sorted(set(rest) - {values[0]})]
                yield Finding(
                    attribute_path(i, NUMA).child("ints").index(j + 1),
                    f"numaNode list {show_nodes(values)} is not ascending after the physical node "
                    f"({rest[j - 1]} comes before {rest[j]}); KEP-6072 gives those nodes no order, so this is style "
                    f"only",
                    hint=f"for stable diffs, publish the others ascending (as draguard topology prints them): "
                    f"{show_nodes(expected)}",
                )
                break


def _list_form(slice_: Obj, ctx: RuleContext) -> Iterator[Finding]:
    for i, _device, attribute in numa_attributes(slice_, ctx):
        if isinstance(attribute.get("ints"), list):  # another type is k8s-wire-type's
            yield Finding(
                attribute_path(i, NUMA).child("ints"),
                f"numaNode is a list, but policy numaNode.listForm is {ctx.policy.list_form}: this cluster's "
                "scheduler does not apply list semantics yet",
                hint="publish the physical node as `int: N` until the scheduler supports DRAListTypeAttributes "
                "(Kubernetes 1.37)",
            )


def show_nodes(values: list[int]) -> str:
    """A node list as messages write it: `[0, 1, 3]`."""
    return "[" + ", ".join(str(v) for v in values) + "]"


def _rule(rule_id: str, default: Action, summary: str, remediation: str, check: Any) -> Rule:
    return Rule(rule_id, kinds=_SLICE, default=default, summary=summary, remediation=remediation, check=check)


RULES = (
    _rule("numa-node-type", Action.DENY, f"`{NUMA}` is an `int` or an `ints` list",
          "publish the physical NUMA node as `int: N`, or the KEP-6072 list as `ints: [N, ...]`", _type),
    _rule("numa-node-range", Action.DENY, f"every numaNode value is >= 0 and < {MAX_NODE}",
          "omit the attribute while the NUMA node is unknown instead of publishing -1", _range),
    _rule("numa-node-duplicates", Action.DENY, "a numaNode list names each node once",
          "remove the repeated node ids", _duplicates),
    _rule("numa-node-order", Action.OFF, "style, off by default: after the physical node, numaNode list entries "
          "are ascending (KEP-6072 leaves their order free)", "publish `[physical, others ascending]`", _order),
    _rule("numa-node-list-form", Action.OFF, "numaNode is a scalar when the policy says the scheduler lacks list "
          "semantics (action from `numaNode.listForm`: allow = off)",
          "publish `int: N`, or set `numaNode.listForm: allow` once the cluster runs Kubernetes 1.37", _list_form),
)
