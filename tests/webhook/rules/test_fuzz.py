"""Random slices, well-formed-ish and not at all: no rule may raise (the runner would log it as a bug)."""

from __future__ import annotations

import logging
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from webhook.policy import Policy
from webhook.profiles import SUPPORTED
from webhook.run import run_rules

JUNK = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=True) | st.text(max_size=70),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
KEYS = st.sampled_from([
    "resource.kubernetes.io/numaNode", "resource.kubernetes.io/pcieRoot", "resource.kubernetes.io/pciBusID",
    "dra.net/numaNode", "dra.cpu/numaNodeID", "numa", "numaNode", "model", "a/b/c", "/", "", "Bad Key",
]) | st.text(max_size=100)
MEMBER = st.sampled_from(["int", "bool", "string", "version", "ints", "bools", "strings", "versions", "intz"])
VALUE = (st.integers(-3, 1100) | st.lists(st.integers(-3, 1100), max_size=60) | st.text(max_size=70)
         | st.lists(st.text(max_size=10), max_size=5) | st.sampled_from(["1.2.3", "0000:3b:00.0", "v1"]) | JUNK)
ATTRIBUTE = st.dictionaries(MEMBER, VALUE, max_size=3) | JUNK
DEVICE = st.fixed_dictionaries(
    {"name": st.sampled_from(["gpu-0", "gpu-1", "Bad_Name", ""]) | JUNK},
    optional={
        "attributes": st.dictionaries(KEYS, ATTRIBUTE, max_size=6) | JUNK,
        "capacity": st.dictionaries(KEYS, st.fixed_dictionaries(
            {"value": st.sampled_from(["1Gi", "4", "-1", "x"]) | JUNK},
            optional={"requestPolicy": st.dictionaries(
                st.sampled_from(["default", "validValues", "validRange"]),
                st.sampled_from(["1Gi", "2"]) | st.lists(st.sampled_from(["1", "2Gi", "x"]), max_size=12)
                | st.dictionaries(st.sampled_from(["min", "max", "step"]), st.sampled_from(["0", "1", "1Gi", "q"])))}),
            max_size=3) | JUNK,
        "allowMultipleAllocations": st.booleans() | JUNK,
        "taints": st.lists(st.dictionaries(st.sampled_from(["key", "value", "effect"]), JUNK), max_size=3) | JUNK,
        "consumesCounters": st.lists(JUNK, max_size=3) | JUNK,
        "bindingConditions": st.lists(st.text(max_size=5), max_size=5) | JUNK,
        "bindingFailureConditions": st.lists(st.text(max_size=5), max_size=5) | JUNK,
        "nodeName": JUNK, "allNodes": JUNK, "nodeSelector": JUNK, "basic": JUNK,
    },
)
SLICE = st.fixed_dictionaries(
    {"kind": st.just("ResourceSlice")},
    optional={
        "apiVersion": st.sampled_from(["resource.k8s.io/v1", "resource.k8s.io/v1beta1", "x/v9"]) | JUNK,
        "metadata": st.fixed_dictionaries({}, optional={
            "name": JUNK, "annotations": st.dictionaries(st.just("draguard.io/ignore"), JUNK) | JUNK,
            "labels": JUNK}) | JUNK,
        "spec": st.fixed_dictionaries({}, optional={
            "driver": st.sampled_from(["gpu.example.com", "dra.net"]) | JUNK,
            "pool": JUNK, "nodeName": JUNK, "allNodes": JUNK, "perDeviceNodeSelection": JUNK,
            "nodeSelector": JUNK, "sharedCounters": JUNK,
            "devices": st.lists(DEVICE, max_size=5) | JUNK,
        }) | JUNK,
    },
)
POLICIES = [Policy.default(), Policy.from_mapping({"listTypes": "disabled", "numaNode": {"listForm": "deny"}})]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(obj=SLICE, old=st.none() | SLICE, which=st.integers(0, 1))
def test_no_rule_raises_on_random_slices(obj: dict[str, Any], old: dict[str, Any] | None, which: int) -> None:
    assert_no_rule_raises(obj, POLICIES[which], old)


def assert_no_rule_raises(obj: dict[str, Any], policy: Policy, old: dict[str, Any] | None,
                          slices: list[dict[str, Any]] | None = None) -> None:
    """No rule logs an error (the runner's record of a rule that raised), and every finding is one stamped line."""
    logger = logging.getLogger("webhook.run")
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logger.addHandler(handler)
    try:
        outcome = run_rules(obj, policy, old=old, slices=slices or ())
    finally:
        logger.removeHandler(handler)
    assert [r.getMessage() for r in records if r.levelno >= logging.ERROR] == []
    for finding in outcome.findings:
        assert finding.rule and finding.action is not None and "\n" not in finding.message



SELECTORS = st.lists(st.fixed_dictionaries({}, optional={"cel": st.fixed_dictionaries({}, optional={
    "expression": st.sampled_from(['device.driver == "a"', "device.attributes['d'].numaNode == 1", "1 +", ""])
    | JUNK}) | JUNK}), max_size=2) | JUNK
REQUEST_FIELDS = {"deviceClassName": st.just("gpu.example.com") | JUNK, "selectors": SELECTORS,
                  "allocationMode": JUNK, "count": JUNK, "adminAccess": JUNK, "tolerations": JUNK, "capacity": JUNK}
REQUEST = st.fixed_dictionaries({"name": st.sampled_from(["gpu", "nic", "Bad Name"]) | JUNK}, optional={
    "exactly": st.fixed_dictionaries({}, optional=REQUEST_FIELDS) | JUNK,
    "firstAvailable": st.lists(st.fixed_dictionaries({"name": JUNK}, optional=REQUEST_FIELDS), max_size=2) | JUNK,
    **REQUEST_FIELDS,  # the v1beta1 layout, misplaced under v1
})
DEVICES = st.fixed_dictionaries({}, optional={
    "requests": st.lists(REQUEST, max_size=3) | JUNK,
    "constraints": st.lists(st.fixed_dictionaries({}, optional={
        "requests": st.lists(st.sampled_from(["gpu", "nic"]) | JUNK, max_size=2) | JUNK,
        "matchAttribute": st.sampled_from(["resource.kubernetes.io/numaNode", "numa"]) | JUNK,
        "distinctAttribute": st.sampled_from(["resource.kubernetes.io/numaNode", "numa"]) | JUNK}), max_size=2)
    | JUNK,
    "config": JUNK,
}) | JUNK
API_VERSION = st.sampled_from(["resource.k8s.io/v1", "resource.k8s.io/v1beta1", "resource.k8s.io/v1beta2",
                               "resource.k8s.io/v1alpha3", "x/v9"]) | JUNK
CLAIM_SIDE = st.one_of(
    st.fixed_dictionaries({"kind": st.just("ResourceClaim"), "spec": st.fixed_dictionaries(
        {}, optional={"devices": DEVICES}) | JUNK}, optional={"apiVersion": API_VERSION, "metadata": JUNK}),
    st.fixed_dictionaries({"kind": st.just("ResourceClaimTemplate"), "spec": st.fixed_dictionaries({}, optional={
        "metadata": JUNK, "spec": st.fixed_dictionaries({}, optional={"devices": DEVICES}) | JUNK}) | JUNK},
        optional={"apiVersion": API_VERSION, "metadata": JUNK}),
    st.fixed_dictionaries({"kind": st.just("DeviceClass"), "spec": st.fixed_dictionaries({}, optional={
        "selectors": SELECTORS, "config": JUNK, "extendedResourceName": JUNK}) | JUNK},
        optional={"apiVersion": API_VERSION, "metadata": JUNK}),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(obj=CLAIM_SIDE, old=st.none() | CLAIM_SIDE, release=st.sampled_from(SUPPORTED))
def test_no_rule_raises_on_random_claims_templates_and_classes(obj: dict[str, Any], old: dict[str, Any] | None,
                                                               release: str) -> None:
    """Every release's gates, drops and served versions, on claim-side objects of any shape."""
    assert_no_rule_raises(obj, Policy.default().with_profile(release), old)


# Devices whose numaNode lists intersect, a class that selects them: what the inventory rules read.
INVENTORY = [
    {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "node-a-gpu"},
     "spec": {"driver": "gpu.example.com", "pool": {"name": "node-a", "generation": 1, "resourceSliceCount": 1},
              "nodeName": "node-a", "devices": [
                  {"name": f"gpu-{i}", "attributes": {"resource.kubernetes.io/numaNode": {"ints": [i % 2, 1 - i % 2]},
                                                      "model": {"string": "a100"}},
                   "capacity": {"memory": {"value": "40Gi"}}} for i in range(4)]}},
    {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
     "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}},
]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(obj=CLAIM_SIDE, release=st.sampled_from(SUPPORTED))
@example(  # a request named by a map: constraint-distinct-list looked it up in a set of names (TypeError)
    obj={"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c"},
         "spec": {"devices": {"requests": [{"name": {"v": "b"}}], "constraints": [
             {"requests": ["a"], "distinctAttribute": "resource.kubernetes.io/numaNode"}]}}},
    release="1.37")
def test_no_rule_raises_on_random_claims_with_an_inventory(obj: dict[str, Any], release: str) -> None:
    """The rules that read an inventory (`lint --slices`, `validate --slices`) on claim-side objects of any shape."""
    assert_no_rule_raises(obj, Policy.default().with_profile(release), None, INVENTORY)
