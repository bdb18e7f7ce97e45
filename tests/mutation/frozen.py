"""A cheap `gc.get_freeze_count()` for the mutation run's forked children (launch.py installs it).

CPython 3.11 answers `gc.get_freeze_count()` by walking every frozen object (`gc_list_size` over the permanent
generation). The fork server freezes its whole warm heap (imports, collected tests, mutmut's statistics: millions
of objects) so that the children's collections skip it, and celext asks for the count after every compile
(`celext.gcpause._promote`, which leaves the collector alone while anything is frozen). In a child each of those
calls walked the whole frozen heap: 50-80 ms a compile, most of what a killed mutant cost.

`FrozenCount` keeps the count the last walk found and walks again only after `gc.freeze()` (which adds objects);
after `gc.unfreeze()` the count is 0. Between those, frozen objects that are freed make the real count smaller
than the kept one, never zero while the warm heap lives: whether anything is frozen, the one thing celext and the
tests ask, is answered exactly.
"""

from __future__ import annotations

import gc
from collections.abc import Callable


class FrozenCount:
    def __init__(self, count: Callable[[], int], freeze: Callable[[], None], unfreeze: Callable[[], None]) -> None:
        self._count, self._freeze, self._unfreeze = count, freeze, unfreeze
        self._known: int | None = None

    def get_freeze_count(self) -> int:
        if self._known is None:
            self._known = self._count()
        return self._known

    def freeze(self) -> None:
        self._freeze()
        self._known = None

    def unfreeze(self) -> None:
        self._unfreeze()
        self._known = 0


def install() -> FrozenCount:
    """Route the `gc` module's three freeze functions through one `FrozenCount` (for this process and its forks)."""
    kept = FrozenCount(gc.get_freeze_count, gc.freeze, gc.unfreeze)
    gc.get_freeze_count = kept.get_freeze_count  # type: ignore[assignment]
    gc.freeze = kept.freeze  # type: ignore[assignment]
    gc.unfreeze = kept.unfreeze  # type: ignore[assignment]
    return kept
