"""Partitionable-device fields whose validation is not the same in every release.

Kubernetes 1.34's counter model (KEP-4815 before its 1.35 redesign; a profile whose `counter_model` is
`inSlice`): counter sets and the devices consuming them share one slice, and validation.go @ release-1.34
(`validateResourceSliceSpec`, `validateCounterSet`, `validateDevice`, `validateDeviceCounterConsumption`, with
kubernetes/api v0.34.0's `ResourceSliceMaxSharedCounters` = 32, `ResourceSliceMaxCountersPerDevice` = 32,
`ResourceSliceMaxDeviceCountersPerSlice` = 1024) checks
- per device, after its taints: each consumption's `counterSet` is required (no name format) and unique
  (`Duplicate` at `consumesCounters[i].counterSet`), its `counters` required with DNS-label keys; at most 32
  counters in all of the device's consumptions (`Invalid` at the device); then each consumption's set must be
  one of the slice's `sharedCounters` (`Invalid` at `.counterSet`), else each counter it consumes must be in
  that set (`Invalid` at `.counters`, one per counter);
- after the devices: at most 1024 counters consumed by all devices (`Invalid` at `spec.devices`), at most 32
  counters in all sets (`Invalid` at `spec.sharedCounters`), then each set as `validateSet` does: name
  required and a DNS label, counters required with DNS-label keys, names unique (`Duplicate` at
  `sharedCounters[i].name`). No limit on the number of sets or consumptions.

The Kubernetes 1.37 slice-level fields `spec.partitionTypeAttribute` and `spec.skipNodeOperations`:
mirrors `validatePartitionTypeAttribute` and `validateSkipNodeOperations` (kubernetes pkg/apis/resource/
validation, merged with KEP-5815's partition type and PR #139933) plus the declarative tags of
`resource/v1/types.go` @ 10b39a39: the attribute name is a fully qualified name, the operations a set
of `*`, `NodePrepareResources`, `NodeUnprepareResources`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from msgspec.structs import replace

from webhook.fieldpath import FieldPath
from webhook.profiles import Profile
from webhook.rules.k8s import ids
from webhook.rules.k8s.attribute import go_attribute
from webhook.rules.k8s.decode import (
    decode_item_map,
    decode_list,
    decode_map,
    decode_str,
    strings,
    unknown_fields,
    zero_structs,
)
from webhook.rules.k8s.device import string_field, validate_counters, validate_device
from webhook.rules.k8s.errors import duplicate, invalid, not_supported, required
from webhook.rules.k8s.ids import Errors, tag
from webhook.rules.k8s.names import validate_dns1123_label, validate_fully_qualified_name

SKIP_OPERATIONS = ("*", "NodePrepareResources", "NodeUnprepareResources")  # sorted, as the enum check lists them
NO_COUNTERS = "may only be set on a slice which declares devices that consume counters"
MISSING = "device consumes counters and `partitionTypeAttribute` names this attribute, so it must be set"
NOT_STRING = "must be a string value because `partitionTypeAttribute` names this attribute"
PREPARE_ALONE = "NodePrepareResources cannot be skipped unless NodeUnprepareResources is also skipped"

IN_SLICE = "inSlice"  # Profile.counter_model of 1.34
# The fields of 1.34's CounterSet and DeviceCounterConsumption: any other is an unknown field.
SET_FIELDS = frozenset({"name", "counters"})
CONSUMPTION_FIELDS = frozenset({"counterSet", "counters"})
NO_SUCH_SET = "must reference a counterSet defined in the ResourceSlice sharedCounters"
NO_SUCH_COUNTER = "must reference a counter defined in the ResourceSlice sharedCounters"
IN_SLICE_HINT = ("Kubernetes {version} checks counters within the slice: define each counter set a device consumes, "
                 "and each counter it takes from it, in this slice's sharedCounters; at most {shared} counters in all "
                 "sets, {device} per device, {devices} in all devices; use DNS-label names")
# A device's fields upstream's validateDevice checks after its counters: their errors follow the counters'.
_AFTER_COUNTERS = ("nodeName", "nodeSelector", "allNodes", "bindsToNode", "bindingConditions",
                   "bindingFailureConditions")
CounterSets = dict[str, frozenset[str]]  # the slice's counter sets by name: the names of their counters


def counter_sets(sets: list[Any] | None) -> CounterSets:
    """Upstream gatherSharedCounterCounterNames: each set's counter names by set name (a later set of the same
    name replaces an earlier one, as in Go's map)."""
    found: CounterSets = {}
    for item in sets or ():
        if isinstance(item, Mapping):
            counters = item.get("counters")
            found[string_field(item, "name")] = frozenset(counters if isinstance(counters, Mapping) else ())
    return found


def validate_device_in_slice(
    device: Mapping[str, Any], old: Mapping[str, Any] | None, path: FieldPath, per_device: bool | None,
    errs: Errors, *, profile: Profile, sets: CounterSets,
) -> None:
    """One device under 1.34's counter model: `validate_device` for everything but its counters, whose errors
    (`validate_consumptions`) go where upstream's validateDevice reports them, before node selection and
    binding conditions."""
    start = len(errs)
    validate_device({k: v for k, v in device.items() if k != "consumesCounters"}, old, path, per_device, errs,
                    profile=profile)
    own: Errors = []
    consumptions = decode_list(own, device, "consumesCounters", path)
    if consumptions is not None:
        validate_consumptions(consumptions, sets, path, own, profile)
    later = tuple(str(path.child(name)) for name in _AFTER_COUNTERS)
    at = next((i for i in range(start, len(errs)) if errs[i][0] in (ids.NODE_SELECTION, ids.BINDING_CONDITIONS)
               or str(errs[i][1].path).startswith(later)), len(errs))
    errs[at:at] = own


def validate_consumptions(
    consumptions: list[Any], sets: CounterSets, device_path: FieldPath, errs: Errors, profile: Profile
) -> None:
    """A device's `consumesCounters` in 1.34: each well-formed and unique, at most `maxCountersPerDevice` counters
    in all, each set and counter one of the slice's."""
    own: Errors = []
    path = device_path.child("consumesCounters")
    total = 0
    for i, item in enumerate(consumptions):
        item_path = path.index(i)
        group = decode_item_map(own, item, item_path)
        unknown_fields(own, group, CONSUMPTION_FIELDS, item_path)
        if not decode_str(own, group, "counterSet", item_path):
            own.append((ids.COUNTERS, required(item_path.child("counterSet"))))
        validate_counters(decode_map(own, group, "counters", item_path), -1, item_path.child("counters"), own,
                          profile)
        total += _counted(group)
    _duplicates(consumptions, "counterSet", path, own)
    most = _over(total, profile, "maxCountersPerDevice")
    if most is not None:
        own.append((ids.COUNTERS, invalid(device_path, total, f"the total number of counters must not exceed {most}")))
    for i, item in enumerate(zero_structs(consumptions)):
        if not isinstance(item, Mapping):  # not an object: the decoder's error only
            continue
        name = item.get("counterSet")
        name = "" if name is None else name  # absent or null: Go's zero value
        if not isinstance(name, str):  # a set name of the wrong type: the decoder's error only
            continue
        if name not in sets:
            own.append((ids.COUNTERS, invalid(path.index(i).child("counterSet"), name, NO_SUCH_SET)))
            continue
        counters = item.get("counters")
        for counter in counters if isinstance(counters, Mapping) else ():
            if counter not in sets[name]:
                own.append((ids.COUNTERS, invalid(path.index(i).child("counters"), counter, NO_SUCH_COUNTER)))
    errs += _hinted(own, profile)


def validate_counters_in_slice(
    devices: list[Any], sets: list[Any] | None, path: FieldPath, errs: Errors, profile: Profile
) -> None:
    """After the devices, 1.34's slice-wide counter checks: the counters consumed by all devices, the counters of
    all sets, then each set (`path` is `spec`)."""
    own: Errors = []
    consumed = sum(_counted(c) for d in devices if isinstance(d, Mapping)
                   and isinstance(d.get("consumesCounters"), list) for c in d["consumesCounters"])
    most = _over(consumed, profile, "maxDeviceCountersPerSlice")
    if most is not None:
        own.append((ids.COUNTERS, invalid(path.child("devices"), consumed,
                                          f"the total number of counters in devices must not exceed {most}")))
    if sets is not None:
        sets_path = path.child("sharedCounters")
        shared = sum(map(_counted, sets))
        most = _over(shared, profile, "maxSharedCounters")
        if most is not None:
            own.append((ids.COUNTERS, invalid(sets_path, shared,
                                              f"the total number of shared counters must not exceed {most}")))
        for i, item in enumerate(sets):
            item_path = sets_path.index(i)
            group = decode_item_map(own, item, item_path)
            unknown_fields(own, group, SET_FIELDS, item_path)
            name = decode_str(own, group, "name", item_path) or ""
            if not name:
                own.append((ids.COUNTERS, required(item_path.child("name"))))
            else:
                own += tag(ids.COUNTERS, validate_dns1123_label(name, item_path.child("name")))
            validate_counters(decode_map(own, group, "counters", item_path), -1, item_path.child("counters"), own,
                              profile)
        _duplicates(sets, "name", sets_path, own)
    errs += _hinted(own, profile)


def _counted(group: Any) -> int:
    """Go's len(group.Counters): the entries of a counter set's or a consumption's `counters` (0 when malformed)."""
    counters = group.get("counters") if isinstance(group, Mapping) else None
    return len(counters) if isinstance(counters, Mapping) else 0


def _over(count: int, profile: Profile, name: str) -> int | None:
    """The release's limit `name` when `count` exceeds it (None: within it, or the release has none)."""
    most = profile.limit(name)
    return most if most is not None and count > most else None


def _duplicates(items: list[Any], key: str, path: FieldPath, errs: Errors) -> None:
    """validateSet's uniqueness check as 1.34 reports it: at the item's key field (`[i].name`), not the item."""
    seen: set[str] = set()
    for i, item in enumerate(items):
        name = string_field(item, key)
        if name in seen:
            errs.append((ids.COUNTERS, duplicate(path.index(i).child(key), name)))
        seen.add(name)


def _hinted(errs: Errors, profile: Profile) -> Errors:
    """The k8s-counters findings with 1.34's remedy (the catalogue's says 1.35+'s: counters in their own slice)."""
    hint = IN_SLICE_HINT.format(version=profile.version, shared=profile.limit("maxSharedCounters"),
                                device=profile.limit("maxCountersPerDevice"),
                                devices=profile.limit("maxDeviceCountersPerSlice"))
    return [(rule, replace(f, hint=hint) if rule == ids.COUNTERS and not f.hint else f) for rule, f in errs]


def validate_partition_type(
    spec: Mapping[str, Any], devices: list[Any], path: FieldPath, errs: Errors
) -> None:
    """`spec.partitionTypeAttribute`: only where devices consume counters, each of which sets it as a string."""
    name = decode_str(errs, spec, "partitionTypeAttribute", path)
    if name is None:
        return
    field_path = path.child("partitionTypeAttribute")
    format_errors = tag(ids.PARTITION_TYPE, validate_fully_qualified_name(name, field_path))
    errs += format_errors
    consuming = [(i, d) for i, d in enumerate(devices) if isinstance(d, Mapping) and d.get("consumesCounters")]
    if not consuming:
        errs.append((ids.PARTITION_TYPE, invalid(field_path, name, NO_COUNTERS)))
        return
    if format_errors:  # no device can carry a malformed name: checking them would bury that one error
        return
    driver = spec.get("driver") if isinstance(spec.get("driver"), str) else ""
    bare = name.removeprefix(f"{driver}/")
    for i, device in consuming:
        attributes = device.get("attributes")
        attributes = attributes if isinstance(attributes, Mapping) else {}
        attribute = attributes.get(name, attributes.get(bare))
        attr_path = path.child("devices").index(i).child("attributes").key(name)
        if attribute is None and name not in attributes and bare not in attributes:
            errs.append((ids.PARTITION_TYPE, required(attr_path, MISSING)))
        elif not isinstance(attribute, Mapping) or attribute.get("string") is None:
            # a null attribute (or one the decoder refuses, reported as such) is the empty DeviceAttribute: `{}`
            shown = go_attribute(attribute if isinstance(attribute, Mapping) else {})
            errs.append((ids.PARTITION_TYPE, invalid(attr_path, shown, NOT_STRING)))


def validate_skip_node_operations(spec: Mapping[str, Any], path: FieldPath, errs: Errors) -> None:
    """`spec.skipNodeOperations`: a set of known operations; preparing may be skipped only with unpreparing."""
    raw = decode_list(errs, spec, "skipNodeOperations", path)
    if raw is None:
        return
    ops_path = path.child("skipNodeOperations")
    ops = strings(errs, raw, ops_path)
    seen: set[str] = set()
    for i, op in enumerate(ops):
        if op is None:
            continue
        if op not in SKIP_OPERATIONS:
            errs.append((ids.SKIP_NODE_OPERATIONS, not_supported(ops_path.index(i), op, SKIP_OPERATIONS)))
        if op in seen:
            errs.append((ids.SKIP_NODE_OPERATIONS, duplicate(ops_path.index(i), op)))
        seen.add(op)
    if "NodePrepareResources" in seen and not seen & {"NodeUnprepareResources", "*"}:
        errs.append((ids.SKIP_NODE_OPERATIONS, invalid(ops_path, [op for op in ops if op is not None], PREPARE_ALONE)))
