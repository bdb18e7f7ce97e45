"""Python's cyclic garbage collector paused while celext builds trees: one pause however many compiles and
parses nest or run in threads at once, and shielded from the webhook budget's interruptions (celext.shield)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from typing import TypeVar

from celext.shield import Shield

__all__ = ["gc_paused"]

T = TypeVar("T")

_GC_LOCK = threading.Lock()
_GC_STATE = {"compiles": 0, "paused": 0}  # pauses running; 1 when they paused the collector (resumed by the last)


def gc_paused(fn: Callable[[], T]) -> T:
    """`fn()` with Python's cyclic garbage collector paused: a 10 KiB expression allocates tens of thousands of
    tree nodes, and each collection those allocations trigger walks every live object again (about a fifth of the
    compile time). A collector someone else disabled stays disabled; compiles in several threads pause it once.

    On resuming, what the compiles allocated is handed straight to the oldest generation (`_promote`): resumed
    as is, the collector's first young collection, on the next allocation, would walk all of it once more
    (3-11 ms after a 10 KiB compile, the tail of the compile time) to find next to no garbage.

    A function, not a context manager: the pause and the resume run in one `Shield` with `fn` in its window, so
    no interruption (the webhook's budget) can land between them and leave the collector off (a generator-based
    context manager has such a point: after its generator paused, before the `with` block is entered)."""
    with Shield() as shield:
        with _GC_LOCK:
            _GC_STATE["compiles"] += 1
            if _GC_STATE["compiles"] == 1 and gc.isenabled():
                gc.disable()
                _GC_STATE["paused"] = 1
        try:
            with shield.open():
                return fn()
        finally:
            with _GC_LOCK:
                _GC_STATE["compiles"] -= 1
                if _GC_STATE["compiles"] == 0 and _GC_STATE["paused"]:
                    _GC_STATE["paused"] = 0
                    _promote()
                    gc.enable()


def _promote() -> None:
    """Move every object the collector tracks to its oldest generation without walking them, and reset the
    young generation's count (`gc.freeze()` then `gc.unfreeze()`: two list splices). Full collections still
    walk them. Skipped while objects are frozen by someone else (`webhook.gctune`, the served process): the
    unfreeze would thaw theirs too. Only after a compile that allocated past the young generation's threshold
    (a collection is due): on CPython 3.11 `gc.get_freeze_count()` walks every frozen object, milliseconds in a
    process that froze its heap (the served workers), too much to pay after each small compile."""
    if gc.get_count()[0] >= gc.get_threshold()[0] and gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()
