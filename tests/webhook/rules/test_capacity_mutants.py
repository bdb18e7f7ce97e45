"""Findings in full (rule, field path, message, in the runner's order) for small ResourceSlices that each break
one thing: device capacity: quantities, request policies, valid values and ranges. Fast through `run_rules`, so mutation testing runs them first on
`webhook.rules.k8s.capacity` (tests/mutation); the messages are upstream's (k8s.io/kubernetes pkg/apis/resource/validation).
"""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

import pytest

from tests.webhook.rules.slice_cases import Found, case

CASES = [
    pytest.param({'spec.devices[0].capacity': {'mem': {'value': 3}}}, 'v1',
                 [],
                 id='capacity value wrong type'),
    pytest.param({'spec.devices[0].capacity': {'mem': {'value': '1Zi'}}}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].capacity[mem].value', 'Invalid value: "1Zi": quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='capacity value bad'),
    pytest.param({'spec.devices[0].capacity': {'Bad Key': {'value': '1'}}}, 'v1',
                 [('k8s-qualified-name', 'spec.devices[0].capacity', 'Invalid value: "Bad Key": a valid C identifier must start with alphabetic character or \'_\', followed by a string of alphanumeric characters or \'_\' (e.g. \'my_name\',  or \'MY_NAME\',  or \'MyName\', regex used for validation is \'[A-Za-z_][A-Za-z0-9_]*\')', 'rename the key, e.g. `gpu.example.com/memory_gb`')],
                 id='capacity key bad'),
    pytest.param({'spec.devices[0].capacity': {'mem': 3}}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].capacity[mem]', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='capacity not object'),
    pytest.param({'spec.devices[0].allowMultipleAllocations': True, 'spec.devices[0].capacity': {'mem': {'value': '8Gi', 'requestPolicy': {'bogus': 1}}}}, 'v1',
                 [('k8s-unknown-field', 'spec.devices[0].capacity[mem].requestPolicy.bogus', 'unknown field "spec.devices[0].capacity[mem].requestPolicy.bogus"', "fix the field name's spelling; a dropped union member leaves the attribute empty")],
                 id='capacity policy unknown field'),
    pytest.param({'spec.devices[0].allowMultipleAllocations': True, 'spec.devices[0].capacity': {'mem': {'value': '8Gi', 'requestPolicy': {'default': 'x'}}}}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].capacity[mem].requestPolicy.default', 'Invalid value: "x": quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='capacity policy default bad'),
    pytest.param({'spec.devices[0].allowMultipleAllocations': True, 'spec.devices[0].capacity': {'mem': {'value': '8Gi', 'requestPolicy': {'default': '9Gi'}}}}, 'v1',
                 [],
                 id='capacity policy default over'),
    pytest.param({'spec.devices[0].allowMultipleAllocations': True, 'spec.devices[0].capacity': {'mem': {'value': '8Gi', 'requestPolicy': {'default': '1Gi', 'validValues': ['1Gi', '1024Mi', '2Gi', '0.5']}}}}, 'v1',
                 [('k8s-capacity', 'spec.devices[0].capacity[mem].requestPolicy.validValues[1]', 'Duplicate value: "1073741824"', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)'), ('k8s-capacity', 'spec.devices[0].capacity[mem].requestPolicy.validValues[3]', 'Invalid value: "500m": values must be sorted in ascending order', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)')],
                 id='capacity valid values'),
    pytest.param({'spec.devices[0].allowMultipleAllocations': True, 'spec.devices[0].capacity': {'mem': {'value': '8Gi', 'requestPolicy': {'default': '3Gi', 'validValues': ['1Gi', '2Gi']}}}}, 'v1',
                 [('k8s-capacity', 'spec.devices[0].capacity[mem].requestPolicy.validValues', 'Invalid value: "3Gi": default value is not valid according to the requestPolicy', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)')],
                 id='capacity valid values missing default'),
    pytest.param({'spec.devices[0].allowMultipleAllocations': True, 'spec.devices[0].capacity': {'mem': {'value': '8Gi', 'requestPolicy': {'default': '1Gi', 'validRange': {'min': '1Gi', 'max': '4Gi', 'step': 'x'}}}}}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].capacity[mem].requestPolicy.validRange.step', 'Invalid value: "x": quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='capacity range step bad'),
    pytest.param({'spec.devices[0].allowMultipleAllocations': True, 'spec.devices[0].capacity': {'mem': {'value': '8Gi', 'requestPolicy': {'default': '1536Mi', 'validRange': {'min': '1Gi', 'max': '4Gi', 'step': '1Gi'}}}}}, 'v1',
                 [('k8s-capacity', 'spec.devices[0].capacity[mem].requestPolicy.validRange.step', 'Invalid value: "1536Mi": value is not a multiple of a given step (1Gi) from (1Gi)', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)')],
                 id='capacity range off step'),
    pytest.param({'spec.devices[0].allowMultipleAllocations': True, 'spec.devices[0].capacity': {'mem': {'value': '8Gi', 'requestPolicy': {'default': '1Gi', 'validRange': {'min': '1Gi', 'max': '16Gi'}}}}}, 'v1',
                 [('k8s-capacity', 'spec.devices[0].capacity[mem].requestPolicy.validRange.max', 'Invalid value: "16Gi": max is larger than capacity value: 8Gi', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)')],
                 id='capacity range max over'),
    pytest.param({'spec.devices[0].capacity': {'mem': {'value': '8Gi', 'requestPolicy': {'default': '1Gi'}}}}, 'v1',
                 [('k8s-capacity', 'spec.devices[0].capacity[mem].requestPolicy', 'Forbidden: allowMultipleAllocations must be true', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)')],
                 id='capacity policy without multiple'),
    pytest.param({'spec.devices[0].allowMultipleAllocations': True, 'spec.devices[0].capacity': {'mem': {'value': '8Gi', 'requestPolicy': {'default': '1048576Ki', 'validValues': ['1Gi', '1048576Ki']}}}}, 'v1',
                 [('k8s-capacity', 'spec.devices[0].capacity[mem].requestPolicy.validValues[1]', 'Duplicate value: "1073741824"', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)')],
                 id='capacity canonical binary'),
    pytest.param({'spec.devices[0].capacity': {'mem': {'value': None}}}, 'v1',
                 [],
                 id='capacity value null'),
    pytest.param({'spec.devices[0].capacity': {'mem': {'value': ['1']}}}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].capacity[mem].value', 'Invalid value: ["1"]: must be of type quantity string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='capacity value list'),
    pytest.param({'spec.devices[0].capacity': {'mem': {'value': '1', 'x': 1}}}, 'v1',
                 [('k8s-unknown-field', 'spec.devices[0].capacity[mem].x', 'unknown field "spec.devices[0].capacity[mem].x"', "fix the field name's spelling; a dropped union member leaves the attribute empty")],
                 id='capacity value extra field'),
    pytest.param({'spec.devices[0].allowMultipleAllocations': True, 'spec.devices[0].capacity': {'mem': {'value': '8', 'requestPolicy': {'default': '2', 'validValues': ['2', '2e0', '4']}}}}, 'v1',
                 [('k8s-capacity', 'spec.devices[0].capacity[mem].requestPolicy.validValues[1]', 'Duplicate value: "2"', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)')],
                 id='capacity valid values ints'),
    pytest.param({'spec.devices[0].allowMultipleAllocations': True, 'spec.devices[0].capacity': {'mem': {'value': '8Ei', 'requestPolicy': {'default': '1Ei', 'validValues': ['1Ei', '1024Pi']}}}}, 'v1',
                 [('k8s-capacity', 'spec.devices[0].capacity[mem].requestPolicy.validValues[1]', 'Duplicate value: "1152921504606846976.000000000"', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)')],
                 id='capacity canonical Ei'),
    pytest.param({'spec.devices[0].allowMultipleAllocations': True, 'spec.devices[0].capacity': {'mem': {'value': '8Gi', 'requestPolicy': {'default': '1Gi', 'validValues': ['1Gi', '2Gi', '4Gi']}}}}, 'v1',
                 [],
                 id='capacity valid values whole'),
    pytest.param({'spec.devices[0].allowMultipleAllocations': True, 'spec.devices[0].capacity': {'mem': {'value': '8Gi', 'requestPolicy': {'default': '1Gi', 'validValues': ['1Gi', '2Gi', '2048Mi']}}}}, 'v1',
                 [('k8s-capacity', 'spec.devices[0].capacity[mem].requestPolicy.validValues[2]', 'Duplicate value: "2147483648"', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)')],
                 id='capacity valid values whole duplicate'),
    pytest.param({'spec.devices[0].allowMultipleAllocations': True, 'spec.devices[0].capacity': {'mem': {'value': '4096Ei', 'requestPolicy': {'default': '1024Ei', 'validValues': ['1024Ei', '2048Ei', '2048Ei']}}}}, 'v1',
                 [('k8s-capacity', 'spec.devices[0].capacity[mem].requestPolicy.validValues[1]', 'Duplicate value: "9223372036854775807"', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)'), ('k8s-capacity', 'spec.devices[0].capacity[mem].requestPolicy.validValues[2]', 'Duplicate value: "9223372036854775807"', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)')],
                 id='capacity canonical past Ei'),
]


@pytest.mark.parametrize(("changes", "version", "expected"), CASES)
def test_capacity_findings_in_full(changes: dict[str, Any], version: str, expected: Found) -> None:
    assert case(changes, version) == expected

