"""capacity.requestPolicy at each of upstream's checks (validateRequestPolicy / validateRequestPolicyRange in
pkg/apis/resource/validation): one device with allowMultipleAllocations, the finding's rule, path and exact
message. Quantities print in upstream's canonical form (`Quantity.String()`)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import device, slice_with
from webhook.policy import Policy
from webhook.run import run_rules

P = "spec.devices[0].capacity[mem].requestPolicy"
RULE = "k8s-capacity"


def findings(policy: dict[str, Any], value: str = "4Gi", *, multiple: bool = True) -> list[tuple[str, str, str]]:
    extra = {"allowMultipleAllocations": True} if multiple else {}
    obj = slice_with(device("d", capacity={"mem": {"value": value, "requestPolicy": policy}}, **extra))
    return [(f.rule, str(f.path), f.message) for f in run_rules(obj, Policy.default()).findings]


@pytest.mark.parametrize(("policy", "value", "expected"), [
    pytest.param({"default": "1Gi", "validRange": {"max": "4Gi"}}, "4Gi",
                 [(f"{P}.validRange.min", "Required value: required when validRange is defined")], id="min-missing"),
    pytest.param({"default": "8Gi", "validRange": {"min": "8Gi"}}, "4Gi",
                 [(f"{P}.validRange.min", 'Invalid value: "8Gi": min is larger than capacity value: 4Gi')],
                 id="min-over-capacity"),
    pytest.param({"default": "4Gi", "validRange": {"min": "4Gi", "max": "4Gi"}}, "4Gi", [], id="all-at-capacity"),
    pytest.param({"default": "1Gi", "validRange": {"min": "2Gi"}}, "4Gi",
                 [(f"{P}.validRange.default", 'Invalid value: "1Gi": default is less than min: 2Gi')],
                 id="default-below-min"),
    pytest.param({"default": "2Gi", "validRange": {"min": "2Gi"}}, "4Gi", [], id="default-at-min"),
    pytest.param({"default": "3Gi", "validRange": {"min": "3Gi", "max": "2Gi"}}, "4Gi",
                 [(f"{P}.validRange.default", 'Invalid value: "3Gi": default is more than max: 2Gi'),
                  (f"{P}.validRange.max", 'Invalid value: "3Gi": min is larger than max: 2Gi')],
                 id="min-over-max"),
    pytest.param({"default": "1Gi", "validRange": {"min": "1Gi", "max": "8Gi"}}, "4Gi",
                 [(f"{P}.validRange.max", 'Invalid value: "8Gi": max is larger than capacity value: 4Gi')],
                 id="max-over-capacity"),
    pytest.param({"default": "3Gi", "validRange": {"min": "1Gi", "max": "2Gi"}}, "4Gi",
                 [(f"{P}.validRange.default", 'Invalid value: "3Gi": default is more than max: 2Gi')],
                 id="default-over-max"),
    pytest.param({"default": "2Gi", "validRange": {"min": "1Gi", "max": "2Gi"}}, "4Gi", [], id="default-at-max"),
    pytest.param({"default": "1Gi", "validRange": {"min": "1Gi", "step": "0"}}, "4Gi",
                 [(f"{P}.validRange.step", 'Invalid value: "0": must be greater than zero')], id="step-zero"),
    pytest.param({"default": "1Gi", "validRange": {"min": "1Gi", "step": "-1Gi"}}, "4Gi",
                 [(f"{P}.validRange.step", 'Invalid value: "-1Gi": must be greater than zero')], id="step-negative"),
    pytest.param({"default": "1Gi", "validRange": {"min": "1Gi", "step": "3Gi"}}, "4Gi", [], id="one-step-to-capacity"),
    pytest.param({"default": "2Gi", "validRange": {"min": "1Gi", "max": "3Gi", "step": "2Gi"}}, "4Gi",
                 [(f"{P}.validRange.step", 'Invalid value: "2Gi": value is not a multiple of a given step (2Gi) '
                                           "from (1Gi)")], id="default-off-step"),
    pytest.param({"default": "1Gi", "validRange": {"min": "1Gi", "max": "4Gi", "step": "2Gi"}}, "4Gi",
                 [(f"{P}.validRange.step", 'Invalid value: "4Gi": value is not a multiple of a given step (2Gi) '
                                           "from (1Gi)")], id="max-off-step"),
    pytest.param({"default": "3Gi", "validRange": {"min": "1Gi", "max": "3Gi", "step": "2Gi"}}, "4Gi", [],
                 id="on-step"),
    pytest.param({"default": "1500m", "validRange": {"min": "500m", "max": "2500m", "step": "500m"}}, "4", [],
                 id="fractional-on-step"),
    pytest.param({"default": "1200m", "validRange": {"min": "500m", "step": "0.5"}}, "4",
                 [(f"{P}.validRange.step", 'Invalid value: "1200m": value is not a multiple of a given step (500m) '
                                           "from (500m)")], id="fractional-off-step"),
    pytest.param({"default": "1500m", "validRange": {"min": "0.0005", "step": "0.5"}}, "4",
                 [(f"{P}.validRange.min", 'Invalid value: "500u": value cannot be represented as a milli value')],
                 id="fractional-below-milli"),
    pytest.param({"validValues": ["1Gi"]}, "4Gi",
                 [(f"{P}.default", "Required value: required when validValues is defined")], id="values-no-default"),
    pytest.param({"validRange": {"min": "1Gi"}}, "4Gi",
                 [(f"{P}.default", "Required value: required when validRange is defined")], id="range-no-default"),
    pytest.param({"default": "1Gi", "validValues": ["1Gi", "8Gi"]}, "4Gi",
                 [(f"{P}.validValues[1]", 'Invalid value: "8Gi": option is larger than capacity value: 4Gi')],
                 id="option-over-capacity"),
    pytest.param({"default": "4Gi", "validValues": ["1Gi", "4Gi"]}, "4Gi", [], id="option-at-capacity"),
    pytest.param({"default": "1Gi", "validValues": ["1Gi", "1024Mi"]}, "4Gi",
                 [(f"{P}.validValues[1]", 'Duplicate value: "1073741824"')], id="options-equal-in-value"),
    pytest.param({"default": "2", "validValues": ["2", "1"]}, "4",
                 [(f"{P}.validValues[1]", 'Invalid value: "1": values must be sorted in ascending order')],
                 id="options-descending"),
    pytest.param({"default": "1", "validValues": [str(i) for i in range(1, 10)]}, "20", [], id="nine-options"),
    pytest.param({"default": "1", "validValues": [str(i) for i in range(1, 11)]}, "20", [], id="ten-options"),
    pytest.param({"default": "1", "validValues": [str(i) for i in range(1, 12)]}, "20",
                 [(f"{P}.validValues", 'Invalid value: "1": default value is not valid according to the requestPolicy'),
                  (f"{P}.validValues", "Too many: 11: must have at most 10 items")], id="eleven-options"),
    pytest.param({"default": "-1Gi", "validValues": ["-1Gi"]}, "-2Gi",
                 [(f"{P}.validValues[0]", 'Invalid value: "-1Gi": option is larger than capacity value: -2Gi')],
                 id="negative-capacity"),
])
def test_request_policy(policy: dict[str, Any], value: str, expected: list[tuple[str, str]]) -> None:
    assert findings(policy, value) == [(RULE, path, message) for path, message in expected]


def test_a_policy_needs_multiple_allocations() -> None:
    assert findings({"default": "1Gi", "validValues": ["1Gi"]}, multiple=False) == [
        (RULE, P, "Forbidden: allowMultipleAllocations must be true")]


@pytest.mark.parametrize(("low", "step", "printed"), [
    ("1Gi", "4Gi", "5Gi"),  # Quantity.Add keeps the receiver's (min's) format
    ("1G", "4Gi", "5294967296"),  # min decimal: the sum in decimal SI
    ("1Gi", "4G", "4954826Ki"),  # min binary: 5,073,741,824 is a whole number of Ki
    ("1Gi", "3500M", "4573741824"),  # min binary, not a whole number of Ki: no suffix
    ("0", "5Gi", "5Gi"),  # a zero min takes the addend's format
])
def test_one_step_past_capacity_prints_the_sum_in_the_format_of_min(low: str, step: str, printed: str) -> None:
    assert findings({"default": low, "validRange": {"min": low, "step": step}}) == [
        (RULE, f"{P}.validRange.step",
         f'Invalid value: "{step}": one step {printed} is larger than capacity value: 4Gi')]


def test_one_step_past_capacity_is_reported_on_step() -> None:
    [(rule, path, message)] = findings({"default": "1Gi", "validRange": {"min": "1Gi", "step": "4Gi"}})
    assert (rule, path) == (RULE, f"{P}.validRange.step")
    assert message.startswith('Invalid value: "4Gi": one step ')
    assert message.endswith(" is larger than capacity value: 4Gi")
