"""Kubernetes lists library and cel-go lists extension at their edges: equal neighbours, one element, mixed
numeric types, indexes at -1, at the length and past it."""

from __future__ import annotations

import pytest

from tests.celext.lib.engines import ENGINES, outcome_on


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("[1, 1, 2].isSorted() && [1].isSorted()", True),  # equal neighbours are in order
        ("[1, 2, 1].isSorted()", False),
        ("[dyn(1), dyn(2.5), dyn(3u)].isSorted() && ![dyn(3u), dyn(2.5)].isSorted()", True),
        ("[dyn(1), dyn(2.0)].sum() == 3", "eval: no such overload"),  # no int + double
        ('[1u, 2u].sum() == 3u && [duration("1s"), duration("2s")].sum() == duration("3s") && [1].sum() == 1', True),
        ("[2, 1, 2].min() == 1 && [1, 3, 3].max() == 3 && [5].min() == 5 && [5].max() == 5", True),
        ("[2, 3, 1].min() == 1 && [1, 3, 2].max() == 3 && [dyn(1.5), dyn(1)].min() == 1", True),
        ("[dyn(1), dyn({})].min() == 1", "eval: no such overload"),  # an element that is no Comparer
        ("[dyn(1), dyn([1])].max() == 1", "eval: no such overload"),
        ("[1, 2, 1].indexOf(1) == 0 && [1, 2, 1].lastIndexOf(2) == 1 && [1, 2].lastIndexOf(1) == 0", True),
        ("[1, 2].lastIndexOf(3) == -1 && [].lastIndexOf(1) == -1", True),
        ("[1, 2].slice(1, 1) == [] && [1, 2].slice(0, 2) == [1, 2] && [1, 2].slice(2, 2) == []", True),
        ("[1, 2].slice(-1, 1) == []", "eval: cannot slice(-1, 1), negative indexes not supported"),
        ("[1, 2].slice(0, -1) == []", "eval: cannot slice(0, -1), negative indexes not supported"),
        ("[[1]].flatten(-1) == []", "eval: level must be non-negative"),
        ("[dyn([dyn(1), dyn([2])])].flatten(0) == [dyn([dyn(1), dyn([2])])] && [[[1]]].flatten(1) == [[1]]", True),
        ("[dyn(1), dyn([2])].flatten() == [1, 2]", True),
        ("[1, 2, 1].distinct() == [1, 2] && [dyn(1), dyn(1u)].distinct() == [1]", True),
        ("[dyn(1), dyn(2.0), dyn(3u)].distinct() == [dyn(1), dyn(2.0), dyn(3u)]", True),
        ("[2, 2, 1].sort() == [1, 2, 2] && [].sort() == [] && [dyn(1.0), dyn(2.0)].sort() == [1.0, 2.0]", True),
        # cel-go's sortListByAssociatedKeys: the first element must have an order, before any type is compared
        ("[dyn({}), dyn({})].sort() == []", "eval: list elements must be comparable"),
        ("[dyn([1]), dyn(1)].sort() == []", "eval: list elements must be comparable"),
        ("[dyn(1), dyn([1])].sort() == []", "eval: list elements must have the same type"),
        ("lists.range(-1) == [] && lists.range(1) == [0]", True),
        # cel-go's estimate: 1000001 + 11 (ext/lists.go estimateListsRange), over the limit before any run
        ("lists.range(1000001).size() == 0", "compile: too complex, exceeds cost limit"),
        ("[1, 2].reverse() == [2, 1] && [].reverse() == []", True),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_lists_edges(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression) == expected
