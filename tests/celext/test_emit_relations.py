"""Comparisons the compiled engine writes out with Python's own operators (celext.plan.emit `_fast_relation`,
`_driver_relation` of both forms), against CEL's answers.

A comparison with a constant int or string, or with `device.driver`, runs as a builtin comparison when the other
operand has the constant's type, else as CEL's operator: equality across types is false, ordering across types has
no overload. Each row's answer is the same on the reference engine and on the compiled engine's generated and
compact forms, through `matches` and `evaluate`.
"""

from __future__ import annotations

from typing import Any

import pytest

import celext
import celext.plan
from celext.compile import prepare
from celext.selector import Selector

DEVICE = {"name": "x", "attributes": {"i": {"int": 5}, "s": {"string": "b"}, "v": {"version": "1.2.3"},
                                      "b": {"bool": True}}}
NO_OVERLOAD = "eval: no such overload"
A = 'device.attributes["d"]'

CASES: list[tuple[str, bool | str]] = [
    ('device.driver < "e"', True),
    ('device.driver > "e"', False),
    ('device.driver <= "d"', True),
    ('device.driver >= "e"', False),
    ('"e" > device.driver', True),
    ('"d" >= device.driver', True),
    ('device.driver == "d"', True),
    ('device.driver != "d"', False),
    ('"d" == device.driver', True),
    ('"x" != device.driver', True),
    ('device.driver == "x"', False),
    ('device.driver != "x"', True),
    (f'{A}.i == "a"', False),
    (f'{A}.i != "a"', True),
    (f'{A}.i < "a"', NO_OVERLOAD),
    (f'"a" == {A}.i', False),
    (f"{A}.s == 5", False),
    (f"{A}.s < 5", NO_OVERLOAD),
    (f"{A}.i == {A}.s", False),
    (f"{A}.i < {A}.s", NO_OVERLOAD),
    (f"{A}.s >= {A}.i", NO_OVERLOAD),
    (f"{A}.i < 6", True),
    (f"6 > {A}.i", True),
    (f"5 >= {A}.i", True),
    (f"{A}.i != 5", False),
    (f'{A}.s < "c"', True),
    (f'"a" < {A}.s', True),
    (f'{A}.s == "b"', True),
    (f"{A}.b == true", True),
    (f"{A}.v == 5", NO_OVERLOAD),
    (f'{A}.v < "2"', NO_OVERLOAD),
    (f"{A}.b < 1", NO_OVERLOAD),
    (f"{A}.i + 1 > 5", True),
    (f'{A}.s + "c" == "bc"', True),
    (f'{A}.s + "c" < "c"', True),
]


def _answer(run: Any, driver: str) -> bool | str:
    try:
        return bool(run(DEVICE, driver))
    except celext.EvaluationError as err:
        return f"eval: {err.message}"


def _answers(expression: str, driver: str, monkeypatch: pytest.MonkeyPatch) -> set[bool | str]:
    answers = {_answer(celext.compile(expression, engine="reference").evaluate, driver)}
    for compact in (False, True):
        with monkeypatch.context() as patch:
            patch.setattr(celext.plan, "COMPACT_NODES", -1 if compact else 1_000_000)
            selector = Selector(prepare(expression))
        assert selector.source.startswith(celext.plan.COMPACT_HEADER) is compact
        answers |= {_answer(selector.evaluate, driver), _answer(selector.matches, driver)}
    return answers


@pytest.mark.parametrize(("expression", "expected"), CASES)
def test_comparisons_give_cels_answer_in_every_form(expression: str, expected: bool | str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    assert _answers(expression, "d", monkeypatch) == {expected}


@pytest.mark.parametrize(("expression", "driver", "expected"), [
    ('device.driver == ""', "", True),
    ('device.driver != ""', "", False),
    ('device.driver == "d"', "", False),
    ('device.driver == "d"', "e", False),
    ('device.driver != "d"', "e", True),
    ('device.driver < "e"', "", True),
    ('device.driver.startsWith("gpu")', "gpu.example.com", True),
])
def test_the_driver_compared_under_other_drivers(expression: str, driver: str, expected: bool,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    assert _answers(expression, driver, monkeypatch) == {expected}
