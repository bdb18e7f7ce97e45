"""Go's `sort.Slice`, as cel-go's `sort()` and `sortBy()` run it (ext/lists.go sortListByAssociatedKeys).

Go's sort is pattern-defeating quicksort: not stable past 12 elements (`lists.range(20).sortBy(x, x % 2)` does not
keep the order of equal keys), and with a comparison that is no order (a NaN key, which cel-go's `Compare` cannot
order, so its `less` answers false) the result is whatever the algorithm's steps make of it. Both are visible to a
selector, so this follows Go's steps (src/sort/zsortfunc.go, the same since Go 1.19) on a Python list: `less(x, y)`
on two items, the list reordered in place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["go_sort"]

_INSERTION_MAX = 12  # shorter runs: insertion sort (stable)
_NINTHER_FROM = 50  # longer runs: the pivot is a median of medians
_SHIFT_FROM = 50
_SHIFT_STEPS = 5
_UNKNOWN, _INCREASING, _DECREASING = 0, 1, 2
_MASK64 = (1 << 64) - 1

Less = Callable[[Any, Any], bool]


def go_sort(items: list[Any], less: Less) -> None:
    """Sort `items` in place as Go's `sort.Slice(items, less)` does."""
    _Sorter(items, less).run(0, len(items), len(items).bit_length())


class _Sorter:
    __slots__ = ("items", "less")

    def __init__(self, items: list[Any], less: Less) -> None:
        self.items, self.less = items, less

    def lt(self, i: int, j: int) -> bool:
        return self.less(self.items[i], self.items[j])

    def swap(self, i: int, j: int) -> None:
        items = self.items
        items[i], items[j] = items[j], items[i]

    def insertion(self, a: int, b: int) -> None:
        for i in range(a + 1, b):
            j = i
            while j > a and self.lt(j, j - 1):
                self.swap(j, j - 1)
                j -= 1

    def sift_down(self, root: int, end: int, first: int) -> None:
        while (child := 2 * root + 1) < end:
            if child + 1 < end and self.lt(first + child, first + child + 1):
                child += 1
            if not self.lt(first + root, first + child):
                return
            self.swap(first + root, first + child)
            root = child

    def heap(self, a: int, b: int) -> None:
        size = b - a
        for i in range((size - 1) // 2, -1, -1):
            self.sift_down(i, size, a)
        for i in range(size - 1, -1, -1):
            self.swap(a, a + i)
            self.sift_down(0, i, a)

    def run(self, a: int, b: int, limit: int) -> None:
        balanced = partitioned = True
        while True:
            size = b - a
            if size <= _INSERTION_MAX:
                self.insertion(a, b)
                return
            if limit == 0:
                self.heap(a, b)
                return
            if not balanced:
                self.break_patterns(a, b)
                limit -= 1
            pivot, hint = self.choose_pivot(a, b)
            if hint == _DECREASING:
                self.reverse(a, b)
                pivot, hint = (b - 1) - (pivot - a), _INCREASING
            if balanced and partitioned and hint == _INCREASING and self.partial_insertion(a, b):
                return
            if a > 0 and not self.lt(a - 1, pivot):  # many equal elements: those equal to the pivot go first
                a = self.partition_equal(a, b, pivot)
                continue
            mid, partitioned = self.partition(a, b, pivot)
            left, right = mid - a, b - mid
            if left < right:
                balanced = left >= size // 8
                self.run(a, mid, limit)
                a = mid + 1
            else:
                balanced = right >= size // 8
                self.run(mid + 1, b, limit)
                b = mid

    def partition(self, a: int, b: int, pivot: int) -> tuple[int, bool]:
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        first = True
        while True:
            while i <= j and self.lt(i, a):
                i += 1
            while i <= j and not self.lt(j, a):
                j -= 1
            if i > j:
                self.swap(j, a)
                return j, first
            first = False
            self.swap(i, j)
            i, j = i + 1, j - 1

    def partition_equal(self, a: int, b: int, pivot: int) -> int:
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while True:
            while i <= j and not self.lt(a, i):
                i += 1
            while i <= j and self.lt(a, j):
                j -= 1
            if i > j:
                return i
            self.swap(i, j)
            i, j = i + 1, j - 1

    def partial_insertion(self, a: int, b: int) -> bool:
        i = a + 1
        for _ in range(_SHIFT_STEPS):
            while i < b and not self.lt(i, i - 1):
                i += 1
            if i == b:
                return True
            if b - a < _SHIFT_FROM:
                return False
            self.swap(i, i - 1)
            if i - a >= 2:  # the smaller one leftwards (Go's loop runs down to index 1, not to a)
                j = i - 1
                while j >= 1 and self.lt(j, j - 1):
                    self.swap(j, j - 1)
                    j -= 1
            if b - i >= 2:  # the greater one rightwards
                j = i + 1
                while j < b and self.lt(j, j - 1):
                    self.swap(j, j - 1)
                    j += 1
        return False

    def break_patterns(self, a: int, b: int) -> None:
        size = b - a
        if size < 8:
            return
        state, modulus = size, 1 << size.bit_length()
        middle = a + (size // 4) * 2
        for index in range(middle - 1, middle + 2):
            state ^= (state << 13) & _MASK64  # Go's xorshift, seeded with the length
            state ^= state >> 17
            state ^= (state << 5) & _MASK64
            other = state & (modulus - 1)
            if other >= size:
                other -= size
            self.swap(index, a + other)

    def choose_pivot(self, a: int, b: int) -> tuple[int, int]:
        size = b - a
        swaps = [0]
        i, j, k = a + size // 4, a + size // 4 * 2, a + size // 4 * 3
        if size >= 8:
            if size >= _NINTHER_FROM:
                i, j, k = (self.median(m - 1, m, m + 1, swaps) for m in (i, j, k))
            j = self.median(i, j, k, swaps)
        if swaps[0] == 0:
            return j, _INCREASING
        return j, _DECREASING if swaps[0] == 12 else _UNKNOWN

    def median(self, x: int, y: int, z: int, swaps: list[int]) -> int:
        x, y = self.ordered(x, y, swaps)
        y, z = self.ordered(y, z, swaps)
        x, y = self.ordered(x, y, swaps)
        return y

    def ordered(self, x: int, y: int, swaps: list[int]) -> tuple[int, int]:
        if self.lt(y, x):
            swaps[0] += 1
            return y, x
        return x, y

    def reverse(self, a: int, b: int) -> None:
        self.items[a:b] = self.items[a:b][::-1]
