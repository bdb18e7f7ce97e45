"""Map keys as cel-go's maps keep them: kinds apart.

A CEL map literal is a Go map keyed by CEL values, so `{dyn(1): a, dyn(true): b, dyn(1u): c, dyn(1.0): d}` holds
four entries. Python's dict takes `true` for `1` (and cel-python's numbers refuse to compare across kinds inside
a lookup), so a map literal stores a bool, a uint and a double key as the subclasses here, hashed apart from the
int of the same value; ints and strings are stored as they are. The keys stay the CEL values they were
(`isinstance`, arithmetic, text). Lookups across number kinds are celext.lib.operators.map_get's.
"""

from __future__ import annotations

from typing import Any

from celext import values as celvalues

__all__ = ["BoolKey", "DoubleKey", "UintKey", "stored_key"]


class BoolKey(celvalues.BoolType):
    """A bool as a map stores it: apart from the ints 1 and 0, which Python's dict takes for true and false."""

    def __hash__(self) -> int:
        return hash((BoolKey, bool(self)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BoolKey) and bool(self) is bool(other)


class UintKey(celvalues.UintType):
    """A uint as a map stores it: apart from the int of the same value (cel-go's Go map keeps Int(1), Uint(1))."""

    def __hash__(self) -> int:
        return hash((UintKey, int(self)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UintKey) and int(self) == int(other)


class DoubleKey(celvalues.DoubleType):
    """A double as a map stores it: apart from the int and the uint of the same value."""

    def __hash__(self) -> int:
        return hash((DoubleKey, float(self)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DoubleKey) and float(self) == float(other)


def stored_key(key: Any) -> Any:
    """The key as a map literal stores it (cel-go's Go map): kinds apart, so `{dyn(1): a, dyn(true): b}` and
    `{dyn(1): a, dyn(1u): b}` hold two entries. Ints and strings are stored as they are."""
    if isinstance(key, (BoolKey, UintKey, DoubleKey)):
        return key
    if isinstance(key, celvalues.BoolType):
        return BoolKey(bool(key))  # (BoolType(b) gives b itself back)
    if isinstance(key, celvalues.UintType):
        return UintKey(int(key))
    if isinstance(key, celvalues.DoubleType):
        return DoubleKey(float(key))
    return key
