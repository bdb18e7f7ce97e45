"""`cel_int`: the CEL int of a Python int the caller knows to be in int64's range, built directly.

celtypes' `IntType()` checks the range through a wrapper it builds on every call (~5 us, more than most library
functions' own work); the values the libraries return (an index, a sign, a part of a version, a sum checked
against int64's bounds) need no check. A leaf module: every library imports it."""

from __future__ import annotations

from celext import values as celvalues

__all__ = ["cel_int"]

_new_int = int.__new__
_INT = celvalues.IntType


def cel_int(value: int) -> celvalues.IntType:
    return _new_int(_INT, value)
