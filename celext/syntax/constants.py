"""Literal runs in bulk: a list or map literal made only of literals is a constant, and the lean parse tree
(celext.syntax.parser, `lean=True`) holds it as one `const` node instead of one node per element.

Only where nothing can differ from the element-wise parse: at least `CONSTANT_RUN` elements (short literals
keep their shape, which the planner and lint know), every element a literal of one kind (so no element can
fail, and the list or map type-checks without joining types), map keys int, uint or string literals, all
distinct (a repeated key is an error where the map is built). Anything else returns None and is parsed
element by element.
"""

from __future__ import annotations

from typing import Any

from celext import values as celvalues
from celext.mapkeys import stored_key
from celext.syntax import literals
from celext.syntax.lexer import Lexeme
from celext.values import CELEvalError

CONSTANT_RUN = 16
_VALUE_KINDS = frozenset({"INT_LIT", "UINT_LIT", "FLOAT_LIT", "STRING_LIT", "MLSTRING_LIT", "BOOL_LIT"})
_KEY_KINDS = frozenset({"INT_LIT", "UINT_LIT", "STRING_LIT"})


def constant_list(tokens: list[Lexeme], start: int) -> tuple[celvalues.ListType, int] | None:
    """The list whose elements start at `tokens[start]` (after its `[`) and the index of its `]`, or None."""
    kind = tokens[start][0]
    if kind not in _VALUE_KINDS:
        return None
    values: list[Any] = []
    at = start
    while tokens[at][0] == kind:  # (the token list ends with `$END`, never a literal)
        value = literals.value_of(kind, tokens[at][1])
        if isinstance(value, CELEvalError):
            return None
        values.append(value)
        at += 1
        if tokens[at][0] == ",":
            at += 1
        elif tokens[at][0] == "]":
            break
        else:
            return None
    if tokens[at][0] != "]" or len(values) < CONSTANT_RUN:
        return None
    return celvalues.ListType(values), at


def constant_map(tokens: list[Lexeme], start: int) -> tuple[celvalues.MapType, int] | None:
    """The map whose entries start at `tokens[start]` (after its `{`) and the index of its `}`, or None."""
    key_kind = tokens[start][0]
    if key_kind not in _KEY_KINDS:
        return None
    value_kind = tokens[start + 2][0] if start + 2 < len(tokens) else ""
    if value_kind not in _VALUE_KINDS:
        return None
    found = celvalues.MapType()
    at = start
    while tokens[at][0] == key_kind and tokens[at + 1][0] == ":" and tokens[at + 2][0] == value_kind:
        key = literals.value_of(key_kind, tokens[at][1])
        value = literals.value_of(value_kind, tokens[at + 2][1])
        key = stored_key(key)  # (as a map literal stores it: a uint apart from the int of its value)
        if isinstance(key, CELEvalError) or isinstance(value, CELEvalError) or key in found:
            return None
        found[key] = value
        at += 3
        if tokens[at][0] == ",":
            at += 1
        elif tokens[at][0] == "}":
            break
        else:
            return None
    if tokens[at][0] != "}" or len(found) < CONSTANT_RUN:
        return None
    return found, at
