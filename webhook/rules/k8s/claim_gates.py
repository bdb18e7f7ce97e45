"""What a release's API server drops from a ResourceClaim, ResourceClaimTemplate or DeviceClass when a feature
gate is off, as `k8s-feature-gate` findings (the claim side of `webhook.rules.k8s.gates`).

Upstream clears these fields on create and update unless the old object already used the feature, and the
request succeeds without them: no error, no warning (`resourceclaimspec.DropDisabledFields` for the spec of a
claim and of a template; the DeviceClass strategy's `dropDisabledFields`). Which fields each gate guards is
profile data (`request.*`, `exactly.*`, `subrequest.*`, `constraint.*`, `class.*` in `webhook/profiles`):

- DRAPrioritizedList: a request's `firstAvailable` (dropped first: what its entries set goes with it);
- DRADeviceTaints: `tolerations` of an exact request and of each firstAvailable entry;
- DRAAdminAccess: an exact request's `adminAccess`;
- DRAConsumableCapacity: `capacity` of an exact request and of each entry, a constraint's `distinctAttribute` (not in
  1.34, whose drop of it was a no-op: the 1.34 profile says so);
- DRAExtendedResource: a DeviceClass's `extendedResourceName`.

v1 and v1beta2 keep an exact request's fields under `exactly`; v1beta1 on the request itself. A dropped
`firstAvailable` leaves a request with neither form, which the server then refuses (`exactly one of ...`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from webhook.fieldpath import FieldPath
from webhook.profiles import Profile
from webhook.rules.base import DEVICE_CLASS, RESOURCE_CLAIM, RESOURCE_CLAIM_TEMPLATE
from webhook.rules.k8s import ids
from webhook.rules.k8s.gates import dropped
from webhook.rules.k8s.ids import Errors
from webhook.rules.k8s.slice import served_version

# (field key of the profiles, where it sits, its value)
Gated = tuple[str, FieldPath, Any]

_SPEC = FieldPath.root("spec")
_SPEC_OF = {RESOURCE_CLAIM: _SPEC, RESOURCE_CLAIM_TEMPLATE: _SPEC.child("spec")}


def claim_drops(obj: Mapping[str, Any], profile: Profile, old: Mapping[str, Any] | None = None) -> Errors:
    """A `k8s-feature-gate` error per field of `obj` the server drops (`old`: the stored object of an update)."""
    new = list(_gated(obj, profile))
    if not any(profile.disabled_gate(key) for key, _path, _value in new):
        return []  # the usual answer: every gate guarding a field the object sets is on
    kept = in_use(old, profile)
    errs: Errors = []
    gone: set[tuple[Any, ...]] = set()  # dropped firstAvailable lists: their entries' fields go with them
    for key, path, _value in new:
        gate = profile.disabled_gate(key)
        if gate is None or gate in kept or (key.startswith("subrequest.") and path.segments[:-3] in gone):
            continue
        if key == "request.firstAvailable":
            gone.add(path.segments[:-1])
        errs.append((ids.FEATURE_GATE, dropped(path, gate, profile)))
    return errs


def keeps(key: str, profile: Profile, used: frozenset[str] = frozenset()) -> bool:
    """Does the server keep field `key` (a profile key such as `constraint.distinctAttribute`): every gate
    guarding it on, or the stored object of an update using that feature (`used`: `in_use(old, profile)`)?"""
    gate = profile.disabled_gate(key)
    return gate is None or gate in used


def in_use(old: Mapping[str, Any] | None, profile: Profile) -> frozenset[str]:
    """The gates whose fields the stored object of an update uses (upstream's *FeatureInUse: a pointer set, a list
    not empty); none on a create."""
    return frozenset(gate for key, _path, value in _gated(old, profile) if value is not None and value != []
                     for gate in profile.fields.get(key, ()))


def _gated(obj: Mapping[str, Any] | None, profile: Profile) -> Iterator[Gated]:
    """Every gated field `obj` sets (the key present), in the order upstream drops them per request."""
    if not isinstance(obj, Mapping):
        return
    version = served_version(obj, profile)
    kind, spec = obj.get("kind"), obj.get("spec")
    if kind == DEVICE_CLASS:
        if isinstance(spec, Mapping) and "extendedResourceName" in spec:
            yield "class.extendedResourceName", _SPEC.child("extendedResourceName"), spec["extendedResourceName"]
        return
    at = _SPEC_OF.get(str(kind))
    if at is None:
        return
    if kind == RESOURCE_CLAIM_TEMPLATE:
        spec = spec.get("spec") if isinstance(spec, Mapping) else None
    devices = spec.get("devices") if isinstance(spec, Mapping) else None
    if not isinstance(devices, Mapping):
        return
    requests, constraints = devices.get("requests"), devices.get("constraints")
    for i, request in enumerate(requests if isinstance(requests, list) else ()):
        if not isinstance(request, Mapping):
            continue
        path = at.child("devices").child("requests").index(i)
        if "firstAvailable" in request:
            yield "request.firstAvailable", path.child("firstAvailable"), request["firstAvailable"]
        exact, exact_path = (request, path) if version == "v1beta1" else (request.get("exactly"), path.child("exactly"))
        if isinstance(exact, Mapping):
            for name in ("tolerations", "adminAccess", "capacity"):
                if name in exact:
                    yield f"exactly.{name}", exact_path.child(name), exact[name]
        entries = request.get("firstAvailable")
        for j, entry in enumerate(entries if isinstance(entries, list) else ()):
            if isinstance(entry, Mapping):
                for name in ("tolerations", "capacity"):
                    if name in entry:
                        yield f"subrequest.{name}", path.child("firstAvailable").index(j).child(name), entry[name]
    for i, constraint in enumerate(constraints if isinstance(constraints, list) else ()):
        if isinstance(constraint, Mapping) and "distinctAttribute" in constraint:
            yield ("constraint.distinctAttribute", at.child("devices").child("constraints").index(i).child(
                "distinctAttribute"), constraint["distinctAttribute"])
