"""Differential test: the compiled engine gives every selector the answer the reference engine gives.

Selectors over the DRA grammar and wire-form devices come from tests/celext/plan/grammar.py; both engines
must agree on the result or on the error text, on the wire form and (compiled engine) through both
`matches()` and `evaluate()`. `make test` runs 20,600 hypothesis examples in nine functions (so xdist spreads
them): two draw 500 fresh expressions each, seven draw 2,800 examples each from seeded pools of expressions and
devices (parsing is the slow part, and pooled expressions are parsed once). `make fuzz` sets
DRAGUARD_FUZZ_EXAMPLES for a longer run.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import celext
import celext.plan
from celext.compile import prepare
from celext.selector import Selector
from tests.celext.plan.grammar import (
    DRIVERS,
    HypothesisChooser,
    device,
    expression,
    long_shape,
    pool,
    selector,
    typed_test,
)

SCALE = int(os.environ.get("DRAGUARD_FUZZ_EXAMPLES", "0"))  # examples per function; 0 = the make test sizes
FRESH = settings(max_examples=SCALE or 500, deadline=None, database=None, suppress_health_check=list(HealthCheck))
POOLED = settings(max_examples=SCALE or 2800, deadline=None, database=None, suppress_health_check=list(HealthCheck))


def _answer(run: Any, wire: Any, driver: str) -> bool | str:
    try:
        return bool(run(wire, driver))
    except celext.EvaluationError as err:
        return f"eval: {err.message}"


@contextlib.contextmanager
def compact_form() -> Iterator[None]:
    """Every selector planned inside takes the compact form (celext.plan.closures), whatever its size."""
    saved = celext.plan.COMPACT_NODES
    celext.plan.COMPACT_NODES = -1
    try:
        yield
    finally:
        celext.plan.COMPACT_NODES = saved


def agree(text: str, devices: list[dict[str, Any]], driver: str) -> None:
    """Both forms of the compiled engine (generated Python, and the compact form of large expressions) give
    the reference engine's answer."""
    try:
        reference = celext.compile(text, engine="reference")
    except celext.CompileError as err:  # one front end: the compiled engine must refuse it the same way
        try:
            celext.compile(text)
        except celext.CompileError as again:
            assert again.message == err.message
            return
        raise AssertionError(f"only the reference engine refused {text!r}") from None
    compiled = celext.compile(text)
    with compact_form():
        compact = Selector(prepare(text))
    for wire in devices:
        expected = _answer(reference.evaluate, wire, driver)
        assert _answer(compiled.matches, wire, driver) == expected, (text, wire, driver, compiled.source)
        assert _answer(compiled.evaluate, wire, driver) == expected, (text, wire, driver)
        assert _answer(compact.evaluate, wire, driver) == expected, (text, wire, driver, "compact")


EXPRESSIONS, DEVICES = 800, 400


@functools.cache
def _expressions() -> list[str]:
    return pool(EXPRESSIONS * 3 // 4, 1, expression) + pool(EXPRESSIONS // 4, 2, selector)


@functools.cache
def _devices() -> list[dict[str, Any]]:
    return pool(DEVICES, 3, device)


def _fresh_case() -> Any:
    @FRESH
    @given(st.data())
    def case(data: Any) -> None:
        ch = HypothesisChooser(data)
        text = expression(ch) if ch.randint(0, 2) else selector(ch)
        agree(text, [device(ch) for _ in range(ch.randint(1, 3))], ch.choice(DRIVERS))

    return case


def _pooled_case() -> Any:
    @POOLED
    @given(st.integers(0, EXPRESSIONS - 1), st.lists(st.integers(0, DEVICES - 1), min_size=1, max_size=2),
           st.sampled_from(DRIVERS))
    def case(expression_index: int, device_indexes: list[int], driver: str) -> None:
        agree(_expressions()[expression_index], [_devices()[i] for i in device_indexes], driver)

    return case


# Separate functions so that pytest-xdist runs them on different workers: 2 x 500 + 7 x 2800 examples.
test_fresh_expressions_agree_1 = _fresh_case()
test_fresh_expressions_agree_2 = _fresh_case()
test_pooled_expressions_agree_1 = _pooled_case()
test_pooled_expressions_agree_2 = _pooled_case()
test_pooled_expressions_agree_3 = _pooled_case()
test_pooled_expressions_agree_4 = _pooled_case()
test_pooled_expressions_agree_5 = _pooled_case()
test_pooled_expressions_agree_6 = _pooled_case()
test_pooled_expressions_agree_7 = _pooled_case()


@functools.cache
def _typed_expressions() -> list[str]:
    return pool(400, 4, typed_test)


def test_typed_operations_agree() -> None:
    """Every operation the planner inlines from the checked types (celext.plan.typed) against the reference."""
    inlined = 0
    for index, text in enumerate(_typed_expressions()):
        with contextlib.suppress(celext.CompileError):
            inlined += "rt_invoke" not in celext.compile(text).source
        agree(text, [_devices()[(index * 7 + k) % DEVICES] for k in range(3)], DRIVERS[index % len(DRIVERS)])
    assert inlined >= 100  # the generator reaches the inlined paths


@functools.cache
def _long_shapes() -> list[str]:
    return pool(300, 5, long_shape)


def test_long_chains_arithmetic_and_deep_ternaries_agree() -> None:
    """Long `&&`/`||` chains with errors anywhere, int arithmetic chains overflowing part-way, deep ternaries:
    the flat chains, the folded constants and the compact form against the reference."""
    for index, text in enumerate(_long_shapes()):
        agree(text, [_devices()[(index * 5 + k) % DEVICES] for k in range(3)], DRIVERS[index % len(DRIVERS)])


@pytest.mark.parametrize("count", [1, 2, 3, 4, 999, 1000])
@pytest.mark.parametrize(("operator", "operand"), [
    ("!", "true"), ("!", "device.attributes['d'].b"), ("!", "device.attributes['d'].i"), ("!", "(1 / 0 == 1)"),
    ("-", "1"), ("-", "device.attributes['d'].i"), ("-", "device.attributes['d'].b"), ("-", "2.5"),
    ("-", "(-9223372036854775807 - 1)"),
])
def test_runs_of_one_unary_operator_agree(count: int, operator: str, operand: str) -> None:
    """A run of `!` or `-` (any length in cel-go) gives the reference engine's answer in both forms, on values
    the operator accepts, refuses, errors and int64's minimum (whose negation overflows)."""
    test = "== true" if operator == "!" else "!= 0"
    devices = [{"name": "x", "attributes": {"b": {"bool": flag}, "i": {"int": number}}}
               for flag, number in ((True, 3), (False, -9223372036854775808))]
    agree(f"({operator * count}{operand}) {test}", devices, "d")
