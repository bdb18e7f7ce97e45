"""A least-recently-used cache bounded by the bytes its entries hold, not by their count: one 10 KiB
selector weighs as much as hundreds of short ones."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class ByteBudgetCache(Generic[K, V]):
    """get-or-build under a lock; `size(value)` is an entry's weight in bytes."""

    def __init__(self, budget: int, size: Callable[[V], int]) -> None:
        self.budget = budget
        self._size = size
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._held = 0
        self._lock = threading.Lock()

    @property
    def held(self) -> int:
        return self._held

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: K, build: Callable[[K], V]) -> V:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                return found[0]
        value = build(key)  # outside the lock: a slow compile does not block cache hits
        weight = self._size(value)
        with self._lock:
            if key in self._entries:
                return self._entries[key][0]
            self._entries[key] = (value, weight)
            self._held += weight
            while self._held > self.budget and len(self._entries) > 1:
                _, (_, dropped) = self._entries.popitem(last=False)
                self._held -= dropped
        return value

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._held = 0
