"""Recursion headroom for the tree walks: parsing, checking and evaluating an expression nested as deep as cel-go
allows (250 levels become a few thousand Python frames, over Python's default limit of 1000).

`call(fn, *args)` runs `fn` as is; only when it hits RecursionError does it run it again on a helper thread with
a large stack, a raised recursion limit and room for the frames (`roomy`). The common case pays nothing; the
deep case pays one thread start. The walks it reruns are pure, so running one twice does not change its result.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from types import FunctionType
from typing import Any, TypeVar

from celext.shield import Shield

T = TypeVar("T")

STACK_BYTES = 512 * 1024 * 1024  # virtual; only the pages a deep walk touches are used
RECURSION_LIMIT = 200_000
POLL_SECONDS = 0.05  # how soon the wait for a deep walk gives up once it is interrupted (the webhook's budget)
_LOCK = threading.Lock()  # one deep run at a time: the recursion limit is process-wide


class _Inside(threading.local):
    active = False


_INSIDE = _Inside()


def _call(fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    return fn(*args)


# CPython 3.11 keeps Python frames in 16 KiB chunks, and unmaps a chunk as soon as a walk returns out of it: a
# deep walk going down and up across a chunk's edge pays an mmap, a munmap and page faults each time (hundreds
# of times in a 10 KiB compile: 3-4 ms of system time in a parse of 200 nested calls). `_call` with a value stack
# declared 1 MiB deep gets a 2 MiB chunk of its own, and the walk's frames fill the rest of it (virtual memory:
# only the pages the walk uses are touched).
_ROOMY: Callable[[Callable[..., Any], tuple[Any, ...]], Any] = FunctionType(
    _call.__code__.replace(co_stacksize=1 << 17), globals())


def roomy(fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)` with room for a deep walk's frames in one chunk of the frame stack (see `_ROOMY`)."""
    return _ROOMY(fn, args)  # type: ignore[no-any-return]


def call(fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)`, rerun with headroom if it runs out of recursion depth. Exceptions propagate unchanged
    (a RecursionError only if even the headroom is not enough)."""
    try:
        return fn(*args)
    except RecursionError:
        return deep(fn, *args)


def _os_threads() -> tuple[Any, Any, Any]:
    """`_thread`'s start_new_thread, allocate_lock and stack_size as the OS provides them, also in a gevent
    worker (the webhook's), where the patched ones are greenlets and a cooperative wait. The recursion limit is
    process-wide: while it is raised for the deep walk, another greenlet scheduled during a cooperative wait
    could recurse as deep in C (decoding a deeply nested JSON body) and overflow the thread's C stack, killing
    the worker (reproduced: a segfault). Waiting on an OS lock keeps every other greenlet of this thread
    parked until the limit is back."""
    import _thread

    monkey = sys.modules.get("gevent.monkey")
    if monkey is not None and monkey.is_module_patched("threading"):
        names = ["start_new_thread", "allocate_lock", "stack_size"]
        return tuple(monkey.get_original("_thread", names))
    return _thread.start_new_thread, _thread.allocate_lock, _thread.stack_size


def deep(fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)` on a thread with a large stack and a raised recursion limit.

    The limit is process-wide, so it is raised and put back in a `Shield`: an interruption (the webhook's budget)
    that arrives meanwhile is held, the wait gives up within POLL_SECONDS, the limit is put back, and then the
    interruption is raised. The walk left running on its thread ends soon after (RecursionError, once deeper
    than the limit put back, or its own end); its answer is dropped."""
    if _INSIDE.active:  # already on the deep thread (a nested walk): the headroom is there, and the lock held
        return fn(*args)
    outcome: list[Any] = []

    def run() -> None:
        _INSIDE.active = True
        try:
            outcome.append((True, _ROOMY(fn, args)))
        except BaseException as err:  # handed back to the caller's thread below
            outcome.append((False, err))

    start, allocate, stack_size = _os_threads()
    with _LOCK, Shield() as shield:
        limit = sys.getrecursionlimit()
        done = allocate()
        done.acquire()

        def run_then_release() -> None:
            try:
                run()
            finally:
                done.release()

        previous_stack = stack_size(STACK_BYTES)
        try:
            sys.setrecursionlimit(max(limit, RECURSION_LIMIT))
            start(run_then_release, ())
        finally:
            stack_size(previous_stack)
        # An OS-level wait: nothing else runs in this thread while the limit is raised.
        while not done.acquire(timeout=POLL_SECONDS):
            if shield.interrupted:
                break
        sys.setrecursionlimit(limit)
    ok, value = outcome[0]
    if ok:
        return value  # type: ignore[no-any-return]
    raise value
