"""The rare paths of the generated control flow, as functions the generated code calls (celext.plan): the
common path (operands that are the `TRUE` / `FALSE` singletons, lists and maps to iterate) stays inline, so
each `&&` / `||` operand, ternary and comprehension costs a line or two of source instead of a block.

`and_step` / `or_step` fold one operand into a chain's running result: the decisive value ends the chain;
otherwise the result so far is the non-decisive value (`TRUE` for `&&`) until the first operand that is not a
bool, which becomes the answer unless a later operand decides (an error as it is, any other value as
`no such overload`). That is what the reference engine's left-to-right binary `&&` / `||` gives for any
grouping of the operands (CEL's commutative error absorption).
"""

from __future__ import annotations

from typing import Any

from celext import values as celvalues
from celext.runtime.ops import FALSE, TRUE, no_overload, not_iterable
from celext.values import CELEvalError

__all__ = ["and_step", "iterable", "not_bool", "or_step"]

_BOOL = celvalues.BoolType
_ITERABLE = (celvalues.ListType, celvalues.MapType)


def not_bool(value: Any) -> CELEvalError:
    """What a non-bool operand of a logic operator or a condition stands for: an error as it is, else
    `no such overload`."""
    return value if isinstance(value, CELEvalError) else no_overload()


def and_step(pending: Any, value: Any) -> Any:
    """`pending` (TRUE, or the error to report) after one more `&&` operand; FALSE when it decides."""
    if isinstance(value, _BOOL):
        return pending if value else FALSE
    return not_bool(value) if pending is TRUE else pending


def or_step(pending: Any, value: Any) -> Any:
    """`pending` (FALSE, or the error to report) after one more `||` operand; TRUE when it decides."""
    if isinstance(value, _BOOL):
        return TRUE if value else pending
    return not_bool(value) if pending is FALSE else pending


def iterable(value: Any) -> Any:
    """None for a list or map a comprehension can iterate, else the error it yields."""
    if isinstance(value, _ITERABLE):
        return None
    return value if isinstance(value, CELEvalError) else not_iterable(value)
