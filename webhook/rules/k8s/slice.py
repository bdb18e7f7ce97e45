"""A whole ResourceSlice, mirroring upstream `ValidateResourceSlice` / `ValidateResourceSliceUpdate` and
`validateResourceSliceSpec` (kubernetes pkg/apis/resource/validation) for the release of a `Profile`.

v1beta1 objects nest device fields under `basic`; like the API server's internal form, devices are read
flattened and errors name the flat path (`spec.devices[0].attributes[...]`, upstream's
`ResourceNormalizationRules`). Fields of a disabled feature gate are dropped first (`k8s.gates`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from celext.gostrconv import go_quote
from webhook.fieldpath import FieldPath
from webhook.findings import Finding
from webhook.profiles import Profile, load_profile
from webhook.rules.k8s import ids
from webhook.rules.k8s.attribute import has_list_values
from webhook.rules.k8s.decode import (
    decode_bool,
    decode_int,
    decode_item_map,
    decode_list,
    decode_map,
    decode_str,
    go_len,
    unknown_fields,
    wrong_type,
    zero_structs,
)
from webhook.rules.k8s.device import (
    UNSET_OR_TRUE,
    duplicates,
    string_field,
    too_many_after,
    validate_counter_groups,
    validate_device,
    validate_node_name,
    within_limit,
)
from webhook.rules.k8s.errors import (
    immutable,
    invalid,
    required,
    too_long,
)
from webhook.rules.k8s.fast import CLEAN_WITH_LISTS, FAST_FIELDS, NOT_CLEAN, device_verdict
from webhook.rules.k8s.fast import enabled as fast_enabled
from webhook.rules.k8s.gates import drop_disabled_fields, explain, features_in_use
from webhook.rules.k8s.ids import Errors, tag
from webhook.rules.k8s.names import (
    messages,
    validate_dns1123_subdomain,
    validate_driver_name,
)
from webhook.rules.k8s.node_selector import validate_node_selector
from webhook.rules.k8s.object_meta import OBJECT_META_FIELDS, TOP_FIELDS, validate_object_meta
from webhook.rules.k8s.partition import (
    IN_SLICE,
    CounterSets,
    counter_sets,
    validate_counters_in_slice,
    validate_device_in_slice,
    validate_partition_type,
    validate_skip_node_operations,
)

POOL_NAME_MAX = 253  # PoolNameMaxLength
NODE_SELECTION = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
SPEC = FieldPath.root("spec")
META = FieldPath.root("metadata")
POOL_FIELDS = frozenset({"name", "generation", "resourceSliceCount"})
BETA1_DEVICE_FIELDS = frozenset({"name", "basic"})


def flat_device(device: Mapping[str, Any], beta1: bool = True) -> Mapping[str, Any]:
    """A v1beta1 device (`{name, basic: {...}}`) as the internal, flat device; others unchanged."""
    if beta1 and "basic" in device:
        basic = device.get("basic")
        return {**(basic if isinstance(basic, Mapping) else {}), "name": device.get("name")}
    return device


def served_version(slice_: Mapping[str, Any], profile: Profile | None = None) -> str | None:
    """The version of `apiVersion` when the API server serves ResourceSlice in it (a missing one reads as v1)."""
    api_version = slice_.get("apiVersion")
    if api_version is None:
        return "v1"
    group, _, version = str(api_version).rpartition("/")
    served = (profile or load_profile()).served_versions
    return version if group == "resource.k8s.io" and version in served else None


def not_served(obj: Mapping[str, Any], kind: str) -> tuple[str, Finding]:
    """kubectl's refusal of an object whose `apiVersion` (one `served_version` rejects) names no resource of the
    server: `no matches for kind "ResourceClaim" in version "resource.k8s.io/v1alpha3"`."""
    return ids.API_VERSION, Finding(FieldPath.root("apiVersion"), f"no matches for kind {go_quote(kind)} in version "
                                    f"{go_quote(str(obj.get('apiVersion')))}")


def missing_api_version(obj: Mapping[str, Any]) -> list[tuple[str, Finding]]:
    """kubectl's refusal of a manifest without `apiVersion` (its decoder: `Object 'apiVersion' is missing`); the
    object is still validated as the newest served version would read it, so its other findings come too. (Objects
    in an admission review always carry one.)"""
    if "apiVersion" in obj:
        return []
    return [(ids.API_VERSION, Finding(FieldPath.root("apiVersion"), "Object 'apiVersion' is missing: kubectl and "
                                      "the API server refuse a manifest without one"))]


def validate_resource_slice(
    slice_: Mapping[str, Any], old: Mapping[str, Any] | None = None, profile: Profile | None = None
) -> Errors:
    """Every error the API server of `profile`'s release (default: the newest) would report for this
    ResourceSlice (on UPDATE when `old` is given), worded as that release words them."""
    profile = profile or load_profile()
    with messages(profile.messages):
        return _validate(slice_, old, profile)


def _validate(slice_: Mapping[str, Any], old: Mapping[str, Any] | None, profile: Profile) -> Errors:
    errs: Errors = missing_api_version(slice_)
    version = served_version(slice_, profile)
    if version is None:  # the server has no such resource, so nothing else is checked
        errs.append(not_served(slice_, "ResourceSlice"))
        return errs
    unknown_fields(errs, slice_, TOP_FIELDS, FieldPath())  # a ResourceSlice has no status
    meta = decode_map(errs, slice_, "metadata", FieldPath()) or {}
    unknown_fields(errs, meta, OBJECT_META_FIELDS, META)
    _validate_object_meta(meta, old, errs)
    spec = decode_map(errs, slice_, "spec", FieldPath()) or {}
    old_spec = old.get("spec") if old is not None else None
    validate_resource_slice_spec(spec, old_spec if isinstance(old_spec, Mapping) else None, SPEC, errs,
                                 beta1=version == "v1beta1", profile=profile)
    return errs


def _validate_object_meta(meta: Mapping[str, Any], old: Mapping[str, Any] | None, errs: Errors) -> None:
    """ValidateObjectMeta(namespaced=false, NameIsDNSSubdomain), after the decoder's type checks of the fields."""
    decode_str(errs, meta, "name", META)
    decode_str(errs, meta, "generateName", META)
    for field in ("labels", "annotations"):  # map[string]string: the decoder refuses a number or a boolean
        for key, value in (decode_map(errs, meta, field, META) or {}).items():
            if not isinstance(value, str):
                wrong_type(errs, value, META.child(field).key(str(key)), "string")
    # No `namespace` check: the API server clears the namespace of a cluster-scoped object before validating it
    # (rest.BeforeCreate, EnsureObjectNamespaceMatchesRequestNamespace), so a manifest whose kustomization stamps
    # one on every object is created as it is.
    decode_str(errs, meta, "namespace", META)
    validate_object_meta(meta, META, errs, old=old)


def validate_resource_slice_spec(
    spec: Mapping[str, Any], old: Mapping[str, Any] | None, path: FieldPath, errs: Errors, *, beta1: bool = False,
    profile: Profile | None = None,
) -> None:
    profile = profile or load_profile()
    own: Errors = []  # the spec's errors, whose hints `explain` rewrites; the caller's earlier ones stay as they are
    _validate_spec(spec, old, path, own, beta1=beta1, profile=profile)
    errs += own


def _validate_spec(
    spec: Mapping[str, Any], old: Mapping[str, Any] | None, path: FieldPath, errs: Errors, *, beta1: bool,
    profile: Profile,
) -> None:
    known = profile.field_names("spec")
    unknown_fields(errs, spec, known, path)
    spec = {key: value for key, value in spec.items() if key in known}  # the decoder drops unknown fields
    raw_devices = spec.get("devices")
    if isinstance(raw_devices, list):
        raw_devices = zero_structs(raw_devices)  # a null device is a Device with no field set: its name is ""

    def in_use() -> set[str]:  # reads the old devices: only when the object sets a field whose gate is off
        old_devices = old.get("devices") if old is not None else None
        old_flat = [flat_device(d) for d in old_devices if isinstance(d, Mapping)] \
            if isinstance(old_devices, list) else []
        return features_in_use(old, old_flat, profile)

    if not isinstance(raw_devices, list):
        flat_in: list[Any] = []
    elif beta1:  # a v1beta1 device holds `name` and `basic` only: v1's flat fields there are unknown, and dropped
        flat_in = []
        for i, raw in enumerate(raw_devices):
            device = raw
            if isinstance(raw, Mapping) and not BETA1_DEVICE_FIELDS.issuperset(raw):
                unknown_fields(errs, raw, BETA1_DEVICE_FIELDS, path.child("devices").index(i))
                device = {key: value for key, value in raw.items() if key in BETA1_DEVICE_FIELDS}
            flat_in.append(flat_device(device) if isinstance(device, Mapping) else device)
    else:  # flat already: flat_device would hand back every item as it is
        flat_in = list(raw_devices)
    spec, flat_in, dropped = drop_disabled_fields(spec, flat_in, in_use, profile, errs)
    _validate_kept(spec, flat_in if isinstance(raw_devices, list) else None, old, path, errs, profile=profile)
    errs[:] = explain(errs, dropped, profile)


def _validate_kept(
    spec: Mapping[str, Any], flat_devices: list[Any] | None, old: Mapping[str, Any] | None, path: FieldPath,
    errs: Errors, *, profile: Profile,
) -> None:
    driver = decode_str(errs, spec, "driver", path) or ""
    errs += tag(ids.DRIVER, validate_driver_name(driver, path.child("driver")))
    pool = decode_map(errs, spec, "pool", path) or {}
    _validate_resource_pool(pool, path.child("pool"), errs)
    node_name = decode_str(errs, spec, "nodeName", path)
    if old is not None:
        _validate_immutable(spec, old, path, errs)
    set_fields: list[str] = []
    validate_node_name(node_name, path, "must be either unset or set to a non-empty string", set_fields, errs)
    selector = decode_map(errs, spec, "nodeSelector", path)
    if selector is not None:
        set_fields.append("`nodeSelector`")
        errs += tag(ids.NODE_SELECTION, validate_node_selector(selector, path.child("nodeSelector")))
        terms = selector.get("nodeSelectorTerms")
        if not isinstance(terms, list) or len(terms) != 1:
            terms_path = path.child("nodeSelector").child("nodeSelectorTerms")
            errs.append((ids.NODE_SELECTION, invalid(terms_path, terms, "must have exactly one node selector term")))
    for key in ("allNodes", "perDeviceNodeSelection"):
        flag = decode_bool(errs, spec, key, path)
        if flag:
            set_fields.append(f"`{key}`")
        elif flag is False:
            errs.append((ids.NODE_SELECTION, invalid(path.child(key), False, UNSET_OR_TRUE)))
    if not set_fields:
        errs.append((ids.NODE_SELECTION, required(path, NODE_SELECTION)))
    elif len(set_fields) > 1:
        errs.append((ids.NODE_SELECTION, invalid(
            path, "{" + ", ".join(set_fields) + "}", NODE_SELECTION + ", but multiple fields are set")))
    devices = decode_list(errs, spec, "devices", path)
    sets = decode_list(errs, spec, "sharedCounters", path)
    # 1.34 (counter model `inSlice`) keeps counter sets and the devices consuming them in one slice.
    in_slice = profile.counter_model == IN_SLICE
    if devices is not None and sets is not None and not in_slice:
        errs.append((ids.COUNTERS, invalid(path, "", "only one of `sharedCounters` or `devices` is allowed")))
    flat = flat_devices if devices is not None and flat_devices is not None else []
    per_device = spec.get("perDeviceNodeSelection") is True
    # Declarative validation skips a spec an update leaves as it was (Semantic.DeepEqual; here: as written)
    _validate_devices(flat, old, per_device, path.child("devices"), errs, profile=profile,
                      sets=counter_sets(sets) if in_slice else None, changed=lambda: spec != old)
    if in_slice:
        validate_counters_in_slice(flat, sets, path, errs, profile)
    else:
        validate_counter_groups(sets, path.child("sharedCounters"), errs,
                                limit=_limit(profile, "maxCounterSets"), name_key="name",
                                counters_limit=_limit(profile, "maxCountersPerCounterSet"), profile=profile)
    validate_partition_type(spec, flat, path, errs)
    validate_skip_node_operations(spec, path, errs)


def _limit(profile: Profile, name: str) -> int:
    """A limit of the release; -1 (no limit, as upstream's validateSlice reads it) where the release has none."""
    value = profile.limit(name)
    return -1 if value is None else value


def _validate_resource_pool(pool: Mapping[str, Any], path: FieldPath, errs: Errors) -> None:
    unknown_fields(errs, pool, POOL_FIELDS, path)
    name = decode_str(errs, pool, "name", path) or ""
    name_path = path.child("name")
    if not name:
        errs.append((ids.POOL, required(name_path)))
    else:
        if go_len(name) > POOL_NAME_MAX:
            errs.append((ids.POOL, too_long(name_path, POOL_NAME_MAX)))
        for part in name.split("/"):
            errs += tag(ids.POOL, validate_dns1123_subdomain(part, name_path))
    # A value of the wrong type is the decoder's one error (the API server refuses the object there), not also a
    # zero that is out of range; an absent or null one is Go's zero, and validated as such.
    count = decode_int(errs, pool, "resourceSliceCount", path)
    if (count is not None or pool.get("resourceSliceCount") is None) and (count or 0) <= 0:
        errs.append((ids.POOL, invalid(path.child("resourceSliceCount"), count or 0, "must be greater than zero")))
    generation = decode_int(errs, pool, "generation", path)
    if generation is not None and generation < 0:
        errs.append((ids.POOL, invalid(path.child("generation"), generation, "must be greater than or equal to zero")))


def _validate_immutable(spec: Mapping[str, Any], old: Mapping[str, Any], path: FieldPath, errs: Errors) -> None:
    def pool_name(s: Mapping[str, Any]) -> Any:
        pool = s.get("pool")
        return pool.get("name", "") if isinstance(pool, Mapping) else ""

    if pool_name(spec) != pool_name(old):
        errs.append((ids.IMMUTABLE, immutable(path.child("pool").child("name"), pool_name(spec))))
    if spec.get("driver", "") != old.get("driver", ""):
        errs.append((ids.IMMUTABLE, immutable(path.child("driver"), spec.get("driver", ""))))
    if spec.get("nodeName") != old.get("nodeName"):
        errs.append((ids.IMMUTABLE, immutable(path.child("nodeName"), spec.get("nodeName"))))


def _validate_devices(
    devices: list[Any], old: Mapping[str, Any] | None, per_device: bool, path: FieldPath, errs: Errors, *,
    profile: Profile, sets: CounterSets | None = None, changed: Callable[[], bool] | None = None,
) -> None:
    """The device list; `sets` (1.34's counter model only) are the slice's counter sets devices must consume from;
    `changed`: does an update change the spec (declarative validation runs then; asked only for a device that is
    not clean, so that a clean update leaves the old object undecoded)."""
    flat = devices
    # The fast accept (k8s.fast): devices proven clean skip the precise validator, which alone builds paths.
    # Not when the count is over every limit (1.35+ checks nothing then) nor with per-device node selection.
    most = _limit(profile, "maxDevices")
    short_circuit = profile.short_circuit_max_items  # 1.34 validates every device of an over-limit list
    fields, max_values = _fast_fields(profile.version), profile.limit("maxAttributeValues")
    verdicts = [NOT_CLEAN] * len(flat) if per_device or (short_circuit and 0 <= most < len(flat)) \
        or not fast_enabled() else [device_verdict(d, fields, max_values) for d in flat]
    advanced = profile.limit("maxDevicesAdvanced")
    # A clean device's verdict says whether it has list attributes; the others are read for advanced features.
    uses_advanced = advanced is not None and (CLEAN_WITH_LISTS in verdicts or any(
        _uses_advanced_features(d) for d, verdict in zip(flat, verdicts, strict=True) if verdict == NOT_CLEAN))
    limit = advanced if uses_advanced and advanced is not None else most
    if short_circuit and not within_limit(flat, limit, path, ids.DEVICE_COUNT, errs):
        return
    # The old devices by name, for the precise validator only: the old object is not read when every device is clean.
    old_devices: dict[str, Mapping[str, Any]] = {}
    old_list = old.get("devices") if old is not None and NOT_CLEAN in verdicts else None
    declarative = old is None or NOT_CLEAN not in verdicts or changed is None or changed()
    for item in old_list if isinstance(old_list, list) else ():
        if isinstance(item, Mapping) and isinstance(item.get("name"), str):
            old_devices.setdefault(item["name"], flat_device(item))
    for i, item in enumerate(flat):
        if verdicts[i]:  # clean
            continue
        device_path = path.index(i)
        if not isinstance(item, Mapping):
            decode_item_map(errs, item, device_path)  # reported once; nothing inside to check
            continue
        old_device = old_devices.get(string_field(item, "name")) if old is not None else None
        if sets is not None and "consumesCounters" in item:
            validate_device_in_slice(item, old_device, device_path, per_device, errs, profile=profile, sets=sets)
        else:
            validate_device(item, old_device, device_path, per_device, errs, profile=profile, declarative=declarative)
    if not short_circuit:  # 1.34's validateSlice: TooMany after the devices, before the duplicates
        too_many_after(flat, limit, path, ids.DEVICE_COUNT, errs)
    if NOT_CLEAN not in verdicts and len({d["name"] for d in flat}) == len(flat):
        return  # clean devices have string names: distinct ones have no Duplicate to report
    # 1.34's validateSet names the key field: `devices[i].name`; 1.35+ the item
    duplicates((string_field(d, "name") if isinstance(d, Mapping) else None for d in flat), path, ids.DEVICE_NAME,
               errs, "name" if profile.duplicate_device_path == "name" else None)


@functools.cache
def _fast_fields(version: str) -> frozenset[str]:
    """The device fields the fast accept handles, among those the release has."""
    return FAST_FIELDS & load_profile(version).field_names("device")


def _uses_advanced_features(device: Any) -> bool:
    """Upstream haveDeviceTaints || haveConsumesCounters || haveListAttributes, for one device."""
    if not isinstance(device, Mapping):
        return False
    if device.get("taints") or device.get("consumesCounters"):
        return True
    attributes = device.get("attributes")
    return isinstance(attributes, Mapping) and any(has_list_values(a) for a in attributes.values())
