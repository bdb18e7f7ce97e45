"""An interruption (the webhook budget's exception, raised from a signal handler at any bytecode) never leaves
process-wide state changed: the recursion limit, the garbage collector, compile's pause count.

The sweep raises the interruption at every N-th point where CPython takes a pending signal (entering a function,
returning from a C call: `sys.setrecursionlimit` and `gc.disable` included) while compiling expressions that take
each path: a plain one, and two deep enough for headroom's thread and the emitter's raised limit.
Without celext.shield the sweep found the limit left at 200,000 (a worker then segfaulted on a deeply nested JSON
body) and the collector left off."""

from __future__ import annotations

import contextlib
import gc
import importlib
import inspect
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

import pytest

import celext
from celext.errors import CELError
from celext.shield import Shield, interrupt
from celext.syntax import headroom

gcpause = importlib.import_module("celext.gcpause")
GENERATOR = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


class Stop(BaseException):
    """What the budget raises: a BaseException, so no `except Exception` in celext stops it."""


def test_an_interruption_outside_a_shield_is_raised_at_once() -> None:
    with pytest.raises(Stop):
        interrupt(Stop())


def test_inside_a_shield_it_is_held_until_the_shield_ends() -> None:
    steps = []
    with pytest.raises(Stop), Shield() as shield:
        interrupt(Stop())
        steps.append(shield.interrupted)
        interrupt(Stop())  # a second one is dropped: the first is raised
        steps.append("finished")
    assert steps == [True, "finished"]
    assert not Shield().interrupted


def test_an_open_window_raises_at_once_and_the_cleanup_after_it_is_shielded() -> None:
    steps = []
    with pytest.raises(Stop), Shield() as shield:
        try:
            with shield.open():
                steps.append("work")
                interrupt(Stop())
                steps.append("not reached")
        finally:
            interrupt(Stop())  # held: the cleanup is not cut short
            steps.append("cleanup")
    assert steps == ["work", "cleanup"]


def test_a_window_entered_with_an_interruption_held_raises_it_before_the_work() -> None:
    steps = []
    with pytest.raises(Stop), Shield() as shield:
        interrupt(Stop())
        with shield.open():
            steps.append("not reached")
    assert steps == []


def test_nested_shields_hold_until_the_outermost_ends() -> None:
    steps = []
    with pytest.raises(Stop), Shield():
        with Shield():
            interrupt(Stop())
        steps.append("after the inner shield")
    assert steps == ["after the inner shield"]


def _state() -> tuple[int, bool, dict[str, int]]:
    return sys.getrecursionlimit(), gc.isenabled(), dict(gcpause._GC_STATE)


EXPRESSIONS = [
    'device.attributes["dra.net"].numaNode.includes(1) && device.driver == "dra.net"',
    "(" * 150 + "1 + 2 == 3" + ")" * 150,  # deep: headroom's thread, the emitter under plan's raised limit
    "(" * 200 + "[1].all(x, x > 0)" + ")" * 200,  # the same with a macro
]


def _calls(expression: str) -> int:
    count = [0]

    def counting(frame: FrameType, event: str, _arg: Any) -> None:
        if event == "c_return" or (event == "call" and not frame.f_code.co_flags & GENERATOR):
            count[0] += 1

    celext.clear_caches()
    sys.setprofile(counting)
    try:
        celext.compile(expression)
    finally:
        sys.setprofile(None)
    return count[0]


@pytest.mark.parametrize("expression", EXPRESSIONS, ids=["plain", "150-levels", "200-levels-macro"])
def test_an_interruption_at_any_call_of_a_compile_leaves_the_process_as_it_was(expression: str) -> None:
    before = _state()
    total = _calls(expression)
    step = max(1, total // 400)  # ~400 interruption points per expression, spread over the whole compile
    for at in [*range(0, total, step), total - 1]:
        seen = [0]

        def interrupting(frame: FrameType, event: str, _arg: Any, at: int = at, seen: list[int] = seen) -> None:
            # where the eval loop takes a pending signal: entering a function, after a C call returns (not a
            # generator's frame: one closed by its finalizer swallows the exception, as CPython does)
            if event == "c_return" or (event == "call" and not frame.f_code.co_flags & GENERATOR):
                seen[0] += 1
                if seen[0] == at + 1:
                    sys.setprofile(None)
                    interrupt(Stop())

        celext.clear_caches()
        sys.setprofile(interrupting)
        try:
            celext.compile(expression)
        except Stop:
            pass
        finally:
            sys.setprofile(None)
        assert _state() == before, f"interrupted at call {at} of {total}"
    celext.clear_caches()
    assert celext.compile(expression).evaluate({"name": "d", "attributes": {"dra.net/numaNode": {"int": 1}}},
                                               "dra.net") is True


@contextlib.contextmanager
def _timer(seconds: float) -> Iterator[None]:
    def handler(_signum: int, _frame: FrameType | None) -> None:
        interrupt(Stop())

    previous = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals reach the main thread")
def test_a_timer_firing_while_a_deep_walk_runs_gives_up_the_wait_and_puts_the_limit_back() -> None:
    """The served worker's failure: the budget's timer fired while the main thread waited for headroom's thread."""
    limit = sys.getrecursionlimit()
    release = threading.Event()

    def slow() -> str:
        release.wait(30)  # a deep walk still running when the budget runs out
        return "done"

    try:
        with _timer(0.05), pytest.raises(Stop):
            headroom.deep(slow)
        assert sys.getrecursionlimit() == limit  # while the walk's thread still runs
    finally:
        release.set()  # the abandoned walk ends; its answer is dropped
    assert headroom.deep(lambda: "after") == "after"


def test_compile_errors_still_pass_through_the_shields() -> None:
    before = _state()
    celext.clear_caches()
    with pytest.raises(CELError, match="recursion limit exceeded"):
        celext.compile("(" * 300 + "1" + ")" * 300)
    assert _state() == before
