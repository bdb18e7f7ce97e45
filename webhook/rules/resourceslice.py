"""Kubernetes parity rules for ResourceSlice: what the API server itself rejects, with its exact wording.

Upstream's validators (`webhook/rules/k8s/`: slice, device, attribute, capacity) run once per
object; each catalogue entry below reports the errors tagged with its id, so a policy can tune them apart
while the walk stays one pass. One entry reads more than slices: `k8s-wire-type` also checks ResourceClaims,
ResourceClaimTemplates and DeviceClasses, against their API types as data (`k8s.claim_types`), and so do
`k8s-unknown-field`, for the keys those types lack, and `k8s-feature-gate`, for the fields a gate that is off
drops (`k8s.claim_gates`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from msgspec.structs import replace

from webhook.findings import Action, Finding
from webhook.rules.base import DRA_KINDS, RESOURCE_SLICE, Check, Rule, RuleContext
from webhook.rules.k8s import ids
from webhook.rules.k8s.claim import validate_claim_object
from webhook.rules.k8s.claim_types import decode_object
from webhook.rules.k8s.gates import explain_list_drops
from webhook.rules.k8s.ids import Errors
from webhook.rules.k8s.slice import validate_resource_slice
from webhook.wire import Obj, kind_of

_SLICE = frozenset({RESOURCE_SLICE})
_KEY = "k8s-resourceslice"
_CLAIM_KEY = "k8s-claim"


def errors(slice_: Obj, ctx: RuleContext) -> Errors:
    """All parity errors of `slice_`, computed once per run and shared by the rules below."""
    found: Errors | None = ctx.shared.get(_KEY)  # asked by every rule below: the common case without a call
    if found is not None:
        return found
    return ctx.once(_KEY, lambda: _slice_errors(slice_, ctx))


def _slice_errors(slice_: Obj, ctx: RuleContext) -> Errors:
    """The errors of the slice as stored, and those of the list fields the runner dropped to store it."""
    errs = validate_resource_slice(slice_, ctx.old, ctx.policy.profile)
    if not ctx.dropped:
        return errs
    return explain_list_drops(errs, list(ctx.dropped), ctx.policy.profile) + list(ctx.dropped)


def decoded(obj: Obj, ctx: RuleContext) -> Errors:
    """The decoding errors of a claim, claim template or device class, computed once per run (also read by
    selector-required, which leaves a wrong-typed selector field to `k8s-wire-type`)."""
    return ctx.once("k8s-claim-decode", lambda: decode_object(obj, ctx.policy.profile, ctx.old))


def _claim_errors(obj: Obj, ctx: RuleContext) -> Errors:
    """The decoding and validation errors (`k8s.claim`) of a claim, claim template or device class, computed
    once per run and joined once, not by each of the rules that read them."""
    found: Errors | None = ctx.shared.get(_CLAIM_KEY)  # asked by every rule below: the common case without a call
    if found is not None:
        return found
    return ctx.once(_CLAIM_KEY, lambda: decoded(obj, ctx) + validate_claim_object(obj, ctx.policy.profile, ctx.old))


def _any_kind(obj: Obj, ctx: RuleContext) -> Errors:
    """The errors of a slice, or the decoding and validation errors of a claim, claim template or device class."""
    return errors(obj, ctx) if kind_of(obj) == RESOURCE_SLICE else _claim_errors(obj, ctx)


def _only(rule_id: str, remediation: str, source: Callable[[Obj, RuleContext], Errors] = errors) -> Check:
    def check(slice_: Obj, ctx: RuleContext) -> Iterable[Finding]:
        errs = source(slice_, ctx)
        if not errs:  # the usual answer, for each of these rules: nothing to filter
            return ()
        # The API server's message says what is wrong; the catalogue's remediation says how to fix it.
        return [finding if finding.hint else replace(finding, hint=remediation)
                for tagged, finding in errs if tagged == rule_id]

    check.__name__ = f"check_{rule_id.replace('-', '_')}"
    return check


def _rule(rule_id: str, summary: str, remediation: str, default: Action = Action.DENY, *, since: str = "1.34",
          gates: tuple[str, ...] = (), every_kind: bool = False) -> Rule:
    return Rule(rule_id, kinds=DRA_KINDS if every_kind else _SLICE, default=default, summary=summary,
                remediation=remediation, check=_only(rule_id, remediation, _any_kind if every_kind else errors),
                origin="kubernetes", since=since, gates=gates)


RULES = (
    _rule(ids.API_VERSION, "`apiVersion` is one the API server serves the kind in (ResourceSlice, ResourceClaim, "
          "ResourceClaimTemplate, DeviceClass): resource.k8s.io/v1, v1beta2 or v1beta1",
          "use `apiVersion: resource.k8s.io/v1` (v1alpha2 and v1alpha3 are no longer served)", every_kind=True),
    _rule(ids.OBJECT_META, "`metadata.name` is a DNS subdomain (or `generateName` is set); labels and annotations "
          "have valid keys and values", "use a lower-case DNS subdomain as the name, like `node-1-gpu.example.com`",
          every_kind=True),
    _rule(ids.DRIVER, "`spec.driver` is set, at most 63 bytes, a DNS subdomain",
          "use the driver's domain name, e.g. `gpu.example.com`"),
    _rule(ids.POOL, "`spec.pool`: name set (<= 253 bytes, `/`-separated DNS subdomains), resourceSliceCount > 0, "
          "generation >= 0", "name the pool (often the node name) and publish resourceSliceCount >= 1"),
    _rule(ids.IMMUTABLE, "on update, nothing immutable changes: a slice's `spec.driver`, `spec.pool.name` and "
          "`spec.nodeName`, a ResourceClaim's or ResourceClaimTemplate's whole `spec`, any object's "
          "`metadata.name`, `namespace` and `uid`",
          "delete and recreate the object instead of changing these fields", every_kind=True),
    _rule(ids.NODE_SELECTION, "exactly one of nodeName, nodeSelector, allNodes, perDeviceNodeSelection; "
          "per-device node fields only with perDeviceNodeSelection",
          "set exactly one; booleans must be true or left out"),
    _rule(ids.DEVICE_COUNT, "at most 128 devices per slice, 64 when any device uses taints, consumesCounters "
          "or list attributes (1.35+)",
          "split the devices over more slices of the same pool (raise resourceSliceCount)"),
    _rule(ids.DEVICE_NAME, "device names are DNS labels, unique within the slice",
          "use lower-case names of at most 63 characters, like `gpu-0`, each once"),
    _rule(ids.ATTRIBUTE_LIMITS, "per device at most 32 attributes+capacities and (1.36+) 48 attribute values "
          "(a list counts its length)", "publish fewer attributes or shorter lists"),
    _rule(ids.QUALIFIED_NAME, "attribute and capacity names are `identifier` or `domain/identifier` "
          "(C identifier <= 32 bytes, DNS subdomain <= 63 bytes)", "rename the key, e.g. `gpu.example.com/memory_gb`"),
    _rule(ids.ATTRIBUTE_UNION, "each attribute sets exactly one of int, bool, string, version, ints, bools, "
          "strings, versions; a list is not empty", "keep one value field per attribute; leave out empty lists"),
    _rule(ids.ATTRIBUTE_VALUE, "strings and versions are at most 64 bytes; versions are strict semver 2.0.0",
          "shorten the value; write versions like `1.2.3` (no `v`, no leading zeros)"),
    _rule(ids.CAPACITY, "a capacity requestPolicy only with allowMultipleAllocations, and a consistent one",
          "set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree "
          "with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)",
          gates=("DRAConsumableCapacity",)),
    _rule(ids.TAINTS, "at most 16 taints per device (4 in 1.34); key a label name, value a label value, effect "
          "NoSchedule, NoExecute or None", "fix the taint key, value or effect", gates=("DRADeviceTaints",)),
    _rule(ids.COUNTERS, "sharedCounters (<= 8 sets, <= 32 counters each) and consumesCounters (<= 2 per device) "
          "are well-formed; not both sharedCounters and devices in one slice",
          "publish counter sets and devices in separate slices; use DNS-label names",
          gates=("DRAPartitionableDevices",)),
    _rule(ids.BINDING_CONDITIONS, "bindingConditions and bindingFailureConditions: <= 4 each, label names, "
          "no duplicates, no overlap, both or neither", "list each condition once and set both lists together",
          gates=("DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus")),
    _rule(ids.PARTITION_TYPE, "`spec.partitionTypeAttribute` is a fully qualified attribute name, set only on a slice "
          "whose devices consume counters, and each such device carries it as a string",
          "name a string attribute every counter-consuming device publishes, e.g. `gpu.example.com/profile`",
          since="1.37", gates=("DRAPartitionableDevicesType",)),
    _rule(ids.SKIP_NODE_OPERATIONS, "`spec.skipNodeOperations` holds each of `*`, `NodePrepareResources`, "
          "`NodeUnprepareResources` at most once; NodePrepareResources only with NodeUnprepareResources or `*`",
          "also skip NodeUnprepareResources (or use `*`)", since="1.37", gates=("DRAOptionalNodeOperations",)),
    _rule(ids.NODE_ALLOCATABLE, "`nodeAllocatableResources` (1.37; 1.36: `nodeAllocatableResourceMappings`) map "
          "node-allocatable resources (cpu, memory, ephemeral-storage, hugepages-*) to a device capacity or "
          "an overhead, with positive multipliers", "use a native resource name and a capacity key the device "
          "publishes; set capacityKey and capacityMultiplier together", since="1.36",
          gates=("DRANodeAllocatableResources",)),
    _rule(ids.DEVICE_REQUEST, "a claim's requests: at most 32, named by unique DNS labels; firstAvailable at most 8 "
          "with unique names; deviceClassName set; allocationMode All without count or ExactCount with count > 0; "
          "at most 32 selectors; tolerations with a label-name key, operator Equal or Exists, a known effect",
          "name each request once with a lower-case DNS label; set deviceClassName; leave count out with "
          "allocationMode: All", every_kind=True),
    _rule(ids.DEVICE_CONSTRAINT, "a claim has at most 32 constraints, each naming at most 32 requests, each once",
          "list each request once; split a claim that needs more", every_kind=True),
    _rule(ids.DEVICE_CONFIG, "at most 32 config entries per claim or DeviceClass, each with `opaque`: a driver name "
          "and parameters that are a JSON object of at most 10 KiB; its requests at most 32, each once",
          "give `opaque.driver` the driver's name and `opaque.parameters` an object; keep parameters under 10 KiB",
          every_kind=True),
    _rule(ids.DEVICE_CLASS_SPEC, "a DeviceClass has at most 32 selectors, and its extendedResourceName (with "
          "DRAExtendedResource) is an extended resource name (`<domain>/<name>`, not kubernetes.io)",
          "merge selectors with `&&`; name the extended resource like `example.com/gpu`", every_kind=True),
    _rule(ids.FEATURE_GATE, "no field whose feature gate is off in the cluster, in a ResourceSlice, a claim's or "
          "template's requests and constraints, or a DeviceClass (the API server drops it without an error, unless "
          "the stored object already used it)", "enable the gate (featureGates in the policy) or leave the field out",
          Action.WARN, every_kind=True),
    _rule(ids.WIRE_TYPE, "every field of a ResourceSlice, ResourceClaim, ResourceClaimTemplate or DeviceClass has "
          "the JSON type the API server decodes (the request fails otherwise)",
          "give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and "
          "booleans bare, quantities like `16Gi`",
          every_kind=True),
    _rule(ids.UNKNOWN_FIELD, "no field the API schema lacks, anywhere in a ResourceSlice, ResourceClaim, "
          "ResourceClaimTemplate or DeviceClass but a claim's status (the server drops it with a warning)",
          "fix the field name's spelling; a dropped union member leaves the attribute empty", Action.WARN,
          every_kind=True),
)
