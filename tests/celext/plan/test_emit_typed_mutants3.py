"""`==` / `!=` on two operands the checker types alike as int, string or bool (celext.plan.emit_typed): the
generated source compares them with Python's own equality behind a class guard on both, and the answer is
CEL's, checked in both compiled forms and the reference engine (answers derived by hand). Fast, for the
mutation budget."""

from __future__ import annotations

import re

import pytest

import celext
from tests.celext.outcome import evaluated

PAD = "(" + " + ".join(["1"] * 100) + ") == 100"  # above COMPACT_NODES: the compact form

# (expression, the Python comparison and guard class in its source, the answer)
EQUALITIES: list[tuple[str, str, str, bool]] = [
    ("[1, 2].all(x, [3].exists(y, x != y))", r"int\.__ne__", "INT", True),
    ("[1, 2].all(x, [2].exists(y, x == y))", r"int\.__eq__", "INT", False),
    ("[3].all(x, [3].exists(y, x == y))", r"int\.__eq__", "INT", True),
    ("['a'].exists(x, ['a'].exists(y, x == y))", r"str\.__eq__", "STRING", True),
    ("['a'].exists(x, ['b'].exists(y, x == y))", r"str\.__eq__", "STRING", False),
    ("['a'].exists(x, ['b'].exists(y, x != y))", r"str\.__ne__", "STRING", True),
    ("[true].exists(x, [true].exists(y, x == y))", r"int\.__eq__", "BOOL", True),
    ("[true].exists(x, [false].exists(y, x == y))", r"int\.__eq__", "BOOL", False),
    ("[true].exists(x, [false].exists(y, x != y))", r"int\.__ne__", "BOOL", True),
]


def _answer(expression: str, engine: str) -> bool | str:
    answer: bool | str = evaluated(expression, {"name": "g"}, "d.io", engine=engine)
    return answer


@pytest.mark.parametrize(("expression", "comparison", "kind", "expected"), EQUALITIES)
def test_typed_alike_operands_compare_with_pythons_equality(expression: str, comparison: str, kind: str,
                                                          expected: bool) -> None:
    source = celext.compile(expression).source
    assert source is not None
    guard = (rf"\(TRUE if {comparison}\((v\d+), (v\d+)\) else FALSE\) "
             rf"if \1\.__class__ is {kind} and \2\.__class__ is {kind} else K\d+\(\1, \2\)")
    assert re.search(guard, source), source
    answers = [_answer(expression, "compiled"), _answer(f"({expression}) && {PAD}", "compiled"),
               _answer(expression, "reference")]
    assert answers == [expected] * 3
