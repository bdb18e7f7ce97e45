"""matchAttribute and distinctAttribute over device attribute values, scalar or list (KEP-5491).

Mirrors the structured allocator in `k8s.io/dynamic-resource-allocation`
(`structured/internal/experimental`: `attributeAsSet`, `intersection`, `matchAttributeConstraint`,
`distinctAttributeConstraint`, `lookupAttribute`), in its two modes:

- `list` (allocator feature `ListTypeAttributes`, the experimental allocator kube-scheduler 1.37
  selects only with the alpha gate `DRAListTypeAttributes`): every value is a set, a scalar a
  one-element set. matchAttribute narrows one running intersection in place as devices are added
  and accepts a device only while it stays non-empty. Taking a device back (backtracking) only
  counts it down, as upstream's `remove` does: the narrowed set stays until no device of the
  constraint is left, so after a backtrack the constraint can be stricter than "∩ vₖ ≠ ∅".
- `scalar` (the stable and incubating allocators: kube-scheduler 1.36, and 1.37 by default):
  equality of one scalar value. The first device is always accepted, whatever its value; a later
  device with a list value fails, and a later scalar device fails against a stored list: a list
  fails closed as soon as two devices are involved.

distinctAttribute keeps one value per claim *request* (upstream `attributes[requestName]`, the parent
name for a subrequest): a new device is compared only with the last device placed for each request,
and taking a device back forgets its request's entry entirely. So the devices of a `count: N` request
are only checked against their neighbour, not pairwise. The first device is always accepted. `list`:
a new device's set must be disjoint from each stored set (a stored set it cannot read is skipped);
`scalar`: a new list value is refused once anything is stored, and a stored list never counts as a
duplicate of a scalar.

Values are the wire form of a ResourceSlice attribute (`{"int": 4}`, `{"ints": [6, 4, 5, 7]}`).
Version values compare as strings, as upstream does (no semver normalisation: `1.0.0+a` and
`1.0.0+b` differ here although CEL's semver equality treats them as equal). A type mismatch
(int set against string set) is no intersection. The messages explaining a rejection are
draguard's own: upstream only logs these decisions at verbosity 7.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, cast

from msgspec import Struct, field

from celext.vocabulary import ELEMENT_OF, LIST_MEMBERS, SCALAR_MEMBERS

Semantics = Literal["list", "scalar"]
SEMANTICS: tuple[Semantics, ...] = ("list", "scalar")
ValueType = Literal["int", "bool", "string", "version"]

# Upstream attributeAsSet checks the list fields first (only when non-empty), then the scalars (Go field order).
_LIST_FIELDS = tuple((name, cast(ValueType, ELEMENT_OF[name])) for name in LIST_MEMBERS)
_SET_ORDER: tuple[tuple[str, ValueType], ...] = tuple((name, name) for name in SCALAR_MEMBERS)
# The scalar comparison in the pre-list allocators switches on string, int, bool, version.
_SCALAR_FIELDS: tuple[tuple[str, ValueType], ...] = (
    ("string", "string"), ("int", "int"), ("bool", "bool"), ("version", "version"),
)


class ValueSet(Struct, frozen=True):
    """The values of one attribute as a typed set (upstream `deviceAttributeListAsSet`)."""

    type: ValueType
    values: frozenset[Any]

    def intersection(self, other: ValueSet) -> ValueSet | None:
        """The common values, or None when there are none or the types differ."""
        if self.type != other.type:
            return None
        common = self.values & other.values
        return ValueSet(self.type, common) if common else None

    def __str__(self) -> str:
        return "{" + ", ".join(_show(v) for v in sorted(self.values)) + "}"


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _typed(value: Any, kind: ValueType) -> bool:
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, str)


def attribute_as_set(attribute: Mapping[str, Any] | None) -> ValueSet | None:
    """A wire attribute as a set: non-empty list fields first, then scalars (upstream order).

    None when the attribute is absent, empty (`{}`), holds only empty lists, or holds a value of
    the wrong type (which API validation would have rejected).
    """
    if not isinstance(attribute, Mapping):
        return None
    for name, kind in _LIST_FIELDS:
        items = attribute.get(name)
        if isinstance(items, list) and items:
            if not all(_typed(item, kind) for item in items):
                return None
            return ValueSet(kind, frozenset(items))
    for name, kind in _SET_ORDER:
        value = attribute.get(name)
        if value is not None:
            return ValueSet(kind, frozenset((value,))) if _typed(value, kind) else None
    return None


def scalar_value(attribute: Mapping[str, Any]) -> tuple[ValueType, Any] | None:
    """The scalar field of a wire attribute, in the pre-list allocators' switch order."""
    for name, kind in _SCALAR_FIELDS:
        value = attribute.get(name)
        if value is not None and _typed(value, kind):
            return kind, value
    return None


def render_attribute(attribute: Mapping[str, Any] | None) -> str:
    """A wire value as a user reads it: `4`, `[6, 4, 5, 7]` (list order kept), `(no value)`."""
    if not isinstance(attribute, Mapping):
        return "(absent)"
    for name, _ in _LIST_FIELDS:
        items = attribute.get(name)
        if isinstance(items, list) and items:
            return "[" + ", ".join(_show(v) for v in items) + "]"
    for name, _ in _SET_ORDER:
        value = attribute.get(name)
        if value is not None:
            return _show(value)
    return "(no value)"


def is_list(attribute: Mapping[str, Any] | None) -> bool:
    return isinstance(attribute, Mapping) and any(
        isinstance(attribute.get(name), list) and attribute.get(name) for name, _ in _LIST_FIELDS
    )


def lookup_attribute(device: Mapping[str, Any], driver: str, name: str) -> Mapping[str, Any] | None:
    """The wire attribute `name` (fully qualified) of a device, as upstream `lookupAttribute`.

    The exact key first; else, when the domain is the device's driver, the unqualified ID.
    """
    attributes = device.get("attributes")
    if not isinstance(attributes, Mapping):
        return None
    found = attributes.get(name)
    if found is not None:
        return found if isinstance(found, Mapping) else {}
    domain, slash, ident = name.partition("/")
    if not slash or domain != driver:
        return None
    found = attributes.get(ident)
    if found is None:
        return None
    return found if isinstance(found, Mapping) else {}


class Rejection(Struct, frozen=True):
    """Why a device breaks a constraint; the text is built only when someone reads it (the search
    meets thousands of rejections and reports one)."""

    render: Callable[[], str]

    def __str__(self) -> str:
        return self.render()

    def __eq__(self, other: object) -> bool:
        return str(self) == other if isinstance(other, str) else NotImplemented

    def __hash__(self) -> int:
        return hash(str(self))


def _text(message: str) -> Rejection:
    return Rejection(lambda: message)


class Chosen(Struct, frozen=True):
    """A device a constraint has accepted: who asked for it and the value it brought."""

    request: str
    device: str  # "<driver>/<pool>/<device>"
    attribute: Mapping[str, Any]
    values: ValueSet | None = None  # attribute_as_set(attribute)


class _Tracker(Struct):
    attribute: str
    requests: frozenset[str]
    semantics: Semantics = "list"
    chosen: list[Chosen] = field(default_factory=list)
    # per wire device (keyed by identity; the device is kept so the id stays unique): its attribute and set
    _seen: dict[int, tuple[Mapping[str, Any], Mapping[str, Any] | None, ValueSet | None]] = field(
        default_factory=dict)

    def applies(self, request: str) -> bool:
        """Whether a device for `request` ("req" or "req/sub") counts; no list means every request."""
        if not self.requests:
            return True
        parent, slash, _ = request.partition("/")
        return request in self.requests or (bool(slash) and parent in self.requests)

    def _value(self, device: Mapping[str, Any], driver: str) -> tuple[Mapping[str, Any] | None, ValueSet | None]:
        hit = self._seen.get(id(device))
        if hit is None or hit[0] is not device:
            attribute = lookup_attribute(device, driver, self.attribute)
            hit = (device, attribute, attribute_as_set(attribute))
            self._seen[id(device)] = hit
        return hit[1], hit[2]

    def _read(self, request: str, device_id: str, device: Mapping[str, Any], driver: str
              ) -> tuple[Mapping[str, Any], ValueSet | None] | Rejection | None:
        """What `add` starts with: None when the constraint does not apply to the request (accept),
        a Rejection when the device lacks the attribute, else the attribute and its value set."""
        if not self.applies(request):
            return None
        attribute, values = self._value(device, driver)
        if attribute is None:
            return self._missing(request, device_id)
        return attribute, values

    def _missing(self, request: str, device_id: str) -> Rejection:
        name = self.attribute
        return Rejection(lambda: f"device {device_id} (request {request}) has no attribute {name}")

    def _unusable(self, device_id: str, attribute: Mapping[str, Any]) -> Rejection:
        name = self.attribute
        return Rejection(lambda: f"{name} of device {device_id} has no usable value ({render_attribute(attribute)})")

    def remove(self, request: str) -> None:
        """Take back the latest accepted `add` for a request this tracker applies to (upstream `remove`)."""
        if self.applies(request):
            self._pop(request)

    def _pop(self, request: str) -> None:
        self.chosen.pop()

    def label(self) -> str:
        raise NotImplementedError


class MatchAttribute(_Tracker):
    """matchAttribute: all chosen devices share a value (list: a common element), with upstream's state:
    a device count, the first device's value (scalar) or one intersection narrowed in place (list)."""

    count: int = 0  # upstream numDevices
    intersection: ValueSet | None = None  # list mode: what is left after every add since count was 0
    narrowed_by: list[Chosen] = field(default_factory=list)  # the devices that narrowed it (some taken back)
    first: Chosen | None = None  # scalar mode: upstream m.attribute
    stale_rejections: int = 0  # list mode: rejections by a set that devices taken back had narrowed

    def label(self) -> str:
        return f"matchAttribute {self.attribute}"

    @property
    def common(self) -> ValueSet | None:
        """The values every chosen device shares (list mode), or the first device's set (scalar)."""
        if not self.chosen:
            return None
        if self.semantics == "list":
            common = self.chosen[0].values
            for c in self.chosen[1:]:
                common = common.intersection(c.values) if common is not None and c.values is not None else None
            return common
        return attribute_as_set(self.chosen[0].attribute)

    def add(self, request: str, device_id: str, device: Mapping[str, Any], driver: str) -> Rejection | None:
        """Accept the device (None) or say why it breaks the constraint."""
        read = self._read(request, device_id, device, driver)
        if not isinstance(read, tuple):
            return read
        attribute, new = read
        name = self.attribute
        chosen = Chosen(request, device_id, attribute, new)
        if self.count == 0:  # the first device can always get picked (list: if it has a usable value)
            if self.semantics == "list":
                if new is None:
                    return self._unusable(device_id, attribute)
                self.intersection, self.narrowed_by = new, [chosen]
            else:
                self.first = chosen
        elif self.semantics == "list":
            if new is None:
                return self._unusable(device_id, attribute)
            current = self.intersection
            narrowed = current.intersection(new) if current is not None else None
            if narrowed is None:
                holders, placed = tuple(self.narrowed_by), tuple(self.chosen)
                if len(holders) > len(placed):
                    self.stale_rejections += 1
                return Rejection(lambda: _no_common(name, request, device_id, attribute, current=current,
                                                        holders=holders, placed=placed))
            self.intersection = narrowed
            self.narrowed_by.append(chosen)
        else:
            problem = self._scalar_mismatch(request, device_id, attribute)
            if problem is not None:
                return problem
        self.count += 1
        self.chosen.append(chosen)
        return None

    def _scalar_mismatch(self, request: str, device_id: str, attribute: Mapping[str, Any]) -> Rejection | None:
        name, first = self.attribute, self.first
        assert first is not None
        if is_list(attribute):
            return Rejection(lambda: (
                f"{name} of device {device_id} is the list {render_attribute(attribute)}; without list semantics "
                "a list value cannot match (fails closed)"))
        mine, stored = scalar_value(attribute), scalar_value(first.attribute)
        if mine is None:
            return self._unusable(device_id, attribute)
        if stored is None or mine != stored:
            why = " (a list: fails closed without list semantics)" if is_list(first.attribute) else ""
            return Rejection(lambda: (
                f"{name} {render_attribute(attribute)} of device {device_id} (request {request}) differs from "
                f"{render_attribute(first.attribute)} of device {first.device}{why}"))
        return None

    def _pop(self, request: str) -> None:
        # upstream remove: numDevices-- only; the narrowed intersection (or first value) stays until it is 0
        self.chosen.pop()
        self.count -= 1


def _no_common(name: str, request: str, device_id: str, attribute: Mapping[str, Any], *, current: ValueSet | None,
               holders: Sequence[Chosen], placed: Sequence[Chosen]) -> str:
    text = (f"{name} {render_attribute(attribute)} of device {device_id} (request {request}) has nothing in common "
            f"with {current}, the values shared by {_holders(holders)}")
    here = {c.device for c in placed}
    gone = [c.device for c in holders if c.device not in here]
    if gone:
        text += (f" ({', '.join(gone)} taken back by the search; the allocator keeps the set they narrowed "
                 "while devices of this constraint remain placed)")
    return text


def _holders(chosen: Sequence[Chosen]) -> str:
    return ", ".join(f"{c.device} {render_attribute(c.attribute)}" for c in chosen)


class DistinctAttribute(_Tracker):
    """distinctAttribute with upstream's state: a device count and one value per claim request (the last
    device placed for it)."""

    count: int = 0  # upstream numDevices
    by_request: dict[str, Chosen] = field(default_factory=dict)  # upstream attributes[requestName]

    def label(self) -> str:
        return f"distinctAttribute {self.attribute}"

    def add(self, request: str, device_id: str, device: Mapping[str, Any], driver: str) -> Rejection | None:
        read = self._read(request, device_id, device, driver)
        if not isinstance(read, tuple):
            return read
        attribute, new = read
        if self.count:
            if self.semantics == "list":
                rejection = self._list_clash(request, device_id, attribute, new)
            else:
                rejection = self._scalar_clash(request, device_id, attribute)
            if rejection is not None:
                return rejection
        chosen = Chosen(request, device_id, attribute, new)
        self.by_request[_base(request)] = chosen
        self.count += 1
        self.chosen.append(chosen)
        return None

    def _pop(self, request: str) -> None:
        self.chosen.pop()
        self.by_request.pop(_base(request), None)  # upstream delete(m.attributes, requestName)
        self.count -= 1

    def _list_clash(self, request: str, device_id: str, attribute: Mapping[str, Any], new: ValueSet | None
                    ) -> Rejection | None:
        if new is None:
            return self._unusable(device_id, attribute)
        for other in self.by_request.values():
            existing = other.values
            if existing is None:
                continue  # upstream skips a stored value it cannot read
            common = new.intersection(existing)
            if common is not None:
                return _shares(self.attribute, request, device_id, attribute, other, common=common)
        return None

    def _scalar_clash(self, request: str, device_id: str, attribute: Mapping[str, Any]) -> Rejection | None:
        name, mine = self.attribute, scalar_value(attribute)
        for other in self.by_request.values():
            if mine is None:
                # Upstream's type switch finds no scalar field: a list (or empty) value is refused.
                return Rejection(lambda: (
                    f"{name} of device {device_id} is {render_attribute(attribute)}; without list semantics "
                    "a list value cannot be compared (fails closed)"))
            if scalar_value(other.attribute) == mine:
                return _duplicates(name, request, device_id, attribute, other)
        return None


def _base(request: str) -> str:
    """The claim request a device counts for: the parent of a subrequest (upstream's baseRequestName)."""
    return request.partition("/")[0]


def _shares(name: str, request: str, device_id: str, attribute: Mapping[str, Any], other: Chosen, *,
            common: ValueSet) -> Rejection:
    return Rejection(lambda: (
        f"{name} {render_attribute(attribute)} of device {device_id} (request {request}) shares "
        f"{common} with {render_attribute(other.attribute)} of device {other.device}"))


def _duplicates(name: str, request: str, device_id: str, attribute: Mapping[str, Any], other: Chosen) -> Rejection:
    return Rejection(lambda: (
        f"{name} {render_attribute(attribute)} of device {device_id} (request {request}) duplicates "
        f"device {other.device}"))


Constraint = MatchAttribute | DistinctAttribute


def make_constraint(spec: Mapping[str, Any], semantics: Semantics) -> Constraint | None:
    """A tracker for one wire `DeviceConstraint`, or None for an unknown constraint type."""
    requests = spec.get("requests")
    names = frozenset(r for r in requests if isinstance(r, str)) if isinstance(requests, list) else frozenset()
    match, distinct = spec.get("matchAttribute"), spec.get("distinctAttribute")
    if isinstance(match, str) and match:
        return MatchAttribute(match, names, semantics)
    if isinstance(distinct, str) and distinct:
        return DistinctAttribute(distinct, names, semantics)
    return None


def _feed(tracker: Constraint, values: Sequence[Mapping[str, Any]], driver: str) -> str | None:
    for index, value in enumerate(values):
        device = {"name": f"device-{index}", "attributes": {tracker.attribute: value}}
        problem = tracker.add(f"request-{index}", f"{driver}/pool/device-{index}", device, driver)
        if problem is not None:
            return str(problem)
    return None


def check_match(attribute: str, values: Iterable[Mapping[str, Any]], semantics: Semantics = "list",
                driver: str = "example.com") -> str | None:
    """Whether devices with these wire values, each for its own request and chosen in order, satisfy
    matchAttribute (None = yes)."""
    return _feed(MatchAttribute(attribute, frozenset(), semantics), list(values), driver)


def check_distinct(attribute: str, values: Iterable[Mapping[str, Any]], semantics: Semantics = "list",
                   driver: str = "example.com") -> str | None:
    """Whether devices with these wire values, each for its own request and chosen in order, satisfy
    distinctAttribute (None = yes: pairwise disjoint, since every request keeps its one value)."""
    return _feed(DistinctAttribute(attribute, frozenset(), semantics), list(values), driver)
