"""ResourceClaim, ResourceClaimTemplate and DeviceClass as upstream validates them after decoding and defaulting
(`ValidateResourceClaim`, `ValidateResourceClaimTemplate`, `ValidateDeviceClass` in kubernetes
pkg/apis/resource/validation, the same rules in 1.34-1.37), worded as the API server words them.

What other rules already report is left to them: the decoder's wrong types and unknown fields (`claim_types`),
the fields a gate drops (`claim_gates`), `exactly` vs `firstAvailable` and each selector's expression (the
selector rules), the request a constraint or config entry names and a constraint's attribute
(`constraint-request-unknown`, `constraint-attribute-unqualified`). Here:

    requests        <= 32, names DNS labels and unique; firstAvailable <= 8 with unique names; deviceClassName set
                    and a DNS subdomain; allocationMode All (no count) or ExactCount (count > 0, after the default
                    of 1); selectors <= 32; tolerations: key a label name, operator Equal (value a label value) or
                    Exists (no value), effect one the release knows              (k8s-device-request)
    constraints     <= 32; each `requests` list <= 32 without duplicates     (k8s-device-constraint)
    config          <= 32; `requests` as for constraints; `opaque` set, its driver a driver name, its
                    parameters a JSON object of at most 10 KiB             (k8s-device-config)
    DeviceClass     selectors <= 32, config as above, extendedResourceName an extended resource name
    metadata        the name (or generateName), labels and annotations; a template's spec.metadata: labels and
                    annotations                                               (k8s-object-meta)

On update (`old`), as the release's strategy runs ValidateResourceClaimUpdate & co.:

    metadata        ValidateObjectMetaUpdate: name, namespace and uid unchanged (k8s-immutable), no finalizer
                    added to an object being deleted (k8s-object-meta)
    claim           `spec` unchanged (`spec: Invalid value: null: field is immutable`, k8s-immutable), compared as
                    Semantic.DeepEqual compares the decoded specs once the gates dropped their fields; 1.34 also
                    validates the spec again as on create, 1.35+ does not (a stored spec is not judged again)
    template        the same immutability; its spec is validated as on create in every release
    DeviceClass     validated again; 1.35+ does not size-check a config equal to the stored one

In v1beta1 a request's device fields sit on the request and errors name them under `exactly`, as upstream's
ResourceNormalizationRules do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webhook.fieldpath import FieldPath
from webhook.profiles import Profile
from webhook.rules.base import DEVICE_CLASS, RESOURCE_CLAIM, RESOURCE_CLAIM_TEMPLATE
from webhook.rules.k8s import ids
from webhook.rules.k8s.claim_gates import claim_drops, in_use, keeps
from webhook.rules.k8s.claim_types import API_TYPES
from webhook.rules.k8s.decode import as_int64, go_len, is_int64
from webhook.rules.k8s.device import duplicates, string_field, within_limit
from webhook.rules.k8s.errors import go_json, immutable, invalid, not_supported, required, too_long
from webhook.rules.k8s.ids import Errors, tag
from webhook.rules.k8s.names import (
    is_qualified_name,
    messages,
    validate_dns1123_label,
    validate_dns1123_subdomain,
    validate_driver_name,
    validate_label_name,
    validate_label_value,
)
from webhook.rules.k8s.object_meta import validate_object_meta
from webhook.rules.k8s.schema import Strict, Struct, semantic
from webhook.rules.k8s.slice import served_version

REQUESTS_MAX = 32  # DeviceRequestsMaxSize (also the limit of a constraint's or config entry's `requests`)
CONSTRAINTS_MAX = 32  # DeviceConstraintsMaxSize
CONFIG_MAX = 32  # DeviceConfigMaxSize
SELECTORS_MAX = 32  # DeviceSelectorsMaxSize
FIRST_AVAILABLE_MAX = 8  # FirstAvailableDeviceRequestMaxSize
PARAMETERS_MAX = 10 * 1024  # OpaqueParametersMaxLength
ALLOCATION_MODES = ("All", "ExactCount")  # as validateDeviceAllocationMode lists them
OPERATORS = ("Equal", "Exists")  # validDeviceTolerationOperators
NOT_AN_OBJECT = "must be a valid JSON object"
EXTENDED_RESOURCE = "must be a valid extended resource name"
_SPEC = FieldPath.root("spec")


def validate_claim_object(obj: Mapping[str, Any], profile: Profile, old: Mapping[str, Any] | None = None) -> Errors:
    """Every validation error the API server of `profile` reports for a claim, template or class (`old`: the
    stored object of an update); nothing for another kind or an apiVersion it does not serve."""
    kind = obj.get("kind")
    version = served_version(obj, profile)
    if kind not in (RESOURCE_CLAIM, RESOURCE_CLAIM_TEMPLATE, DEVICE_CLASS) or version is None:
        return []
    errs: Errors = []
    with messages(profile.messages):
        meta = _map(obj.get("metadata"))
        validate_object_meta(meta, FieldPath.root("metadata"), errs, old=old, namespaced=kind != DEVICE_CLASS)
        spec = _map(obj.get("spec"))
        if kind == DEVICE_CLASS:
            stored = _map(old.get("spec")) if old is not None and not profile.update_revalidates else None
            _validate_class_spec(spec, stored, profile, in_use(old, profile), errs)
            return errs
        # The API server sends both objects of a review in one version; objects of two (a test's, a replayed
        # review's) have different layouts, and are not compared.
        if old is not None and served_version(old, profile) == version and _spec_changed(obj, old, version, profile):
            errs.append((ids.IMMUTABLE, immutable(_SPEC, None)))
        if old is None or kind == RESOURCE_CLAIM_TEMPLATE or profile.update_revalidates:
            at = _SPEC
            if kind == RESOURCE_CLAIM_TEMPLATE:
                validate_object_meta(_map(spec.get("metadata")), _SPEC.child("metadata"), errs, template=True)
                spec, at = _map(spec.get("spec")), _SPEC.child("spec")
            _validate_devices(_map(spec.get("devices")), at.child("devices"), version == "v1beta1", profile, errs)
    return errs


# Pointer fields of the claim side (by JSON name): set to their zero value, they still differ from unset.
POINTERS = frozenset({"exactly", "adminAccess", "capacity", "tolerationSeconds", "matchAttribute",
                      "distinctAttribute", "cel", "opaque", "deletionGracePeriodSeconds"})


def _spec_changed(obj: Mapping[str, Any], old: Mapping[str, Any], version: str, profile: Profile) -> bool:
    """ValidateImmutableField(spec): is the spec the server would store (what a gate that is off drops taken out,
    unless the stored object uses that feature) semantically other than the stored one?"""
    top = API_TYPES[version][str(obj.get("kind"))]
    wire = top.wire.fields["spec"] if isinstance(top, Strict) and isinstance(top.wire, Struct) else top
    new = obj.get("spec")
    for _rule, finding in claim_drops(obj, profile, old):
        new = _without(new, finding.path.segments[1:])
    return bool(semantic(new, wire, POINTERS) != semantic(old.get("spec"), wire, POINTERS))


def _without(value: Any, segments: tuple[str | int, ...]) -> Any:
    """`value` with the field at `segments` removed (copied along that path only)."""
    if not segments:
        return None
    head, rest = segments[0], segments[1:]
    if isinstance(value, Mapping) and isinstance(head, str) and head in value:
        copy = dict(value)
        if rest:
            copy[head] = _without(value[head], rest)
        else:
            del copy[head]
        return copy
    if isinstance(value, list) and isinstance(head, int) and 0 <= head < len(value):
        return [*value[:head], _without(value[head], rest), *value[head + 1:]] if rest else value
    return value


def _map(value: Any) -> Mapping[str, Any]:
    """An object field as the decoder fills it: anything else (null, or a wrong type the decoder reports) is empty."""
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _strings(value: Any) -> list[str | None]:
    """A []string: null is "", a wrong type (the decoder's finding) None, which takes part in no check."""
    return ["" if item is None else item if isinstance(item, str) else None for item in _list(value)]


def _objects(items: list[Any]) -> list[tuple[int, Mapping[str, Any]]]:
    """The structs of a list with their indexes: null is the zero struct; an item of another type (the decoder's
    finding) is left out rather than read as empty, which would add findings that only repeat it."""
    return [(i, _map(item)) for i, item in enumerate(items) if item is None or isinstance(item, Mapping)]


def _names(items: list[Any]) -> list[str | None]:
    """The `name` of each request or subrequest, the key validateSet compares them by."""
    return _strings([_map(item).get("name") for item in items])


def _sized(items: list[Any], limit: int, path: FieldPath, rule: str, *, profile: Profile, errs: Errors) -> bool:
    """validateSlice's size check: over `limit` is one `Too many`; 1.35+ then checks no item, 1.34 checks every
    item and adds the `Too many` (here before them: the order of findings is not the server's anyway)."""
    return within_limit(items, limit, path, rule, errs) or not profile.short_circuit_max_items


def _unique(keys: list[str | None], path: FieldPath, rule: str, field: str, *, profile: Profile, errs: Errors) -> None:
    """validateSet's duplicates: at the item (1.35+) or, for a keyed struct in 1.34, at its key field."""
    duplicates(keys, path, rule, errs, field if field and profile.duplicate_device_path == "name" else None)


def _validate_devices(devices: Mapping[str, Any], path: FieldPath, beta1: bool, profile: Profile,
                      errs: Errors) -> None:
    rule = ids.DEVICE_REQUEST
    requests = _list(devices.get("requests"))
    if _sized(requests, REQUESTS_MAX, path.child("requests"), rule, profile=profile, errs=errs):
        for i, request in _objects(requests):
            _validate_request(request, path.child("requests").index(i), beta1, profile=profile, errs=errs)
        _unique(_names(requests), path.child("requests"), rule, "name", profile=profile, errs=errs)
    constraints, at = _list(devices.get("constraints")), path.child("constraints")
    if _sized(constraints, CONSTRAINTS_MAX, at, ids.DEVICE_CONSTRAINT, profile=profile, errs=errs):
        for i, constraint in _objects(constraints):
            _request_refs(constraint, at.index(i), ids.DEVICE_CONSTRAINT, profile, errs)
    config = _list(devices.get("config"))
    if _sized(config, CONFIG_MAX, path.child("config"), ids.DEVICE_CONFIG, profile=profile, errs=errs):
        for i, entry in _objects(config):
            entry_path = path.child("config").index(i)
            _request_refs(entry, entry_path, ids.DEVICE_CONFIG, profile, errs)
            _validate_configuration(entry, entry_path, stored=False, errs=errs)


def _request_refs(entry: Mapping[str, Any], path: FieldPath, rule: str, profile: Profile, errs: Errors) -> None:
    """The size and uniqueness of a constraint's or config entry's `requests` (each name's own checks are
    constraint-request-unknown's)."""
    names = _strings(entry.get("requests"))
    if _sized(names, REQUESTS_MAX, path.child("requests"), rule, profile=profile, errs=errs):
        _unique(names, path.child("requests"), rule, "", profile=profile, errs=errs)


def _validate_request(request: Mapping[str, Any], path: FieldPath, beta1: bool, *, profile: Profile,
                      errs: Errors) -> None:
    """validateDeviceRequest, once the server dropped what its gates drop: the name, and the one form the request
    uses (neither or both is the selector rules' finding)."""
    rule = ids.DEVICE_REQUEST
    name = request.get("name")
    if isinstance(name, str | None):
        errs += tag(rule, validate_dns1123_label(name or "", path.child("name")))
    entries = _list(request.get("firstAvailable")) if keeps("request.firstAvailable", profile) else []
    exact = _exact(request, beta1)
    if entries and exact is None:
        at = path.child("firstAvailable")
        if _sized(entries, FIRST_AVAILABLE_MAX, at, rule, profile=profile, errs=errs):
            for j, sub in _objects(entries):
                sub_path = at.index(j)
                sub_name = sub.get("name")
                if isinstance(sub_name, str | None):
                    errs += tag(rule, validate_dns1123_label(sub_name or "", sub_path.child("name")))
                _validate_exact(sub, sub_path, "subrequest", profile=profile, errs=errs)
            _unique(_names(entries), at, rule, "name", profile=profile, errs=errs)
    elif exact is not None and not entries:
        defaults = not beta1 or bool(string_field(exact, "deviceClassName"))  # v1beta1: only with a class
        _validate_exact(exact, path.child("exactly"), "exactly", profile=profile, errs=errs, defaults=defaults)


def _exact(request: Mapping[str, Any], beta1: bool) -> Mapping[str, Any] | None:
    """The request's ExactDeviceRequest as the server converts it: v1 `exactly`; v1beta1's own fields when any is
    set (hasAnyMainRequestFieldsSet)."""
    if not beta1:
        exact = request.get("exactly")
        return _map(exact) if exact is not None else None
    return request if v1beta1_exact(request) else None


def v1beta1_exact(request: Mapping[str, Any]) -> bool:
    """Does a v1beta1 request become an exact one on conversion (hasAnyMainRequestFieldsSet: a deviceClassName,
    allocationMode or count that is not the zero value, or any of the other device fields not nil)?"""
    return (request.get("deviceClassName") not in (None, "") or request.get("allocationMode") not in (None, "")
            or request.get("count") not in (None, 0)
            or any(request.get(name) is not None for name in ("selectors", "adminAccess", "tolerations", "capacity")))


def _validate_exact(request: Mapping[str, Any], path: FieldPath, scope: str, *, profile: Profile, errs: Errors,
                    defaults: bool = True) -> None:
    """validateExactDeviceRequest / validateDeviceSubRequest (`scope`: the profiles' field prefix). `defaults`:
    allocationMode and count were defaulted (always, but for a v1beta1 request without a deviceClassName)."""
    rule = ids.DEVICE_REQUEST
    class_name = request.get("deviceClassName")
    if isinstance(class_name, str | None):
        if not class_name:
            errs.append((rule, required(path.child("deviceClassName"))))
        else:
            errs += tag(rule, validate_dns1123_subdomain(class_name, path.child("deviceClassName")))
    selectors = _list(request.get("selectors"))
    _sized(selectors, SELECTORS_MAX, path.child("selectors"), rule, profile=profile, errs=errs)
    mode, count = request.get("allocationMode"), request.get("count")
    if isinstance(mode, str | None) and (count is None or is_int64(count)):
        mode, count = mode or "", as_int64(count) or 0
        if defaults:  # SetDefaults_ExactDeviceRequest / _DeviceSubRequest (v1beta1: only with a deviceClassName)
            mode = mode or "ExactCount"
            count = 1 if mode == "ExactCount" and count == 0 else count
        if mode == "All" and count != 0:
            detail = f"must not be specified when allocationMode is '{mode}'"
            errs.append((rule, invalid(path.child("count"), count, detail)))
        elif mode == "ExactCount" and count <= 0:
            errs.append((rule, invalid(path.child("count"), count, "must be greater than zero")))
        elif mode not in ALLOCATION_MODES:
            errs.append((rule, not_supported(path.child("allocationMode"), mode, ALLOCATION_MODES)))
    if keeps(f"{scope}.tolerations", profile):
        for k, toleration in _objects(_list(request.get("tolerations"))):
            _validate_toleration(toleration, path.child("tolerations").index(k), profile, errs)


def _validate_toleration(toleration: Mapping[str, Any], path: FieldPath, profile: Profile, errs: Errors) -> None:
    """validateDeviceToleration, after the operator's default (Equal)."""
    rule = ids.DEVICE_REQUEST
    key, operator = string_field(toleration, "key"), string_field(toleration, "operator") or "Equal"
    value, effect = string_field(toleration, "value"), string_field(toleration, "effect")
    if key:
        errs += tag(rule, validate_label_name(key, path.child("key")))
    if operator == "Exists":
        if value:
            errs.append((rule, invalid(path.child("value"), value, "must be empty for operator `Exists`")))
    elif operator == "Equal":
        errs += tag(rule, validate_label_value(value, path.child("value")))
    else:
        errs.append((rule, not_supported(path.child("operator"), operator, OPERATORS)))
    if effect and effect not in profile.taint_effects:
        errs.append((rule, not_supported(path.child("effect"), effect, profile.taint_effects)))


def _validate_configuration(entry: Mapping[str, Any], path: FieldPath, *, stored: bool, errs: Errors) -> None:
    """validateDeviceConfiguration: `opaque` is required; its driver a driver name, its parameters a JSON object
    of at most 10 KiB (not checked again when the config is stored unchanged)."""
    rule = ids.DEVICE_CONFIG
    opaque = entry.get("opaque")
    if not isinstance(opaque, Mapping):
        if opaque is None:
            errs.append((rule, required(path.child("opaque"))))
        return
    path = path.child("opaque")
    driver = opaque.get("driver")
    if isinstance(driver, str | None):
        errs += tag(rule, validate_driver_name(driver or "", path.child("driver")))
    parameters = opaque.get("parameters")
    if parameters is None:
        errs.append((rule, required(path.child("parameters"))))
    elif not stored and _json_longer(parameters, PARAMETERS_MAX):
        errs.append((rule, too_long(path.child("parameters"), PARAMETERS_MAX)))
    elif not isinstance(parameters, Mapping):
        errs.append((rule, invalid(path.child("parameters"), "<value omitted>", NOT_AN_OBJECT)))


def _json_longer(value: Any, limit: int) -> bool:
    """Is Go's compact JSON of `value` (what kubectl sends, and the server keeps as the raw parameters) longer than
    `limit` bytes? Counted without recursion: parameters may nest deeper than Python's stack."""
    total, stack = 0, [value]
    while stack and total <= limit:
        item = stack.pop()
        if isinstance(item, Mapping):
            total += 1 + sum(go_len(go_json(str(key))) + 2 for key in item) if item else 2  # {"k":v,...}
            stack.extend(item.values())
        elif isinstance(item, list):
            total += 1 + len(item) if item else 2  # [v,...]
            stack.extend(item)
        else:
            total += go_len(go_json(item))
    return total > limit


def _validate_class_spec(spec: Mapping[str, Any], old: Mapping[str, Any] | None, profile: Profile,
                         used: frozenset[str], errs: Errors) -> None:
    """validateDeviceClassSpec. A config equal to the stored one is not size-checked again."""
    selectors = _list(spec.get("selectors"))
    _sized(selectors, SELECTORS_MAX, _SPEC.child("selectors"), ids.DEVICE_CLASS_SPEC, profile=profile, errs=errs)
    config = _list(spec.get("config"))
    stored = old is not None and old.get("config") == spec.get("config")
    if _sized(config, CONFIG_MAX, _SPEC.child("config"), ids.DEVICE_CONFIG, profile=profile, errs=errs):
        for i, entry in _objects(config):
            _validate_configuration(entry, _SPEC.child("config").index(i), stored=stored, errs=errs)
    name = spec.get("extendedResourceName")
    if isinstance(name, str) and keeps("class.extendedResourceName", profile, used) and not is_extended_resource(name):
        errs.append((ids.DEVICE_CLASS_SPEC, invalid(_SPEC.child("extendedResourceName"), name, EXTENDED_RESOURCE)))


def is_extended_resource(name: str) -> bool:
    """core v1helper.IsExtendedResourceName: `<domain>/<name>` outside kubernetes.io, not `requests.*`, and a
    qualified name once quota's `requests.` prefix is put in front."""
    native = "/" not in name or "kubernetes.io/" in name
    return not native and not name.startswith("requests.") and not is_qualified_name("requests." + name)

