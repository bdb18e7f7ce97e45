"""The mutation run's pure helpers: the per-mutant test budget, the kill log, a sampled score's confidence interval
and the children's frozen-object count."""

from __future__ import annotations

import gc

import pytest

from tests.mutation.frozen import FrozenCount, install
from tests.mutation.scoring import budgeted, function_of, module_of, reach_by_test, read_kills, wilson

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


KILL_LOG = [
    "celext.plan.emit.xǁEmitterǁ_call__mutmut_1\ttests/b.py::killer_of_call\n",
    "celext.plan.emit.xǁEmitterǁ_call__mutmut_2\ttests/b.py::killer_of_call\n",
    "celext.plan.emit.xǁEmitterǁ_unary__mutmut_4\ttests/c.py::killer_of_unary\n",
    "celext.plan.emit.xǁEmitterǁ_unary__mutmut_5\ttests/d.py::other_killer_of_unary\n",
    "celext.plan.emit.xǁEmitterǁ_unary__mutmut_6\ttests/d.py::other_killer_of_unary\n",
    "celext.plan.core.x_chain__mutmut_1\ttests/e.py::killer_in_another_module\n",
    "celext.plan.emit.x_broken_line__mutmut_1\n",
]


def test_the_kill_log_is_read_for_the_mutants_module_only() -> None:
    killers = read_kills(KILL_LOG, "celext.plan.emit")
    assert killers.by_function == {
        "celext.plan.emit.xǁEmitterǁ_call": {"tests/b.py::killer_of_call": 2},
        "celext.plan.emit.xǁEmitterǁ_unary": {"tests/c.py::killer_of_unary": 1, "tests/d.py::other_killer_of_unary": 2},
    }
    assert killers.by_module == {"celext.plan.emit": {"tests/b.py::killer_of_call": 2, "tests/c.py::killer_of_unary": 1,
                                                      "tests/d.py::other_killer_of_unary": 2}}
    assert read_kills(KILL_LOG, "celext.plan").by_function == {}


def test_names_of_module_and_function() -> None:
    assert module_of("celext.plan.emit.xǁEmitterǁ_call__mutmut_3") == "celext.plan.emit"
    assert module_of("celext.plan.x_plan__mutmut_27") == "celext.plan"
    assert function_of("celext.plan.x_plan__mutmut_27") == "celext.plan.x_plan"


def test_killers_of_a_sibling_then_of_the_module_run_before_the_modules_own_tests() -> None:
    killers = read_kills(KILL_LOG, "celext.plan.emit")
    tests = ["tests/celext/test_emit.py::own", "tests/b.py::killer_of_call", "tests/c.py::killer_of_unary",
             "tests/d.py::other_killer_of_unary", "tests/e.py::killer_in_another_module", "tests/a.py::fast"]
    durations = dict.fromkeys(tests, 0.5) | {"tests/a.py::fast": 0.001}
    mutant = "celext.plan.emit.xǁEmitterǁ_unary__mutmut_9"
    ordered = ["tests/d.py::other_killer_of_unary", "tests/c.py::killer_of_unary", "tests/b.py::killer_of_call",
               "tests/celext/test_emit.py::own", "tests/a.py::fast", "tests/e.py::killer_in_another_module"]
    assert budgeted(tests, durations, 0, mutant, killers=killers) == (ordered, False)
    assert budgeted(tests, durations, 1.0, mutant, killers=killers) == (ordered[:2], True)
    assert budgeted(tests, durations, 0, mutant) == ([*ordered[3:5], *sorted(ordered[:3]), ordered[5]], False)


def test_tests_that_reach_few_functions_run_before_broad_sweeps_of_the_same_group() -> None:
    tests = ["sweep", "table", "unit", "unmapped"]
    durations = {"sweep": 0.001, "table": 0.02, "unit": 0.5, "unmapped": 0.3}
    reach = {"sweep": 40, "table": 4, "unit": 1}  # bit lengths 6, 3, 1; an unmapped test counts as reaching none
    assert budgeted(tests, durations, 0, "celext.plan.x_plan__mutmut_1", reach=reach) == (
        ["unmapped", "unit", "table", "sweep"], False)
    assert budgeted(tests, durations, 0, "celext.plan.x_plan__mutmut_1", reach={"table": 5, "unit": 7}) == (
        ["sweep", "unmapped", "table", "unit"], False)  # 5 and 7 share a bit length: the faster first


def test_reach_counts_each_tests_functions_once() -> None:
    assert reach_by_test({"m.x_f": ["t1", "t2", "t1"], "m.x_g": {"t1"}, "m.x_h": set()}) == {"t1": 2, "t2": 1}


class FakeGc:
    """The three freeze functions of `gc`, counting how often the count is walked."""

    def __init__(self) -> None:
        self.frozen, self.walks = 0, 0

    def count(self) -> int:
        self.walks += 1
        return self.frozen

    def freeze(self) -> None:
        self.frozen += 1000

    def unfreeze(self) -> None:
        self.frozen = 0


def test_the_frozen_count_is_walked_once_then_kept() -> None:
    fake = FakeGc()
    fake.freeze()
    kept = FrozenCount(fake.count, fake.freeze, fake.unfreeze)
    assert (kept.get_freeze_count(), kept.get_freeze_count(), fake.walks) == (1000, 1000, 1)


def test_a_freeze_makes_the_next_count_walk_again_and_an_unfreeze_makes_it_zero() -> None:
    fake = FakeGc()
    kept = FrozenCount(fake.count, fake.freeze, fake.unfreeze)
    assert kept.get_freeze_count() == 0
    kept.freeze()
    assert (kept.get_freeze_count(), fake.walks) == (1000, 2)
    kept.freeze()
    assert (kept.get_freeze_count(), fake.walks) == (2000, 3)
    kept.unfreeze()
    assert (kept.get_freeze_count(), fake.frozen, fake.walks) == (0, 0, 3)  # no walk: nothing is frozen


def test_install_routes_the_gc_modules_freeze_functions(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("get_freeze_count", "freeze", "unfreeze"):
        monkeypatch.setattr(gc, name, getattr(gc, name))  # restored after the test
    before = gc.get_freeze_count()
    kept = install()
    assert (gc.get_freeze_count, gc.freeze, gc.unfreeze) == (kept.get_freeze_count, kept.freeze, kept.unfreeze)
    assert gc.get_freeze_count() == before
