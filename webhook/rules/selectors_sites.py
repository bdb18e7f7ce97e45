"""Where selectors and constraints live in DRA objects, and the NUMA names the selector rules know.

    DeviceClass             spec.selectors[j].cel.expression
    ResourceClaim           spec.devices.requests[i].exactly.selectors[j].cel.expression
                            spec.devices.requests[i].firstAvailable[k].selectors[j].cel.expression
                            spec.devices.requests[i].selectors[j].cel.expression      (v1beta1 shape)
                            spec.devices.constraints[c].matchAttribute / distinctAttribute
    ResourceClaimTemplate   the same under spec.spec

Every rule of the selector family walks the object through `sites(obj, ctx)` / `constraints(obj, ctx)`,
computed once per `run_rules` call.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

from webhook.fieldpath import FieldPath
from webhook.policy import Policy
from webhook.rules.base import DEVICE_CLASS, RESOURCE_CLAIM, RESOURCE_CLAIM_TEMPLATE, RuleContext
from webhook.wire import Obj, as_map, get_list, get_map, kind_of

SELECTOR_KINDS = frozenset({DEVICE_CLASS, RESOURCE_CLAIM, RESOURCE_CLAIM_TEMPLATE})
STANDARD_NUMA = "resource.kubernetes.io/numaNode"
STANDARD_DOMAIN = "resource.kubernetes.io"
VENDOR_NUMA_IDS = ("numaNode", "numa")  # <driver>/numaNode and <driver>/numa are always vendor NUMA names


class Site(NamedTuple):
    """One selector: where its expression is (or should be), and the expression when there is one.

    `expression` is None when the selector has no usable `cel.expression` (`problem` says why).
    `device_class` is the request's deviceClassName (empty for a DeviceClass's own selectors).
    """

    path: FieldPath
    expression: str | None
    device_class: str = ""
    problem: str = ""
    problem_path: FieldPath | None = None


class ConstraintName(NamedTuple):
    """A matchAttribute/distinctAttribute value and its path."""

    path: FieldPath
    field: str  # "matchAttribute" or "distinctAttribute"
    name: str


def sites(obj: Obj, ctx: RuleContext) -> list[Site]:
    return ctx.once("selector-sites", lambda: list(_sites(obj)))


def constraints(obj: Obj, ctx: RuleContext) -> list[ConstraintName]:
    return ctx.once("selector-constraints", lambda: list(_constraints(obj)))


def _devices_root(obj: Obj) -> tuple[FieldPath, Obj] | None:
    kind = kind_of(obj)
    if kind == RESOURCE_CLAIM:
        return FieldPath.root("spec", "devices"), get_map(obj, "spec", "devices")
    if kind == RESOURCE_CLAIM_TEMPLATE:
        return FieldPath.root("spec", "spec", "devices"), get_map(obj, "spec", "spec", "devices")
    return None


def _device_entries(obj: Obj, field: str) -> Iterator[tuple[FieldPath, Obj]]:
    """The objects in a claim's (or template's) `devices.<field>` list, with their paths."""
    root = _devices_root(obj)
    if root is None:
        return
    base, devices = root
    for i, raw in enumerate(get_list(devices, field)):
        entry = as_map(raw)
        if entry is not None:
            yield base.child(field).index(i), entry


def _sites(obj: Obj) -> Iterator[Site]:
    if kind_of(obj) == DEVICE_CLASS:
        yield from _selectors(FieldPath.root("spec", "selectors"), get_list(obj, "spec", "selectors"), "")
        return
    for path, request in _device_entries(obj, "requests"):
        exactly = as_map(request.get("exactly"))
        if exactly is not None:
            yield from _selectors(path.child("exactly").child("selectors"), get_list(exactly, "selectors"),
                                  _class_name(exactly))
        for k, raw_sub in enumerate(get_list(request, "firstAvailable")):
            sub = as_map(raw_sub)
            if sub is not None:
                yield from _selectors(path.child("firstAvailable").index(k).child("selectors"),
                                      get_list(sub, "selectors"), _class_name(sub))
        # v1beta1 requests carry selectors directly; still served and still in published examples.
        yield from _selectors(path.child("selectors"), get_list(request, "selectors"), _class_name(request))


def _class_name(request: Obj) -> str:
    name = request.get("deviceClassName")
    return name if isinstance(name, str) else ""


def _selectors(path: FieldPath, items: Sequence[Any], device_class: str) -> Iterator[Site]:
    for j, raw in enumerate(items):
        here = path.index(j)
        selector = as_map(raw)
        cel = as_map(selector.get("cel")) if selector is not None else None
        expression = cel.get("expression") if cel is not None else None
        expr_path = here.child("cel").child("expression")
        if selector is None:
            yield Site(expr_path, None, device_class, "a selector must be an object with a `cel` field", here)
        elif cel is None:
            extra = ""
            if "expression" in selector:
                extra = " (`expression` sits beside `cel` instead of under it: indent it below `cel:`)"
            yield Site(expr_path, None, device_class, f"Required value{extra}", here.child("cel"))
        elif not isinstance(expression, str) or not expression.strip():
            yield Site(expr_path, None, device_class, "Required value", expr_path)
        else:
            yield Site(expr_path, expression, device_class)


def _constraints(obj: Obj) -> Iterator[ConstraintName]:
    for path, constraint in _device_entries(obj, "constraints"):
        for field in ("matchAttribute", "distinctAttribute"):
            name = constraint.get(field)
            if isinstance(name, str):
                yield ConstraintName(path.child(field), field, name)


def is_vendor_numa(qualified: str, policy: Policy) -> bool:
    """A NUMA attribute name other than the KEP-6072 standard one (policy aliases, <driver>/numaNode, /numa)."""
    if qualified == STANDARD_NUMA:
        return False
    if qualified in policy.aliases:
        return True
    domain, _, ident = qualified.rpartition("/")
    return bool(domain) and ident in VENDOR_NUMA_IDS


def is_numa(qualified: str, policy: Policy) -> bool:
    return qualified == STANDARD_NUMA or is_vendor_numa(qualified, policy)
