"""What a release's API server does with ResourceSlice fields before validating them (profiles, feature gates).

Upstream `dropDisabledFields` (pkg/registry/resource/resourceslice/strategy.go) clears every field whose
feature gate is off, on create and on update, unless the old object already used that feature (then
the field is kept, so existing objects survive a gate being turned off). The request then succeeds
without the field: no error, no warning. draguard reports each such field once (`k8s-feature-gate`,
warn) and validates the object as the server stores it, so an error the drop causes (a device left
without node selection) is the server's own error, hinted with the gate.

A field the release does not have at all is an unknown field (`k8s-unknown-field`); its hint names
the release that added it.

List attributes are dropped before any rule runs (`drop_list_attributes`, called by the runner), since every
rule, draguard's numaNode rules too, must judge the values the server stores: upstream's
`dropDisableDRAListTypeAttributesFields` with `DRAListTypeAttributes` off (1.36+), or the decoder of a release
without list fields (1.34/1.35). Each dropped field is one finding, reported with the slice's other errors.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any

from msgspec.structs import replace

from celext.vocabulary import LIST_MEMBERS
from webhook.fieldpath import FieldPath
from webhook.findings import Finding
from webhook.profiles import Profile, first_release, load_profile
from webhook.rules.k8s import ids
from webhook.rules.k8s.attribute import decodes, has_list_values
from webhook.rules.k8s.device import MAX_KEY_LENGTH
from webhook.rules.k8s.errors import unknown_field
from webhook.rules.k8s.ids import Errors
from webhook.rules.k8s.names import truncate_if_too_long

SPEC = FieldPath.root("spec")
DEVICES = SPEC.child("devices")


def _used(value: Any) -> bool:
    """Upstream's in-use test: a pointer that is set, a list or map that is not empty."""
    if isinstance(value, list | Mapping):
        return bool(value)
    return value is not None


def _gated(profile: Profile, scope: str) -> dict[str, tuple[str, ...]]:
    """`{field: gates}` of the fields in `scope` ("spec", "device", "capacity") that some gate guards."""
    return _gated_fields(profile.version, scope)


@functools.cache
def _gated_fields(version: str, scope: str) -> dict[str, tuple[str, ...]]:
    prefix = scope + "."
    fields = load_profile(version).fields
    return {key[len(prefix):]: gates for key, gates in fields.items() if key.startswith(prefix) and gates}


def features_in_use(spec: Mapping[str, Any] | None, devices: Iterable[Mapping[str, Any]], profile: Profile) -> set[str]:
    """The gates whose fields the (old) object sets: upstream's dra*FeatureInUse, one per gate."""
    used: set[str] = set()
    if spec is None:
        return used
    for name, gates in _gated(profile, "spec").items():
        if _used(spec.get(name)):
            used.update(gates)
    device_fields, capacity_fields = _gated(profile, "device"), _gated(profile, "capacity")
    for device in devices:
        for name, gates in device_fields.items():
            if _used(device.get(name)):
                used.update(gates)
        capacity = device.get("capacity")
        for entry in capacity.values() if isinstance(capacity, Mapping) else ():
            for name, gates in capacity_fields.items():
                if isinstance(entry, Mapping) and _used(entry.get(name)):
                    used.update(gates)
    return used


def drop_disabled_fields(
    spec: Mapping[str, Any], devices: list[Any], in_use: Callable[[], set[str]], profile: Profile, errs: Errors
) -> tuple[Mapping[str, Any], list[Any], set[str]]:
    """The spec and (flat) devices as the API server stores them, and the gates that dropped something;
    a `k8s-feature-gate` finding per dropped field.

    A gate counts as off for a field unless every gate guarding it is on or the old object used it. With
    every gate on (the common case) nothing is copied. `in_use()` (the gates the old object uses, which reads
    all of it) is asked only when the object sets a field whose gate is off: otherwise it changes nothing.
    """
    nothing: frozenset[str] = frozenset()
    if not (_off(profile, "spec", nothing).keys() & spec.keys()) and not _any_sets(
            devices, _off(profile, "device", nothing), _off(profile, "capacity", nothing)):
        return spec, devices, set()  # what the old object uses only ever keeps more fields
    used = frozenset(in_use())

    def off(scope: str) -> Mapping[str, str]:
        return _off(profile, scope, used)

    dropped_by: set[str] = set()

    def drop(path: FieldPath, gate: str) -> None:
        dropped_by.add(gate)
        errs.append((ids.FEATURE_GATE, dropped(path, gate, profile)))

    spec_off, device_off, capacity_off = off("spec"), off("device"), off("capacity")
    kept_spec = spec
    if spec_off.keys() & spec.keys():
        kept_spec = {k: v for k, v in spec.items() if k not in spec_off}
        for name in spec_off.keys() & spec.keys():
            drop(SPEC.child(name), spec_off[name])
    if not (device_off or capacity_off) or not _any_sets(devices, device_off, capacity_off):
        return kept_spec, devices, dropped_by  # nothing to drop: no copy
    kept_devices: list[Any] = []
    for i, device in enumerate(devices):
        if not isinstance(device, Mapping):
            kept_devices.append(device)
            continue
        path = SPEC.child("devices").index(i)
        kept = {k: v for k, v in device.items() if k not in device_off}
        for name in device_off.keys() & device.keys():
            drop(path.child(name), device_off[name])
        capacity = kept.get("capacity")
        if capacity_off and isinstance(capacity, Mapping):
            entries: dict[str, Any] = {}
            for key, value in capacity.items():
                if isinstance(value, Mapping) and capacity_off.keys() & value.keys():
                    for name in capacity_off.keys() & value.keys():
                        drop(path.child("capacity").key(str(key)).child(name), capacity_off[name])
                    value = {k: v for k, v in value.items() if k not in capacity_off}  # noqa: PLW2901
                entries[key] = value
            kept["capacity"] = entries
        kept_devices.append(kept)
    return kept_spec, kept_devices, dropped_by


_OFF: dict[tuple[str, frozenset[tuple[str, bool]], str, frozenset[str]], Mapping[str, str]] = {}
_DICT = frozenset({dict})
_OFF_ENTRIES = 64  # distinct (release, gate overrides, scope, gates in use): a full table is emptied


def _off(profile: Profile, scope: str, in_use: frozenset[str]) -> Mapping[str, str]:
    """`{field: the first gate guarding it that is off}` for the fields of `scope` the server drops (the release
    and its gate overrides decide it: remembered per profile, scope and gates the old object uses)."""
    key = (profile.version, frozenset(profile.overrides.items()), scope, in_use)
    found = _OFF.get(key)
    if found is None:
        chosen: dict[str, str] = {}
        for name, gates in _gated(profile, scope).items():
            if not any(g in in_use for g in gates):
                gate = next((g for g in gates if not profile.enabled(g)), None)
                if gate is not None:
                    chosen[name] = gate
        if len(_OFF) >= _OFF_ENTRIES:
            _OFF.clear()
        found = _OFF[key] = MappingProxyType(chosen)
    return found


def _any_sets(devices: list[Any], device_off: Mapping[str, str], capacity_off: Mapping[str, str]) -> bool:
    """Whether any of `devices` sets a device field or a capacity field the server drops."""
    if not capacity_off and _DICT.issuperset(map(type, devices)):  # the common case: device fields only, in C
        return not all(map(device_off.keys().isdisjoint, devices))
    return any(_sets_any(d, device_off, capacity_off) for d in devices)


def _sets_any(device: Any, device_off: Mapping[str, str], capacity_off: Mapping[str, str]) -> bool:
    """Whether `device` sets a device field or a capacity field the server drops."""
    if type(device) is not dict and not isinstance(device, Mapping):
        return False
    if device_off and not device_off.keys().isdisjoint(device.keys()):
        return True
    capacity = device.get("capacity")
    return bool(capacity_off) and isinstance(capacity, Mapping) and any(
        isinstance(entry, Mapping) and not capacity_off.keys().isdisjoint(entry.keys()) for entry in capacity.values())


def dropped(path: FieldPath, gate: str, profile: Profile) -> Finding:
    return Finding(path, f"the API server drops this field: feature gate {profile.describe(gate)}",
                   hint=f"enable {gate} on the cluster (kube-apiserver --feature-gates={gate}=true) or leave the "
                        "field out; draguard: featureGates in the policy or --feature-gates")


def explain(errs: Errors, dropped_gates: set[str], profile: Profile) -> Errors:
    """Name the release or gate in the findings a profile causes: unknown fields, and errors a drop caused."""
    out: Errors = []
    for rule, finding in errs:
        shown = finding
        if rule == ids.UNKNOWN_FIELD:
            shown = replace(finding, hint=_unknown_hint(finding.path, profile) or finding.hint)
        elif rule in _RELEASE_LIMITS and finding.message.startswith("Too many:"):
            shown = replace(finding, hint=_limit_hint(rule, profile) or finding.hint)
        elif dropped_gates and rule == ids.NODE_SELECTION and not finding.hint:
            gates = ", ".join(sorted(dropped_gates))
            shown = replace(finding, hint=f"the API server dropped fields of {gates}, off in this cluster "
                                          f"(Kubernetes {profile.version}); see the k8s-feature-gate findings")
        out.append((rule, shown))
    return out


# Limits that differ between releases, by the rule reporting them: (limit name, what it counts).
_RELEASE_LIMITS = {ids.TAINTS: ("maxTaints", "taints per device"),
                   ids.DEVICE_COUNT: ("maxDevicesAdvanced", "devices in a slice using taints, counters or lists")}


def _limit_hint(rule: str, profile: Profile) -> str:
    """`Kubernetes 1.34 allows at most 4 taints per device (1.37: 16)` where the newest release differs."""
    name, counted = _RELEASE_LIMITS[rule]
    here, newest = profile.limit(name), load_profile().limit(name)
    if here == newest or here is None:
        return ""
    return f"Kubernetes {profile.version} allows at most {here} {counted} ({load_profile().version}: {newest})"


def _unknown_hint(path: FieldPath, profile: Profile) -> str:
    key = field_key(path)
    if key is None:
        return ""
    added = first_release(key)
    if added is None:
        return ""
    if profile.has_field(key):
        return ""
    if added > profile.version:
        return f"Kubernetes {profile.version} has no such field (added in {added}); the API server drops it"
    return f"Kubernetes {profile.version} no longer has this field; the API server drops it"


def field_key(path: FieldPath) -> str | None:
    """`spec.x`, `device.x`, `capacity.x` or `attribute.x` for a field path the profiles know, else None."""
    steps = list(path.steps())
    names = [s for s, is_key in steps if not is_key and not isinstance(s, int)]
    if len(steps) == 2 and steps[0][0] == "spec":
        return f"spec.{steps[1][0]}"
    if len(steps) >= 4 and steps[1][0] == "devices":
        if len(steps) == 4:
            return f"device.{names[-1]}"
        if len(steps) == 6 and steps[3][0] in ("capacity", "attributes"):
            return f"{'capacity' if steps[3][0] == 'capacity' else 'attribute'}.{names[-1]}"
    return None


def drop_list_attributes(
    slice_: Mapping[str, Any], old: Mapping[str, Any] | None, profile: Profile
) -> tuple[Mapping[str, Any], Errors]:
    """The slice with the list attribute fields (`ints`, `bools`, `strings`, `versions`) the API server of `profile`
    does not store set to nil, and one finding per field it drops, at the field: `k8s-feature-gate` where a gate
    guarding the field is off (unless the old object set any list field: upstream ratchets on update),
    `k8s-unknown-field` where the release has no such field (1.34/1.35; nothing ratchets there, as the stored
    object lost its lists too). The attribute is kept: one left with no value fails `k8s-attribute-union`.

    Returns `slice_` itself when nothing is dropped, else a copy of the containers on the way to a changed
    attribute (the input is left alone).
    """
    dropping = _dropped_members(profile, frozenset())
    if dropping and old is not None and (gates := _list_gates(profile)) and any(map(has_list_values, _attributes(old))):
        dropping = _dropped_members(profile, gates)
    spec = slice_.get("spec")
    items = spec.get("devices") if isinstance(spec, Mapping) else None
    if not dropping or not isinstance(spec, Mapping) or not isinstance(items, list):
        return slice_, []
    errs: Errors = []
    devices: list[Any] = []
    for i, device in enumerate(items):
        body, nested = _body(device)  # a v1beta1 device's attributes sit under `basic`
        attrs = body.get("attributes") if body is not None else None
        if body is None or not isinstance(attrs, Mapping) or not any(map(has_list_values, attrs.values())):
            devices.append(device)
            continue
        kept: dict[str, Any] = {}
        for key, attribute in attrs.items():
            kept[key] = attribute
            if has_list_values(attribute):
                # A field the release has (its gate off) is decoded before the strategy drops it: a value the
                # decoder refuses fails the request, so it stays for k8s-wire-type. An unknown field is never decoded.
                dropped = [m for m in LIST_MEMBERS if m in dropping and attribute.get(m) is not None
                           and (dropping[m] is None or decodes(m, attribute[m]))]
                kept[key] = {m: v for m, v in attribute.items() if m not in dropped}
                path = DEVICES.index(i).child("attributes").key(truncate_if_too_long(str(key), MAX_KEY_LENGTH))
                errs += [_list_dropped(path.child(m), dropping[m], profile) for m in dropped]
        body = {**body, "attributes": kept}
        devices.append({**device, "basic": body} if nested else body)
    if not errs:  # no device sets a list field: the slice is stored as it is
        return slice_, []
    return {**slice_, "spec": {**spec, "devices": devices}}, errs


def explain_list_drops(errs: Errors, drops: Errors, profile: Profile) -> Errors:
    """`errs` with the union error of each attribute whose lists were dropped (`drops`) told why it has no value."""
    emptied = {str(f.path).rpartition(".")[0] for _rule, f in drops}  # the field's attribute: its path ends `.ints`
    gates = _list_gates(profile)
    if gates:
        why = (f"the cluster runs without the {', '.join(sorted(gates))} feature gate, so the API server dropped the "
               "list value; publish a scalar (int, bool, string, version) or enable the gate")
    else:
        why = (f"Kubernetes {profile.version} has no list attributes (added in {first_release('attribute.ints')}), "
               "so the API server dropped the list value; publish a scalar (int, bool, string, version)")
    return [(rule, replace(f, hint=why) if rule == ids.ATTRIBUTE_UNION and str(f.path) in emptied else f)
            for rule, f in errs]


def _list_gates(profile: Profile) -> frozenset[str]:
    """The gates guarding list attributes in the release (none before 1.36, which has no list fields)."""
    return frozenset(g for gates in _gated(profile, "attribute").values() for g in gates)


def _dropped_members(profile: Profile, in_use: frozenset[str]) -> dict[str, str | None]:
    """`{list member: the gate that is off}` for the list fields the server drops; None where the release has none."""
    gated = _gated(profile, "attribute")
    off = _off(profile, "attribute", in_use) if gated else {}
    return {m: off.get(m) for m in LIST_MEMBERS if m not in gated or m in off}


def _list_dropped(path: FieldPath, gate: str | None, profile: Profile) -> tuple[str, Finding]:
    if gate is not None:
        return ids.FEATURE_GATE, dropped(path, gate, profile)
    return ids.UNKNOWN_FIELD, replace(unknown_field(path), hint=_unknown_hint(path, profile))


def _body(device: Any) -> tuple[Mapping[str, Any] | None, bool]:
    """The mapping that holds a device's attributes (a v1beta1 device's `basic`), and whether it is nested."""
    if not isinstance(device, Mapping):
        return None, False
    basic = device.get("basic")
    return (basic, True) if isinstance(basic, Mapping) else (device, False)


def _attributes(slice_: Mapping[str, Any]) -> Iterator[Any]:
    """Every attribute of every device of `slice_`."""
    spec = slice_.get("spec")
    items = spec.get("devices") if isinstance(spec, Mapping) else None
    for device in items if isinstance(items, list) else ():
        body, _nested = _body(device)
        attrs = body.get("attributes") if body is not None else None
        if isinstance(attrs, Mapping):
            yield from attrs.values()
