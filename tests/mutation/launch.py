"""mutmut's command line with a cheaper test run per mutant (tests/mutation/run.py starts mutmut through this).

    python tests/mutation/launch.py run [--max-children N] [NAMES...]     (in build/mutation/<package>/)

Profiled on the rules package, a mutant's forked child spent about 80 % of its CPU in `pytest.main()` itself
before any test ran: option parsing and plugin registration (about 30 %) and collecting every file its tests
live in, parametrizations included (about 50 %). Here the fork server sets up one pytest session and collects
the package's tests once, keeping the session open; each mutant's child (forked from it, so its own copy)
runs just the already-collected items of its tests, likely killers first, stopping at the first failure.

The order (scoring.budgeted): tests that killed a sibling mutant of the same function, then of the same module
(the kill log, `KILL_LOG`, which every child appends its killing test to and the next child reads: mutmut tests a
function's mutants one after another), then the module's own test file, the package's `first` files, then the
fastest. `DRAGUARD_MUTATION_ORDER=plain` keeps the earlier order (no kill log), `=reach` also puts tests that
reach few of the package's functions before broad sweeps (measured to lose kills, so off by default).

A test time budget bounds what a surviving mutant costs: a survivor runs every test that reaches its function,
and for a function reached only by the corpus sweeps that is ten seconds. With `DRAGUARD_MUTATION_BUDGET=S`
(run.py sets it; 0 means no budget) a mutant runs its fastest tests up to S seconds of their measured duration
(always at least one); when those pass and slower ones were left out, the child exits with `CUT_SHORT`, which
run.py reports as "survived its fast tests", not as a kill.

mutmut's own runner is used unchanged for its statistics run, its clean run and whenever a mutant names a
test the warm session did not collect.
"""

from __future__ import annotations

import contextlib
import gc
import os
import resource
import sys
from collections.abc import Iterable
from typing import Any

import pytest
from _pytest.config import _prepareconfig  # what pytest.main() uses to build its Config
from frozen import install as keep_frozen_count  # its folder is on the path
from mutmut.configuration import ForkServerWarmup, config
from mutmut.runners.harness import PytestRunner
from mutmut.state import state
from mutmut.utils.file_utils import change_cwd
from scoring import Killers, budgeted, module_of, reach_by_test, read_kills

BUDGET = "DRAGUARD_MUTATION_BUDGET"
FIRST = "DRAGUARD_MUTATION_FIRST"  # comma-separated test files run right after the mutated module's own
CUT_SHORT = 40  # exit code: the mutant's tests within the budget passed, slower ones were not run
CPU_LOG = "mutant-cpu.tsv"  # in build/mutation/<package>/: each mutant's CPU seconds in its child, and its exit
KILL_LOG = "mutant-kills.tsv"  # in build/mutation/<package>/: each killed mutant and the test that failed first
PROFILE = "DRAGUARD_MUTATION_PROFILE"  # a folder: each child writes its cProfile there (<mutant>.prof), for measuring
FROZEN = "DRAGUARD_MUTATION_FROZEN"  # "walk": CPython's own gc.get_freeze_count() (the walk), for measuring
ORDER = "DRAGUARD_MUTATION_ORDER"  # "plain": no kill log; "reach": add the reach grouping (for measuring)
FRESH = "tests.mutation.fresh"  # the pytest plugin (loaded with -p) that empties celext's and draguard's caches


class WarmSessionRunner(PytestRunner):
    """mutmut's pytest runner whose fork-server warm-up leaves one collected session open for the children."""

    def __init__(self) -> None:
        super().__init__()
        self._session: pytest.Session | None = None
        self._items: dict[str, pytest.Item] = {}
        self._failed: list[str] = []  # the child's failing tests (each child has its own copy)
        self._reach: dict[str, int] = {}

    def warm_up(self) -> None:
        if config().forkserver_warmup != ForkServerWarmup.COLLECT:
            super().warm_up()
            return
        # `-s`: no file-descriptor capture held open in the fork server; each child sends its own output to
        # /dev/null. `-x`: the session stops at the first failing test.
        args = ["--rootdir=.", "--tb=no", "-x", "-s", *self._pytest_add_cli_args_test_selection,
                *self._pytest_add_cli_args]
        with change_cwd("mutants"):
            pytest_config = _prepareconfig(args)
            pytest_config._do_configure()
            session = pytest.Session.from_config(pytest_config)
            pytest_config.hook.pytest_sessionstart(session=session)
            pytest_config.hook.pytest_collection(session=session)
        if session.testsfailed:  # a collection error: leave it to mutmut's own runner to report
            return
        pytest_config.pluginmanager.register(self, "draguard-mutation-kills")
        self._reach = reach_by_test(state().tests_by_mangled_function_name)
        self._session = session
        self._items = {item.nodeid: item for item in session.items}
        gc.freeze()  # the children's garbage collections skip what the warm-up built (see fresh.py)
        if os.environ.get(FROZEN) != "walk":
            keep_frozen_count()  # and counting it no longer walks it (frozen.py)

    def run_tests(self, *, mutant_name: str | None, tests: Iterable[str]) -> int:
        folder = os.environ.get(PROFILE)
        if not folder or mutant_name is None:
            return self._run_tests(mutant_name=mutant_name, tests=tests)
        import cProfile

        profile = cProfile.Profile()
        try:
            return int(profile.runcall(self._run_tests, mutant_name=mutant_name, tests=tests))
        finally:
            os.makedirs(folder, exist_ok=True)
            profile.dump_stats(os.path.join(folder, f"{mutant_name}.prof"))

    def _run_tests(self, *, mutant_name: str | None, tests: Iterable[str]) -> int:
        names = list(tests)
        session = self._session
        if session is None or mutant_name is None or not names or any(n not in self._items for n in names):
            return super().run_tests(mutant_name=mutant_name, tests=names)
        budget = float(os.environ.get(BUDGET, "0") or 0)
        first = tuple(filter(None, os.environ.get(FIRST, "").split(",")))
        plain = os.environ.get(ORDER) == "plain"
        killers = None if plain else kills_for(mutant_name)
        reach = self._reach if os.environ.get(ORDER) == "reach" else None  # measured to cost kills: off by default
        chosen, cut = budgeted(names, state().duration_by_test, budget, mutant_name, first,
                               killers=killers, reach=reach)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        fresh: Any = sys.modules.get(FRESH)
        if fresh is not None:
            fresh.clear_caches()
        session.items = [self._items[name] for name in chosen]
        # Failed/Interrupted: -x stopped the session at the first failing test.
        with change_cwd("mutants"), contextlib.suppress(session.Failed, session.Interrupted):
            session.config.hook.pytest_runtestloop(session=session)
        code = 1 if session.testsfailed else CUT_SHORT if cut else 0
        record(mutant_name, code)
        if self._failed:
            with open(KILL_LOG, "a", encoding="utf-8") as log:  # one short line: appended whole, so children can share
                log.write(f"{mutant_name}\t{self._failed[0]}\n")
        return code

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """A pytest hook (the runner is registered as a plugin in the warm session): note the failing test."""
        if report.failed:
            self._failed.append(report.nodeid)


def kills_for(mutant_name: str) -> Killers:
    """What the kill log says about the tests that killed the mutant's siblings (the log's other modules skipped)."""
    try:
        with open(KILL_LOG, encoding="utf-8") as log:
            return read_kills(log, module_of(mutant_name))
    except FileNotFoundError:
        return Killers()


def record(mutant_name: str, code: int) -> None:
    """Append the child's own CPU time (a forked process starts its count at zero) to `CPU_LOG`."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    with open(CPU_LOG, "a", encoding="utf-8") as log:
        log.write(f"{mutant_name}\t{usage.ru_utime + usage.ru_stime:.4f}\t{code}\t{usage.ru_utime:.4f}"
                  f"\t{usage.ru_stime:.4f}\t{usage.ru_minflt}\n")


def main() -> None:
    from mutmut.workers import isolation

    isolation.PytestRunner = WarmSessionRunner  # type: ignore[misc]  # get_mutant_runner() builds the fork server's
    from mutmut.__main__ import cli

    cli()


if __name__ == "__main__":
    main()
