"""The search itself: upstream's `allocateOne` for one claim on one node, over a flat device list.

`Search` evaluates selectors lazily (only as far as the search reaches, since a selector error on a device
the scheduler never reaches must not abort the claim), consumes capacity, checks constraints as each device
is placed and backtracks exactly, counting placements against draguard's work bound (`Bound`). It keeps the
rejection reached deepest for `celext.alloc.why` to report.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from celext.alloc.capacity import Consumed, consume
from celext.alloc.claim import MAX_DEVICES, ClaimError, Entry, Request
from celext.alloc.constraints import Constraint, Rejection
from celext.alloc.pools import Device, Node, device_on_node

EMPTY_KEY_HINT = (". consider using CEL optional chaining (.? followed by orValue()) or guarding the check "
                  "with has() for optional fields")  # cel.EnhanceRuntimeError, as the allocator adds it

# expression, wire device, driver -> bool; raises celext.CompileError / celext.EvaluationError
Matcher = Callable[[str, Mapping[str, Any], str], bool]


class Bound(Exception):
    pass


@dataclass(frozen=True, slots=True)
class Pick:
    request: str  # "req" or "req/sub"
    device: Device



@dataclass(slots=True)
class Search:
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
    found: dict[str, list[int]] = field(default_factory=dict)  # selectable indices below upto, per request
    upto: dict[str, int] = field(default_factory=dict)
    # the rejection met with the most devices placed: (devices placed, constraint index, rejection)
    deepest: tuple[int, int, Rejection | None] = (-1, -1, None)

    def selectable(self, request: Request, index: int) -> bool:
        key = (request.name, index)
        hit = self.memo.get(key)
        if hit is None:
            hit = self.memo[key] = self._evaluate(request, self.devices[index])
        return hit

    def _candidates(self, request: Request, start: int) -> Iterator[int]:
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

    def _evaluate(self, request: Request, device: Device) -> bool:
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

    def _place(self, request: Request, device: Device, *, must: bool = False) -> bool:
        self.steps += 1
        if self.steps > self.max_steps:
            raise Bound
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
