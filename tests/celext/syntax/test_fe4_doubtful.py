"""The parser hands the refusals only the macro calls whose form its ASTs do not show sound
(`Parsed.doubtful`): checking those refuses exactly what the refusals walk refuses, at the same place."""

from __future__ import annotations

import pytest

import celext
from celext.errors import CompileError
from celext.syntax import parser
from celext.syntax.refusals import check_macros, refuse
from tests.celext.syntax.test_refusable import refusal

_CASES = [
    "[1].all(x, x > 0)",
    "[1].all((x), x > 0)",  # parentheses around a name: still a name
    "[1].all(1, x)",
    "[1].all(-x, x)",
    "[1].exists(x.y, true)",
    "[1].all(x, [2].all(1, true))",
    "[1].all(1, [2].all(2, true))",
    "[[1]].exists(1, true).all(2, true) == true",
    "[1].map(x, x).filter(1, true).size() == 0",
    "[1].all(a, true) && [2].all(b.c, true) && [3].exists(1, true)",
    "{'a': 1}.all(k, v, true)",
    "{'a': 1}.all(k, (k), true)",
    "[1].all(k, k, true)",  # two variables, one name
    "[1].exists_one(x, x > 0, 1)",  # not a macro form: not checked
    "[1].all(x)",  # not a macro form either
    "[true].all(x, x) && [1].all(y, 1.all(2, true))",
    "[1].sortBy(1, 2) == [1]",
    "[1].sortBy(x, x) == [1]",
    "optional.of(1).optMap(v, v + 1) == optional.of(2)",
    "optional.of(1).optMap(1, 2) == optional.of(2)",
    "[1].transformList(i, 2, v, true) == [1]",
    "[1].transformList(i, v, i > 0, v) == [1]",
    "[1].transformList(i, i, v) == [1]",
    "{'a': 1}.transformMapEntry(k, v, {k: v}) == {}",
]


@pytest.mark.parametrize("expression", _CASES)
def test_doubtful_calls_refuse_what_the_walk_refuses(expression: str) -> None:
    parsed = parser.parse_sized(expression, lean=True)
    assert set(map(id, parsed.doubtful)) <= set(map(id, parsed.macros))
    walked = refusal(lambda: refuse(parsed.tree, shared=False))
    assert refusal(lambda: check_macros(parsed.doubtful, parsed.tree)) == walked
    if walked is not None:
        assert parsed.doubtful


@pytest.mark.parametrize(("expression", "doubtful"), [
    ("[1].all(x, x > 0) && [2].exists(y, y == 2)", 0),
    ("[1].all(x, x > 0) && [2].exists(y.z, true)", 1),
    ("{'a': 1}.all(k, v, true) && {'a': 1}.all(k, k, true)", 1),
    ("[1].all(x) == true", 0),
])
def test_sound_macro_calls_are_left_out(expression: str, doubtful: int) -> None:
    parsed = parser.parse_sized(expression, lean=True)
    assert len(parsed.doubtful) == doubtful


def test_the_first_malformed_call_is_refused_behind_sound_ones() -> None:
    with pytest.raises(CompileError) as raised:
        celext.compile("[1].all(x, true) && [1].all(x, x, true) && [1].all(1, true)")
    assert (raised.value.message, raised.value.line, raised.value.column) == (
        "duplicate variable name: x", 1, 32)
