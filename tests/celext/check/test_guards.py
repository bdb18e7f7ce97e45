"""`Selector.required_driver`: the driver a top-level `device.driver == "..."` conjunct requires, where the selector
is false on every other driver's (converting) devices whatever else it reads."""

from __future__ import annotations

import pytest

import celext

DRIVERS = ("a.example.com", "b.example.com")


@pytest.mark.parametrize(("expression", "required"), [
    ('device.driver == "a.example.com"', "a.example.com"),
    ('"a.example.com" == device.driver', "a.example.com"),
    ('(device.driver == "a.example.com")', "a.example.com"),
    ('device.driver == "a.example.com" && device.attributes["a.example.com"].model == "x"', "a.example.com"),
    ('device.attributes["a.example.com"].model == "x" && device.driver == "a.example.com"', "a.example.com"),
    ('true && (1 < 2 && device.driver == "a.example.com")', "a.example.com"),
    ('device.driver == "a.example.com" || device.attributes["a.example.com"].model == "x"', None),
    ('device.driver != "b.example.com"', None),
    ('!(device.driver == "a.example.com")', None),
    ('device.driver == "a.example.com" ? true : false', None),
    ('device.driver.startsWith("a.")', None),
    ('cel.bind(d, device.driver, d == "a.example.com")', None),
    ('device.attributes["a.example.com"].model == "x"', None),
])
def test_required_driver(expression: str, required: str | None) -> None:
    assert celext.compile(expression).required_driver == required


@pytest.mark.parametrize("expression", [
    'device.driver == "a.example.com" && device.attributes["a.example.com"].model == "x"',
    'device.attributes["a.example.com"].model == "x" && device.driver == "a.example.com"',
    'device.attributes["a.example.com"].model.size() / 0 == 1 && "a.example.com" == device.driver',
])
@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_the_selector_is_false_on_other_drivers_devices_whatever_else_fails(expression: str, engine: str) -> None:
    """What the rules rely on: the other operands' errors (a missing attribute, a division by zero) do not escape."""
    selector = celext.compile(expression, engine=engine)
    assert selector.required_driver == "a.example.com"
    assert selector.evaluate({"name": "d", "attributes": {}}, "b.example.com") is False
