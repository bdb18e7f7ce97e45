"""The selector rule family: CEL selectors and constraints in ResourceClaims, templates and DeviceClasses.

This module holds the NUMA-name rules and gathers the family's `RULES` (the CEL-text rules live in
`selectors_cel.py`, the list rules in `selectors_lists.py`, the walk in `selectors_sites.py`).

    fails:  matchAttribute: dra.net/numaNode                       (selector-vendor-numa)
    passes: matchAttribute: resource.kubernetes.io/numaNode
    fails:  matchAttribute: numaNode                               (constraint-attribute-unqualified)
    audit:  device.attributes["resource.kubernetes.io"].numaNode.includes(0)   (selector-numa-pinned)
"""

from __future__ import annotations

from collections.abc import Iterator

from msgspec.structs import replace

from webhook.fieldpath import FieldPath
from webhook.findings import Action, Finding
from webhook.rules import selectors_cel, selectors_lists
from webhook.rules.base import Rule, RuleContext
from webhook.rules.k8s.errors import invalid, required
from webhook.rules.k8s.names import validate_dns1123_label, validate_fully_qualified_name
from webhook.rules.selectors_cel import CAPACITY_GATE, analysed
from webhook.rules.selectors_sites import (
    SELECTOR_KINDS,
    STANDARD_DOMAIN,
    STANDARD_NUMA,
    constraints,
    is_numa,
    is_vendor_numa,
    request_names,
    request_refs,
    unnamed_constraints,
)
from webhook.wire import Obj

CLAIM_KINDS = frozenset({"ResourceClaim", "ResourceClaimTemplate"})


def _vendor_numa(obj: Obj, ctx: RuleContext) -> Iterator[Finding]:
    for site, facts in analysed(obj, ctx):
        for ref in facts.refs:
            if ref.kind == "attributes" and not ref.alias and is_vendor_numa(ref.qualified, ctx.policy):
                yield Finding(
                    site.path,
                    f"{ref.qualified} is a vendor NUMA attribute; KEP-6072 standardises {STANDARD_NUMA}, which "
                    f"every updated driver publishes and which lines devices of different drivers up",
                    hint=f'device.attributes["{STANDARD_DOMAIN}"].{"?" if ref.optional else ""}numaNode (check your '
                         f'drivers publish it)',
                    span=(ref.span.start, ref.span.end),
                )
    for constraint in constraints(obj, ctx):
        if "/" in constraint.name and is_vendor_numa(constraint.name, ctx.policy):
            yield Finding(
                constraint.path,
                f"{constraint.field} {constraint.name} is a vendor NUMA name: only devices whose driver publishes "
                f"this alias carry it (each driver picks its own aliases), so the constraint cannot place a device "
                f"of a driver that does not; KEP-6072 standardises {STANDARD_NUMA} for every driver",
                hint=f"{constraint.field}: {STANDARD_NUMA} (once all drivers the claim uses publish it)",
            )


# validateDeviceConstraint's text with DRAConsumableCapacity on, "multiple" included (it means "not exactly one").
NO_ATTRIBUTE = 'exactly one of "matchAttribute" or "distinctAttribute" is required, but multiple fields are set'


def _unqualified(obj: Obj, ctx: RuleContext) -> Iterator[Finding]:
    """The API server's validateDeviceConstraint on each constraint's attribute: one is required (which one the
    message names depends on DRAConsumableCapacity), and validateFullyQualifiedName, with a fix as the hint."""
    profile = ctx.policy.profile
    capacity = profile.enabled(CAPACITY_GATE)
    for path, entry in unnamed_constraints(obj, ctx):
        if capacity:
            yield replace(required(path, NO_ATTRIBUTE), hint="set matchAttribute (the devices share its value) or "
                                                              "distinctAttribute (their values differ)")
        elif isinstance(entry.get("distinctAttribute"), str):
            yield replace(required(path.child("matchAttribute")),
                          hint=f"the API server dropped distinctAttribute: {profile.describe(CAPACITY_GATE)}"
                               "; enable the gate, or set matchAttribute")
        else:
            yield replace(required(path.child("matchAttribute")), hint="set matchAttribute: <domain>/<id>")
    for constraint in constraints(obj, ctx):
        found = validate_fully_qualified_name(constraint.name, constraint.path, profile.qualified_name_empty)
        if found:
            bare = constraint.name.rpartition("/")[2] or constraint.name
            hint = (f"qualify it with the driver's domain, e.g. <driver>/{bare}"
                    + (f", or use {STANDARD_NUMA}" if bare.lower().startswith("numa") else ""))
            yield from (replace(f, hint=hint) for f in found)


REQUEST_REF = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"


def _request_refs(obj: Obj, ctx: RuleContext) -> Iterator[Finding]:
    """The API server's validateRequestNameRef on the request names of `constraints[].requests` and
    `config[].requests`: at most `<request>/<subrequest>`, each part a DNS-1123 label, naming one that exists."""
    names = request_names(obj)
    for path, name in request_refs(obj, ctx.policy.profile.short_circuit_max_items):  # 1.34 checks every name
        segments = name.split("/")
        if len(segments) > 2:
            yield invalid(path, name, REQUEST_REF)
            continue
        for segment in segments:
            yield from validate_dns1123_label(segment, path)
        if name not in names:
            yield invalid(path, name, REQUEST_REF)


def _pinned(obj: Obj, ctx: RuleContext) -> Iterator[Finding]:
    for site, facts in analysed(obj, ctx):
        for use in facts.uses:
            if not is_numa(use.ref.qualified, ctx.policy) or use.how not in ("==", "!=", "in"):
                continue
            ids = list(use.literals) if use.literals is not None else [use.literal]
            nodes = [i for i in ids if isinstance(i, int) and not isinstance(i, bool)]
            if use.how == "!=" and nodes == [-1]:
                continue  # `!= -1`: the "has a known NUMA node" guard (drivers publish -1 for unknown), no pin
            if use.unwrap is not None and use.unwrap.fallback_literal in nodes:  # `x.?numaNode.orValue(-1) == -1`:
                nodes = [n for n in nodes if n != use.unwrap.fallback_literal]  # the fallback tests for absence
            yield from _nodes_named(site.path, use.ref.qualified, nodes, (use.span.start, use.span.end),
                                    excludes=use.how == "!=")
        for call in facts.calls:
            if call.name in ("includes", "include") and call.ref is not None and is_numa(call.ref.qualified,
                                                                                        ctx.policy):
                values = [a for arg in call.arg_values for a in arg]  # literals, or what a variable ranges over
                nodes = [a for a in values if isinstance(a, int) and not isinstance(a, bool)]
                yield from _nodes_named(site.path, call.ref.qualified, nodes, (call.span.start, call.span.end))


def _nodes_named(path: FieldPath, name: str, nodes: list[int], span: tuple[int, int],
                 excludes: bool = False) -> Iterator[Finding]:
    """A negative id is no NUMA node: the standard attribute never holds one (KEP-6072: a device without NUMA
    affinity omits it; numa-range denies it in a slice), so testing for it never matches; a vendor attribute's -1
    is its driver's "unknown", which names no node either. The other ids pin the claim to a layout."""
    negative = sorted({n for n in nodes if n < 0})
    if negative and name == STANDARD_NUMA and not excludes:
        shown = ", ".join(map(str, negative))
        yield Finding(
            path,
            f"the selector looks for {name} {shown}, which no device publishes (KEP-6072: a device without NUMA "
            f"affinity omits the attribute), so this test never matches",
            hint=f'!has(device.attributes["{STANDARD_DOMAIN}"].numaNode) selects devices without NUMA affinity',
            span=span,
        )
    pinned = [n for n in nodes if n >= 0]
    if pinned:
        yield _pinned_finding(path, name, pinned, span, excludes=excludes)


def _pinned_finding(path: object, name: str, nodes: list[int], span: tuple[int, int],
                    excludes: bool = False) -> Finding:
    from webhook.fieldpath import FieldPath

    assert isinstance(path, FieldPath)
    shown = ", ".join(str(n) for n in nodes)
    if excludes:
        return Finding(
            path,
            f"the selector excludes NUMA node {shown} by id ({name}): node ids differ between machines, so which "
            f"devices this leaves out depends on each node's layout",
            hint=f"align devices with a constraint instead: constraints: [{{matchAttribute: {STANDARD_NUMA}}}]",
            span=span,
        )
    return Finding(
        path,
        f"the selector pins {name} to NUMA node {shown}: node ids differ between machines, so this claim "
        f"only fits nodes with that layout",
        hint=f"align devices with a constraint instead: constraints: [{{matchAttribute: {STANDARD_NUMA}}}]",
        span=span,
    )


RULES = (
    *selectors_cel.RULES,
    *selectors_lists.RULES,
    Rule("selector-vendor-numa", SELECTOR_KINDS, Action.WARN,
         f"selectors and constraints use the standard {STANDARD_NUMA}, not a vendor NUMA name",
         f"read or match {STANDARD_NUMA} once your drivers publish it", _vendor_numa),
    Rule("constraint-attribute-unqualified", CLAIM_KINDS, Action.DENY,
         "each constraint names an attribute (matchAttribute, or distinctAttribute with DRAConsumableCapacity), "
         "fully qualified (<domain>/<id>)",
         "prefix the attribute with its driver's domain", _unqualified, "kubernetes"),
    Rule("constraint-request-unknown", CLAIM_KINDS, Action.DENY,
         "constraints and config name requests of the claim (<request> or <request>/<subrequest>)",
         "name a request of spec.devices.requests, or a request and one of its firstAvailable subrequests",
         _request_refs, "kubernetes"),
    Rule("selector-numa-pinned", SELECTOR_KINDS, Action.AUDIT,
         "selectors do not hard-code NUMA node ids",
         f"align devices with matchAttribute: {STANDARD_NUMA} instead of naming a node", _pinned),
)
