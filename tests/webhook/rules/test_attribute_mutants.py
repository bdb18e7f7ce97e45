"""Findings in full (rule, field path, message, in the runner's order) for small ResourceSlices that each break
one thing: device attributes: the union of members, scalar and list values, names. Fast through `run_rules`, so mutation testing runs them first on
`webhook.rules.k8s.attribute` (tests/mutation); the messages are upstream's (k8s.io/kubernetes pkg/apis/resource/validation).
"""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

import pytest

from tests.webhook.rules.slice_cases import Found, case

CASES = [
    pytest.param({'spec.devices[0].attributes': {'a': 3}}, 'v1',
                 [('k8s-attribute-union', 'spec.devices[0].attributes[a]', 'Invalid value: "": must specify one of: `int`, `bool`, `string`, `version`, `ints`, `bools`, `strings`, `versions`', 'keep one value field per attribute; leave out empty lists'), ('k8s-wire-type', 'spec.devices[0].attributes[a]', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='attribute not an object'),
    pytest.param({'spec.devices[0].attributes': {'a': {}}}, 'v1',
                 [('k8s-attribute-union', 'spec.devices[0].attributes[a]', 'Invalid value: "": must specify one of: `int`, `bool`, `string`, `version`, `ints`, `bools`, `strings`, `versions`', 'keep one value field per attribute; leave out empty lists')],
                 id='attribute empty'),
    pytest.param({'spec.devices[0].attributes': {'a': {'int': 1, 'bool': True}}}, 'v1',
                 [('k8s-attribute-union', 'spec.devices[0].attributes[a]', 'Invalid value: "{int, bool}": must specify exactly one of: `int`, `bool`, `string`, `version`, `ints`, `bools`, `strings`, `versions`', 'keep one value field per attribute; leave out empty lists')],
                 id='attribute two members'),
    pytest.param({'spec.devices[0].attributes': {'a': {'string': 3}}}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].attributes[a].string', 'Invalid value: 3: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='attribute string wrong type'),
    pytest.param({'spec.devices[0].attributes': {'a': {'string': 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'}}}, 'v1',
                 [('k8s-attribute-value', 'spec.devices[0].attributes[a].string', 'Too long: may not be more than 64 bytes', 'shorten the value; write versions like `1.2.3` (no `v`, no leading zeros)')],
                 id='attribute string too long'),
    pytest.param({'spec.devices[0].attributes': {'a': {'version': 3}}}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].attributes[a].version', 'Invalid value: 3: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='attribute version wrong type'),
    pytest.param({'spec.devices[0].attributes': {'a': {'version': '1.x'}}}, 'v1',
                 [('k8s-attribute-value', 'spec.devices[0].attributes[a].version', 'Invalid value: "1.x": must be a string compatible with semver.org spec 2.0.0', 'shorten the value; write versions like `1.2.3` (no `v`, no leading zeros)')],
                 id='attribute version bad'),
    pytest.param({'spec.devices[0].attributes': {'a': {'ints': 3}}}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].attributes[a].ints', 'Invalid value: 3: must be of type array', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='list not array'),
    pytest.param({'spec.devices[0].attributes': {'a': {'strings': []}}}, 'v1',
                 [('k8s-attribute-union', 'spec.devices[0].attributes[a].strings', 'Invalid value: []: must not be empty if specified', 'keep one value field per attribute; leave out empty lists')],
                 id='list empty'),
    pytest.param({'spec.devices[0].attributes': {'a': {'ints': [1, 'x', 9223372036854775808, True]}}}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].attributes[a].ints[1]', 'Invalid value: "x": must be of type integer', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`'), ('k8s-wire-type', 'spec.devices[0].attributes[a].ints[2]', 'Invalid value: 9223372036854775808: must be of type integer', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`'), ('k8s-wire-type', 'spec.devices[0].attributes[a].ints[3]', 'Invalid value: true: must be of type integer', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='ints mixed'),
    pytest.param({'spec.devices[0].attributes': {'a': {'ints': [1, 9223372036854775808]}}}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].attributes[a].ints[1]', 'Invalid value: 9223372036854775808: must be of type integer', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='ints over'),
    pytest.param({'spec.devices[0].attributes': {'a': {'bools': [True, 1]}}}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].attributes[a].bools[1]', 'Invalid value: 1: must be of type boolean', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='bools mixed'),
    pytest.param({'spec.devices[0].attributes': {'a': {'strings': ['a', 2, 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx']}}}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].attributes[a].strings[1]', 'Invalid value: 2: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`'), ('k8s-attribute-value', 'spec.devices[0].attributes[a].strings[2]', 'Too long: may not be more than 64 bytes', 'shorten the value; write versions like `1.2.3` (no `v`, no leading zeros)')],
                 id='strings mixed'),
    pytest.param({'spec.devices[0].attributes': {'a': {'versions': ['1.0.0', 'bad', 3]}}}, 'v1',
                 [('k8s-attribute-value', 'spec.devices[0].attributes[a].versions[1]', 'Invalid value: "bad": must be a string compatible with semver.org spec 2.0.0', 'shorten the value; write versions like `1.2.3` (no `v`, no leading zeros)'), ('k8s-wire-type', 'spec.devices[0].attributes[a].versions[2]', 'Invalid value: 3: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='versions mixed'),
    pytest.param({'spec.devices[0].attributes': {'a': {'ints': [1], 'int': 1}}}, 'v1',
                 [('k8s-attribute-union', 'spec.devices[0].attributes[a]', 'Invalid value: "{int, ints}": must specify exactly one of: `int`, `bool`, `string`, `version`, `ints`, `bools`, `strings`, `versions`', 'keep one value field per attribute; leave out empty lists')],
                 id='list and scalar'),
    pytest.param({'spec.devices[0].attributes': {'a0': {'ints': [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}, 'a1': {'ints': [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}, 'a2': {'ints': [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}, 'a3': {'ints': [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}, 'a4': {'ints': [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}}}, 'v1',
                 [('k8s-attribute-limits', 'spec.devices[0]', 'Invalid value: 50: the total number of attribute values must not exceed 48', 'publish fewer attributes or shorter lists')],
                 id='many list values'),
    pytest.param({'spec.devices[0].attributes': {'Bad Name': {'int': 1}}}, 'v1',
                 [('k8s-qualified-name', 'spec.devices[0].attributes', 'Invalid value: "Bad Name": a valid C identifier must start with alphabetic character or \'_\', followed by a string of alphanumeric characters or \'_\' (e.g. \'my_name\',  or \'MY_NAME\',  or \'MyName\', regex used for validation is \'[A-Za-z_][A-Za-z0-9_]*\')', 'rename the key, e.g. `gpu.example.com/memory_gb`')],
                 id='attribute name bad'),
    pytest.param({'spec.devices[0].attributes': {'Bad_Domain/a': {'int': 1}}}, 'v1',
                 [('k8s-qualified-name', 'spec.devices[0].attributes', 'Invalid value: "Bad_Domain": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')', 'rename the key, e.g. `gpu.example.com/memory_gb`')],
                 id='attribute domain bad'),
    pytest.param({'spec.devices[0].attributes': {'a': {'ints': [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29], 'strings': ['x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x']}}}, 'v1',
                 [('k8s-attribute-limits', 'spec.devices[0]', 'Invalid value: 60: the total number of attribute values must not exceed 48', 'publish fewer attributes or shorter lists'), ('k8s-attribute-union', 'spec.devices[0].attributes[a]', 'Invalid value: "{ints, strings}": must specify exactly one of: `int`, `bool`, `string`, `version`, `ints`, `bools`, `strings`, `versions`', 'keep one value field per attribute; leave out empty lists')],
                 id='two list members counted together'),
]


@pytest.mark.parametrize(("changes", "version", "expected"), CASES)
def test_attribute_findings_in_full(changes: dict[str, Any], version: str, expected: Found) -> None:
    assert case(changes, version) == expected

