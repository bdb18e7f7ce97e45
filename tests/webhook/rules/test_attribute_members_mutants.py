"""An attribute whose members include a null or an unknown one before a wrong one: every member is still read. The findings in full through `run_rules`. Named `test_attribute_members*` so mutation
testing runs it first on `webhook.rules.k8s.attribute`."""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

import pytest

from tests.webhook.rules.release_cases import findings_of
from tests.webhook.rules.slice_cases import Found

CASES = [
    pytest.param({"spec.devices[0].attributes": {"a": {"string": None, "int": "x"}}}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].attributes[a].int', 'Invalid value: "x": must be of type integer', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='a null member before a wrong one'),
    pytest.param({"spec.devices[0].attributes": {"a": {"bogus": 1, "int": "x"}}}, 'v1',
                 [('k8s-unknown-field', 'spec.devices[0].attributes[a].bogus', 'unknown field "spec.devices[0].attributes[a].bogus"', "fix the field name's spelling; a dropped union member leaves the attribute empty"), ('k8s-wire-type', 'spec.devices[0].attributes[a].int', 'Invalid value: "x": must be of type integer', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='an unknown member before a wrong one'),
]


@pytest.mark.parametrize(("changes", "version", "expected"), CASES)
def test_in_full(changes: dict[str, Any], version: str, expected: Found) -> None:
    assert findings_of(changes, version) == expected
