"""Library, Overload and bind(): how the function libraries of `celext.lib` are declared and dispatched.

cel-python binds ONE callable per function name and calls a member function `x.f(y)` as `f(x, y)`, so
`bind()` merges every library's overloads into one dispatcher per name (strings' and lists' `indexOf`
share a name; semver's and quantity's `compareTo` too). Dispatch is by argument count and Python type;
the first matching overload wins; no match is the runtime error `no such overload`. Two overloads that
claim the same signature fail at import. Implementations return `CELEvalError` values and never raise:
cel-python lets most exceptions escape raw and mislabels `ValueError` as an overflow.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from msgspec import Struct

from celext.lib.typenames import cel_type_name
from celext.values import CELEvalError

Impl = Callable[..., Any]
# One entry per argument (receiver first for member overloads): the accepted Python type(s).
Signature = tuple[type | tuple[type, ...], ...]


class Overload(Struct, frozen=True):
    """One upstream overload: `id` follows cel-go / Kubernetes naming (`dra_includes_dyn_dyn`)."""

    name: str
    id: str
    signature: Signature
    impl: Impl
    member: bool = True


class Library(Struct, frozen=True):
    """A named group of overloads, mirroring one upstream library (e.g. `kubernetes.Semver`)."""

    name: str
    overloads: tuple[Overload, ...]

    def names(self) -> frozenset[str]:
        return frozenset(o.name for o in self.overloads)


def overload(name: str, id_: str, signature: Signature, impl: Impl, *, member: bool = True) -> Overload:
    return Overload(name, id_, signature, impl, member)


def parsing(parse: Callable[[str], Any], prefix: str = "") -> Impl:
    """A CEL conversion of one string (`quantity(s)`, `ip(s)`): `parse(s)`, or its ValueError as a CEL error value
    with `prefix` before the text."""
    def convert(text: Any) -> Any:
        try:
            return parse(str(text))
        except ValueError as err:
            return CELEvalError(f"{prefix}{err}")
    return convert


def no_such_overload(name: str, args: tuple[Any, ...]) -> CELEvalError:
    """cel-go's dynamic dispatch failure (`decls.MaybeNoSuchOverload`): `no such overload: f(int, string)`."""
    return CELEvalError(f"no such overload: {name}({', '.join(cel_type_name(a) for a in args)})")


def _dispatcher(name: str, overloads: tuple[Overload, ...]) -> Impl:
    by_arity: dict[int, list[Overload]] = {}
    for o in overloads:
        by_arity.setdefault(len(o.signature), []).append(o)

    def dispatch(*args: Any) -> Any:
        for candidate in by_arity.get(len(args), ()):
            if all(isinstance(a, t) for a, t in zip(args, candidate.signature, strict=True)):
                try:
                    return candidate.impl(*args)
                except CELEvalError as err:  # an implementation may raise one; hand it back as a value
                    return err
                except RecursionError:
                    raise
                except Exception as err:  # never let a raw exception out of a CEL function
                    return CELEvalError(f"{name}: {err}")
        for a in args:
            if isinstance(a, CELEvalError):
                return a
        return no_such_overload(name, args)

    dispatch.__name__ = name
    dispatch.__qualname__ = f"celext_{name}"
    return dispatch


def bind(libraries: Iterable[Library]) -> Mapping[str, Impl]:
    """Merge libraries into {function name: dispatcher}; ValueError on two overloads with one signature."""
    grouped: dict[str, list[Overload]] = {}
    seen: dict[tuple[str, Signature], str] = {}
    for library in libraries:
        for o in library.overloads:
            key = (o.name, o.signature)
            if key in seen:
                raise ValueError(f"overload {o.id} of {o.name}() collides with {seen[key]}")
            seen[key] = o.id
            grouped.setdefault(o.name, []).append(o)
    return {name: _dispatcher(name, tuple(items)) for name, items in grouped.items()}
