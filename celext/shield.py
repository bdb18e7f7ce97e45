"""Changes to process-wide state that an asynchronous exception must not cut in half.

The webhook's budget (`webhook.budget`) stops an evaluation from a signal handler: its exception is raised at
whatever bytecode the main thread is at, a `finally` block included. A block that raises the recursion limit or
turns the garbage collector off and puts it back would then leave the worker changed for every later request (a
recursion limit left at 200,000 let a deeply nested JSON body overflow the C stack: a segfault). Such a block
runs in a `Shield`: an interruption that arrives inside it is held and raised when the shield ends. The work it
guards runs in `shield.open()`, where an interruption is raised at once:

    with Shield() as shield:
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(deep)
        try:
            with shield.open():
                walk()            # interruptible
        finally:
            sys.setrecursionlimit(old)   # never cut short

Signal handlers raise through `interrupt()`. The budget's handler raises once per evaluation, so the cleanup that
runs after its exception is not interrupted again. State is per thread (per greenlet under gevent, where the
handler runs in the greenlet it interrupts); a shield restores the depth it found, so an exception that lands
between two steps of the bookkeeping leaves nothing behind once the outer shield ends.
"""

from __future__ import annotations

import threading
from types import TracebackType

__all__ = ["Shield", "interrupt"]


class _State(threading.local):
    depth = 0  # > 0: inside a shield, not in an opened window of it
    held: BaseException | None = None  # an interruption that arrived inside a shield


_STATE = _State()


def interrupt(exc: BaseException) -> None:
    """Raise `exc` now, or, inside a shield, when the shield ends (the first one held is kept)."""
    state = _STATE
    if state.depth:
        if state.held is None:
            state.held = exc
        return
    raise exc


class Shield:
    """A block whose steps an interruption does not separate (see the module's docstring)."""

    __slots__ = ("_entry",)

    def __enter__(self) -> Shield:
        state = _STATE
        self._entry = state.depth
        state.depth = self._entry + 1
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        state = _STATE
        state.depth = self._entry
        if not self._entry and state.held is not None:
            held, state.held = state.held, None
            raise held

    @property
    def interrupted(self) -> bool:
        """Whether an interruption is held (a wait inside the shield should give up)."""
        return _STATE.held is not None

    def open(self) -> _Window:
        """A window of the shield in which an interruption is raised at once (one held already, on entry)."""
        return _Window()


class _Window:
    __slots__ = ("_entry",)

    def __enter__(self) -> None:
        state = _STATE
        if state.held is not None:  # raised while the shield still holds: the cleanup after it runs shielded
            held, state.held = state.held, None
            raise held
        self._entry = state.depth
        state.depth = 0

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        _STATE.depth = self._entry
