"""The Kubernetes regex library (apiserver `library.Regex`), and CEL's own `matches`.

    <string>.find(<string>) -> string                  the first match, "" when none
    <string>.findAll(<string>[, <int>]) -> list(string) all matches (at most n when n >= 0)
    <string>.matches(<string>) -> bool, matches(<string>, <string>) -> bool   a match anywhere (unanchored)
Patterns use RE2 syntax through google-re2, as cel-go uses Go's RE2 regexp; a refused pattern is worded as Go's
regexp words it (celext.regexes: `error parsing regexp: missing closing ): `(``, cel-go's error for a pattern it
meets at run time), and a constant one is refused at compile time (celext.check.regex).
"""

from __future__ import annotations

import functools
from typing import Any

import re2  # type: ignore[import-untyped]
from celpy import celtypes
from celpy.evaluation import CELEvalError

from celext.lib.library import Library, no_such_overload, overload
from celext.regexes import compiled, go_text

_S = celtypes.StringType


def _error(err: Exception) -> CELEvalError:
    return CELEvalError(go_text(err))


@functools.lru_cache(maxsize=4096)
def _first_match(pattern: str, text: str) -> str:
    """find() is pure, and fleets repeat attribute values: google-re2's Python wrapper costs more than a
    cache lookup. Raises re2.error for a bad pattern (never cached)."""
    found = compiled(pattern).search(text)
    return found.group(0) if found else ""


@functools.lru_cache(maxsize=4096)
def _matched(pattern: str, text: str) -> bool:
    """As _first_match: a cache lookup costs less than google-re2's wrapper. Raises re2.error for a bad pattern."""
    return compiled(pattern).search(text) is not None


def matches(text: str, pattern: str) -> Any:
    """cel-go `String.Match` (common/types/string.go): `regexp.MatchString`, its error as the value."""
    if not isinstance(text, str) or not isinstance(pattern, str):  # reached through dyn
        return no_such_overload("matches", (text, pattern))
    try:
        return celtypes.BoolType(_matched(str(pattern), str(text)))
    except re2.error as err:
        return _error(err)


def _illegal(err: Exception) -> CELEvalError:
    """apiserver library/regex.go find and findAll: `Illegal regex: %v` (a constant pattern is refused at compile
    time instead, celext.check.regex)."""
    return CELEvalError(f"Illegal regex: {go_text(err)}")


def _find(text: str, pattern: str) -> Any:
    try:
        return _S(_first_match(str(pattern), str(text)))
    except re2.error as err:
        return _illegal(err)


def _find_all(text: str, pattern: str, limit: int = -1) -> Any:
    try:
        regex = compiled(str(pattern))
    except re2.error as err:
        return _illegal(err)
    if limit == 0:
        return celtypes.ListType()
    found = []
    previous_end = -1
    for match in regex.finditer(str(text)):
        start, end = match.span()
        # Go's FindAllString: no empty match right where the previous match ended ("aaa".findAll("a*") is
        # ["aaa"], not ["aaa", ""])
        if not start == end == previous_end:
            found.append(_S(match.group(0)))
        previous_end = end
    return celtypes.ListType(found if limit < 0 else found[:limit])


def library() -> Library:
    return Library("kubernetes.regex", (
        overload("find", "string_find_string", (_S, _S), _find),
        overload("findAll", "string_find_all_string", (_S, _S), _find_all),
        overload("findAll", "string_find_all_string_int", (_S, _S, celtypes.IntType), _find_all),
    ))
