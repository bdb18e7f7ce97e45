"""The garbage collector tuned for a batch command (lint, validate, audit), from its first heavy import to its end.

A batch run allocates many objects that live to its end (modules, the inventory, documents, compiled
selectors) and many short-lived acyclic ones; with the default thresholds the collector keeps re-walking all
that is alive (during `lint --slices` over the corpus: ~90 collections while the inventory is read alone).
Young collections happen every `YOUNG_THRESHOLD` allocations instead; the outermost use restores the thresholds
and unfreezes what the run froze.

`tuned_gc()` freezes nothing. What exists when the files are linted is frozen for the linting (`frozen()`,
wave 9): celext asks `gc.get_freeze_count()`, which walks every frozen object, only after a compile large enough
to make a young collection due (once it asked after every compile, a fifth to a third of a `--jobs 1` corpus
run's CPU time, and freezing was dropped); on the corpus it is never asked now. Run as the program, a batch
command holds the collector off until then (`until_exit()`).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

YOUNG_THRESHOLD = 50_000  # allocations between young collections (CPython's default: 700)
_TUNED = (YOUNG_THRESHOLD, 20, 20)
_open: list[None] = []  # one entry per tuned_gc() being run
_exiting: list[None] = []  # set by until_exit(): the process ends right after the run (os._exit)
_held: list[None] = []  # set by until_exit() when it turned the collector off (release() turns it on)


@contextlib.contextmanager
def tuned_gc() -> Iterator[None]:
    thresholds = gc.get_threshold()
    gc.set_threshold(*_TUNED)
    _open.append(None)
    try:
        yield
    finally:
        _open.pop()
        if not _open and not _exiting:
            gc.set_threshold(*thresholds)
            gc.unfreeze()  # what the run froze itself (webhook.audit.scan freezes each page's survivors)


def until_exit() -> None:
    """The process is a batch run that ends with `os._exit` (`draguard lint` as the program): tuned from now
    on, and the outermost `tuned_gc()` keeps the settings (restored, CPython's small thresholds would make the
    next allocation collect the two younger generations, everything the run kept since its last collections,
    only to exit). Until the run reads its first input (`release()`) the collector is off: what comes before
    (the command's parser, the rules imported) lives to the end and holds next to no cycles, yet was walked by
    ~30 collections at CPython's thresholds. Inputs are read with it on: a cluster listing or a fallback YAML
    parse may leave cycles behind, which must not pile up unseen however large the input."""
    gc.set_threshold(*_TUNED)
    _exiting.append(None)
    if gc.isenabled():
        gc.disable()
        _held.append(None)


def release() -> None:
    """Turn the collector `until_exit()` held off back on (nothing otherwise): the run is about to read input."""
    if _held:
        _held.clear()
        gc.enable()


@contextlib.contextmanager
def frozen() -> Iterator[None]:
    """What exists now moved out of the collector's sight while the files are linted (`gc.freeze()`): the
    modules, policy, inventory and warmed selectors live to the end, and the forked workers share them. Without
    it the first young collection in each process walks what the parent allocated since its last one (imports,
    the inventory: the run's longest pause), writing every object's header and so copying the page under it out
    of what the fork shares. Collections then see only what the linting allocates. Thawed at the end; not
    frozen again when something is frozen already (its owner thaws it). A collector `until_exit()` still holds
    off runs again from here."""
    mine = not gc.get_freeze_count()
    if mine:
        gc.freeze()
    release()
    try:
        yield
    finally:
        if mine:
            gc.unfreeze()
