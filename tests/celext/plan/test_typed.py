"""The planner specialised on checked types (celext.plan.typed) and cel.bind's lazy initialiser."""

from __future__ import annotations

from typing import Any

import pytest

import celext
from celext.overloads import BY_ID, OVERLOADS

DEVICE: dict[str, Any] = {"attributes": {"s": {"string": "A100"}, "n": {"int": 3}, "v": {"version": "1.2.3"},
                                          "nan": {"string": "NaN"}, "z": {"string": "-0.0"}, "t": {"bool": True},
                                          "u": {"string": "é"}}}
NAN, ZERO = 'double(device.attributes["gpu.io"].nan)', 'double(device.attributes["gpu.io"].z)'
TRUE_, TEXT = 'bool(device.attributes["gpu.io"].t)', 'string(device.attributes["gpu.io"].u)'


def _both(expression: str, device: dict[str, Any] = DEVICE, driver: str = "gpu.io") -> bool | str:
    answers: set[bool | str] = set()
    for engine in ("compiled", "reference"):
        try:
            answers.add(celext.compile(expression, engine=engine).evaluate(device, driver))
        except celext.EvaluationError as err:
            answers.add(f"error: {err.message}")
    assert len(answers) == 1, (expression, answers)
    return answers.pop()


def test_the_one_overload_table_carries_the_code_templates() -> None:
    templated = {o.id for o in OVERLOADS if o.template}
    assert {"less_int64", "greater_equals_string", "less_bool", "less_double", "starts_with_string",
            "contains_string", "size_string", "size_list", "logical_not", "add_string"} <= templated
    assert BY_ID["quantity_is_greater_than"].template is not None  # compared on the exact Decimal value
    assert BY_ID["semver_compare_to"].template is not None  # compared on the precedence tuple
    assert BY_ID["quantity_add"].template is None  # called through its reference implementation


@pytest.mark.parametrize(("expression", "inlined"), [
    ('size(device.driver) > 3 && device.driver.startsWith("gpu")', ["str.__len__", "str.startswith"]),
    ('string(device.attributes["gpu.io"].s) + "x" == "A100x"', ["str.__add__", "str.__eq__"]),
    ('int(device.attributes["gpu.io"].n) <= 3', ["int.__le__"]),
    ('!device.allowMultipleAllocations', ["FALSE if"]),
])
def test_checked_operations_are_inlined_and_agree(expression: str, inlined: list[str]) -> None:
    source = celext.compile(expression).source
    assert source is not None
    for code in inlined:
        assert code in source
    assert _both(expression) is True


def test_certain_operands_need_no_guard() -> None:
    source = celext.compile("size(device.driver) > 3").source
    assert source is not None and ".__class__ is" not in source


@pytest.mark.parametrize(("expression", "expected"), [
    ('int(device.attributes["gpu.io"].missing) < 4', "error: no such key: missing"),
    ('string(device.attributes["gpu.io"].n) < "4"', True),
    ("size(dyn([1, 2])) == 2", True),
    ('dyn(device.attributes["gpu.io"].s) < "B"', True),  # dyn operands take the general dispatch
    ('"日本" > "A"', True),
    ("9223372036854775807 > 1", True),
    (f"{NAN} < 1.0", False),
    (f"{NAN} >= 1.0", False),
    (f"{ZERO} < 0.0", False),
    (f"{ZERO} <= 0.0", True),
    (f"{TRUE_} > false", True),
    (f"{TRUE_} != true", False),
    (f"uint({TRUE_} ? 2 : 1) > 1u", True),
    (f"{TEXT}.size() == 1 && size({TEXT}) == 1", True),
    (f'{TEXT} > "z"', True),
])
def test_guarded_paths_keep_cel_semantics(expression: str, expected: bool | str) -> None:
    assert _both(expression) == expected


@pytest.mark.parametrize(("expression", "expected"), [
    ("cel.bind(x, 1 / 0, true)", True),  # cel-go initialises the binding lazily, on its first use
    ("cel.bind(x, 1 / 0, false || true)", True),
    ('cel.bind(x, device.attributes["gpu.io"].missing, x == 1)', "error: no such key: missing"),
    ('cel.bind(x, device.attributes["gpu.io"].missing, has(device.attributes["gpu.io"].s))', True),
    ("cel.bind(x, [1, 2], x.exists(y, y == 2) && size(x) == 2)", True),
    ("cel.bind(x, 1, cel.bind(y, x + 1, cel.bind(x, 10, y == 2)))", True),
])
def test_bind_initialisers_are_lazy_as_in_cel_go(expression: str, expected: bool | str) -> None:
    assert _both(expression) == expected


def test_bind_initialiser_keeps_its_own_variables() -> None:
    assert _both("[1].exists(y, cel.bind(x, y, [2].exists(y, x == 1)))") is True
