"""`&&` and `||` chains (celext.plan.core.chain_operands): however the operands are grouped in parentheses, the
generated source folds them as one flat chain (one loop), and the answer is CEL's (the operators are
associative, errors included), checked against the reference engine. Fast, for the mutation budget."""

from __future__ import annotations

from typing import Any

import pytest

import celext
from tests.celext.outcome import evaluated

DRIVER = "d.io"
DEVICE: dict[str, Any] = {"name": "g", "attributes": {"d.io/n": {"int": 3}, "d.io/m": {"int": 4}}}
_N, _M = "device.attributes['d.io'].n", "device.attributes['d.io'].m"

# (expression, its answer on DEVICE)
CHAINS: list[tuple[str, bool | str]] = [
    (f"({_N} == 3 && {_M} == 4) && {_N} < 5", True),
    (f"{_N} == 3 && ({_M} == 4 && {_N} < 5)", True),
    (f"(({_N} == 3 && {_M} == 4)) && {_N} > 5", False),
    (f"({_N} == 1 || {_M} == 1) || {_N} == 3", True),
    (f"{_N} == 1 || ({_M} == 1 || {_N} == 2)", False),
    (f"({_N} == 3 && device.attributes['d.io'].x == 1) && {_M} == 1", False),  # false wins over the error
    (f"({_N} == 3 && {_M} == 4) && device.attributes['d.io'].x == 1", "eval: no such key: x"),
]


def _answer(expression: str, engine: str) -> bool | str:
    answer: bool | str = evaluated(expression, DEVICE, DRIVER, engine=engine)
    return answer


@pytest.mark.parametrize(("expression", "expected"), CHAINS)
def test_a_parenthesised_chain_is_one_flat_chain(expression: str, expected: bool | str) -> None:
    source = celext.compile(expression).source
    assert source is not None
    assert source.count("while True:") == 1, source
    assert [_answer(expression, "compiled"), _answer(expression, "reference")] == [expected, expected]
