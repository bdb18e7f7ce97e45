"""The DRA CEL environment celext offers: which functions exist, which are refused and why.

The Kubernetes DRA environment (StoredExpressions, as the scheduler uses it) = the CEL standard library,
the Kubernetes base libraries (lists, regex, quantity, semver, URLs, IP/CIDR, authz, format), cel-go's
strings v2, sets, lists v3, two-variable comprehensions, optional types, `cel.bind`, plus DRA's `includes`.
celext provides what DRA selectors use (IP/CIDR for network drivers such as DRANET, which publish addresses, and
URLs); the rest (authz, format) is refused at compile time with a reason (`UNSUPPORTED`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from celext.lib import Library, bind, includes, lists, net, optional, quantity, regex, semver, sets, strings, urls
from celext.lib.library import no_such_overload
from celext.lib.operators import OPERATORS, to_bool, to_double, to_duration, to_int, to_uint
from celext.lib.standard import STANDARD
from celext.lib.timestamps import GETTERS
from celext.lib.typenames import cel_type_name, type_of
from celext.values import CELEvalError


def libraries() -> tuple[Library, ...]:
    return (includes.library(), semver.library(), quantity.library(), lists.library(), strings.library(),
            regex.library(), sets.library(), optional.library(), net.library(), urls.library())


CONVERSIONS = ("int", "uint", "double", "string", "bytes", "bool", "duration", "timestamp")


def _guarded(name: str, convert: Any) -> Any:
    """A type conversion behind cel-go's dispatch over its declared overloads: a value of a type none of them takes
    (`string()` of a list, `double()` of a bool, reached through `dyn`) is `no such overload: string(list)`
    (decls.MaybeNoSuchOverload), not whatever the implementation would make of it."""
    from celext import overloads

    takes = frozenset(str(o.args[0]) for o in overloads.FUNCTIONS[name] if len(o.args) == 1 and not o.member)

    def conversion(value: Any) -> Any:
        if isinstance(value, CELEvalError) or cel_type_name(value) in takes:
            return convert(value)
        return no_such_overload(name, (value,))

    return conversion


_UNGUARDED: Mapping[str, Any] = {**STANDARD, **bind(libraries()), **OPERATORS, "int": to_int, "uint": to_uint,
                                 "double": to_double, "bool": to_bool, "duration": to_duration,
                                 "matches": regex.matches, "type": type_of, **GETTERS}
FUNCTIONS: Mapping[str, Any] = {**_UNGUARDED, **{name: _guarded(name, _UNGUARDED[name]) for name in CONVERSIONS}}

# cel-python's own standard functions celext keeps (CEL standard library names).
STANDARD_GLOBAL = frozenset({"size", "int", "uint", "double", "string", "bytes", "bool", "duration", "timestamp",
                             "type", "dyn", "has", "matches"})
STANDARD_MEMBER = frozenset({"size", "contains", "startsWith", "endsWith", "matches", "getDate", "getDayOfMonth",
                             "getDayOfWeek", "getDayOfYear", "getFullYear", "getMonth", "getHours",
                             "getMilliseconds", "getMinutes", "getSeconds"})
MACRO_NAMES = frozenset({"all", "exists", "exists_one", "existsOne", "map", "filter", "sortBy", "transformList",
                         "transformMap", "transformMapEntry", "optMap", "optFlatMap"})
# Argument counts each comprehension macro takes and how many of them name iteration variables (cel-go's
# standard macros, `existsOne`, the two-variable comprehensions (ext.TwoVarComprehensions) and lists' sortBy).
MACRO_FORMS: Mapping[str, Mapping[int, int]] = {
    "all": {2: 1, 3: 2}, "exists": {2: 1, 3: 2}, "exists_one": {2: 1, 3: 2}, "existsOne": {3: 2},
    "map": {2: 1, 3: 1}, "filter": {2: 1}, "sortBy": {2: 1},
    "transformList": {3: 2, 4: 2}, "transformMap": {3: 2, 4: 2}, "transformMapEntry": {3: 2, 4: 2},
    "optMap": {2: 1}, "optFlatMap": {2: 1},
}
OPTIONAL_MACROS = frozenset({"optMap", "optFlatMap"})
ACCUMULATORS = ("__result__", "@result")  # cel-go's legacy and current accumulator names


def macro_variable_error(method: str, names: Sequence[str | None]) -> tuple[int, str] | None:
    """cel-go's parser error for a macro call's variable arguments (`names`: each one's simple name, None when it
    is not one), as (the argument it is reported at, the text): parser/macro.go MakeMap, MakeFilter and
    makeQuantifier, ext/comprehensions.go extractIterVars, cel/library.go optMap, ext/lists.go sortBy."""
    for i, name in enumerate(names):
        if name is None:
            if method in OPTIONAL_MACROS:
                return i, f"{method}() variable name must be a simple identifier"
            if method in ("map", "filter", "sortBy"):
                return i, "argument is not an identifier"
            return i, "argument must be a simple name"
    if len(names) == 2 and names[0] == names[1]:
        return 1, f"duplicate variable name: {names[0]}"
    if method not in OPTIONAL_MACROS:
        for i, name in enumerate(names):
            if name in ACCUMULATORS:
                return i, "iteration variable overwrites accumulator variable"
    return None

GLOBAL_NAMES = STANDARD_GLOBAL | {o.name for lib in libraries() for o in lib.overloads if not o.member}
MEMBER_NAMES = STANDARD_MEMBER | MACRO_NAMES | {o.name for lib in libraries() for o in lib.overloads if o.member}



def _arities(*, member: bool) -> dict[str, frozenset[int]]:
    found: dict[str, set[int]] = {}
    for lib in libraries():
        for o in lib.overloads:
            if o.member is member:
                found.setdefault(o.name, set()).add(len(o.signature))
    return {name: frozenset(counts) for name, counts in found.items()}


# How many arguments each function takes (a member call counts its receiver), for cel-go's compile-time
# `found no matching overload`; the CEL standard functions celext keeps from cel-python are listed by hand.
MEMBER_ARITY: Mapping[str, frozenset[int]] = {
    **_arities(member=True), "size": frozenset({1}), "contains": frozenset({2}),
    "startsWith": frozenset({2}), "endsWith": frozenset({2}), "matches": frozenset({2}),
}
GLOBAL_ARITY: Mapping[str, frozenset[int]] = {
    **_arities(member=False), "size": frozenset({1}), "matches": frozenset({2}),
}

UNSUPPORTED: Mapping[str, str] = {
    "authorizer": "the Kubernetes authz library has no meaning for device selectors",
    # the namespace of library.Format's functions (format.dns1123Label(), format.named(), ...); the strings
    # extension's member `"...".format([...])` is supported and not refused
    "format": "the Kubernetes format library (format.dns1123Label(), format.named(), ...) is not provided by "
    "celext",
}
# Of those, what Kubernetes' DRA environment has (its base environment's libraries): a selector using them compiles
# there, and celext's refusal is an UnsupportedError. `authorizer` is declared only for admission policies.
PROVIDED_UPSTREAM = frozenset({"format"})
NAMESPACES = frozenset({"sets", "lists", "strings", "cel", "optional", "ip"})
# Type names spelt with dots (`type(x) == net.IP`): the checker's identifiers, the engines' type values
DOTTED_TYPE_NAMES = frozenset({"google.protobuf.Timestamp", "google.protobuf.Duration", "net.IP", "net.CIDR"})
DEVICE_FIELDS = frozenset({"driver", "attributes", "capacity", "allowMultipleAllocations"})
