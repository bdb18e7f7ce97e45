"""One ResourceSlice device, mirroring upstream `validateDevice` (pkg/apis/resource/validation) for a release.

Order and wording follow upstream: name, the 32 attributes+capacities and 48 attribute-values limits,
attribute keys and values, capacity, taints (skipped on update when unchanged), counter consumption,
per-device node selection, binding conditions, node-allocatable resources. Limits come from the profile.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from celext.gotime import parse_rfc3339
from webhook.fieldpath import FieldPath
from webhook.profiles import Profile, load_profile
from webhook.rules.k8s import ids
from webhook.rules.k8s.attribute import MAX_ATTRIBUTES_AND_CAPACITIES, count_values, validate_device_attribute
from webhook.rules.k8s.capacity import quantity_at, validate_capacity_map
from webhook.rules.k8s.decode import (
    decode_bool,
    decode_item_map,
    decode_list,
    decode_map,
    decode_str,
    strings,
    unknown_fields,
)
from webhook.rules.k8s.errors import duplicate, invalid, not_supported, required, too_many, type_invalid
from webhook.rules.k8s.fast import attribute_values
from webhook.rules.k8s.fast import enabled as fast_enabled
from webhook.rules.k8s.ids import Errors, tag
from webhook.rules.k8s.names import (
    DNS1123_LABEL_MAX,
    dns1123_label_ok,
    key_error_path,
    qualified_name_ok,
    truncate_if_too_long,
    validate_dns1123_label,
    validate_dns1123_subdomain,
    validate_label_name,
    validate_label_value,
    validate_qualified_name,
)
from webhook.rules.k8s.node_allocatable import validate_node_allocatable_mappings, validate_node_allocatable_resources
from webhook.rules.k8s.node_selector import validate_node_selector

MAX_ATTRIBUTE_VALUES = 48  # ResourceSliceMaxAttributeValuesPerDevice
MAX_KEY_LENGTH = 63 + 1 + 32  # DeviceMaxDomainLength + "/" + DeviceMaxIDLength: where keys get truncated
MAX_COUNTER_CONSUMPTIONS = 2  # ResourceSliceMaxDeviceCounterConsumptionsPerDevice
MAX_COUNTERS_PER_CONSUMPTION = 32  # ResourceSliceMaxCountersPerDeviceCounterConsumption
MAX_BINDING_CONDITIONS = 4  # BindingConditionsMaxSize, BindingFailureConditionsMaxSize
TAINT_FIELDS = frozenset({"key", "value", "effect", "timeAdded"})
COUNTER_FIELDS = frozenset({"value"})
TIME_FORMAT = 'must be a time in RFC 3339 format, e.g. "2006-01-02T15:04:05Z"'
UNSET_OR_TRUE = "must be either unset or set to true"
PER_DEVICE_REQUIRED = (
    "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` "
    "is set to true in the ResourceSlice spec"
)
PER_DEVICE_FORBIDDEN = (
    "`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true "
    "in the ResourceSlice spec"
)


def _limit(profile: Profile, name: str) -> int:
    value = profile.limit(name)
    return -1 if value is None else value


def validate_device(
    device: Mapping[str, Any], old: Mapping[str, Any] | None, path: FieldPath, per_device: bool | None, errs: Errors,
    *, profile: Profile | None = None, declarative: bool = True,
) -> None:
    """Append the errors of one device (`path` is `spec.devices[i]`) to `errs`. `declarative`: declarative
    validation runs (a create, or an update that changes the spec; an unchanged spec is not validated again)."""
    profile = profile or load_profile()
    known = profile.field_names("device")
    unknown_fields(errs, device, known, path)
    if not known.issuperset(device):
        device = {key: value for key, value in device.items() if key in known}  # the decoder drops them
    name = decode_str(errs, device, "name", path) or ""
    if not dns1123_label_ok(name):
        errs += tag(ids.DEVICE_NAME, validate_dns1123_label(name, path.child("name")))
    attributes = decode_map(errs, device, "attributes", path) or {}
    capacity = decode_map(errs, device, "capacity", path) or {}
    if len(attributes) + len(capacity) > MAX_ATTRIBUTES_AND_CAPACITIES:
        errs.append((ids.ATTRIBUTE_LIMITS, invalid(
            path, len(attributes) + len(capacity),
            f"the total number of attributes and capacities must not exceed {MAX_ATTRIBUTES_AND_CAPACITIES}")))
    # Attributes the fast accept proves clean (a device held back only by another field) need no paths.
    values = attribute_values(attributes) if type(attributes) is dict and fast_enabled() else -1
    if values < 0:
        values = 0
        attributes_path = path.child("attributes")
        for key, attribute in attributes.items():
            if not qualified_name_ok(key):
                errs += tag(ids.QUALIFIED_NAME, validate_qualified_name(
                    key, key_error_path(attributes_path, key, MAX_KEY_LENGTH, profile), profile.qualified_name_empty))
            values += count_values({key: attribute})
            declared = attributes_path.key(key) if declarative and profile.declarative_beta else None
            validate_device_attribute(attribute, attributes_path.key(truncate_if_too_long(key, MAX_KEY_LENGTH)), errs,
                                      declared)
    max_values = profile.limit("maxAttributeValues")
    if max_values is not None and values > max_values:
        errs.append((ids.ATTRIBUTE_LIMITS, invalid(
            path, values, f"the total number of attribute values must not exceed {max_values}")))
    multiple = decode_bool(errs, device, "allowMultipleAllocations", path) is True
    if capacity:
        validate_capacity_map(capacity, multiple, path.child("capacity"), errs, profile)
    # Sub-paths are built only for fields that are present: most devices have none of these.
    taints = decode_list(errs, device, "taints", path)
    # 1.35+ skips a device's taints when they equal the old device's; 1.34 validates them on every update
    unchanged = old is not None and profile.skip_unchanged_taints and old.get("taints") == device.get("taints")
    if taints is not None and not unchanged:
        _validate_taints(taints, path.child("taints"), errs, _limit(profile, "maxTaints"), profile.taint_effects,
                         short_circuit=profile.short_circuit_max_items)
    consumptions = decode_list(errs, device, "consumesCounters", path)
    if consumptions is not None:
        validate_counter_groups(consumptions, path.child("consumesCounters"), errs,
                                limit=_limit(profile, "maxCounterConsumptionsPerDevice"), name_key="counterSet",
                                counters_limit=_limit(profile, "maxCountersPerConsumption"), profile=profile)
    if per_device or "nodeName" in device or "nodeSelector" in device or "allNodes" in device:
        _validate_node_selection(device, path, per_device, errs)
    decode_bool(errs, device, "bindsToNode", path)  # any boolean is valid: only the decoder can refuse it
    if "bindingConditions" in device or "bindingFailureConditions" in device:
        _validate_binding_parameters(device, path, errs, _limit(profile, "maxBindingConditions"),
                                     short_circuit=profile.short_circuit_max_items)
    resources = decode_map(errs, device, "nodeAllocatableResources", path)
    if resources:
        validate_node_allocatable_resources(resources, capacity, path.child("nodeAllocatableResources"), errs,
                                            declarative=declarative)
    mappings = decode_map(errs, device, "nodeAllocatableResourceMappings", path)
    if mappings:
        validate_node_allocatable_mappings(mappings, capacity, path.child("nodeAllocatableResourceMappings"), errs)


def within_limit(items: list[Any], limit: int, path: FieldPath, rule: str, errs: Errors) -> bool:
    """Upstream validateSlice/validateSet's size check: more than `limit` items is one TooMany, and then
    (DoS protection, 1.35+) none of the items is checked."""
    if limit < 0 or len(items) <= limit:  # a negative limit: the release has none
        return True
    errs.append((rule, too_many(path, len(items), limit)))
    return False


def over_limit(items: list[Any], limit: int) -> bool:
    """More than `limit` items (a negative limit: the release has none)."""
    return 0 <= limit < len(items)


def too_many_after(items: list[Any], limit: int, path: FieldPath, rule: str, errs: Errors) -> None:
    """1.34's validateSlice: the items were validated, then an over-limit list gets its TooMany."""
    if over_limit(items, limit):
        errs.append((rule, too_many(path, len(items), limit)))


def duplicates(keys: Iterable[str | None], path: FieldPath, rule: str, errs: Errors, field: str | None = None) -> None:
    """Upstream validateSet's uniqueness check: a Duplicate at the index of every repeated key (None: no key), or at
    the item's key `field` (`devices[i].name`, as 1.34 reports it)."""
    seen: set[str] = set()
    for i, key in enumerate(keys):
        if key is None:
            continue
        if key in seen:
            at = path.index(i) if field is None else path.index(i).child(field)
            errs.append((rule, duplicate(at, key)))
        seen.add(key)


def string_field(item: Any, key: str) -> str:
    """item[key] when it is a string, else "" (Go's zero value; the wrong type is reported elsewhere)."""
    value = item.get(key) if isinstance(item, Mapping) else None
    return value if isinstance(value, str) else ""


def _validate_taints(
    taints: list[Any], path: FieldPath, errs: Errors, limit: int, effects: tuple[str, ...], *,
    short_circuit: bool = True,
) -> None:
    """validateSlice(taints, DeviceTaintsMaxLength, validateDeviceTaint): 1.35+ stops at TooMany, 1.34 validates each
    taint and then adds it (`short_circuit` False)."""
    if short_circuit and not within_limit(taints, limit, path, ids.TAINTS, errs):
        return
    for i, item in enumerate(taints):
        taint_path = path.index(i)
        taint = decode_item_map(errs, item, taint_path)
        unknown_fields(errs, taint, TAINT_FIELDS, taint_path)
        _time_added(errs, taint, taint_path)
        key = decode_str(errs, taint, "key", taint_path) or ""
        errs += tag(ids.TAINTS, validate_label_name(key, taint_path.child("key")))
        value = decode_str(errs, taint, "value", taint_path) or ""
        if value:
            errs += tag(ids.TAINTS, validate_label_value(value, taint_path.child("value")))
        effect = decode_str(errs, taint, "effect", taint_path) or ""
        if not effect:
            errs.append((ids.TAINTS, required(taint_path.child("effect"))))
        elif effect not in effects:
            errs.append((ids.TAINTS, not_supported(taint_path.child("effect"), effect, effects)))
    if not short_circuit:
        too_many_after(taints, limit, path, ids.TAINTS, errs)


def _time_added(errs: Errors, taint: Mapping[str, Any], path: FieldPath) -> None:
    """A taint's `timeAdded` (metav1.Time): the decoder refuses what Go's time.Parse(time.RFC3339, ...) does not
    parse, and the whole request with it; any time it parses is valid."""
    text = decode_str(errs, taint, "timeAdded", path)
    if text is not None and parse_rfc3339(text) is None:
        errs.append((ids.WIRE_TYPE, type_invalid(path.child("timeAdded"), text, TIME_FORMAT)))


def validate_counter_groups(
    groups: list[Any] | None, path: FieldPath, errs: Errors, *, limit: int, name_key: str, counters_limit: int,
    profile: Profile,
) -> None:
    """A list of named counter groups: a slice's `sharedCounters` (named by `name`) or a device's
    `consumesCounters` (named by `counterSet`). Upstream validateSet with validateCounterSet /
    validateDeviceCounterConsumption: at most `limit`, each named by a DNS label, unique, with counters."""
    if groups is None or not within_limit(groups, limit, path, ids.COUNTERS, errs):
        return
    for i, item in enumerate(groups):
        item_path = path.index(i)
        group = decode_item_map(errs, item, item_path)
        unknown_fields(errs, group, frozenset({name_key, "counters"}), item_path)
        name = decode_str(errs, group, name_key, item_path) or ""
        if not name:
            errs.append((ids.COUNTERS, required(item_path.child(name_key))))
        else:
            errs += tag(ids.COUNTERS, validate_dns1123_label(name, item_path.child(name_key)))
        counters = decode_map(errs, group, "counters", item_path)
        validate_counters(counters, counters_limit, item_path.child("counters"), errs, profile)
    duplicates((string_field(item, name_key) for item in groups), path, ids.COUNTERS, errs)


def validate_counters(
    counters: Mapping[str, Any] | None, limit: int, path: FieldPath, errs: Errors, profile: Profile
) -> None:
    """A counters map: required, at most `limit` entries, DNS-label keys, quantity values."""
    if not counters:
        errs.append((ids.COUNTERS, required(path)))
        return
    if 0 <= limit < len(counters):  # a map, not a list, but the same short-circuit (upstream validateMap)
        errs.append((ids.COUNTERS, too_many(path, len(counters), limit)))
        return
    for key, counter in counters.items():
        errs += tag(ids.COUNTERS, validate_dns1123_label(key, key_error_path(path, key, DNS1123_LABEL_MAX, profile)))
        key_path = path.key(truncate_if_too_long(key, DNS1123_LABEL_MAX))
        entry = decode_item_map(errs, counter, key_path)
        unknown_fields(errs, entry, COUNTER_FIELDS, key_path)
        quantity_at(errs, entry, "value", key_path)


def validate_node_name(node_name: str | None, path: FieldPath, empty: str, set_fields: list[str], errs: Errors) -> None:
    """`nodeName` of the slice or of a device: a DNS subdomain when set; upstream words the empty case per level."""
    if node_name is None:
        return
    if node_name:
        set_fields.append("`nodeName`")
        errs += tag(ids.NODE_SELECTION, validate_dns1123_subdomain(node_name, path.child("nodeName")))
    else:
        errs.append((ids.NODE_SELECTION, invalid(path.child("nodeName"), node_name, empty)))


def _validate_node_selection(device: Mapping[str, Any], path: FieldPath, per_device: bool | None, errs: Errors) -> None:
    node_name = decode_str(errs, device, "nodeName", path)
    selector = decode_map(errs, device, "nodeSelector", path)
    all_nodes = decode_bool(errs, device, "allNodes", path)
    if not per_device:
        if node_name is not None or selector is not None or all_nodes is not None:
            errs.append((ids.NODE_SELECTION, invalid(path, None, PER_DEVICE_FORBIDDEN)))
        return
    set_fields: list[str] = []
    validate_node_name(node_name, path, "must not be empty", set_fields, errs)
    if selector is not None:
        set_fields.append("`nodeSelector`")
        errs += tag(ids.NODE_SELECTION, validate_node_selector(selector, path.child("nodeSelector")))
    if all_nodes is not None:
        if all_nodes:
            set_fields.append("`allNodes`")
        else:
            errs.append((ids.NODE_SELECTION, invalid(path.child("allNodes"), False, UNSET_OR_TRUE)))
    if not set_fields:
        errs.append((ids.NODE_SELECTION, required(path, PER_DEVICE_REQUIRED)))
    elif len(set_fields) > 1:
        errs.append((ids.NODE_SELECTION, invalid(path, "{" + ", ".join(set_fields) + "}", PER_DEVICE_REQUIRED)))


def _validate_binding_parameters(
    device: Mapping[str, Any], path: FieldPath, errs: Errors, limit: int = MAX_BINDING_CONDITIONS, *,
    short_circuit: bool = True,
) -> None:
    """Upstream validateDeviceBindingParameters; over the limit, 1.34 (`short_circuit` False) validates every entry
    and then adds TooMany."""
    conditions_path, failures_path = path.child("bindingConditions"), path.child("bindingFailureConditions")
    # Non-strings stay as None in their place (reported once, as the wrong type), so every index is the object's.
    conditions = strings(errs, decode_list(errs, device, "bindingConditions", path), conditions_path)
    failures = strings(errs, decode_list(errs, device, "bindingFailureConditions", path), failures_path)
    for items, items_path in ((conditions, conditions_path), (failures, failures_path)):
        if not short_circuit or within_limit(items, limit, items_path, ids.BINDING_CONDITIONS, errs):
            for i, item in enumerate(items):
                if item is not None:
                    errs += tag(ids.BINDING_CONDITIONS, validate_label_name(item, items_path.index(i)))
        if not short_circuit:
            too_many_after(items, limit, items_path, ids.BINDING_CONDITIONS, errs)
        duplicates(items, items_path, ids.BINDING_CONDITIONS, errs)
    named = {item for item in conditions if item is not None}
    failing = [item for item in failures if item is not None]
    for i, item in enumerate(failures):
        if item in named:
            errs.append((ids.BINDING_CONDITIONS, invalid(
                failures_path.index(i), item, "bindingFailureConditions must not overlap with bindingConditions")))
    # Go shows a nil slice as null and an empty one as []: keep what the object said.
    if not named and failing:
        errs.append((ids.BINDING_CONDITIONS, invalid(
            conditions_path, _as_written(device, "bindingConditions"),
            "bindingConditions are required to use bindingFailureConditions")))
    if not failing and named:
        errs.append((ids.BINDING_CONDITIONS, invalid(
            failures_path, _as_written(device, "bindingFailureConditions"),
            "bindingFailureConditions are required to use bindingConditions")))


def _as_written(device: Mapping[str, Any], key: str) -> list[Any] | None:
    value = device.get(key)
    return [] if isinstance(value, list) else None

