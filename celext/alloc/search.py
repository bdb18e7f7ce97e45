"""The search itself: upstream's `allocateOne` for one claim on one node, over a flat device list.

`Search` evaluates selectors lazily, in upstream's order: a device already taken by an earlier request is
skipped before any selector runs on it, and a device the search never reaches is never evaluated (a selector
error there must not abort the claim). It consumes capacity and shared counters, refuses devices with a taint
the request does not tolerate, checks constraints as each device is placed and
backtracks exactly, counting placements against draguard's work bound (`Bound`). It keeps the rejection
reached deepest for `celext.alloc.why` to report.

`Search.validate` is upstream's `validateDeviceRequest` for `allocationMode: All` requests, run for every
request and subrequest before the search: it evaluates the selectors on every device of the node (a CEL
error aborts the claim even when an earlier firstAvailable subrequest would have fitted), leaves out the
devices without room for the requested capacity, and counts them towards the 32-device claim limit.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator, Mapping, Sequence
from decimal import Decimal
from typing import Any

from msgspec import Struct, field

from celext.alloc.capacity import Consumed, consume, show_amount
from celext.alloc.claim import MAX_DEVICES, ClaimError, Entry, Request
from celext.alloc.constraints import Constraint, Rejection
from celext.alloc.pools import Counters, Device, Node, device_on_node
from celext.alloc.taints import untolerated
from celext.errors import CompileError, EvaluationError

EMPTY_KEY_HINT = (". consider using CEL optional chaining (.? followed by orValue()) or guarding the check "
                  "with has() for optional fields")  # cel.EnhanceRuntimeError, as the allocator adds it

# expression, wire device, driver -> bool; raises celext.CompileError / celext.EvaluationError
Matcher = Callable[[str, Mapping[str, Any], str], bool]


class Bound(Exception):
    pass


class Pick(Struct, frozen=True):
    request: str  # "req" or "req/sub"
    device: Device



class Search(Struct):
    """One node, one claim: upstream's allocateOne over a flat device list in pool order."""

    claim: str
    entries: Sequence[Entry]
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
    evaluated: dict[str, int] = field(default_factory=dict)  # per request: devices whose answer is in memo
    found: dict[str, list[int]] = field(default_factory=dict)  # per request, once every device is evaluated
    all_devices: dict[str, list[int]] = field(default_factory=dict)  # validate(): the devices of All requests
    # the rejection met with the most devices placed: (devices placed, constraint index, rejection)
    deepest: tuple[int, int, Rejection | None] = (-1, -1, None)
    counters: Mapping[tuple[str, str], Counters] = field(default_factory=dict)  # per pool: its sharedCounters
    used: dict[tuple[str, str], Counters] = field(default_factory=dict)  # per pool: counters the picks consume
    charged: list[bool] = field(default_factory=list)  # per pick: whether it consumed its device's counters
    # the counter shortage met with the most devices placed: (devices placed, why)
    short: tuple[int, str] = (-1, "")

    def selectable(self, request: Request, index: int) -> bool:
        key = (request.name, index)
        hit = self.memo.get(key)
        if hit is None:
            hit = self._evaluate(request, self.devices[index])
            self.memo[key] = hit
            done = self.evaluated[request.name] = self.evaluated.get(request.name, 0) + 1
            if done == len(self.devices):
                self.found[request.name] = [i for i in range(len(self.devices)) if self.memo[(request.name, i)]]
        return hit

    def _candidates(self, request: Request, start: int) -> Iterator[int]:
        """Device indices from `start` on that are free and selectable, in upstream's order: the in-use check
        first, then the selectors (only on devices the search reaches)."""
        found = self.found.get(request.name)
        if found is not None:  # every device evaluated: only the selectable ones need looking at
            for i in found[bisect_left(found, start):]:
                if self.devices[i].id not in self.in_use:
                    yield i
            return
        for i in range(start, len(self.devices)):
            if self.devices[i].id in self.in_use:
                continue
            if self.selectable(request, i):
                yield i

    def validate(self, skipped: Mapping[str, str]) -> None:
        """Upstream validateDeviceRequest for every All request and subrequest, in claim order, then the claim
        limit on the fewest devices the claim can take. Raises ClaimError as Allocate returns it."""
        # GatherPools' order: pools by ID, incomplete and invalid ones among them, those with binding conditions last
        late = {(d.driver, d.pool) for d in self.devices if d.wire.get("bindingConditions") is not None}
        keys = sorted({(d.driver, d.pool) for d in self.devices} - late | {_split(k) for k in skipped})
        keys += sorted(late)
        fewest = 0
        for entry in self.entries:
            least = None
            for request in entry.options:
                if request.all_devices:
                    self.all_devices[request.name] = self._all(request, keys, skipped)
                    n = len(self.all_devices[request.name])
                else:
                    n = request.count
                least = n if least is None else min(least, n)
            fewest += least or 0
        if fewest > MAX_DEVICES:
            raise ClaimError(f"claim {self.claim}: number of requested devices {fewest} exceeds the claim limit "
                             f"of {MAX_DEVICES}")

    def _all(self, request: Request, keys: Sequence[tuple[str, str]], skipped: Mapping[str, str]) -> list[int]:
        by_pool: dict[tuple[str, str], list[int]] = {}
        for i, d in enumerate(self.devices):
            by_pool.setdefault((d.driver, d.pool), []).append(i)
        chosen = []
        for key in keys:
            state = skipped.get(f"{key[0]}/{key[1]}")
            if state is not None:
                raise ClaimError(f"claim {self.claim}, request {request.name.rpartition('/')[2]}: asks for all "
                                 f"devices, but resource pool {key[0]}/{key[1]} is currently {state}")
            for i in by_pool.get(key, ()):
                # CmpRequestOverCapacity: a device without room is left out of "all", not a failure
                if self.selectable(request, i) and not isinstance(self._room(request, self.devices[i]), str):
                    chosen.append(i)
        return chosen

    def _evaluate(self, request: Request, device: Device) -> bool:
        for i, expression in enumerate(request.class_selectors):
            if not self._run(expression, device, request, i, of_class=True):
                return False
        for i, expression in enumerate(request.selectors):
            if not self._run(expression, device, request, i, of_class=False):
                return False
        return device_on_node(device, self.node)

    def _run(self, expression: str, device: Device, request: Request, index: int, *, of_class: bool) -> bool:
        # (called for every device a request reaches: the error's words are put together only on an error)
        try:
            return self.matcher(expression, device.wire, device.driver)
        except (CompileError, EvaluationError) as err:
            owner = f"class {request.class_name}" if of_class else f"claim {self.claim}"
            if isinstance(err, CompileError):
                raise ClaimError(f"{owner}: selector #{index}: CEL compile error: {err}") from None
            raise ClaimError(f"{owner}: selector #{index} on device {device.id}: CEL runtime error: "
                             f"{enhance(str(err))}") from None

    def run(self, index: int = 0) -> bool:
        if index == len(self.entries):
            return True
        entry = self.entries[index]
        # firstAvailable: the first subrequest that leads to a full allocation wins
        return any(self._fill(index, option, 0, 0) for option in entry.options)

    def _fill(self, index: int, request: Request, placed: int, start: int) -> bool:
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

    def _fill_all(self, index: int, request: Request) -> bool:
        chosen = [self.devices[i] for i in self.all_devices.get(request.name, ())]
        if not chosen or len(self.picks) + len(chosen) > MAX_DEVICES:
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

    def _room(self, request: Request, device: Device) -> Consumed | str:
        taken = self.taken.get(device.id)
        if taken:  # what is left depends on earlier shares of this device
            return consume(request.capacity, device.wire, device.driver, taken)
        key = (request.name, device.id)
        hit = self.room.get(key)
        if hit is None:
            hit = self.room[key] = consume(request.capacity, device.wire, device.driver)
        return hit

    def _place(self, request: Request, device: Device, *, must: bool = False) -> bool:
        self.steps += 1
        if self.steps > self.max_steps:
            raise Bound
        consumed = self._room(request, device)
        if isinstance(consumed, str) and not must:
            return False  # CmpRequestOverCapacity: skip the device (explain_why reports it)
        # allocateDevice: shared counters (once per device, not per share), then taints, then the constraints;
        # a refusal gives the counters back (kubernetes#140431)
        charged = bool(device.consumes) and not (device.shareable and any(p.device.id == device.id for p in self.picks))
        if charged and not self._charge(device):
            return False
        if device.tainted and untolerated(device.wire, request.tolerations) is not None:
            if charged:
                self._charge(device, sign=-1)
            return False
        for k, constraint in enumerate(self.constraints):
            problem = constraint.add(request.name, device.id, device.wire, device.driver)
            if problem is not None:
                if charged:
                    self._charge(device, sign=-1)
                if must:
                    raise ClaimError(f"claim {self.claim}, request {request.name.rpartition('/')[2]}: cannot add "
                                     f"device {device.id} because a claim constraint would not be satisfied")
                for undo in reversed(self.constraints[:k]):
                    undo.remove(request.name)
                if len(self.picks) > self.deepest[0]:
                    self.deepest = (len(self.picks), k, problem)
                return False
        if isinstance(consumed, str):
            # An All device whose room was taken by an earlier request of the claim: upstream's allocateDevice
            # checks capacity after the constraints and returns without taking them back.
            if charged:
                self._charge(device, sign=-1)
            return False
        self.picks.append(Pick(request.name, device))
        self.charged.append(charged)
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
        if self.charged.pop():
            self._charge(pick.device, sign=-1)
        self.in_use.discard(pick.device.id)
        if pick.device.shareable:
            taken = self.taken[pick.device.id]
            for name, amount in consumed.items():
                taken[name] -= amount
        for constraint in reversed(self.constraints):
            constraint.remove(pick.request)


    def _charge(self, device: Device, sign: int = 1) -> bool:
        """Consume (sign -1: give back) the device's counters from its pool's sharedCounters; False, with
        nothing consumed, when some counter would be exceeded (upstream checkAvailableCounters)."""
        consumptions = device.consumes
        if not consumptions:
            return True
        pool = (device.driver, device.pool)
        used = self.used.setdefault(pool, {})
        available = self.counters.get(pool, {})
        if sign > 0:
            for counter_set, name, amount in consumptions:
                total = available.get(counter_set, {}).get(name, Decimal(0))
                already = used.get(counter_set, {}).get(name, Decimal(0))
                if already + amount > total:
                    if len(self.picks) > self.short[0]:
                        self.short = (len(self.picks), (
                            f"device {device.id} consumes {show_amount(amount)} of counter {counter_set}/{name} in "
                            f"pool {device.driver}/{device.pool}, which has {show_amount(total)}" + (
                                f" ({show_amount(already)} already consumed by the devices placed before it)"
                                if already else "")))
                    return False
        for counter_set, name, amount in consumptions:
            counts = used.setdefault(counter_set, {})
            counts[name] = counts.get(name, Decimal(0)) + sign * amount
        return True


def _split(pool: str) -> tuple[str, str]:
    driver, _, name = pool.partition("/")  # a driver name has no slash; a pool name may
    return driver, name


def enhance(message: str) -> str:
    if "no such key:" in message and EMPTY_KEY_HINT not in message:
        return message + EMPTY_KEY_HINT
    return message
