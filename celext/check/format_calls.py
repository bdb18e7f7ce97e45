"""`"...".format([...])` calls judged when the selector is compiled, as Kubernetes judges them.

cel-go's strings extension, at the version 2 Kubernetes declares, adds an AST validator (v0.26,
ext/formatting.go `stringFormatValidator`): after a clean type check, every `format` member call on a string
literal with one list literal argument (and the `string_format` overload, or none resolved) has its format
string read as the run time reads it (celext.goformat), each clause checked against the checked type of its
element, and its error reported when the selector is created: `error during formatting: decimal clause can only
be used on integers, was given string` at the element, `index 1 out of range` and `unexpected end of string` at
the call, and, when every clause is fine, `too many arguments supplied to string.format (expected 1, got 2)`.

A clause accepts an element by its type's kind only (`dyn` always): `%d` and `%o` ints and uints, `%f` and `%e`
doubles and strings, `%b` ints, uints and bools, `%x`/`%X` ints, uints, strings and bytes, `%s` lists, maps,
scalars, timestamps, durations, types and null, looking into list and map literals (a quantity or a semver is
refused: Kubernetes declares them as object types).
"""

from __future__ import annotations

from celext.check.ast import Call, CreateList, CreateMap, Expr, Literal
from celext.check.types import DYN, Type
from celext.goformat import FormatError, FormatFailure, interpolate

_KINDS = {
    "d": frozenset({"int", "uint"}),
    "o": frozenset({"int", "uint"}),
    "f": frozenset({"double", "string"}),
    "e": frozenset({"double", "string"}),
    "b": frozenset({"int", "uint", "bool"}),
    "x": frozenset({"int", "uint", "string", "bytes"}),
    "X": frozenset({"int", "uint", "string", "bytes"}),
    "s": frozenset({"list", "map", "int", "uint", "double", "bool", "string", "timestamp", "bytes", "duration",
                    "type", "null"}),
}
_MESSAGES = {
    "d": "decimal clause can only be used on integers",
    "o": "octal clause can only be used on integers",
    "f": "fixed-point clause can only be used on doubles",
    "e": "scientific clause can only be used on doubles",
    "b": "only integers and bools can be formatted as binary",
    "x": "only integers, byte buffers, and strings can be formatted as hex",
    "X": "only integers, byte buffers, and strings can be formatted as hex",
    "s": "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, "
         "and timestamps",
}


def refused(calls: list[Call], types: dict[int, Type], overloads: dict[int, tuple[str, ...]]
            ) -> list[tuple[Expr, str]]:
    """(where, message) for each format call the validator refuses, in the order of the calls."""
    found: list[tuple[Expr, str]] = []
    for call in calls:
        target = call.target
        resolved = overloads.get(call.id)
        if not (isinstance(target, Literal) and target.kind == "string" and len(call.args) == 1
                and isinstance(call.args[0], CreateList) and (not resolved or "string_format" in resolved)):
            continue
        elements = call.args[0].elements

        def clause(index: int, verb: str, _precision: int | None, elements: list[Expr] = elements) -> str:
            bad = _refusing(elements[index], _KINDS[verb], types, deep=verb == "s")
            if bad is not None:
                raise FormatError(f"{_MESSAGES[verb]}, was given {types.get(bad.id, DYN).name}", bad)
            return ""

        try:
            _text, used = interpolate(str(target.value), len(elements), clause, arguments_first=False)
        except FormatFailure as failure:
            found.append((failure.at if isinstance(failure.at, Expr) else call, failure.message))
            continue
        if len(elements) > used:
            found.append((call, f"too many arguments supplied to string.format (expected {used}, "
                                f"got {len(elements)})"))
    return found


def _refusing(node: Expr, kinds: frozenset[str], types: dict[int, Type], *, deep: bool) -> Expr | None:
    """The node (or, for `%s`, an element or entry of a list or map literal inside it) whose type the clause
    refuses, else None (upstream verifyTypeOneOf / verifyString)."""
    found = types.get(node.id, DYN)
    if found.kind != "dyn" and found.kind not in kinds:
        return node
    if deep and isinstance(node, CreateList):
        for element in node.elements:
            bad = _refusing(element, kinds, types, deep=True)
            if bad is not None:
                return bad
    if deep and isinstance(node, CreateMap):
        for key, value in node.entries:
            bad = _refusing(key, kinds, types, deep=True) or _refusing(value, kinds, types, deep=True)
            if bad is not None:
                return bad
    return None
