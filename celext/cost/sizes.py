"""Cost and size ranges with cel-go's saturating arithmetic, and the sizes Kubernetes assumes for a DRA device.

`Range` is cel-go's CostEstimate / SizeEstimate: (min, max), both saturating at 2**64-1. `device_size()` is
the DRA compiler's size estimator (dynamic-resource-allocation cel/compile.go `sizeEstimator`): a field
path from the `device` variable (`@keys`, `@values`, `@items` step into maps and lists) has the declared
maximum: driver 63 characters, 32 domains of 32 ids, domain names 63 and ids 32 characters, an attribute
value 64 (a string's length or a list's length), `allowMultipleAllocations` 1.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

from msgspec import Struct, field

U64 = 2**64 - 1
STRING_TRAVERSAL = 0.1  # cel-go common.StringTraversalCostFactor
REGEX_LENGTH = 0.25  # common.RegexStringLengthCostFactor
LIST_CREATE, MAP_CREATE = 10, 30


def _mul(x: int, y: int) -> int:
    return min(x * y, U64)


def _factor(x: int, f: float) -> int:
    if x > 0 and f > 0 and x > U64 / f:
        return U64
    value = math.ceil(float(x) * f)
    return U64 if value >= 2**64 else int(value)


class Range(NamedTuple):
    """(min, max); a tuple, not a dataclass: the estimator makes a few per node, and a tuple is built faster."""

    min: int
    max: int

    def add(self, other: Range) -> Range:
        low, high = other
        if not (low or high):
            return self
        low += self[0]
        high += self[1]
        if low < U64 and high < U64:
            return _new(Range, (low, high))
        return _new(Range, (min(low, U64), min(high, U64)))

    def mul(self, other: Range) -> Range:
        return _new(Range, (_mul(self[0], other[0]), _mul(self[1], other[1])))

    def factor(self, f: float) -> Range:
        return _new(Range, (_factor(self[0], f), _factor(self[1], f)))

    def union(self, other: Range) -> Range:
        low, high = other
        return _new(Range, (self[0] if self[0] < low else low, self[1] if self[1] > high else high))


_new = tuple.__new__  # a Range without NamedTuple's Python-level constructor (the estimator's hot path)
ZERO = Range(0, 0)
ONE = Range(1, 1)
UNKNOWN = Range(0, U64)


def fixed(n: int) -> Range:
    return _new(Range, (n, n))


class Decl(Struct, frozen=True):
    """A declared type with its maximum size (apiserver cel.DeclType: MaxElements, fields, key, element)."""

    max_elements: int
    fields: dict[str, Decl] = field(default_factory=dict)
    key: Decl | None = None
    elem: Decl | None = None


ATTRIBUTE = Decl(64)  # max(DeviceAttributeMaxValueLength, ResourceSliceMaxAttributeValuesPerDevice)
_DOMAIN, _ID = Decl(63), Decl(32)
_QUANTITY = Decl(0)
DEVICE = Decl(0, {
    "driver": Decl(63),
    "attributes": Decl(32, key=_DOMAIN, elem=Decl(32, key=_ID, elem=ATTRIBUTE)),
    "capacity": Decl(32, key=_DOMAIN, elem=Decl(32, key=_ID, elem=_QUANTITY)),
    "allowMultipleAllocations": Decl(1),
})


@functools.lru_cache(maxsize=4096)  # (paths repeat: every read of one attribute; a tuple key, looked up in C)
def device_size(path: tuple[str, ...]) -> Range | None:
    """The DRA size estimate for a path rooted at `device`, or None (no estimate)."""
    if not path or path[0] != "device":
        return None
    node = DEVICE
    for name in path[1:]:
        if name in ("@items", "@values"):
            if node.elem is None:
                return None
            node = node.elem
        elif name == "@keys":
            if node.key is None:
                return None
            node = node.key
        elif name in node.fields:
            node = node.fields[name]
        elif node.elem is ATTRIBUTE:  # `attrs.name`: a field select on the inner attribute map
            node = ATTRIBUTE
        else:
            return None
    return Range(0, node.max_elements)
