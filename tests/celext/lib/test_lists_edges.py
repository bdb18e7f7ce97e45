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


# Go's sort.Slice (pattern-defeating quicksort), as cel-go's sort() and sortBy() run it: stable only up to 12
# elements, and a NaN (which Compare cannot order: `less` is false) stays where the algorithm's steps leave it.
# Each expected order is what a Go program calling sort.Slice with that `less` printed.
@pytest.mark.parametrize(("expression", "expected"), [
    ('[3.0, 1.0, 0.0/0.0, 2.0].sort().map(x, string(x)) == ["1", "3", "NaN", "2"]', True),
    ('[2.0, 0.0/0.0, 1.0].sort().map(x, string(x)) == ["2", "NaN", "1"]', True),
    ('[0.0/0.0, 3.0, 2.0, 1.0].sort().map(x, string(x)) == ["NaN", "1", "2", "3"]', True),
    ('[5.0, 4.0, 0.0/0.0, 3.0, 2.0, 1.0, 0.0/0.0, 0.0].sort().map(x, string(x)) '
     '== ["4", "5", "NaN", "1", "2", "3", "NaN", "0"]', True),
    ('[1.0, 2.0].sortBy(x, x == 1.0 ? 0.0/0.0 : x) == [1.0, 2.0] '
     '&& [2.0, 1.0].sortBy(x, x == 1.0 ? 0.0/0.0 : x) == [2.0, 1.0]', True),
    # 12 elements: insertion sort, stable; 13: no longer
    ('lists.range(12).sortBy(x, x % 3) == [0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11]', True),
    ('lists.range(13).sortBy(x, x % 3) == [6, 3, 0, 9, 12, 1, 4, 7, 10, 2, 5, 8, 11]', True),
    ('lists.range(20).sortBy(x, x % 2) == [10, 18, 2, 16, 4, 0, 6, 14, 8, 12, 5, 11, 9, 13, 7, 15, 3, 17, 1, 19]',
     True),
    ('lists.range(13).sortBy(x, 0) == lists.range(13)', True),  # already in order: left as it is
    ('lists.range(20).sortBy(x, -x) == lists.range(20).reverse()', True),  # distinct keys: one answer
    # equal doubles that print differently: -0.0 (index 0) ends up third of the zeros, as in Go
    ('[-0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0].sort().map(x, string(x))'
     '.slice(0, 5) == ["0", "0", "-0", "0", "0"]', True),
])
@pytest.mark.parametrize("engine", ENGINES)
def test_sort_as_go_sorts(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression) == expected
