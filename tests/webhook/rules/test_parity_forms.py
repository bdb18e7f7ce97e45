"""Upstream's list shapes draguard mirrors: an over-long list is one TooMany and nothing inside it is checked
(validateSlice/validateSet/validateMap, origin maxItems), and v1beta1 paths are reported in v1 form
(`spec.devices[i].basic.x` as `spec.devices[i].x`, validation.go ResourceNormalizationRules)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import device, slice_with
from tests.webhook.profiles.conftest import run

BAD_TAINT = {"key": "Not A Key", "effect": "Sometimes"}


@pytest.mark.parametrize(("count", "expected"), [
    (16, 32),  # at the limit every taint is checked: a bad key and a bad effect each
    (17, 1),  # one over: only the TooMany
])
def test_an_over_long_taint_list_is_not_checked_item_by_item(count: int, expected: int) -> None:
    found = run(slice_with(device("d0", taints=[BAD_TAINT] * count)), "1.37")
    assert len(found) == expected
    if count > 16:
        assert found == [("k8s-taints", "deny", "spec.devices[0].taints", "Too many: 17: must have at most 16 items")]


@pytest.mark.parametrize(("count", "errors"), [(32, 32), (33, 1)])
def test_an_over_long_counter_map_is_not_checked_key_by_key(count: int, errors: int) -> None:
    counters = {f"Bad{i}": {"value": "1"} for i in range(count)}
    obj = slice_with(device("d0", consumesCounters=[{"counterSet": "s", "counters": counters}]))
    found = run(obj, "1.37")
    assert len(found) == errors
    if count > 32:
        assert found == [("k8s-counters", "deny", "spec.devices[0].consumesCounters[0].counters",
                          "Too many: 33: must have at most 32 items")]


def _beta1(body: dict[str, Any]) -> dict[str, Any]:
    obj = slice_with()
    obj["apiVersion"] = "resource.k8s.io/v1beta1"
    obj["spec"]["devices"] = [{"name": "d0", "basic": body}]
    return obj


def test_v1beta1_errors_name_the_v1_path() -> None:
    obj = _beta1({"capacity": {"mem": {"value": "1"}},
                  "nodeAllocatableResources": {"gpu": {"overhead": {"perPod": "1"}}}})
    assert run(obj, "1.37", {"DRANodeAllocatableResources": True}) == [
        ("k8s-node-allocatable-resources", "deny", "spec.devices[0].nodeAllocatableResources[gpu]",
         'Invalid value: "gpu": must be a node allocatable resource name')]


def test_v1beta1_dropped_fields_name_the_v1_path() -> None:
    assert run(_beta1({"taints": [{"key": "k", "effect": "NoSchedule"}]}), "1.35") == [
        ("k8s-feature-gate", "warn", "spec.devices[0].taints", "the API server drops this field: feature gate "
         "DRADeviceTaints (alpha in Kubernetes 1.35, off by default; this cluster: off)")]
