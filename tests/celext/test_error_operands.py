"""An arithmetic operand that is an error is the result, the left one first, as cel-go's evalBinary returns it
before calling the operator: `1 + (1/0)` is `division by zero`, not `no such overload`."""

from __future__ import annotations

import pytest

import celext

DEVICE = {"name": "g", "attributes": {"d/n": {"int": 1}}}


@pytest.mark.parametrize("engine", ["compiled", "reference"])
@pytest.mark.parametrize(("expression", "error"), [
    ("1 + (1/0) == 2", "division by zero"),
    ("(1/0) + 1 == 2", "division by zero"),
    ("1 - (2 % 0) == 2", "modulus by zero"),
    ("(1/0) * (2 % 0) == 1", "division by zero"),  # the left error first
    ("(2 % 0) * (1/0) == 1", "modulus by zero"),
    ("-(1/0) == 1", "division by zero"),
    ('1 + int(["x"][0]) == 2', "type conversion error from 'string' to 'int'"),  # (int("x") is refused)
    ("dyn(1) + dyn(1/0) == 2", "division by zero"),
    ('device.attributes["d"].n + (1/0) == 1', "division by zero"),
    ("9223372036854775807 + (1 + 9223372036854775807) == 0", "integer overflow"),
])
def test_an_error_operand_is_the_result(engine: str, expression: str, error: str) -> None:
    with pytest.raises(celext.EvaluationError) as raised:
        celext.compile(expression, engine=engine).evaluate(DEVICE, "d")
    assert raised.value.message == error


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_a_type_mismatch_without_an_error_operand_is_still_no_such_overload(engine: str) -> None:
    with pytest.raises(celext.EvaluationError) as raised:
        celext.compile('dyn(1) + dyn("a") == 2', engine=engine).evaluate(DEVICE, "d")
    assert raised.value.message == "no such overload"
