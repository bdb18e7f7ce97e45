"""The claim side of resource.k8s.io as the API server decodes it: ResourceClaim, ResourceClaimTemplate and
DeviceClass, field by field (kubernetes/api resource/{v1,v1beta2,v1beta1}/types.go, the same in 1.34-1.37).

v1 and v1beta2 nest a request's device fields under `exactly` (or list alternatives in `firstAvailable`);
v1beta1 keeps them on the request itself. Fields the decoder keeps as written are described as RAW (opaque
`parameters`, an ObjectMeta's server-written structures); a ResourceClaim's `status` (written by the scheduler
and drivers, not in manifests) is not described, so nothing in it is reported. Keys that the version's types
lack, at the top, in `metadata` and under `spec`, are unknown fields (`Strict`), as the API server warns of them
and drops them.

    decode_object({"kind": "ResourceClaim", "spec": {"devices": {"requests": "x"}}})
    ->  spec.devices.requests: Invalid value: "x": must be of type array            (k8s-wire-type)
    decode_object({"kind": "ResourceClaim", "spec": {"devices": {"request": []}}})
    ->  unknown field "spec.devices.request"                                         (k8s-unknown-field)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webhook.fieldpath import FieldPath
from webhook.profiles import Profile
from webhook.rules.base import DEVICE_CLASS, RESOURCE_CLAIM, RESOURCE_CLAIM_TEMPLATE
from webhook.rules.k8s.claim_gates import claim_drops
from webhook.rules.k8s.decode import BOOLEAN, INTEGER, RAW, STRING
from webhook.rules.k8s.ids import Errors
from webhook.rules.k8s.object_meta import OBJECT_META, top_level
from webhook.rules.k8s.schema import QUANTITY, ListOf, MapOf, Strict, Struct, decode, struct
from webhook.rules.k8s.slice import missing_api_version, not_served, served_version

DEVICE_SELECTOR = struct(cel=struct(expression=STRING))
DEVICE_TOLERATION = struct(key=STRING, operator=STRING, value=STRING, effect=STRING, tolerationSeconds=INTEGER)
CAPACITY_REQUIREMENTS = struct(requests=MapOf(QUANTITY))
OPAQUE_CONFIGURATION = struct(driver=STRING, parameters=RAW)

DEVICE_SUB_REQUEST = struct(
    name=STRING, deviceClassName=STRING, selectors=ListOf(DEVICE_SELECTOR), allocationMode=STRING, count=INTEGER,
    tolerations=ListOf(DEVICE_TOLERATION), capacity=CAPACITY_REQUIREMENTS,
)
EXACT_DEVICE_REQUEST = DEVICE_SUB_REQUEST.without("name").extended(adminAccess=BOOLEAN)
DEVICE_REQUEST = struct(name=STRING, exactly=EXACT_DEVICE_REQUEST, firstAvailable=ListOf(DEVICE_SUB_REQUEST))
DEVICE_REQUEST_V1BETA1 = EXACT_DEVICE_REQUEST.extended(name=STRING, firstAvailable=ListOf(DEVICE_SUB_REQUEST))

DEVICE_CONSTRAINT = struct(requests=ListOf(STRING), matchAttribute=STRING, distinctAttribute=STRING)
DEVICE_CLAIM_CONFIGURATION = struct(requests=ListOf(STRING), opaque=OPAQUE_CONFIGURATION)
DEVICE_CLASS_SPEC = struct(selectors=ListOf(DEVICE_SELECTOR), config=ListOf(struct(opaque=OPAQUE_CONFIGURATION)),
                           extendedResourceName=STRING)


def _kinds(request: Struct) -> Mapping[str, Strict]:
    """The three objects, given the version's DeviceRequest."""
    devices = struct(requests=ListOf(request), constraints=ListOf(DEVICE_CONSTRAINT),
                     config=ListOf(DEVICE_CLAIM_CONFIGURATION))
    claim_spec = struct(devices=devices)
    return {
        RESOURCE_CLAIM: top_level(claim_spec, status=RAW),
        RESOURCE_CLAIM_TEMPLATE: top_level(struct(metadata=OBJECT_META, spec=claim_spec)),
        DEVICE_CLASS: top_level(DEVICE_CLASS_SPEC),
    }


_V1 = _kinds(DEVICE_REQUEST)
API_TYPES: Mapping[str, Mapping[str, Strict]] = {"v1": _V1, "v1beta2": _V1, "v1beta1": _kinds(DEVICE_REQUEST_V1BETA1)}
KINDS = frozenset(_V1)  # the same three in every version


def decode_object(obj: Mapping[str, Any], profile: Profile | None = None,
                  old: Mapping[str, Any] | None = None) -> Errors:
    """The `k8s-wire-type` and `k8s-unknown-field` errors of a claim, claim template or device class, and with a
    profile the `k8s-feature-gate` ones (fields the server drops; `old`: the stored object of an update). For an
    apiVersion the server does not serve, only the `k8s-api-version` refusal (there is no type to decode into);
    nothing for another kind."""
    kind = str(obj.get("kind"))
    version = served_version(obj, profile)
    if version is None:
        return [not_served(obj, kind)] if kind in KINDS else []
    wire = API_TYPES[version].get(kind)
    errs: Errors = missing_api_version(obj) if kind in KINDS else []
    if wire is not None:
        decode(errs, obj, wire, FieldPath())
        if profile is not None:
            errs += claim_drops(obj, profile, old)
    return errs
