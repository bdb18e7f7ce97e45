"""A claim (or template) as the allocator reads it: its requests, constraints and the claim-wide checks.

Mirrors upstream's validation before any search (`validateDeviceRequest`, the claim-size limit): a request
without a class, a class that does not exist, an unsupported count mode or a selector without CEL aborts the
claim with the allocator's message (`ClaimError`). `claim_notes` is draguard's own: constraint fields the
Kubernetes API does not have, and a claim that requests nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from msgspec import Struct

from celext.alloc.constraints import Constraint, Semantics, make_constraint

MAX_DEVICES = 32  # resourceapi.AllocationResultsMaxSize

Obj = Mapping[str, Any]


class ClaimError(Exception):
    """The allocator aborts the claim (upstream message), e.g. a CEL runtime error or a missing class."""


class Request(Struct, frozen=True):
    name: str  # "req" or "req/sub"
    class_name: str
    class_selectors: tuple[str, ...]
    selectors: tuple[str, ...]
    all_devices: bool
    count: int
    capacity: Obj  # exactly.capacity.requests: capacity name -> quantity
    tolerations: tuple[Obj, ...] = ()  # DeviceTolerations, for device taints


class Entry(Struct, frozen=True):
    name: str
    options: tuple[Request, ...]  # one for `exactly`; the subrequests in order for `firstAvailable`
    first_available: bool


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


def _request(raw: Obj, name: str, claim: str, classes: Mapping[str, Obj]) -> Request:
    """`name` is "req" or "req/sub"; upstream's messages (validateDeviceRequest) name a subrequest alone."""
    where = f"claim {claim}, request {name.rpartition('/')[2]}"
    selectors = _selectors(raw.get("selectors"), where)  # checked before the class, as upstream does
    class_name = raw.get("deviceClassName")
    if not isinstance(class_name, str) or not class_name:
        raise ClaimError(f"{where}: missing device class name (unsupported request type?)")
    device_class = classes.get(class_name)
    if device_class is None:
        raise ClaimError(f"{where}: could not retrieve device class {class_name}: "
                         f'deviceclass.resource.k8s.io "{class_name}" not found')
    spec = _map(device_class.get("spec"))
    mode = raw.get("allocationMode") or "ExactCount"
    if mode not in ("ExactCount", "All"):
        raise ClaimError(f"{where}: unsupported count mode {mode}")
    count = raw.get("count", 1)
    if mode == "ExactCount" and (not isinstance(count, int) or isinstance(count, bool) or count <= 0):
        # API validation refuses such a claim (count must be greater than zero); do not guess one
        raise ClaimError(f"{where}: count must be a positive integer, not {count!r}")
    capacity = _map(_map(raw.get("capacity")).get("requests"))
    return Request(name, class_name, _selectors(spec.get("selectors"), f"class {class_name}"), selectors,
                    mode == "All", count if isinstance(count, int) else 1, capacity,
                    tuple(t for t in _strings(raw.get("tolerations")) if isinstance(t, Mapping)))


# apiVersions whose requests hold a request's fields themselves; later ones (v1beta2, v1) put them under `exactly`
FLAT_REQUESTS = frozenset({"resource.k8s.io/v1alpha3", "resource.k8s.io/v1beta1"})


def parse_claim(obj: Obj, classes: Mapping[str, Obj], semantics: Semantics
                ) -> tuple[list[Entry], list[Constraint]]:
    """Requests and constraints of a claim or template, read in its apiVersion's layout (what the API server
    stores: the other layout's fields are unknown to it, and dropped); ClaimError where upstream refuses the
    claim."""
    claim, devices = claim_label(obj), claim_devices(obj)
    flat = obj.get("apiVersion") in FLAT_REQUESTS
    entries = []
    for item in _strings(devices.get("requests")):
        raw = _map(item)
        name = str(raw.get("name") or "")
        subs = _strings(raw.get("firstAvailable"))
        if subs:
            options = tuple(_request(s, f"{name}/{s.get('name')}", claim, classes) for s in subs
                            if isinstance(s, Mapping))
            entries.append(Entry(name, options, True))
        elif flat:
            entries.append(Entry(name, (_request(raw, name, claim, classes),), False))
        elif isinstance(raw.get("exactly"), Mapping):
            entries.append(Entry(name, (_request(raw["exactly"], name, claim, classes),), False))
        else:  # the API server refuses the claim (validation); the allocator never sees it
            where = " (deviceClassName sits on the request itself, the v1beta1 layout)" \
                if "deviceClassName" in raw else ""
            raise ClaimError(f"claim {claim}, request {name}: exactly one of `exactly` or `firstAvailable` is "
                             f"required{where}: the API server refuses this claim")
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


def check_claim(entries: Sequence[Entry], claim: str) -> None:
    fewest = sum(min((o.count if not o.all_devices else 0 for o in e.options), default=0) for e in entries)
    if fewest > MAX_DEVICES:
        raise ClaimError(f"claim {claim}: number of requested devices {fewest} exceeds the claim limit "
                         f"of {MAX_DEVICES}")



def iter_requests(entries: Sequence[Entry]) -> Iterator[Request]:
    for entry in entries:
        yield from entry.options
