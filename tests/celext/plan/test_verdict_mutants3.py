"""The compiled engine's run-time helpers (celext.runtime.verdict and wire) seen through `Selector.evaluate`
and the module functions: the remembered verdict follows a map replaced by another of the same size, a
read-only map is never remembered, a read-only device's verdict is read back, and bare attribute names are
filed under the driver's domain. Each answer is derived by hand and checked against the reference engine.
Fast (milliseconds a case), so the mutation run's budget reaches them."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import pytest

import celext
from celext.reference.values import to_device
from celext.runtime import verdict, wire
from tests.celext.plan.views import View

DRIVER = "d.io"
_BAD_VERSION = "attribute v: parse semantic version: No Major.Minor.Patch elements found"
_BAD_QUANTITY = "capacity m: quantities must match the regular expression"
# 100 ones added: a tree above COMPACT_NODES, so `(E) && PAD` runs in the compact form with E's answer.
PAD = "(" + " + ".join(["1"] * 100) + ") == 100"


def _answers(expression: str, device: Any) -> list[bool | str]:
    """The answer of the generated form, the compact form and the reference engine, each on a fresh compile."""
    answers: list[bool | str] = []
    for text, engine in ((expression, "compiled"), (f"({expression}) && {PAD}", "compiled"),
                         (expression, "reference")):
        try:
            answers.append(celext.compile(text, engine=engine).evaluate(device, DRIVER))
        except celext.EvaluationError as err:
            answers.append(f"eval: {err.message}")
    return answers


def _error(selector: celext.Selector, device: Any) -> str | None:
    try:
        selector.evaluate(device, DRIVER)
    except celext.EvaluationError as err:
        return err.message
    return None


@pytest.mark.parametrize(("field", "good", "bad", "expected"), [
    ("attributes", {"v": {"version": "1.2.3"}}, {"v": {"version": "1.2"}}, _BAD_VERSION),
    ("capacity", {"m": {"value": "1Gi"}}, {"m": {"value": "x"}}, _BAD_QUANTITY),
])
def test_a_map_replaced_by_one_of_the_same_size_is_judged_again(field: str, good: dict[str, Any],
                                                               bad: dict[str, Any], expected: str) -> None:
    selector = celext.compile("device.driver == 'd.io'")
    device: dict[str, Any] = {"attributes": {"a": {"int": 1}}, "capacity": {"n": {"value": "1"}}}
    device[field] = good
    assert _error(selector, device) is None
    device[field] = bad  # another map object, the same size
    message = _error(selector, device)
    assert message is not None and message.startswith(expected), message
    device[field] = dict(good)
    assert _error(selector, device) is None
    assert verdict.device_error(device, DRIVER) is None


def test_a_capacity_map_grown_in_place_is_judged_again() -> None:
    selector = celext.compile("device.driver == 'd.io'")
    device: dict[str, Any] = {"attributes": {"a": {"int": 1}}, "capacity": {"n": {"value": "1"}}}
    assert _error(selector, device) is None
    device["capacity"]["m"] = {"value": "x"}  # the same map object, one entry more
    message = _error(selector, device)
    assert message is not None and message.startswith(_BAD_QUANTITY), message


def test_a_read_only_capacity_map_beside_a_dict_is_never_remembered() -> None:
    selector = celext.compile("device.driver == 'd.io'")
    inner: dict[str, Any] = {"m": {"value": "1Gi"}}
    device = {"attributes": {"a": {"int": 1}}, "capacity": MappingProxyType(inner)}
    assert _error(selector, device) is None
    assert verdict.device_error(device, DRIVER) is None
    inner["m"] = {"value": "x"}  # replaced in place: the same view, the same size
    message = _error(selector, device)
    assert message is not None and message.startswith(_BAD_QUANTITY), message
    assert verdict.device_error(device, DRIVER) == to_device(device, DRIVER).error


@pytest.mark.parametrize(("fields", "expected"), [
    ({"attributes": {"v": {"version": "1.2.3"}}}, None),
    ({"attributes": {"v": {"version": "1.2"}}}, _BAD_VERSION),
])
def test_a_read_only_devices_verdict_is_read_back_the_same(fields: dict[str, Any], expected: str | None) -> None:
    device = View(fields)
    selector = celext.compile("device.driver == 'd.io'")
    assert [verdict.device_error(device, DRIVER), verdict.device_error(device, DRIVER)] == [expected, expected]
    assert [_error(selector, device), _error(selector, device)] == [expected, expected]


@pytest.mark.parametrize("device", [["x"], "x", 5, None], ids=repr)
def test_a_device_that_is_no_map_at_all_gets_to_devices_verdict(device: Any) -> None:
    # Selector.evaluate refuses such a device before asking; the function itself answers as to_device does.
    assert verdict.device_error(device, DRIVER) is None
    assert to_device(device, DRIVER).error is None


# (expression, device attributes, the answer)
BARE_NAMES: list[tuple[str, dict[str, Any], bool | str]] = [
    # a bare name is filed under the driver's domain (upstream parseQualifiedName)
    ("'d.io' in device.attributes", {"model": {"string": "x"}}, True),
    ("'e.io' in device.attributes", {"model": {"string": "x"}}, False),
    ("'d.io' in device.attributes", {"e.io/model": {"string": "x"}}, False),
    # an attribute name with two slashes: domain `d.io`, id `x/l`; no domain `d.io/x`
    ("device.attributes['d.io/x'].l == 1", {"d.io/x/l": {"int": 1}}, "eval: no such key: l"),
    ("device.attributes['d.io']['x/l'] == 1", {"d.io/x/l": {"int": 1}}, True),
    ("device.attributes['d.io']['x/l'] == 1", {"x/l": {"int": 1}}, "eval: no such key: x/l"),
    ("device.attributes['x']['l'] == 1", {"x/l": {"int": 1}}, True),
]


@pytest.mark.parametrize(("expression", "attributes", "expected"), BARE_NAMES)
def test_names_are_filed_as_to_device_files_them(expression: str, attributes: dict[str, Any],
                                                 expected: bool | str) -> None:
    assert _answers(expression, {"attributes": attributes}) == [expected] * 3


@pytest.mark.parametrize(("table", "expected"), [
    ({"model": 1}, True), ({"d.io/model": 1}, True), ({"e.io/model": 1}, False), ({}, False),
])
def test_has_domain_files_a_bare_name_under_the_driver(table: dict[str, Any], expected: bool) -> None:
    assert wire.has_domain(table, DRIVER, "d.io") is expected


@pytest.mark.parametrize(("table", "domain", "ident", "expected"), [
    ({"d.io/x/l": 1}, "d.io/x", "l", wire.ABSENT),
    ({"d.io/x/l": 1}, "d.io", "x/l", 1),
    ({"x/l": 1}, "d.io", "x/l", wire.ABSENT),
    ({"l": 1, "d.io/l": 2}, "d.io", "l", 2),
    ({"d.io/l": 2, "l": 1}, "d.io", "l", 1),
    ({"l": 1}, "e.io", "l", wire.ABSENT),
])
def test_lookup_finds_the_entry_to_device_keeps(table: dict[str, Any], domain: str, ident: str,
                                                expected: Any) -> None:
    assert wire.lookup(table, DRIVER, domain, ident) == expected
