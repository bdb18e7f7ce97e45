"""Device capacity given the wrong JSON type, request policies on and off the fractional gate (1.37 vs 1.36),
and `canonical`, upstream's `Quantity.String()` that prints every quantity in these messages: the findings
in full through `run_rules`. Named `test_capacity_*` so mutation testing runs it first on
`webhook.rules.k8s.capacity`."""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

import pytest

from celext.quantity import parse_quantity
from tests.webhook.rules.release_cases import findings_of
from tests.webhook.rules.slice_cases import Found, case
from webhook.rules.k8s.capacity import canonical

CASES = [
    pytest.param({"spec.devices[0].capacity": {"a": {"value": "1"}, "b": {"value": "x"}}}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].capacity[b].value', 'Invalid value: "x": quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='a plain capacity then one not a quantity'),
    pytest.param({"spec.devices[0].capacity": {"a": {"value": "Ti"}, "b": {"value": "Pi"}}}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].capacity[b].value', 'Invalid value: "Pi": unable to parse numeric part of quantity', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='a digitless capacity: Ti reads as zero, Pi past the int64 fast path is refused'),
    pytest.param({"spec.devices[0].capacity": {"a": {"value": 5}, "b": {"value": "1", "requestPolicy": {"default": "1", "validValues": ["1"]}}}}, 'v1',
                 [('k8s-capacity', 'spec.devices[0].capacity[b].requestPolicy', 'Forbidden: allowMultipleAllocations must be true', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)')],
                 id='a capacity without a policy then one with a policy on a single-allocation device'),
    pytest.param({"spec.devices[0].capacity": {"a": {"value": "1", "requestPolicy": {"default": "1"}}}}, '1.34',
                 [('k8s-feature-gate', 'spec.devices[0].capacity[a].requestPolicy', 'the API server drops this field: feature gate DRAConsumableCapacity (alpha in Kubernetes 1.34, off by default; this cluster: off)', 'enable DRAConsumableCapacity on the cluster (kube-apiserver --feature-gates=DRAConsumableCapacity=true) or leave the field out; draguard: featureGates in the policy or --feature-gates')],
                 id='requestPolicy on 1.34'),
    pytest.param({"spec.devices[0].allowMultipleAllocations": True, "spec.devices[0].capacity": {"a": {"value": "1", "requestPolicy": 3}}}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].capacity[a].requestPolicy', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='requestPolicy not an object'),
    pytest.param({"spec.devices[0].allowMultipleAllocations": True, "spec.devices[0].capacity": {"a": {"value": "4", "requestPolicy": {"default": "1", "validValues": 3}}}}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].capacity[a].requestPolicy.validValues', 'Invalid value: 3: must be of type array', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='validValues not a list'),
    pytest.param({"spec.devices[0].allowMultipleAllocations": True, "spec.devices[0].capacity": {"a": {"value": "4", "requestPolicy": {"default": "1", "validRange": 3}}}}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].capacity[a].requestPolicy.validRange', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='validRange not an object'),
    pytest.param({"spec.devices[0].allowMultipleAllocations": True, "spec.devices[0].capacity": {"a": {"value": "4", "requestPolicy": {"default": "1", "validValues": ["1", "x"]}}}}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].capacity[a].requestPolicy.validValues[1]', 'Invalid value: "x": quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='a valid value not a quantity'),
    pytest.param({"spec.devices[0].allowMultipleAllocations": True, "spec.devices[0].capacity": {"a": {"value": "4", "requestPolicy": {"default": "1", "validValues": [None, "1"]}}}}, 'v1',
                 [],
                 id='a valid value of null'),
    pytest.param({"spec.devices[0].allowMultipleAllocations": True, "spec.devices[0].capacity": {"a": {"value": "4", "requestPolicy": {"default": "1", "validValues": ["500m", "1"]}}}}, 'v1',
                 [],
                 id='valid values 500m and 1 with fractional capacity'),
    pytest.param({"spec.devices[0].allowMultipleAllocations": True, "spec.devices[0].capacity": {"a": {"value": "4", "requestPolicy": {"default": "1", "validValues": ["500m", "1"]}}}}, '1.36',
                 [('k8s-capacity', 'spec.devices[0].capacity[a].requestPolicy.validValues[1]', 'Duplicate value: "1"', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)')],
                 id='valid values 500m and 1 on 1.36'),
    pytest.param({"spec.devices[0].allowMultipleAllocations": True, "spec.devices[0].capacity": {"a": {"value": "4k", "requestPolicy": {"default": "1k", "validValues": ["1k", "1000"]}}}}, 'v1',
                 [('k8s-capacity', 'spec.devices[0].capacity[a].requestPolicy.validValues[1]', 'Duplicate value: "1000"', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)')],
                 id='valid values 1k and 1000'),
    pytest.param({"spec.devices[0].allowMultipleAllocations": True, "spec.devices[0].capacity": {"a": {"value": "4k", "requestPolicy": {"default": "1k", "validValues": ["1k", "1000"]}}}}, '1.36',
                 [('k8s-capacity', 'spec.devices[0].capacity[a].requestPolicy.validValues[1]', 'Duplicate value: "1000"', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)')],
                 id='valid values 1k and 1000 on 1.36'),
    pytest.param({"spec.devices[0].allowMultipleAllocations": True, "spec.devices[0].capacity": {"a": {"value": "4", "requestPolicy": {"default": "1", "validRange": {"min": "x"}}}}}, 'v1',
                 [('k8s-capacity', 'spec.devices[0].capacity[a].requestPolicy.validRange.min', 'Required value: required when validRange is defined', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)'), ('k8s-wire-type', 'spec.devices[0].capacity[a].requestPolicy.validRange.min', 'Invalid value: "x": quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='validRange min not a quantity'),
    pytest.param({"spec.devices[0].allowMultipleAllocations": True, "spec.devices[0].capacity": {"a": {"value": "4", "requestPolicy": {"default": "1", "validRange": {"min": "1", "max": "x"}}}}}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].capacity[a].requestPolicy.validRange.max', 'Invalid value: "x": quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='validRange max not a quantity'),
    pytest.param({"spec.devices[0].allowMultipleAllocations": True, "spec.devices[0].capacity": {"a": {"value": "4", "requestPolicy": {"default": "1500m", "validRange": {"min": "500m", "step": "1"}}}}}, '1.36',
                 [],
                 id='validRange fractional step on 1.36'),
    pytest.param({"spec.devices[0].allowMultipleAllocations": True, "spec.devices[0].capacity": {"a": {"value": "4", "requestPolicy": {"default": "1500m", "validRange": {"min": "500m", "step": "1"}}}}}, 'v1',
                 [],
                 id='validRange fractional step'),
    pytest.param({"spec.devices[0].allowMultipleAllocations": True, "spec.devices[0].capacity": {"a": {"value": "4", "requestPolicy": {"default": "0.0001", "validRange": {"min": "0.0001", "max": "0.0002", "step": "0.0001"}}}}}, 'v1',
                 [('k8s-capacity', 'spec.devices[0].capacity[a].requestPolicy.validRange.default', 'Invalid value: "100u": value cannot be represented as a milli value', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)'), ('k8s-capacity', 'spec.devices[0].capacity[a].requestPolicy.validRange.max', 'Invalid value: "200u": value cannot be represented as a milli value', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)'), ('k8s-capacity', 'spec.devices[0].capacity[a].requestPolicy.validRange.min', 'Invalid value: "100u": value cannot be represented as a milli value', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)'), ('k8s-capacity', 'spec.devices[0].capacity[a].requestPolicy.validRange.step', 'Invalid value: "100u": value cannot be represented as a milli value', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)')],
                 id='validRange below a milli'),
    pytest.param({"spec.devices[0].allowMultipleAllocations": True, "spec.devices[0].capacity": {"a": {"value": "4", "requestPolicy": {"default": "0.0001", "validRange": {"min": "1m"}}}}}, 'v1',
                 [('k8s-capacity', 'spec.devices[0].capacity[a].requestPolicy.validRange.default', 'Invalid value: "100u": default is less than min: 1m', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)'), ('k8s-capacity', 'spec.devices[0].capacity[a].requestPolicy.validRange.default', 'Invalid value: "100u": value cannot be represented as a milli value', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)')],
                 id='validRange default below a milli'),
    pytest.param({"spec.devices[0].allowMultipleAllocations": True, "spec.devices[0].capacity": {"a": {"value": "4", "requestPolicy": {"default": "1m", "validRange": {"min": "1m", "max": "0.0015"}}}}}, 'v1',
                 [('k8s-capacity', 'spec.devices[0].capacity[a].requestPolicy.validRange.max', 'Invalid value: "1500u": value cannot be represented as a milli value', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)')],
                 id='validRange max below a milli'),
    pytest.param({"spec.devices[0].allowMultipleAllocations": True, "spec.devices[0].capacity": {"a": {"value": "4", "requestPolicy": {"default": "1m", "validRange": {"min": "1m", "step": "0.0001"}}}}}, 'v1',
                 [('k8s-capacity', 'spec.devices[0].capacity[a].requestPolicy.validRange.step', 'Invalid value: "100u": value cannot be represented as a milli value', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)')],
                 id='validRange step below a milli'),
    pytest.param({"spec.devices[0].allowMultipleAllocations": True, "spec.devices[0].capacity": {"a": {"value": "10", "requestPolicy": {"default": "3", "validRange": {"min": "1", "max": "9", "step": "2"}}}}}, '1.36',
                 [],
                 id='validRange on 1.36, whole values'),
    pytest.param({"spec.devices[0].allowMultipleAllocations": True, "spec.devices[0].capacity": {"a": {"value": "10", "requestPolicy": {"default": "2", "validRange": {"min": "1", "max": "9", "step": "2"}}}}}, '1.36',
                 [('k8s-capacity', 'spec.devices[0].capacity[a].requestPolicy.validRange.step', 'Invalid value: "2": value is not a multiple of a given step (2) from (1)', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)')],
                 id='validRange on 1.36, default off step'),
    pytest.param({"spec.devices[0].allowMultipleAllocations": True, "spec.devices[0].capacity": {"a": {"value": "10", "requestPolicy": {"default": "1500m", "validRange": {"min": "1500m", "max": "2500m", "step": "1"}}}}}, '1.36',
                 [],
                 id='validRange 1.5 to 2.5 on 1.36'),
    pytest.param({"spec.devices[0].allowMultipleAllocations": True, "spec.devices[0].capacity": {"a": {"value": "4", "requestPolicy": {"default": "1500m", "validRange": {"min": "1", "max": "3", "step": "1"}}}}}, '1.36',
                 [],
                 id='validRange of whole steps, a fractional default on 1.36'),
    pytest.param({"spec.devices[0].allowMultipleAllocations": True, "spec.devices[0].capacity": {"a": {"value": "4", "requestPolicy": {"default": "1500m", "validRange": {"min": "1", "max": "3", "step": "1"}}}}}, 'v1',
                 [('k8s-capacity', 'spec.devices[0].capacity[a].requestPolicy.validRange.step', 'Invalid value: "1500m": value is not a multiple of a given step (1) from (1)', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)')],
                 id='validRange of whole steps, a fractional default'),
]


@pytest.mark.parametrize(("changes", "version", "expected"), CASES)
def test_capacity_in_full(changes: dict[str, Any], version: str, expected: Found) -> None:
    assert findings_of(changes, version) == expected


def test_a_valid_value_not_a_quantity_is_reported_at_its_index() -> None:
    found = case({"spec.devices[0].allowMultipleAllocations": True, "spec.devices[0].capacity": {
        "a": {"value": "4", "requestPolicy": {"default": "1", "validValues": ["1", "x"]}}}})
    assert [(rule, path) for rule, path, *_ in found] == [
        ('k8s-wire-type', 'spec.devices[0].capacity[a].requestPolicy.validValues[1]')]


@pytest.mark.parametrize(("text", "shown"), [
    ("0", "0"), ("0Ki", "0"), ("1Ki", "1Ki"), ("-1Ki", "-1Ki"), ("1024Ki", "1Mi"), ("-2048Mi", "-2Gi"),
    ("1Ei", "1Ei"), ("-1Ei", "-1Ei"), ("1023Ki", "1023Ki"), ("1536", "1536"), ("1500", "1500"), ("1000", "1k"),
    ("1000E", "1e21"), ("1E", "1E"), ("1e3", "1e3"), ("1e21", "1e21"), ("0.5", "500m"), ("-1.5Gi", "-1536Mi"),
    ("+1Ki", "1Ki"), ("2e0", "2"),
    # more digits than Python prints as an int (4,300): printed from the digits, every one kept (inf.Dec is exact)
    ("9" * 5000, "9" * 5000), ("1" + "0" * 5000, "100e4998"), ("1" + "0" * 69 + "1", "1" + "0" * 69 + "1"),
    ("1" * 5000 + "Ki", "9223372036854775807"),  # binary SI is capped at 2^63-1, as upstream
])
def test_canonical(text: str, shown: str) -> None:
    assert canonical(parse_quantity(text)) == shown
