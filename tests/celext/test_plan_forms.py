"""celext.plan.plan: both forms of a compiled selector, their CPU laps and the name their code carries.

The generated function and the compact closure form read a device given as a dict, a v1beta1 `basic`, or
another Mapping, and charge comprehension cost against the selector's limit, with the same answers.
"""

from __future__ import annotations

import time
from collections import UserDict
from types import MappingProxyType
from typing import Any

import pytest

from celext.compile import prepare
from celext.cost import COST_LIMIT
from celext.plan import COMPACT_HEADER, plan
from celext.reference.evaluator import CostLimitExceeded
from celext.values import CELEvalError

FIELDS = {"attributes": {"x": {"int": 1}}, "capacity": {"m": {"value": "2"}}}
DEVICES: list[tuple[str, Any]] = [
    ("v1", {"name": "d", **FIELDS}),
    ("v1beta1", {"name": "d", "basic": FIELDS}),
    ("read-only", MappingProxyType({"name": "d", **FIELDS})),
    ("mutable mapping", UserDict({"name": "d", **FIELDS})),
    ("read-only basic", {"name": "d", "basic": MappingProxyType(FIELDS)}),
    ("mapping with basic", UserDict({"name": "d", "basic": FIELDS})),
]
def _answer(value: Any) -> bool | str:
    """A compiled function's result: a CEL bool, or the evaluation error it returns (not raises)."""
    return f"eval: {value.args[0]}" if isinstance(value, CELEvalError) else bool(value)


EXPRESSION = "device.attributes['d'].x == 1 && device.capacity['d'].m.isGreaterThan(quantity('1'))"


@pytest.mark.parametrize("compact", [False, True], ids=["generated", "compact"])
@pytest.mark.parametrize("device", [row[1] for row in DEVICES], ids=[row[0] for row in DEVICES])
def test_both_forms_read_every_shape_of_device(device: Any, compact: bool) -> None:
    compiled = plan(prepare(EXPRESSION), compact=compact)
    assert compiled.compact is compact
    assert compiled.source.startswith(COMPACT_HEADER) is compact
    assert _answer(compiled.function(device, "d", COST_LIMIT)) is True
    assert _answer(compiled.function(device, "e", COST_LIMIT)) == "eval: no such key: x"  # bare names: the driver's


@pytest.mark.parametrize("compact", [False, True], ids=["generated", "compact"])
@pytest.mark.parametrize(("limit", "fails"), [(14, True), (15, False), (16, False)])
def test_both_forms_charge_a_comprehension_against_the_limit_they_are_given(compact: bool, limit: int,
                                                                             fails: bool) -> None:
    """`[1, 2, 3].all(...)` costs 15 at run time: a limit one below it fails, at it or above it passes."""
    compiled = plan(prepare("[1, 2, 3].all(i, i > 0)"), compact=compact)
    if fails:
        with pytest.raises(CostLimitExceeded, match=r"^operation cancelled: actual cost limit exceeded$"):
            compiled.function({"name": "d"}, "d", limit)
    else:
        assert _answer(compiled.function({"name": "d"}, "d", limit)) is True


@pytest.mark.parametrize("compact", [False, True], ids=["generated", "compact"])
def test_the_plan_reports_its_cpu_laps(compact: bool) -> None:
    prepared = prepare(EXPRESSION)
    laps: dict[str, float] = {}
    before = time.process_time()
    plan(prepared, laps, compact=compact)
    spent = time.process_time() - before
    assert sorted(laps) == (["plan"] if compact else ["plan", "py compile"])
    assert all(0 <= lap <= spent for lap in laps.values())


@pytest.mark.parametrize("length", [59, 60, 61])
def test_the_generated_code_is_named_after_the_first_60_characters_of_its_expression(length: int) -> None:
    expression = "1 == 1 &&" + " " * (length - 13) + "true"
    assert len(expression) == length
    code = plan(prepare(expression), compact=False).function.__code__
    assert code.co_filename == f"<celext selector {expression[:60]!r}>"
    assert ("true'>" in code.co_filename) is (length <= 60)
