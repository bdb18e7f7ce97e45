"""pytest plugin for mutation runs only (tests/mutation/run.py adds `-p tests.mutation.fresh`).

mutmut tests each mutant in a process forked from one that has already imported (and, for the statistics
run, executed) the tests. Whatever draguard and celext cached there (compiled selectors and their answers
per device, parsed trees, regexes, decoded values) would answer for the mutant without running its code, and
the mutant would "survive". Each mutant's test session therefore starts with every such cache emptied.

It also freezes the fork server's heap after its warm-up collection (see `pytest_sessionfinish`), and runs
a mutant's tests fastest first (see `pytest_collection_modifyitems`).
"""

from __future__ import annotations

import functools
import gc
import os
import sys

import pytest


def pytest_sessionstart(session: pytest.Session) -> None:
    clear_caches()


def clear_caches() -> None:
    """Empty celext's caches and every lru_cache of draguard's modules (also called by launch.py per mutant)."""
    import celext

    celext.clear_caches()
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] not in ("webhook", "certs"):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, functools._lru_cache_wrapper):
                value.cache_clear()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # mutmut's fork server hands a mutant's tests over as an unordered set, and pytest runs them in the order
    # given, stopping (-x) at the first failure: a minute-long corpus test could run before the 2 ms test that
    # kills the mutant. Order them by the durations mutmut measured in its statistics run, fastest first.
    if os.environ.get("MUTANT_UNDER_TEST", "") in ("", "stats", "fail"):
        return
    from mutmut.state import state

    durations = state().duration_by_test
    items.sort(key=lambda item: durations.get(item.nodeid, float("inf")))


def pytest_sessionfinish(session: pytest.Session) -> None:
    # The fork server's warm-up is a collect-only session. Freezing what it built (imported modules, collected
    # tests) keeps each forked mutant's garbage collections, which pytest forces twice per session, to the
    # objects that mutant's own tests make: about 1 s less per mutant on this code base.
    if session.config.option.collectonly:
        gc.freeze()
