"""k8s-wire-type on the claim side: ResourceClaims, ResourceClaimTemplates and DeviceClasses are checked against
their resource.k8s.io types as the API server decodes them (v1/v1beta2 `exactly`, v1beta1 flat requests).

Each scenario is an object and every finding draguard reports on it (all rules, default policy): the wrong JSON
types and nothing else, in particular no `rule-error` from the rules that walk selectors and constraints.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from webhook.manifests import load_paths
from webhook.policy import Policy
from webhook.profiles import SUPPORTED, load_profile
from webhook.rules.k8s import claim_types
from webhook.rules.k8s.names import LABEL_ERROR
from webhook.run import run_rules

WIRE = "k8s-wire-type"
REQUEST = {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}
NOT_AN_OBJECT = ("k8s-device-config", "spec.devices.config[0].opaque.parameters",
                 'Invalid value: "<value omitted>": must be a valid JSON object')


def claim(devices: Any, api: str = "v1", **extra: Any) -> dict[str, Any]:
    return {"apiVersion": f"resource.k8s.io/{api}", "kind": "ResourceClaim",
            "metadata": {"name": "c", "namespace": "ml"}, "spec": {"devices": devices}, **extra}


def template(spec: Any, api: str = "v1") -> dict[str, Any]:
    return {"apiVersion": f"resource.k8s.io/{api}", "kind": "ResourceClaimTemplate",
            "metadata": {"name": "t", "namespace": "ml"}, "spec": spec}


def device_class(spec: Any, api: str = "v1") -> dict[str, Any]:
    return {"apiVersion": f"resource.k8s.io/{api}", "kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
            "spec": spec}


def not_served(kind: str, api_version: str) -> tuple[str, str, str]:
    return "k8s-api-version", "apiVersion", f'no matches for kind "{kind}" in version "{api_version}"'


def exactly(**fields: Any) -> dict[str, Any]:
    return claim({"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com", **fields}}]})


def nested(depth: int) -> list[Any]:
    """`[[[...]]]`, `depth` lists deep (past Python's recursion limit)."""
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def unknown(path: str) -> tuple[str, str, str]:
    return ("k8s-unknown-field", path, f'unknown field "{path}"')


def wire(path: str, shown: str, expected: str) -> tuple[str, str, str]:
    return (WIRE, path, f"Invalid value: {shown}: must be of type {expected}")


# The shapes an adversarial probe found admitted; each is refused by the API server's decoder.
PROBES: dict[str, tuple[dict[str, Any], list[tuple[str, str, str]]]] = {
    "requests a string": (claim({"requests": "x"}), [wire("spec.devices.requests", '"x"', "array")]),
    "exactly.selectors a string": (exactly(selectors="x"),
                                   [wire("spec.devices.requests[0].exactly.selectors", '"x"', "array")]),
    "claim spec a string": ({**claim({}), "spec": "x"}, [wire("spec", '"x"', "object")]),
    "template spec.spec a list": (template({"spec": [1]}), [wire("spec.spec", "[1]", "object")]),
    "constraints with a number and a string": (  # (a null one: "nulls decode to zero values" below)
        claim({"requests": [REQUEST], "constraints": [{"matchAttribute": 5}, "x"]}),
        [wire("spec.devices.constraints[0].matchAttribute", "5", "string"),
         wire("spec.devices.constraints[1]", '"x"', "object")]),
    "device class spec a string": (device_class("x"), [wire("spec", '"x"', "object")]),
    "device class selectors a string": (device_class({"selectors": "x"}), [wire("spec.selectors", '"x"', "array")]),
}

MORE: dict[str, tuple[dict[str, Any], list[tuple[str, str, str]]]] = {
    "v1beta1 selectors sit on the request": (
        claim({"requests": [{"name": "gpu", "deviceClassName": "gpu.example.com", "selectors": "x"}]}, "v1beta1"),
        [wire("spec.devices.requests[0].selectors", '"x"', "array")]),
    "v1beta1 count quoted": (
        claim({"requests": [{"name": "gpu", "deviceClassName": "gpu.example.com", "count": "2"}]}, "v1beta1"),
        [wire("spec.devices.requests[0].count", '"2"', "integer")]),
    "v1beta1 has no exactly: dropped, not decoded": (
        claim({"requests": [{"name": "gpu", "deviceClassName": "gpu.example.com", "exactly": "x"}]}, "v1beta1"),
        [unknown("spec.devices.requests[0].exactly")]),
    "v1 has no request-level deviceClassName: dropped, not decoded": (
        claim({"requests": [{**REQUEST, "deviceClassName": 5}]}),
        [unknown("spec.devices.requests[0].deviceClassName")]),
    "v1beta2 reads exactly like v1": (
        claim({"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com", "count": 1.5}}]},
              "v1beta2"),
        [wire("spec.devices.requests[0].exactly.count", "1.5", "integer")]),
    "adminAccess quoted": (exactly(adminAccess="true"),
                           [wire("spec.devices.requests[0].exactly.adminAccess", '"true"', "boolean")]),
    "a count beyond int64": (exactly(count=2**63), [wire("spec.devices.requests[0].exactly.count",
                                                         str(2**63), "integer")]),
    "firstAvailable toleration seconds quoted": (
        claim({"requests": [{"name": "gpu", "firstAvailable": [
            {"name": "big", "deviceClassName": "gpu.example.com",
             "tolerations": [{"key": "k", "operator": "Exists", "tolerationSeconds": "60"}]}]}]}),
        [wire("spec.devices.requests[0].firstAvailable[0].tolerations[0].tolerationSeconds", '"60"', "integer")]),
    "capacity request a boolean": (
        exactly(capacity={"requests": {"memory": True}}),
        [wire("spec.devices.requests[0].exactly.capacity.requests[memory]", "true", "quantity string")]),
    "capacity request not a quantity": (
        exactly(capacity={"requests": {"memory": "lots"}}),
        [(WIRE, "spec.devices.requests[0].exactly.capacity.requests[memory]",
          "Invalid value: \"lots\": quantities must match the regular expression "
          "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")]),
    "config a string": (claim({"requests": [REQUEST], "config": "x"}), [wire("spec.devices.config", '"x"', "array")]),
    "opaque parameters decode from any JSON; validation wants an object": (
        claim({"requests": [REQUEST], "config": [{"opaque": {"driver": "gpu.example.com", "parameters": [1, "x"]}}]}),
        [NOT_AN_OBJECT]),
    "constraint requests a string": (
        claim({"requests": [REQUEST], "constraints": [{"requests": "gpu", "matchAttribute": "a.example.com/b"}]}),
        [wire("spec.devices.constraints[0].requests", '"gpu"', "array")]),
    "a label value a number": ({**claim({}), "metadata": {"name": "c", "labels": {"team": 7}}},
                               [wire("metadata.labels[team]", "7", "string")]),
    "template metadata a string": (template({"metadata": "x", "spec": {}}), [wire("spec.metadata", '"x"', "object")]),
    "device class config item a string": (device_class({"config": ["x"]}), [wire("spec.config[0]", '"x"', "object")]),
    "nulls decode to zero values, which validation then judges": (
        claim({"requests": [None], "constraints": [None], "config": [None]}),
        [("k8s-device-config", "spec.devices.config[0].opaque", "Required value"),
         ("constraint-attribute-unqualified", "spec.devices.constraints[0]", "Required value: exactly one of "
          '"matchAttribute" or "distinctAttribute" is required, but multiple fields are set'),
         ("selector-required", "spec.devices.requests[0]", "Required value: exactly one of `exactly` or "
          "`firstAvailable` is required"),
         ("k8s-device-request", "spec.devices.requests[0].name", f'Invalid value: "": {LABEL_ERROR}')]),
    "a null spec decodes to an empty one": ({**claim({}), "spec": None}, []),
    "a null template spec.spec": (template({"spec": None}), []),
    "a null device class spec": (device_class(None), []),
    "an unknown field is not decoded, and warned of": (claim({"requests": [REQUEST], "requestz": "x"}),
                                                        [unknown("spec.devices.requestz")]),
    "metadata and a template's spec.metadata are checked for unknown fields": (
        {**template({"metadata": {"labelz": {}, "uid": "u", "managedFields": [{"x": 1}]}, "spec": {}}),
         "metadata": {"name": "t", "namespace": "ml", "labelz": {}}},
        [unknown("metadata.labelz"), unknown("spec.metadata.labelz")]),
    "a misspelt top-level key drops the whole spec": (
        {**device_class(None), "specs": {"selectors": []}}, [unknown("specs")]),
    "a claim's status is not checked": ({**claim({}), "status": {"allocation": {"x": 1}}}, []),
    "a class has no status": ({**device_class(None), "status": {}}, [unknown("status")]),
    "a class's spec": (device_class({"selector": []}), [unknown("spec.selector")]),
    "opaque parameters may hold any key": (
        claim({"requests": [REQUEST], "config": [{"opaque": {"driver": "d.example.com", "parameters": {"k": 1}}}]}),
        []),
    "an apiVersion the server does not serve: refused as kubectl does, nothing decoded": (
        claim({"requests": "x"}, "v1alpha3"),
        [not_served("ResourceClaim", "resource.k8s.io/v1alpha3")]),
    "a template of a removed version": (template({"spec": "x"}, "v1alpha2"),
                                        [not_served("ResourceClaimTemplate", "resource.k8s.io/v1alpha2")]),
    "a class of an unknown version": (device_class({"selectors": 5}, "v2"),
                                      [not_served("DeviceClass", "resource.k8s.io/v2")]),
    "a class of another API group": ({**device_class(None), "apiVersion": "example.com/v1"},
                                     [not_served("DeviceClass", "example.com/v1")]),
    "a v1beta2 claim decodes": (claim({"requests": "x"}, "v1beta2"),
                                               [wire("spec.devices.requests", '"x"', "array")]),
    "a claim without an apiVersion is refused and reads as v1": (
        {k: v for k, v in claim({"requests": "x"}).items() if k != "apiVersion"},
        [("k8s-api-version", "apiVersion", "Object 'apiVersion' is missing: kubectl and the API server refuse a "
          "manifest without one"), wire("spec.devices.requests", '"x"', "array")]),
    "deeply nested opaque parameters are not walked (but measured: 10002 bytes)": (
        claim({"requests": [REQUEST], "config": [{"opaque": {"driver": "d.example.com", "parameters": nested(5000)}}]}),
        [NOT_AN_OBJECT]),
    "deeply nested opaque parameters over 10 KiB": (
        claim({"requests": [REQUEST], "config": [{"opaque": {"driver": "d.example.com", "parameters": nested(5200)}}]}),
        [("k8s-device-config", "spec.devices.config[0].opaque.parameters", "Too long: may not be more than 10240 "
          "bytes")]),
}


def findings(obj: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(f.rule, str(f.path), f.message) for f in run_rules(obj, Policy.default()).findings]


@pytest.mark.parametrize(("obj", "expected"), list({**PROBES, **MORE}.values()), ids=list({**PROBES, **MORE}))
def test_wrong_json_types_are_the_only_findings(obj: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    assert findings(obj) == expected


def test_corpus_claims_templates_and_classes_decode(corpus: Path) -> None:
    """Real objects from drivers and docs decode, except where a KEP example writes `matchAttribute` as a list
    (`matchAttribute: [dra.k8s.io/pcieRoot]`), which the API server refuses as well."""
    loaded = load_paths([str(corpus)])
    claim_side = [m for m in loaded.manifests
                  if m.obj.get("kind") in ("ResourceClaim", "ResourceClaimTemplate", "DeviceClass")]
    assert len(claim_side) >= 200
    reported: Counter[tuple[str, str, str]] = Counter()
    for manifest in claim_side:
        for finding in run_rules(manifest.obj, Policy.default()).findings:
            assert finding.rule != "rule-error", (manifest.source, finding.message)
            if finding.rule == WIRE:
                reported[(str(Path(manifest.source).relative_to(corpus)), str(finding.path), finding.message)] += 1
    assert reported == Counter({("keps/4816-dra-prioritized-list.yaml", "spec.devices.constraints[0].matchAttribute",
                                 'Invalid value: ["dra.k8s.io/pcieRoot"]: must be of type string'): 2})


# The JSON names of each struct's fields in kubernetes/api resource/{v1,v1beta1}/types.go (@10b39a39, 2026-07-24),
# typed out from the source: a misspelt name in the description would silently leave its field unchecked.
UPSTREAM_FIELDS = {
    "DeviceRequest": (claim_types.DEVICE_REQUEST, "name exactly firstAvailable"),
    "ExactDeviceRequest": (claim_types.EXACT_DEVICE_REQUEST,
                           "deviceClassName selectors allocationMode count adminAccess tolerations capacity"),
    "DeviceSubRequest": (claim_types.DEVICE_SUB_REQUEST,
                         "name deviceClassName selectors allocationMode count tolerations capacity"),
    "v1beta1 DeviceRequest": (
        claim_types.DEVICE_REQUEST_V1BETA1,
        "name deviceClassName selectors allocationMode count adminAccess firstAvailable tolerations capacity"),
    "DeviceSelector": (claim_types.DEVICE_SELECTOR, "cel"),
    "DeviceToleration": (claim_types.DEVICE_TOLERATION, "key operator value effect tolerationSeconds"),
    "CapacityRequirements": (claim_types.CAPACITY_REQUIREMENTS, "requests"),
    "DeviceConstraint": (claim_types.DEVICE_CONSTRAINT, "requests matchAttribute distinctAttribute"),
    "DeviceClaimConfiguration": (claim_types.DEVICE_CLAIM_CONFIGURATION, "requests opaque"),
    "OpaqueDeviceConfiguration": (claim_types.OPAQUE_CONFIGURATION, "driver parameters"),
    "DeviceClassSpec": (claim_types.DEVICE_CLASS_SPEC, "selectors config extendedResourceName"),
}


@pytest.mark.parametrize("name", UPSTREAM_FIELDS)
def test_descriptions_name_the_upstream_fields(name: str) -> None:
    described, upstream = UPSTREAM_FIELDS[name]
    assert sorted(described.fields) == sorted(upstream.split())


@pytest.mark.parametrize("release", SUPPORTED)
def test_every_served_version_has_every_claim_side_kind(release: str) -> None:
    for version in load_profile(release).served_versions:
        assert set(claim_types.API_TYPES[version]) == {"ResourceClaim", "ResourceClaimTemplate", "DeviceClass"}


@pytest.mark.parametrize("release", SUPPORTED)
def test_every_version_a_release_serves_has_types_to_decode_into(release: str) -> None:
    """decode_object reads a served version's types by index: a profile serving a version without them would make
    every claim of that version a rule error."""
    assert set(load_profile(release).served_versions) <= set(claim_types.API_TYPES)
