"""The mutation run's pure helpers: the per-mutant test budget and a sampled score's confidence interval."""

from __future__ import annotations

import pytest

from tests.mutation.scoring import budgeted, wilson

DURATIONS = {"slow": 5.0, "fast": 0.1, "mid": 0.5, "mid2": 0.5}


def test_fastest_first_without_a_budget() -> None:
    assert budgeted(["slow", "mid", "fast", "unmeasured"], DURATIONS, 0) == (
        ["fast", "mid", "slow", "unmeasured"], False)


@pytest.mark.parametrize(("budget", "kept"), [
    (0.59, ["fast"]),  # limit - 0.01: the second test would pass it
    (0.6, ["fast", "mid"]),  # exactly at the budget: kept
    (0.61, ["fast", "mid"]),
    (1.1, ["fast", "mid", "mid2"]),
])
def test_tests_are_kept_while_their_durations_fit_the_budget(budget: float, kept: list[str]) -> None:
    assert budgeted(["mid2", "slow", "mid", "fast"], DURATIONS, budget) == (kept, True)


def test_the_fastest_test_runs_even_past_the_budget() -> None:
    assert budgeted(["slow", "slow"], DURATIONS, 1.0) == (["slow"], True)
    assert budgeted(["slow"], DURATIONS, 1.0) == (["slow"], False)


def test_the_mutated_modules_own_tests_come_first() -> None:
    tests = ["tests/a/test_other.py::t", "tests/lib/test_operators_edges.py::slow", "tests/lib/test_operators.py::t"]
    durations = {tests[0]: 0.01, tests[1]: 0.9, tests[2]: 0.2}
    assert budgeted(tests, durations, 1.105, "celext.lib.operators") == ([tests[2], tests[1]], True)
    assert budgeted(tests, durations, 0, "") == ([tests[0], tests[2], tests[1]], False)


def test_everything_within_the_budget_is_not_cut() -> None:
    assert budgeted(["fast", "mid"], DURATIONS, 0.6) == (["fast", "mid"], False)


@pytest.mark.parametrize(("killed", "counted", "interval"), [
    (90, 100, (0.8256, 0.9448)),
    (10, 10, (0.7225, 1.0)),
    (0, 10, (0.0, 0.2775)),
    (0, 0, (0.0, 1.0)),
])
def test_wilson_interval(killed: int, counted: int, interval: tuple[float, float]) -> None:
    assert wilson(killed, counted) == pytest.approx(interval, abs=1e-4)


def test_a_packages_first_files_run_after_the_modules_own_and_before_the_rest() -> None:
    tests = ["tests/x/test_conformance.py::a", "tests/celext/test_tables.py::b", "tests/celext/test_plan.py::c"]
    durations = {tests[0]: 0.002, tests[1]: 0.02, tests[2]: 0.5}
    first = ("tests/celext/test_tables.py",)
    assert budgeted(tests, durations, 0, "celext.plan", first) == ([tests[2], tests[1], tests[0]], False)
    assert budgeted(tests, durations, 0.51, "celext.plan", first) == ([tests[2]], True)
    assert budgeted(tests, durations, 0.52, "celext.plan", first) == ([tests[2], tests[1]], True)
    assert budgeted(tests, durations, 0.01, "celext.other", first) == ([tests[1]], True)
    assert budgeted(tests, durations, 0, "celext.other") == ([tests[0], tests[1], tests[2]], False)
