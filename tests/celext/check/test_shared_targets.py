"""Macros whose expansion holds their target twice (`sortBy`: sorted and mapped; `optMap`/`optFlatMap`: tested
and read) are checked and estimated once per target: a chain of them was walked 2 ** length times (a 12-long
`sortBy` chain took 0.77 s to refuse). The checker's and the estimator's visits of list literals are counted on
chains of 9 and 18; answers and cost estimates are the ones the walks always gave (the estimates below are
those of the exponential walks, unchanged)."""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator

import pytest

import celext
from celext.check import checker
from celext.compile import prepare
from celext.cost import estimator
from celext.errors import CostLimitError


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """How often the checker and the estimator visit a list literal (each chain below has one, at its start)."""
    seen: Counter[str] = Counter()
    check_list, cost_list = checker._Checker.check_list, estimator._Coster.cost_list

    def checked(self: checker._Checker, node: object) -> None:
        seen["check"] += 1
        check_list(self, node)

    def costed(self: estimator._Coster, node: object) -> object:
        seen["cost"] += 1
        return cost_list(self, node)

    monkeypatch.setitem(checker._WALKS, checker.CreateList, checked)
    monkeypatch.setitem(estimator._WALKS, estimator.CreateList, costed)
    yield seen


@pytest.mark.parametrize(("start", "link", "end"), [
    ("[3, 1, 2]", ".sortBy(x, x)", ".size() > 0"),
    ("optional.of([1])", ".optMap(x, x)", ".hasValue()"),
    ("optional.of([1])", ".optFlatMap(x, optional.of(x))", ".hasValue()"),
])
def test_a_chain_is_walked_in_time_linear_in_its_length(walks: Counter[str], start: str, link: str,
                                                       end: str) -> None:
    counts = []
    for length in (9, 18):
        walks.clear()
        with contextlib.suppress(CostLimitError):  # long sortBy chains are refused by cost, as in Kubernetes
            prepare(start + link * length + end)
        counts.append((walks["check"], walks["cost"]))
    (check_9, cost_9), (check_18, cost_18) = counts
    assert 0 < check_18 <= 2 * check_9 + 2 and 0 < cost_18 <= 2 * cost_9 + 2, counts


@pytest.mark.parametrize(("text", "expected"), [
    ("[3, 1, 2].sortBy(x, -x).sortBy(x, x) == [1, 2, 3]", True),
    ("[3, 1, 2].sortBy(x, x).sortBy(x, -x) == [3, 2, 1]", True),
    ("optional.of(2).optMap(x, x + 1).optMap(y, y * 10).value() == 30", True),
    ("optional.none().optMap(x, x + 1).optMap(y, y * 10).hasValue()", False),
])
def test_chains_keep_their_answers(text: str, expected: bool) -> None:
    for engine in ("compiled", "reference"):
        assert celext.compile(text, engine=engine).evaluate({}, "d") is expected


def test_a_chain_keeps_its_estimate() -> None:
    """sortBy: cel-go binds the target once (ext/lists.go), costed as such; optMap copies it (both costed)."""
    assert prepare("[3, 1, 2].sortBy(x, x).sortBy(x, x).size() > 0").cost == (416, 416)
    assert prepare("optional.of(1).optMap(x, x).optMap(x, x).hasValue()").cost == (6, 47)
    assert prepare("optional.of([1]).optFlatMap(x, optional.of(x)).optFlatMap(x, optional.of(x)).hasValue()"
                   ).cost == (16, 87)
