"""celext.to_device: the CEL `device` value exactly as Kubernetes builds it from a ResourceSlice device."""

from __future__ import annotations

from typing import Any

import pytest

import celext
from celext.quantity import parse_quantity
from celext.semver import parse_semver
from tests.celext.outcome import outcome


def _device(**attributes: Any) -> dict[str, Any]:
    return {"name": "d", "attributes": attributes}


def test_unqualified_names_live_under_the_driver_domain() -> None:
    value = celext.to_device(_device(model={"string": "A100"}, **{"other.io/x": {"int": 1}}), "gpu.example.com")
    assert value["attributes"]["gpu.example.com"]["model"] == "A100"
    assert value["attributes"]["other.io"]["x"] == 1
    assert value["driver"] == "gpu.example.com"
    assert value["allowMultipleAllocations"] is not None and not value["allowMultipleAllocations"]


@pytest.mark.parametrize(
    ("attribute", "expected"),
    [
        ({"int": 4}, 4), ({"bool": False}, False), ({"string": "x"}, "x"),
        ({"version": "1.2.3"}, parse_semver("1.2.3")),
        ({"ints": [1, 2]}, [1, 2]), ({"bools": [True]}, [True]), ({"strings": ["a"]}, ["a"]),
        ({"versions": ["1.0.0", "2.0.0"]}, [parse_semver("1.0.0"), parse_semver("2.0.0")]),
        ({"ints": []}, []),                       # an explicitly empty list is set (non-nil upstream)
        ({"int": 1, "ints": [2]}, [2]),           # upstream checks the list fields first
    ],
)
def test_attribute_forms(attribute: dict[str, Any], expected: Any) -> None:
    value = celext.to_device(_device(a=attribute), "d.io")
    assert value.error is None
    assert value["attributes"]["d.io"]["a"] == expected


@pytest.mark.parametrize(
    ("attribute", "error"),
    [
        ({}, "attribute a: unsupported attribute value"),
        ({"int": None}, "attribute a: unsupported attribute value"),
        ({"version": "v1.0.0"}, 'attribute a: parse semantic version: Invalid character(s) found in major number "v1"'),
        ({"versions": ["1.0.0", "1.0"]}, "attribute a: parse semantic version: No Major.Minor.Patch elements found"),
        ({"int": "4"}, "attribute a: unsupported attribute value"),
    ],
)
def test_a_bad_attribute_fails_every_selector_on_the_device(attribute: dict[str, Any], error: str) -> None:
    device = _device(a=attribute, ok={"int": 1})
    assert celext.to_device(device, "d.io").error == error
    # Kubernetes builds the whole attribute map first: even a selector that never reads `a` fails.
    assert outcome("true", device, "d.io") == f"eval: {error}"
    assert outcome('device.attributes["d.io"].ok == 1', device, "d.io") == f"eval: {error}"


def test_capacity_values_are_quantities_in_both_wire_forms() -> None:
    value = celext.to_device({"capacity": {"memory": {"value": "16Gi"}, "old.io/cores": "8"}}, "d.io")
    assert value["capacity"]["d.io"]["memory"] == parse_quantity("16Gi")
    assert value["capacity"]["old.io"]["cores"] == parse_quantity("8")
    bad = celext.to_device({"capacity": {"memory": {"value": "16mi"}}}, "d.io")
    assert bad.error == "capacity memory: unable to parse quantity's suffix"


def test_v1beta1_basic_devices_are_read() -> None:
    device = {"name": "d", "basic": {"attributes": {"model": {"string": "T4"}}, "capacity": {"mem": {"value": "1"}}}}
    assert outcome('device.attributes["d.io"].model == "T4" && device.capacity["d.io"].mem == quantity("1")',
                   device, "d.io") is True


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('"d.io" in device.attributes', True),
        ('"nope.io" in device.attributes', False),
        ('size(device.attributes["nope.io"]) == 0', True),                 # a missing domain is an empty map
        ('device.attributes["nope.io"].x == 1', "eval: no such key: x"),   # a missing id is an error
        ('device.attributes["d.io"]["x"] == 1', "eval: no such key: x"),
        ('has(device.attributes["nope.io"].x) || has(device.attributes["d.io"].x)', False),
        ('"a" in device.attributes["d.io"]', True),
        ("device.allowMultipleAllocations == false", True),
        ('device.attributes["d.io"].l == 1', False),                       # list vs int equality is false
        ('1 in device.attributes["d.io"].a', "eval: no such overload"),   # `in` on a scalar
        ("1 in device.attributes['d.io'].l", True),
    ],
)
def test_lookups(expression: str, expected: bool | str) -> None:
    device = _device(a={"int": 1}, l={"ints": [1]})
    assert outcome(expression, device, "d.io") == expected


def test_allow_multiple_allocations_is_read() -> None:
    assert outcome("device.allowMultipleAllocations", {"allowMultipleAllocations": True}, "d.io") is True
