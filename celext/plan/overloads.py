"""Which library overload a call reaches, when the argument types make it certain at compile time.

Without a type checker the planner knows the types of constants only. For `x.f(K...)` with constant
arguments, the overload the run-time dispatcher (celext.lib) would pick for a receiver of class T is certain
when it is the first overload of `f` (in dispatch order) accepting (T, type(K)...). The generated code then
guards on `x.__class__ is T` and calls that overload's implementation directly; any other receiver takes the
general dispatch. (Calls whose overload the type checker resolves take the table's code template first:
celext.plan.typed.)
"""

from __future__ import annotations

import functools
from typing import Any

from celext.env import libraries
from celext.lib import Overload
from celext.values import CELEvalError


@functools.cache
def _by_name() -> dict[str, tuple[Overload, ...]]:
    grouped: dict[str, list[Overload]] = {}
    for library in libraries():
        for o in library.overloads:
            grouped.setdefault(o.name, []).append(o)
    return {name: tuple(items) for name, items in grouped.items()}


def _accepts(o: Overload, kinds: tuple[type, ...]) -> bool:
    return len(o.signature) == len(kinds) and all(issubclass(k, t) for k, t in zip(kinds, o.signature, strict=True))


def resolve(name: str, constants: list[Any]) -> tuple[type, Overload] | None:
    """(receiver class, overload) for a member call whose arguments are all `constants`, else None."""
    overloads = [o for o in _by_name().get(name, ()) if o.member]
    if any(isinstance(c, CELEvalError) for c in constants):
        return None
    kinds = tuple(type(c) for c in constants)
    for o in overloads:
        receiver = o.signature[0] if o.signature else None
        if not isinstance(receiver, type) or receiver is object:
            continue
        full = (receiver, *kinds)
        if _accepts(o, full) and next(c for c in overloads if _accepts(c, full)) is o:
            return receiver, o
    return None


def impl_error(name: str, err: Exception) -> CELEvalError:
    """What the dispatcher makes of an exception raised by an implementation (celext.lib._dispatcher)."""
    if isinstance(err, CELEvalError):
        return err
    if isinstance(err, RecursionError):
        raise err
    return CELEvalError(f"{name}: {err}")
