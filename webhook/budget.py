"""The work one object may cost: distinct selectors compiled, CPU seconds and wall-clock seconds.

A request that exceeds its budget is not evaluated further; the runner reports a `budget-exceeded` finding,
answered with that rule's policy action (deny by default). The limits stop one large claim from holding a
worker for seconds while the API server waits (its webhook timeout is at most 30 s; ours ship 3 and 5 s).

How the limits are enforced: in the main thread (gunicorn's gevent worker, the CLI, tests) an interval timer
per limit (`ITIMER_PROF` for CPU, `ITIMER_REAL` for wall time) raises `BudgetExceeded` inside whatever is
running, a cel-python compile included; elsewhere (signals only reach the main thread) the runner checks
the clock between rules. `BudgetExceeded` derives from BaseException so that the `except Exception` blocks of
rules and celext let it through. A timer is only ever armed while the rules run, which never yield to other
greenlets, so the signal cannot land in another request.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from types import FrameType

from msgspec import Struct
from msgspec.structs import replace

from celext.shield import interrupt

BUDGET_RULE = "budget-exceeded"
# Time kept for encoding and writing the answer and for it to reach the API server: what the shipped default
# keeps (--deadline 2.5 s inside the resourceslices webhook's 3 s). Half the timeout when that is 1 s or less.
ANSWER_MARGIN = 0.5
TIMEOUT_CHARS = 32  # of the caller's timeout quoted in a finding (`1s1s1s...` is a valid duration of any length)


class BudgetExceeded(BaseException):
    """The object's evaluation ran out of `what`; `message` is the finding's text."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Budget(Struct, frozen=True):
    """Per-object limits. 0 turns a limit off (the CLI runs without a budget)."""

    selectors: int = 128  # distinct selector expressions one object may make us compile
    cpu_seconds: float = 2.0
    wall_seconds: float = 2.5  # below the shipped webhooks' timeoutSeconds (3 and 5 s), so the answer is ours
    # Wall seconds the request already waited before its evaluation began: a worker evaluates one object at a
    # time, so a review queued behind others has spent that much of its wall budget (the caller's timeout runs
    # from when it sent the review, not from when this worker got to it).
    waited: float = 0.0
    # The caller's `?timeout=` as written, when it shortened `wall_seconds` (webhook.admission.timeout): named in
    # the finding, so a `budget-exceeded` under a short webhook timeoutSeconds says where its deadline came from.
    timeout: str = ""

    def within(self, timeout: str, seconds: float) -> Budget:
        """This budget for a caller that gives up after `seconds` (its `?timeout=` is `timeout`): the wall limit is
        at most what that leaves once the answer's travel time is kept aside."""
        wall = answer_deadline(seconds)
        if self.wall_seconds and self.wall_seconds <= wall:
            return self
        return replace(self, wall_seconds=wall, timeout=timeout)

    def after(self, waited: float) -> Budget:
        """This budget for a request that waited `waited` seconds before its evaluation."""
        return replace(self, waited=waited) if self.wall_seconds and waited > 0 else self

    def check_selectors(self, count: int) -> None:
        if self.selectors and count > self.selectors:
            raise BudgetExceeded(
                f"{count} distinct selector expressions exceed this webhook's budget of {self.selectors} per object; "
                "not evaluated")


UNLIMITED = Budget(0, 0, 0)
DEFAULT_BUDGET = Budget()


def cpu_message(limit: float) -> str:
    return f"evaluation used more than its CPU budget of {limit:g} s; not evaluated further"


def wall_message(limit: float, timeout: str = "") -> str:
    return f"evaluation took longer than its deadline of {_deadline(limit, timeout)}; not evaluated further"


def waited_message(waited: float, limit: float, timeout: str = "") -> str:
    return (f"the review waited {waited:.2f} s before this worker could take it, past its deadline of "
            f"{_deadline(limit, timeout)}; not evaluated")


def _deadline(limit: float, timeout: str) -> str:
    if not timeout:
        return f"{limit:g} s"
    return f"{limit:g} s (the request's timeout={timeout[:TIMEOUT_CHARS]}, less time to answer)"


def answer_deadline(timeout: float) -> float:
    """The evaluation deadline a caller's timeout leaves: the timeout less the time kept for the answer."""
    return timeout - min(ANSWER_MARGIN, timeout / 2)


class Meter:
    """The running budget of one evaluation: `check()` between steps, timers for what a step cannot see."""

    def __init__(self, budget: Budget, *, timed: bool = False) -> None:
        self.budget = budget
        self.timed = timed  # interval timers enforce the budget: `check` has nothing to do
        self.started_wall = time.monotonic() - budget.waited
        # The thread's CPU clock is read only when needed: on some virtual machines one read costs milliseconds.
        self.started_cpu = time.thread_time() if budget.cpu_seconds and not timed else 0.0

    @property
    def checking(self) -> bool:
        """Whether `check()` has anything to do (a limit is set and no interval timer enforces it)."""
        return not self.timed and bool(self.budget.cpu_seconds or self.budget.wall_seconds)

    def check(self) -> None:
        """Raise BudgetExceeded when a limit has passed (a clock read costs microseconds: skipped under timers)."""
        b = self.budget
        if self.timed or not (b.cpu_seconds or b.wall_seconds):
            return
        if b.cpu_seconds and time.thread_time() - self.started_cpu > b.cpu_seconds:
            raise BudgetExceeded(cpu_message(b.cpu_seconds))
        if b.wall_seconds and time.monotonic() - self.started_wall > b.wall_seconds:
            raise BudgetExceeded(wall_message(b.wall_seconds, b.timeout))


_armed: list[Budget] = []  # the budget whose timers are running (main thread only)
_fired: set[int] = set()  # the timers of that budget that fired


def _on_timer(signum: int, frame: FrameType | None) -> None:
    """Stop the evaluation, through `celext.shield`: a block that changes process-wide state (the recursion limit,
    the collector) finishes before the exception is raised. Once per timer (a late signal after disarming finds
    `_armed` empty): the wall-clock timer, which fires later, is a second chance when CPython swallowed the
    first exception (raised while a generator was being finalized, it is only printed)."""
    if not _armed:
        return
    budget, fired = _armed[0], _fired
    if signum in fired:
        return
    fired.add(signum)
    message = (cpu_message(budget.cpu_seconds) if signum == signal.SIGPROF
               else wall_message(budget.wall_seconds, budget.timeout))
    interrupt(BudgetExceeded(message))


@contextmanager
def metered(budget: Budget) -> Iterator[Meter]:
    """A `Meter` for one evaluation, with interrupting timers armed when this is the main thread."""
    timers = (
        not _armed
        and bool(budget.cpu_seconds or budget.wall_seconds)
        and _takes_signals(os.getpid(), threading.get_native_id())
    )
    if budget.wall_seconds and budget.waited >= budget.wall_seconds:
        raise BudgetExceeded(waited_message(budget.waited, budget.wall_seconds, budget.timeout))
    meter = Meter(budget, timed=timers)
    if not timers:
        yield meter
        return
    _armed.append(budget)
    _fired.clear()
    try:
        if budget.cpu_seconds:
            signal.setitimer(signal.ITIMER_PROF, budget.cpu_seconds)
        if budget.wall_seconds:
            signal.setitimer(signal.ITIMER_REAL, budget.wall_seconds - budget.waited)
        yield meter
    finally:
        _armed.clear()
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)


@lru_cache(maxsize=64)
def _takes_signals(pid: int, thread: int) -> bool:
    """Whether this OS thread of this process runs signal handlers (Python's main thread), with the timer
    handler installed on it; asked once per process and thread.

    Installing the handler is the test Python itself applies (ValueError off the main thread). Not
    `threading.current_thread() is threading.main_thread()`: under gevent's monkey-patching (the served
    worker) each greenlet has a thread object of its own, so that test said no and every rule paid a CPU-clock
    read instead of the timers. The handler stays installed: a signal already pending when the timers are
    disarmed lands in a handler that ignores it, never in the default action (which would end the process).
    """
    try:
        signal.signal(signal.SIGPROF, _on_timer)
        signal.signal(signal.SIGALRM, _on_timer)
    except ValueError:
        return False
    return True


# What celext's caches hold per compiled selector, measured: a 10 KiB selector about 180 KB (4,000 distinct ones
# took a worker from 45 to 761 MB), a 1 KiB one with a long string literal about 70 KB. The estimate takes the
# worse ratio, so it errs towards clearing early.
COMPILED_BYTES_PER_TEXT_BYTE = 72
COMPILED_BYTES_FIXED = 8 * 1024


class CompileCacheBudget:
    """Keep celext's text-keyed caches (bounded by entry count only) under a byte estimate.

    celext caches compiled selectors by text, at most 1,024 of them whatever their size; a stream of distinct
    10 KiB selectors grows a worker by hundreds of MB. The webhook notes every expression it has celext
    compile; when the estimated bytes of the expressions compiled since the last clear pass `max_bytes`, every
    celext cache is cleared (the next requests recompile what they use). A byte-bounded cache inside celext
    would make this unnecessary.
    """

    def __init__(self, max_bytes: int = 64 * 1024 * 1024) -> None:
        self.max_bytes = max_bytes
        self._seen: set[str] = set()
        self._bytes = 0
        self.clears = 0

    def note(self, expressions: set[str]) -> None:
        fresh = expressions - self._seen
        if not fresh:
            return
        added = sum(len(e.encode("utf-8", "surrogatepass")) * COMPILED_BYTES_PER_TEXT_BYTE + COMPILED_BYTES_FIXED
                    for e in fresh)
        if self._bytes + added > self.max_bytes:
            clear_celext_caches()
            self._seen.clear()
            self._bytes = 0
            self.clears += 1
        self._seen |= fresh
        self._bytes += added

    @property
    def estimated_bytes(self) -> int:
        return self._bytes


def clear_celext_caches() -> None:
    """Empty celext's caches (compiled selectors, parse trees, regexes; see celext.clear_caches)."""
    import celext

    celext.clear_caches()
