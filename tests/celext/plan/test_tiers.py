"""The default plan is tiered: a selector runs in the compact form until its HOT_CALLS-th evaluation, then its
generated source is compiled and runs from there on (celext.plan). The answers never change across the switch;
a tree over COMPACT_NODES stays compact; `compact=` forces either form from the start."""

from __future__ import annotations

import gc
import logging
import threading
import weakref
from collections.abc import Iterator
from typing import Any

import pytest

import celext
import celext.plan
from celext.compile import prepare
from celext.plan import COMPACT_HEADER, Plan, larger_than, plan

NUMA = 'device.attributes["dra.net"].numaNode == 4'
DEVICES: list[tuple[dict[str, Any], str]] = [
    ({"name": "a", "attributes": {"dra.net/numaNode": {"int": 4}}}, "dra.net"),
    ({"name": "b", "attributes": {"dra.net/numaNode": {"int": 5}}}, "dra.net"),
    ({"name": "c", "attributes": {"numaNode": {"int": 4}}}, "dra.net"),  # the driver's own domain, bare
    ({"name": "d", "attributes": {"dra.net/numaNode": {"ints": [4, 5]}}}, "dra.net"),  # a list: no `==` overload
    ({"name": "e", "attributes": {}}, "dra.net"),  # absent: no such key
    ({"name": "f", "basic": {"attributes": {"dra.net/numaNode": {"int": 4}}}}, "dra.net"),  # v1beta1
]
SELECTORS = [
    NUMA,
    'device.attributes["dra.net"].numaNode.includes(4)',
    'device.attributes["dra.net"].numaNode.includes(4) || device.attributes["dra.net"].numaNode == 5',
    '[1, 2, 3].exists(n, n == device.attributes["dra.net"].numaNode)',
    'device.driver == "dra.net" && !has(device.attributes["dra.net"].numaNode)',
]


@pytest.fixture
def hot_after(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """The default (tiered) plan, promoting on the 5th evaluation."""
    monkeypatch.setattr(celext.plan, "HOT_CALLS", 5)
    celext.clear_caches()
    yield 5
    celext.clear_caches()


def _run(planned: Plan, device: dict[str, Any], driver: str) -> Any:
    result = planned.function(device, driver, 1_000_000)
    return str(result) if isinstance(result, Exception) else result


def _generated(planned: Plan) -> bool:
    """Does the plan's function run compiled source (not a closure of celext.plan)?"""
    return planned.function.__code__.co_filename.startswith("<celext selector")


@pytest.mark.parametrize(("calls", "promoted"), [(3, False), (4, False), (5, True), (6, True)])
def test_a_selector_is_promoted_on_its_hot_calls_th_evaluation(hot_after: int, calls: int, promoted: bool) -> None:
    planned = plan(prepare(NUMA))
    assert planned.compact and not _generated(planned)
    for _ in range(calls):
        _run(planned, *DEVICES[0])
    assert planned.compact is not promoted
    assert _generated(planned) is promoted


@pytest.mark.parametrize("expression", SELECTORS)
def test_the_answers_do_not_change_across_the_promotion(hot_after: int, expression: str) -> None:
    planned = plan(prepare(expression))
    eager = plan(prepare(expression), compact=False)
    before = [_run(planned, d, driver) for d, driver in DEVICES]  # 6 evaluations: promoted on the 5th
    assert not planned.compact
    after = [_run(planned, d, driver) for d, driver in DEVICES]
    assert before == after == [_run(eager, d, driver) for d, driver in DEVICES]


def test_selector_answers_across_the_promotion(hot_after: int) -> None:
    selector = celext.compile(NUMA)
    first = [selector.evaluate(d, driver) if "ints" not in str(d) else None for d, driver in DEVICES[:3]]
    for _ in range(hot_after):
        selector.evaluate(*DEVICES[0])
    assert selector.source is not None and selector.source.startswith("def evaluate(device, driver, limit):")
    assert [selector.evaluate(d, driver) if "ints" not in str(d) else None for d, driver in DEVICES[:3]] == first
    assert first == [True, False, True]
    with pytest.raises(celext.EvaluationError, match="no such key"):
        selector.evaluate(*DEVICES[4])


def test_the_source_before_the_promotion_is_the_python_run_after_it(hot_after: int) -> None:
    planned = plan(prepare(NUMA))
    before = planned.source
    assert not before.startswith(COMPACT_HEADER) and before.startswith("def evaluate(device, driver, limit):")
    assert planned.compact  # reading the source does not compile it
    for _ in range(hot_after):
        _run(planned, *DEVICES[0])
    assert planned.source == before == plan(prepare(NUMA), compact=False).source


def test_a_tree_over_compact_nodes_stays_compact(hot_after: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(celext.plan, "COMPACT_NODES", 3)
    planned = plan(prepare(NUMA))
    for _ in range(hot_after * 3):
        _run(planned, *DEVICES[0])
    assert planned.compact and not _generated(planned)
    assert planned.source.startswith(COMPACT_HEADER)


def test_the_compact_nodes_boundary_decides_whether_a_plan_is_tiered(hot_after: int,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    prepared = prepare(NUMA)
    size = next(n for n in range(1, 100) if not larger_than(prepared.tree, n))  # the tree's node count
    for limit, promoted in ((size - 1, False), (size, True), (size + 1, True)):
        monkeypatch.setattr(celext.plan, "COMPACT_NODES", limit)
        planned = plan(prepared)
        for _ in range(hot_after):
            _run(planned, *DEVICES[0])
        assert _generated(planned) is promoted, limit
        assert planned.source.startswith(COMPACT_HEADER) is not promoted, limit


@pytest.mark.parametrize("compact", [False, True])
def test_compact_forces_one_form_from_the_start(hot_after: int, compact: bool) -> None:
    planned = plan(prepare(NUMA), compact=compact)
    assert planned.compact is compact
    for _ in range(hot_after * 2):
        _run(planned, *DEVICES[0])
    assert planned.compact is compact and _generated(planned) is not compact


def test_hot_calls_zero_generates_when_planned() -> None:
    planned = plan(prepare(NUMA))  # HOT_CALLS is 0 in tests (tests/conftest.py)
    assert not planned.compact and _generated(planned)


def test_the_tiered_plan_reports_only_the_plan_lap(hot_after: int) -> None:
    laps: dict[str, float] = {}
    plan(prepare(NUMA), laps)
    assert sorted(laps) == ["plan"]


def test_a_failed_promotion_keeps_the_compact_form_and_logs_it(
        hot_after: int, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    calls = []

    def broken(prepared: Any, laps: Any) -> Any:
        calls.append(prepared.expression)
        raise RuntimeError("planted")

    monkeypatch.setattr(celext.plan, "_generated", broken)
    planned = plan(prepare(NUMA))
    with caplog.at_level(logging.ERROR, logger="celext.plan"):
        answers = [_run(planned, *DEVICES[i % 2]) for i in range(hot_after * 3)]
    assert answers == [i % 2 == 0 for i in range(hot_after * 3)]
    assert calls == [NUMA]  # tried once, not on every later evaluation
    assert planned.compact and not _generated(planned) and planned.source.startswith(COMPACT_HEADER)
    assert "could not compile the generated form" in caplog.text and "planted" in caplog.text


def test_an_unpromoted_plan_is_freed_without_the_cycle_collector(hot_after: int) -> None:
    gc.disable()
    try:
        planned = plan(prepare(NUMA))
        _run(planned, *DEVICES[0])
        gone = weakref.ref(planned)
        del planned
        assert gone() is None
    finally:
        gc.enable()


def test_threads_promoting_together_agree(hot_after: int) -> None:
    planned = plan(prepare(SELECTORS[2]))
    expected = [_run(plan(prepare(SELECTORS[2]), compact=False), d, driver) for d, driver in DEVICES]
    seen: list[list[Any]] = []
    start = threading.Barrier(4)

    def work() -> None:
        start.wait()
        seen.append([_run(planned, d, driver) for _ in range(hot_after) for d, driver in DEVICES])

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 4 and all(answers == expected * hot_after for answers in seen)
    assert not planned.compact
