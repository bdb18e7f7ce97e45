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
  `allowMultipleAllocations` serve several requests while their capacity lasts (`celext.capacity`);
- constraints are checked as each device is placed (see `celext.constraints`), and the search
  backtracks exactly, as upstream does, up to a bound on work;
- a CEL error in a selector aborts the claim with the allocator's message, not "no match".

draguard's own parts: the reasons reported when nothing fits (the first request without enough
candidates, else the constraint rejection reached deepest in the search, with the values of every
candidate), the work bound, the early answer for a hopeless matchAttribute once a search runs long
(`explain_why.infeasible`), and what is not modelled (shared counters, taints, devices
already allocated to other claims: every claim is explained against an empty cluster).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from celext.capacity import Consumed, consume
from celext.constraints import (
    Constraint,
    MatchAttribute,
    Rejection,
    Semantics,
    ValueSet,
    attribute_as_set,
    lookup_attribute,
    make_constraint,
    render_attribute,
)
from celext.pools import Device, Node, device_on_node, pools_for_node

NUMA_NODE = "resource.kubernetes.io/numaNode"
MAX_DEVICES = 32  # resourceapi.AllocationResultsMaxSize
DEFAULT_MAX_STEPS = 200_000  # draguard's own bound on placement attempts per node
PROBE_STEPS = 2_000  # draguard's own: placements tried before checking whether a constraint is hopeless
EMPTY_KEY_HINT = (". consider using CEL optional chaining (.? followed by orValue()) or guarding the check "
                  "with has() for optional fields")  # cel.EnhanceRuntimeError, as the allocator adds it

Status = Literal["fits", "no-fit", "error", "bound"]
# expression, wire device, driver -> bool; raises celext.CompileError / celext.EvaluationError
Matcher = Callable[[str, Mapping[str, Any], str], bool]
Obj = Mapping[str, Any]


class ClaimError(Exception):
    """The allocator aborts the claim (upstream message), e.g. a CEL runtime error or a missing class."""


class _Bound(Exception):
    pass


@dataclass(frozen=True, slots=True)
class Pick:
    request: str  # "req" or "req/sub"
    device: Device


@dataclass(frozen=True, slots=True)
class NodeResult:
    node: str
    status: Status
    picks: tuple[Pick, ...] = ()
    common: tuple[tuple[str, str], ...] = ()  # (constraint label, values every chosen device shares)
    numa: str = ""  # the numaNode values all chosen devices share ("" when none publishes it)
    reason: str = ""
    details: tuple[str, ...] = ()
    steps: int = 0


@dataclass(frozen=True, slots=True)
class ClaimResult:
    claim: str  # "ResourceClaim test/q0"
    nodes: tuple[NodeResult, ...] = ()
    error: str = ""  # the claim cannot be allocated anywhere (missing class, bad request)
    notes: tuple[str, ...] = ()  # about the claim itself, e.g. fields Kubernetes does not know

    @property
    def fits(self) -> bool:
        return any(n.status == "fits" for n in self.nodes)


@dataclass(frozen=True, slots=True)
class _Request:
    name: str  # "req" or "req/sub"
    class_name: str
    class_selectors: tuple[str, ...]
    selectors: tuple[str, ...]
    all_devices: bool
    count: int
    capacity: Obj  # exactly.capacity.requests: capacity name -> quantity


@dataclass(frozen=True, slots=True)
class _Entry:
    name: str
    options: tuple[_Request, ...]  # one for `exactly`; the subrequests in order for `firstAvailable`
    first_available: bool


def celext_matcher() -> Matcher:
    """Selectors evaluated with `celext.compile`, each device converted to CEL once."""
    import celext

    converted: dict[int, tuple[Obj, Any]] = {}

    def matches(expression: str, device: Obj, driver: str) -> bool:
        hit = converted.get(id(device))
        if hit is None or hit[0] is not device:
            hit = (device, celext.to_device(device, driver))
            converted[id(device)] = hit
        # the contract: Selector.matches also takes what to_device returned
        selector: Any = celext.compile(expression)
        return bool(selector.matches(hit[1], driver))

    return matches


def claim_label(obj: Obj) -> str:
    meta = _map(obj.get("metadata"))
    name, namespace = str(meta.get("name") or "<unnamed>"), meta.get("namespace")
    return f"{namespace}/{name}" if namespace else name  # klog.KObj


def claim_devices(obj: Obj) -> Obj:
    spec = _map(obj.get("spec"))
    if obj.get("kind") == "ResourceClaimTemplate":
        spec = _map(spec.get("spec"))
    devices = spec.get("devices")
    return devices if isinstance(devices, Mapping) else {}


def _map(value: Any) -> Obj:
    return value if isinstance(value, Mapping) else {}


def _strings(items: Any) -> list[Any]:
    return items if isinstance(items, list) else []


def _selectors(raw: Any, where: str) -> tuple[str, ...]:
    out = []
    for i, selector in enumerate(_strings(raw)):
        cel = selector.get("cel") if isinstance(selector, Mapping) else None
        expression = cel.get("expression") if isinstance(cel, Mapping) else None
        if not isinstance(expression, str):
            raise ClaimError(f"{where}, selector #{i}: CEL expression empty (unsupported selector type?)")
        out.append(expression)
    return tuple(out)


def _request(raw: Obj, name: str, claim: str, classes: Mapping[str, Obj]) -> _Request:
    class_name = raw.get("deviceClassName")
    if not isinstance(class_name, str) or not class_name:
        raise ClaimError(f"claim {claim}, request {name}: missing device class name (unsupported request type?)")
    device_class = classes.get(class_name)
    if device_class is None:
        raise ClaimError(f"claim {claim}, request {name}: could not retrieve device class {class_name}: "
                         f'deviceclass.resource.k8s.io "{class_name}" not found')
    spec = _map(device_class.get("spec"))
    mode = raw.get("allocationMode") or "ExactCount"
    if mode not in ("ExactCount", "All"):
        raise ClaimError(f"claim {claim}, request {name}: unsupported count mode {mode}")
    count = raw.get("count", 1)
    if mode == "ExactCount" and (not isinstance(count, int) or isinstance(count, bool) or count <= 0):
        # API validation refuses such a claim (count must be greater than zero); do not guess one
        raise ClaimError(f"claim {claim}, request {name}: count must be a positive integer, not {count!r}")
    capacity = _map(_map(raw.get("capacity")).get("requests"))
    return _Request(name, class_name, _selectors(spec.get("selectors"), f"class {class_name}"),
                    _selectors(raw.get("selectors"), f"claim {claim}, request {name}"),
                    mode == "All", count if isinstance(count, int) else 1, capacity)


def parse_claim(obj: Obj, classes: Mapping[str, Obj], semantics: Semantics
                ) -> tuple[list[_Entry], list[Constraint]]:
    """Requests and constraints of a claim or template; ClaimError where upstream refuses the claim."""
    claim, devices = claim_label(obj), claim_devices(obj)
    entries = []
    for item in _strings(devices.get("requests")):
        raw = _map(item)
        name = str(raw.get("name") or "")
        subs = _strings(raw.get("firstAvailable"))
        if subs:
            options = tuple(_request(s, f"{name}/{s.get('name')}", claim, classes) for s in subs
                            if isinstance(s, Mapping))
            entries.append(_Entry(name, options, True))
        else:
            exact = _map(raw.get("exactly")) or raw  # v1beta1 shape
            entries.append(_Entry(name, (_request(exact, name, claim, classes),), False))
    constraints = []
    for i, spec in enumerate(_strings(devices.get("constraints"))):
        made = make_constraint(spec if isinstance(spec, Mapping) else {}, semantics)
        if made is None:
            raise ClaimError(f"claim {claim}, constraint #{i}: empty constraint (unsupported constraint type?)")
        constraints.append(made)
    return entries, constraints


CONSTRAINT_FIELDS = frozenset({"requests", "matchAttribute", "distinctAttribute"})


def claim_notes(obj: Obj) -> tuple[str, ...]:
    """Constraint fields the Kubernetes API does not have (e.g. a fork's `enforcement: Preferred`), and a
    claim that requests nothing (it allocates trivially everywhere)."""
    notes = []
    if not _strings(claim_devices(obj).get("requests")):
        notes.append("the claim requests no devices: there is nothing to allocate")
    for i, spec in enumerate(_strings(claim_devices(obj).get("constraints"))):
        for name in sorted(set(_map(spec)) - CONSTRAINT_FIELDS):
            notes.append(f'constraint #{i}: field "{name}" is not part of the Kubernetes DeviceConstraint API '
                         "(the API server drops it); the constraint is enforced as written without it")
    return tuple(notes)


def check_claim(entries: Sequence[_Entry], claim: str) -> None:
    fewest = sum(min(o.count if not o.all_devices else 0 for o in e.options) for e in entries)
    if fewest > MAX_DEVICES:
        raise ClaimError(f"claim {claim}: number of requested devices {fewest} exceeds the claim limit "
                         f"of {MAX_DEVICES}")


@dataclass(slots=True)
class _Search:
    """One node, one claim: upstream's allocateOne over a flat device list in pool order."""

    claim: str
    entries: Sequence[_Entry]
    constraints: Sequence[Constraint]
    devices: Sequence[Device]
    matcher: Matcher
    node: Node
    max_steps: int
    steps: int = 0
    picks: list[Pick] = field(default_factory=list)
    in_use: set[str] = field(default_factory=set)
    taken: dict[str, Consumed] = field(default_factory=dict)  # capacity shares of shareable devices so far
    consumed: list[Consumed] = field(default_factory=list)  # per pick, to give it back on backtracking
    room: dict[tuple[str, str], Consumed | str] = field(default_factory=dict)  # consume() on an untouched device
    memo: dict[tuple[str, int], bool] = field(default_factory=dict)
    found: dict[str, list[int]] = field(default_factory=dict)  # selectable indices below upto, per request
    upto: dict[str, int] = field(default_factory=dict)
    # the rejection met with the most devices placed: (devices placed, constraint index, rejection)
    deepest: tuple[int, int, Rejection | None] = (-1, -1, None)

    def selectable(self, request: _Request, index: int) -> bool:
        key = (request.name, index)
        hit = self.memo.get(key)
        if hit is None:
            hit = self.memo[key] = self._evaluate(request, self.devices[index])
        return hit

    def _candidates(self, request: _Request, start: int) -> Iterator[int]:
        """Selectable device indices from `start` on, evaluating selectors only as far as the search
        reaches (a selector error on a device the scheduler never reaches must not abort the claim)."""
        found = self.found.setdefault(request.name, [])
        position = bisect_left(found, start)
        while True:
            if position < len(found):
                position += 1
                yield found[position - 1]
                continue
            upto = self.upto.get(request.name, 0)
            if upto >= len(self.devices):
                return
            self.upto[request.name] = upto + 1
            if self.selectable(request, upto) and upto >= start:
                found.append(upto)
            elif upto < start and self.memo[(request.name, upto)]:
                found.append(upto)
                position = len(found)  # below start: recorded, not yielded

    def _evaluate(self, request: _Request, device: Device) -> bool:
        for owner, selectors in ((f"class {request.class_name}", request.class_selectors),
                                 (f"claim {self.claim}", request.selectors)):
            for i, expression in enumerate(selectors):
                if not self._run(expression, device, f"{owner}: selector #{i}"):
                    return False
        return device_on_node(device, self.node)

    def _run(self, expression: str, device: Device, where: str) -> bool:
        from celext.errors import CompileError, EvaluationError

        try:
            return self.matcher(expression, device.wire, device.driver)
        except CompileError as err:
            raise ClaimError(f"{where}: CEL compile error: {err}") from None
        except EvaluationError as err:
            raise ClaimError(f"{where} on device {device.id}: CEL runtime error: {enhance(str(err))}") from None

    def run(self, index: int = 0) -> bool:
        if index == len(self.entries):
            return True
        entry = self.entries[index]
        # firstAvailable: the first subrequest that leads to a full allocation wins
        return any(self._fill(index, option, 0, 0) for option in entry.options)

    def _fill(self, index: int, request: _Request, placed: int, start: int) -> bool:
        if request.all_devices:
            return self._fill_all(index, request)
        if placed == request.count:
            return self.run(index + 1)
        if len(self.picks) + request.count - placed > MAX_DEVICES:
            return False
        for i in self._candidates(request, start):
            device = self.devices[i]
            if device.id in self.in_use:
                continue
            if not self._place(request, device):
                continue
            if self._fill(index, request, placed + 1, i + 1):
                return True
            self._unplace()
        return False

    def _fill_all(self, index: int, request: _Request) -> bool:
        chosen = [d for i, d in enumerate(self.devices) if self.selectable(request, i)]
        if not chosen:
            return False
        placed = 0
        for device in chosen:
            if device.id in self.in_use or not self._place(request, device, must=True):
                break
            placed += 1
        else:
            if self.run(index + 1):
                return True
        for _ in range(placed):
            self._unplace()
        return False

    def _place(self, request: _Request, device: Device, *, must: bool = False) -> bool:
        self.steps += 1
        if self.steps > self.max_steps:
            raise _Bound
        taken = self.taken.get(device.id)
        if taken:  # what is left depends on earlier shares of this device
            consumed = consume(request.capacity, device.wire, device.driver, taken)
        else:
            key = (request.name, device.id)
            hit = self.room.get(key)
            if hit is None:
                hit = self.room[key] = consume(request.capacity, device.wire, device.driver)
            consumed = hit
        if isinstance(consumed, str):
            return False  # CmpRequestOverCapacity: skip the device (explain_why reports it)
        for k, constraint in enumerate(self.constraints):
            problem = constraint.add(request.name, device.id, device.wire, device.driver)
            if problem is not None:
                for undo in reversed(self.constraints[:k]):
                    undo.remove(request.name)
                if must:
                    raise ClaimError(f"claim {self.claim}, request {request.name.rpartition('/')[2]}: cannot add "
                                     f"device {device.id} because a claim constraint would not be satisfied")
                if len(self.picks) > self.deepest[0]:
                    self.deepest = (len(self.picks), k, problem)
                return False
        self.picks.append(Pick(request.name, device))
        if not device.shareable:
            self.in_use.add(device.id)
        else:  # shares of one device add up (allocatingCapacity)
            taken = self.taken.setdefault(device.id, {})
            for name, amount in consumed.items():
                taken[name] = taken.get(name, Decimal(0)) + amount
        self.consumed.append(consumed)
        return True

    def _unplace(self) -> None:
        pick = self.picks.pop()
        consumed = self.consumed.pop()
        self.in_use.discard(pick.device.id)
        if pick.device.shareable:
            taken = self.taken[pick.device.id]
            for name, amount in consumed.items():
                taken[name] -= amount
        for constraint in reversed(self.constraints):
            constraint.remove(pick.request)


def enhance(message: str) -> str:
    if "no such key:" in message and EMPTY_KEY_HINT not in message:
        return message + EMPTY_KEY_HINT
    return message


def explain_on_node(obj: Obj, classes: Mapping[str, Obj], slices: Sequence[Obj], node: Node, *,
                    semantics: Semantics = "list", matcher: Matcher | None = None,
                    max_steps: int = DEFAULT_MAX_STEPS) -> NodeResult:
    """Allocate one claim (or template) on one node, or say why it cannot. Raises ClaimError."""
    claim = claim_label(obj)
    entries, constraints = parse_claim(obj, classes, semantics)
    check_claim(entries, claim)
    devices, notes, skipped = pools_for_node(slices, node)
    everything = next((r for r in iter_requests(entries) if r.all_devices), None)
    if everything is not None and skipped:
        pool, state = next(iter(skipped.items()))
        return NodeResult(node.name, "error", reason=(
            f"claim {claim}, request {everything.name.rpartition('/')[2]}: asks for all devices, but resource pool "
            f"{pool} is currently {state}"), details=tuple(notes))
    from celext.explain_why import infeasible, why_not

    matcher = matcher or celext_matcher()
    search = _Search(claim, entries, constraints, devices, matcher, node, min(max_steps, PROBE_STEPS))
    try:
        try:
            found = search.run()
        except _Bound:
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
            search = _Search(claim, entries, constraints, devices, matcher, node, max_steps, memo=search.memo,
                             found=search.found, upto=search.upto, room=search.room)
            found = search.run()
    except _Bound:
        return NodeResult(node.name, "bound", reason=(
            f"search stopped after {max_steps} placement attempts (the work bound) without an answer; "
            "narrow the selectors or raise --max-steps"), details=tuple(notes), steps=search.steps)
    except ClaimError as err:
        return NodeResult(node.name, "error", reason=str(err), details=tuple(notes), steps=search.steps)
    if found:
        return NodeResult(node.name, "fits", tuple(search.picks), _commons(constraints), _numa(search.picks),
                          details=tuple(notes), steps=search.steps)
    reason, details = why_not(search, notes)
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
    try:
        check_claim(parse_claim(obj, classes, semantics)[0], claim_label(obj))
    except ClaimError as err:
        return ClaimResult(label, error=str(err), notes=notes)
    matcher = matcher or celext_matcher()
    return ClaimResult(label, tuple(explain_on_node(obj, classes, slices, n, semantics=semantics, matcher=matcher,
                                                    max_steps=max_steps) for n in nodes), notes=notes)


def iter_requests(entries: Sequence[_Entry]) -> Iterator[_Request]:
    for entry in entries:
        yield from entry.options
