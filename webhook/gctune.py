"""The garbage collector tuned for a batch command (lint, validate, audit), from its first heavy import to its end.

A batch run allocates many objects that live to its end (modules, the inventory, documents, compiled
selectors) and many short-lived acyclic ones; with the default thresholds the collector keeps re-walking all
that is alive (during `lint --slices` over the corpus: ~90 collections while the inventory is read alone).
Objects that exist already are frozen out of collections and young collections happen less often. Nested uses
freeze what exists by then (what the outer one imported, so forked workers never touch it either); the
outermost one undoes everything on exit.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

YOUNG_THRESHOLD = 50_000  # allocations between young collections (CPython's default: 700)
_open: list[None] = []  # one entry per tuned_gc() being run


@contextlib.contextmanager
def tuned_gc() -> Iterator[None]:
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, 20, 20)
    _open.append(None)
    try:
        yield
    finally:
        _open.pop()
        if not _open:
            gc.set_threshold(*thresholds)
            gc.unfreeze()
