"""What a comprehension charges in the compiled engine (celext.plan.emit_loops), at the cost limit and one
under it, in both compiled forms. Each step charges ITERATION_COST (3) plus one unit per node of its body that
is not a mere grammar level: a relation counts but not its operator node, an addition counts with its operator
node, an aggregate literal costs one unit (folded into a constant or not); a nested comprehension's body is
charged by its own steps, so the outer body counts only the call and its target. The limits below are counted
by hand from that rule; the answers are checked against the reference engine. Fast, for the mutation budget."""

from __future__ import annotations

from typing import Any

import pytest

import celext
from celext.compile import prepare

DRIVER = "d.io"
DEVICE: dict[str, Any] = {"name": "g", "attributes": {"d.io/n": {"int": 3}}}
EXCEEDED = "operation cancelled: actual cost limit exceeded"
PAD = "(" + " + ".join(["1"] * 100) + ") == 100"  # above COMPACT_NODES: the compact form, no comprehension
LONG = "[" + ", ".join(str(n) for n in range(1, 34)) + "]"  # a list literal the parser folds into a constant

# (expression, its answer, the smallest cost limit it runs within)
LIMITS: list[tuple[str, bool, int]] = [
    ("[1, 2, 3].all(x, x > 0)", True, 3 * (3 + 2)),  # relation, x
    ("[1, 2, 3].all(x, x > 1)", False, 1 * (3 + 2)),  # the first step is false: it stops there
    ("[1, 2].all(x, x in [1, 2])", True, 2 * (3 + 3)),  # relation, x, the list literal
    (f"[1, 2].all(x, x in {LONG})", True, 2 * (3 + 3)),  # relation, x, the folded list constant
    ("[1, 2].all(x, x in {1: 2, 2: 3})", True, 2 * (3 + 3)),  # relation, x, the map literal
    # outer step: 3 + the call + the target's three list literals; inner step: 3 + relation, index, y, x
    ("[1, 2].exists(x, [[1], [2]].exists(y, y[0] == x))", True, (3 + 4) + (3 + 4)),
    ("[1, 2].exists(x, [[2]].exists(y, y[0] == x))", True, (3 + 3) + (3 + 4) + (3 + 3) + (3 + 4)),
    ("[1, 2, 3].exists_one(x, x == 2)", True, 3 * (3 + 2)),
    ("[2, 2].exists_one(x, x == 2)", False, 2 * (3 + 2)),
    ("[1, 2, 3].filter(x, x > 1).size() == 2", True, 3 * (3 + 2)),
    ("[1, 2].map(x, x + 1) == [2, 3]", True, 2 * (3 + 3)),  # the addition, its operator node, x
    # The other macro forms (celext.plan.closures._macro; the generated form hands them to it): the same rule,
    # with a step charging every body (condition and transform) in full.
    ("[1, 2, 3].all(i, x, x > 0)", True, 3 * (3 + 2)),
    ("[1, 2, 3].exists(i, x, x > i)", True, 1 * (3 + 3)),  # relation, x, i; the first step decides
    ("[1, 2, 3].existsOne(i, x, x == i)", False, 3 * (3 + 3)),
    ("[1, 2, 3].map(x, x > 1, x) == [2, 3]", True, 3 * (3 + 2 + 1)),  # condition: relation, x; transform: x
    ("[1, 2].transformList(i, x, x + 1) == [2, 3]", True, 2 * (3 + 3)),
    ("[1, 2, 3].transformList(i, x, x > 1, x) == [2, 3]", True, 3 * (3 + 2 + 1)),
    ('{"a": 1}.transformMap(k, v, v + 1) == {"a": 2}', True, 1 * (3 + 3)),
    ("[3, 1, 2].sortBy(x, x) == [1, 2, 3]", True, 3 * (3 + 1)),
    ("[1, 2].transformMapEntry(i, x, {x: i}) == {1: 0, 2: 1}", True, 2 * (3 + 3)),  # the map literal, x, i
    # outer step: the call and x; inner step: the addition, its operator node, y, i
    ("[[1], [2]].transformList(i, x, x.map(y, y + i)) == [[1], [3]]", True, 2 * (3 + 2) + 2 * (3 + 4)),
]


def _answer(expression: str, limit: int, engine: str = "compiled") -> bool | str:
    try:
        return celext.Selector(prepare(expression), cost_limit=limit, engine=engine).evaluate(DEVICE, DRIVER)
    except celext.EvaluationError as err:
        return err.message


@pytest.mark.parametrize(("expression", "expected", "limit"), LIMITS)
def test_a_comprehension_runs_at_its_limit_and_not_one_under(expression: str, expected: bool, limit: int) -> None:
    assert _answer(expression, 1_000_000, engine="reference") is expected
    for text in (expression, f"({expression}) && {PAD}"):
        assert _answer(text, limit + 1) is expected
        assert _answer(text, limit) is expected
        assert _answer(text, limit - 1) == EXCEEDED


@pytest.mark.parametrize(("expression", "checked"), [
    ("[1, 2].all(x, x > 0)", False),  # a constant list: iterable, known when the source is generated
    ("device.attributes['d.io'].l.all(x, x > 0)", True),  # known only when it runs
])
def test_only_a_target_not_known_to_be_iterable_is_checked_when_it_runs(expression: str, checked: bool) -> None:
    source = celext.compile(expression).source
    assert source is not None
    assert ("rt_iterable(" in source) is checked, source
