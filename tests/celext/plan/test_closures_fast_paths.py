"""The compact form's own fast paths (celext.plan.closures), now every selector's first tier: `!` over a bool
negates in place, and `"domain" in device.attributes` reads the entries' names. Both give the general path's
answers (tests/celext/plan/test_forms_mutants.py), so these tests pin that the general path is not taken: a
fast path lost would keep every answer and cost the whole-device conversion or a reference-engine call per
evaluation."""

from __future__ import annotations

from collections.abc import Iterator
from types import MappingProxyType
from typing import Any

import pytest

import celext
from celext.compile import prepare
from celext.plan import plan
from celext.runtime import ops, wire

DRIVER = "d.io"
DEVICE = {"name": "g", "attributes": {"d.io/on": {"bool": True}, "d.io/n": {"int": 3}, "e.io/x": {"int": 1}},
          "capacity": {"d.io/mem": {"value": "1Gi"}}}
BARE = {"name": "b", "attributes": {"on": {"bool": False}}}  # the driver's own domain, spelled bare
PROXIED = {"name": "p", "attributes": MappingProxyType({"d.io/on": {"bool": True}})}


def _compact(expression: str) -> Any:
    function = plan(prepare(expression), compact=True).function
    return lambda device, driver=DRIVER: function(device, driver, 1_000_000)


def _reference(expression: str, device: dict[str, Any], driver: str = DRIVER) -> Any:
    try:
        return celext.compile(expression, engine="reference").evaluate(device, driver)
    except celext.EvaluationError as err:
        return err.message


def _plain(value: Any) -> Any:
    return str(value) if isinstance(value, Exception) else bool(value)


@pytest.fixture
def no_conversion(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """The whole-device conversion the general path takes for a bare `device`: recorded, then done."""
    seen: list[Any] = []
    real = wire.converted

    def converted(device: Any, driver: str) -> Any:
        seen.append(device)
        return real(device, driver)

    monkeypatch.setattr(wire, "converted", converted)
    yield seen


@pytest.mark.parametrize(("expression", "device", "driver", "expected"), [
    ("'d.io' in device.attributes", DEVICE, DRIVER, True),
    ("'e.io' in device.attributes", DEVICE, DRIVER, True),
    ("'f.io' in device.attributes", DEVICE, DRIVER, False),
    ("'d.io' in device.capacity", DEVICE, DRIVER, True),
    ("'e.io' in device.capacity", DEVICE, DRIVER, False),
    ("'d.io' in device.attributes", BARE, DRIVER, True),  # a bare name files under the driver's domain
    ("'d.io' in device.attributes", BARE, "x.io", False),
    ("'x.io' in device.attributes", BARE, "x.io", True),
    ("'d.io' in device.capacity", BARE, DRIVER, False),  # no capacity map at all
    ("'d.io' in device.attributes", PROXIED, DRIVER, True),  # a map that is not a dict (read as a Mapping)
    ("'f.io' in device.attributes", PROXIED, DRIVER, False),
])
def test_domain_membership_reads_the_names_not_the_device(no_conversion: list[Any], expression: str,
                                                          device: dict[str, Any], driver: str,
                                                          expected: bool) -> None:
    assert _plain(_compact(expression)(device, driver)) is expected
    assert no_conversion == []
    assert _reference(expression, device, driver) is expected


@pytest.mark.parametrize(("expression", "expected"), [
    ("device.driver in device.attributes", True),  # not a constant on the left: the general path
    ("'d.io' in {'d.io': 1}", True),  # not a device table on the right
])
def test_other_membership_takes_the_general_path(expression: str, expected: bool) -> None:
    assert _plain(_compact(expression)(DEVICE)) is expected
    assert _reference(expression, DEVICE) is expected


def test_a_device_table_read_otherwise_is_converted(no_conversion: list[Any]) -> None:
    assert _plain(_compact("device.driver in device.attributes")(DEVICE)) is True
    assert no_conversion  # the bare `device` the general path reads


@pytest.fixture
def unary_calls(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """ops.unary (the general `!`/`-`, which builds a tree for the reference engine): its calls recorded."""
    seen: list[Any] = []
    real = ops.unary

    def unary(operator: str, value: Any) -> Any:
        seen.append((operator, value))
        return real(operator, value)

    monkeypatch.setattr(ops, "unary", unary)
    return seen


@pytest.mark.parametrize(("expression", "expected"), [
    ("!device.attributes['d.io'].on", False),
    ("!!device.attributes['d.io'].on", True),
    ("!!!device.attributes['d.io'].on", False),
    ("!!!!device.attributes['d.io'].on", True),
    ("!('f.io' in device.attributes)", True),
])
def test_not_over_a_bool_negates_in_place(unary_calls: list[Any], expression: str, expected: bool) -> None:
    assert _plain(_compact(expression)(DEVICE)) is expected
    assert unary_calls == []
    assert _reference(expression, DEVICE) is expected


@pytest.mark.parametrize(("expression", "calls"), [
    ("!device.attributes['d.io'].n", 1),
    ("!(!device.attributes['d.io'].n)", 1),  # refused by the first application
    ("!device.attributes['d.io'].nosuch", 1),  # an error value goes to the general operator, which passes it on
])
def test_not_over_anything_else_takes_the_general_operator(unary_calls: list[Any], expression: str,
                                                           calls: int) -> None:
    answer = _plain(_compact(expression)(DEVICE))
    assert answer == _reference(expression, DEVICE) and isinstance(answer, str)
    assert len(unary_calls) >= calls and all(op == "unary_not" for op, _value in unary_calls)
