"""Why a claim will or will not allocate on a node: the structured allocator's search, explained.

Mirrors kube-scheduler's DRA allocator (`k8s.io/dynamic-resource-allocation`, `structured/internal/
experimental`: `GatherPools`, `validateDeviceRequest`, `allocateOne`, `isSelectable`,
`selectorsMatch`, `allocateDevice`) for one claim at a time:

- the node sees its own slices plus slices for all nodes or with a matching node selector (and,
  with `perDeviceNodeSelection`, the devices whose own node fields match); per pool only the newest
  generation counts; incomplete or invalid pools are skipped; pools are tried in (driver, pool)
  order, slices by name, devices in slice order, so the first allocation found is the one the
  scheduler would pick;
- a device is a candidate for a request when all class selectors and then all request selectors
  match; requests are served in order, `exactly` with `count` (combinations, never permutations)
  or `allocationMode: All`, `firstAvailable` subrequests tried in order;
- capacity requests consume what the device publishes, rounded by its request policy; devices with
  `allowMultipleAllocations` serve several requests while their capacity lasts (`celext.alloc.capacity`);
- constraints are checked as each device is placed (see `celext.alloc.constraints`), and the search
  backtracks exactly, as upstream does, up to a bound on work;
- device taints refuse devices the request does not tolerate, and shared counters limit what the devices
  of a pool take together (`celext.alloc.search`);
- a CEL error in a selector aborts the claim with the allocator's message, not "no match".

draguard's own parts: the reasons reported when nothing fits (the first request without enough
candidates, else the constraint rejection reached deepest in the search, with the values of every
candidate), the work bound, the early answer for a hopeless matchAttribute once a search runs long
(`explain_why.infeasible`), and what is not modelled (devices already allocated to other claims: every
claim is explained against an empty cluster).

The claim is read by `celext.alloc.claim`, searched by `celext.alloc.search`, and a failure worded by
`celext.alloc.why`; this module runs them per node and holds the results.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from msgspec import Struct

from celext.alloc.claim import (
    CONSTRAINT_FIELDS,
    MAX_DEVICES,
    ClaimError,
    Obj,
    check_claim,
    claim_devices,
    claim_label,
    claim_notes,
    iter_requests,
    parse_claim,
)
from celext.alloc.constraints import (
    Constraint,
    MatchAttribute,
    Semantics,
    ValueSet,
    attribute_as_set,
    lookup_attribute,
    render_attribute,
)
from celext.alloc.pools import Device, Node, node_selector_matches, pools_for_node
from celext.alloc.search import EMPTY_KEY_HINT, Bound, Matcher, Pick, Search, enhance
from celext.alloc.why import infeasible, why_not
from celext.vocabulary import NUMA_NODE

__all__ = [  # the claim and search parts are re-exported: callers import the explainer from here
    "CONSTRAINT_FIELDS", "DEFAULT_MAX_STEPS", "EMPTY_KEY_HINT", "MAX_DEVICES", "PROBE_STEPS",
    "ClaimError", "ClaimResult", "Matcher", "NodeResult", "Obj", "Pick", "Status", "celext_matcher", "check_claim",
    "claim_devices", "claim_label", "claim_notes", "enhance", "explain", "explain_on_node", "iter_requests",
    "parse_claim",
]

DEFAULT_MAX_STEPS = 200_000  # draguard's own bound on placement attempts per node
PROBE_STEPS = 2_000  # draguard's own: placements tried before checking whether a constraint is hopeless

Status = Literal["fits", "no-fit", "error", "bound"]


class NodeResult(Struct, frozen=True):
    node: str
    status: Status
    picks: tuple[Pick, ...] = ()
    common: tuple[tuple[str, str], ...] = ()  # (constraint label, values every chosen device shares)
    numa: str = ""  # the numaNode values all chosen devices share ("" when none publishes it)
    reason: str = ""
    details: tuple[str, ...] = ()
    steps: int = 0


class ClaimResult(Struct, frozen=True):
    claim: str  # "ResourceClaim test/q0"
    nodes: tuple[NodeResult, ...] = ()
    error: str = ""  # the claim cannot be allocated anywhere (missing class, bad request)
    notes: tuple[str, ...] = ()  # about the claim itself, e.g. fields Kubernetes does not know

    @property
    def fits(self) -> bool:
        return any(n.status == "fits" for n in self.nodes)



def celext_matcher() -> Matcher:
    """Selectors evaluated with `celext.compile`: the compiled engine reads the wire-form devices directly; the
    reference engine (celext.DEFAULT_ENGINE = "reference") gets each device converted to CEL once."""
    import celext

    if celext.DEFAULT_ENGINE != "reference":
        selectors: dict[str, Any] = {}  # the search asks about the same few expressions again and again

        def matches(expression: str, device: Obj, driver: str) -> bool:
            selector = selectors.get(expression)
            if selector is None:
                selector = selectors[expression] = celext.compile(expression)
            return bool(selector.matches(device, driver))

        return matches
    converted: dict[int, tuple[Obj, Any]] = {}

    def matches_converted(expression: str, device: Obj, driver: str) -> bool:
        hit = converted.get(id(device))
        if hit is None or hit[0] is not device:
            hit = (device, celext.to_device(device, driver))
            converted[id(device)] = hit
        # the contract: Selector.matches also takes what to_device returned
        selector: Any = celext.compile(expression)
        return bool(selector.matches(hit[1], driver))

    return matches_converted


def explain_on_node(obj: Obj, classes: Mapping[str, Obj], slices: Sequence[Obj], node: Node, *,
                    semantics: Semantics = "list", matcher: Matcher | None = None,
                    max_steps: int = DEFAULT_MAX_STEPS) -> NodeResult:
    """Allocate one claim (or template) on one node, or say why it cannot. Raises ClaimError."""
    claim = claim_label(obj)
    entries, constraints = parse_claim(obj, classes, semantics)
    check_claim(entries, claim)
    gathered = pools_for_node(slices, node)
    devices, notes, skipped = gathered.devices, gathered.notes, gathered.skipped
    matcher = matcher or celext_matcher()
    search = Search(claim, entries, constraints, devices, matcher, node, min(max_steps, PROBE_STEPS),
                    counters=gathered.counters)
    try:
        try:
            search.validate(skipped)
            found = search.run()
        except Bound:
            if max_steps <= PROBE_STEPS:
                raise
            # A long search: first ask whether some constraint is hopeless (no value shared by the candidates
            # of all its requests), which settles "no fit" without trying every combination.
            hopeless = infeasible(search)
            if hopeless is not None:
                return NodeResult(node.name, "no-fit", reason=hopeless[0], details=(*notes, *hopeless[1]),
                                  steps=search.steps)
            # Else search again in full (fresh constraint trackers; selector answers kept).
            constraints = parse_claim(obj, classes, semantics)[1]
            search = Search(claim, entries, constraints, devices, matcher, node, max_steps, memo=search.memo,
                            evaluated=search.evaluated, found=search.found, all_devices=search.all_devices,
                            room=search.room, counters=gathered.counters)
            found = search.run()
    except Bound:
        return NodeResult(node.name, "bound", reason=(
            f"search stopped after {max_steps} placement attempts (the work bound) without an answer; "
            "narrow the selectors or raise --max-steps"), details=tuple(notes), steps=search.steps)
    except ClaimError as err:
        return NodeResult(node.name, "error", reason=str(err), details=tuple(notes), steps=search.steps)
    if found:
        return NodeResult(node.name, "fits", tuple(search.picks), _commons(constraints), _numa(search.picks),
                          details=tuple(notes), steps=search.steps)
    reason, details = why_not(search, notes)
    if "invalid" in skipped.values():
        # Allocate fails with this error (not "no fit") when nothing fits and some pool was invalid
        reason, details = "invalid resource pools were encountered", (f"without them: {reason}", *details)
    return NodeResult(node.name, "no-fit", reason=reason, details=details, steps=search.steps)


def _commons(constraints: Sequence[Constraint]) -> tuple[tuple[str, str], ...]:
    out = []
    for c in constraints:
        if isinstance(c, MatchAttribute) and c.chosen:
            out.append((c.label(), str(c.common) if c.semantics == "list" else render_attribute(c.chosen[0].attribute)))
    return tuple(out)


def _numa(picks: Sequence[Pick]) -> str:
    common: ValueSet | None = None
    seen = False
    for pick in picks:
        values = attribute_as_set(lookup_attribute(pick.device.wire, pick.device.driver, NUMA_NODE))
        if values is None:
            continue
        common = values if not seen else (common.intersection(values) if common else None)
        seen = True
    if not seen:
        return ""
    return str(common) if common else "none in common"


def explain(obj: Obj, classes: Mapping[str, Obj], slices: Sequence[Obj], nodes: Sequence[Node], *,
            semantics: Semantics = "list", matcher: Matcher | None = None,
            max_steps: int = DEFAULT_MAX_STEPS) -> ClaimResult:
    """`explain_on_node` for each node; a claim-wide refusal is reported once."""
    label = f"{obj.get('kind') or 'ResourceClaim'} {claim_label(obj)}"
    notes = claim_notes(obj)
    allocation = _map(obj.get("status")).get("allocation") if obj.get("kind") != "ResourceClaimTemplate" else None
    if isinstance(allocation, Mapping):
        return ClaimResult(label, tuple(_allocated(allocation, slices, n) for n in nodes), notes=notes)
    try:
        check_claim(parse_claim(obj, classes, semantics)[0], claim_label(obj))
    except ClaimError as err:
        return ClaimResult(label, error=str(err), notes=notes)
    matcher = matcher or celext_matcher()
    return ClaimResult(label, tuple(explain_on_node(obj, classes, slices, n, semantics=semantics, matcher=matcher,
                                                    max_steps=max_steps) for n in nodes), notes=notes)



def _map(value: Any) -> Obj:
    return value if isinstance(value, Mapping) else {}


def _allocated(allocation: Obj, slices: Sequence[Obj], node: Node) -> NodeResult:
    """A claim with `status.allocation`: the scheduler does not allocate it again; the pod fits a node only where
    the allocation's nodeSelector (none: every node) selects it (the DynamicResources plugin's Filter)."""
    selector = allocation.get("nodeSelector")
    details = ("the claim is already allocated (status.allocation): the scheduler keeps that allocation and does not "
               "search again",)
    if isinstance(selector, Mapping) and not node_selector_matches(selector, node):
        return NodeResult(node.name, "no-fit", reason="resourceclaim not available on the node", details=(
            *details, "the allocation's nodeSelector does not select this node"))
    wires = {(_map(s.get("spec")).get("driver"), _map(_map(s.get("spec")).get("pool")).get("name"), d.get("name")): d
             for s in slices for d in _map(s.get("spec")).get("devices") or () if isinstance(d, Mapping)}
    picks = []
    for item in _map(allocation.get("devices")).get("results") or ():
        result = _map(item)
        driver, pool, name = (str(result.get(k) or "") for k in ("driver", "pool", "device"))
        wire = wires.get((driver, pool, name), {"name": name})
        picks.append(Pick(str(result.get("request") or ""), Device.of(driver, pool, "", wire)))
    return NodeResult(node.name, "fits", tuple(picks), numa=_numa(picks), details=details)
