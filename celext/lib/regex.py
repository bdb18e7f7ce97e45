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

from celext import values as celvalues
from celext.lib.library import Library, no_such_overload, overload
from celext.regexes import compiled, go_text
from celext.values import CELEvalError

_S = celvalues.StringType


def _error(err: Exception) -> CELEvalError:
    return CELEvalError(go_text(err))


def _search(regex: Any, data: bytes, pos: int = 0) -> tuple[int, int] | None:
    """The leftmost match at or after byte `pos` of UTF-8 `data`, as Go's regexp finds it. Go tries a match only
    where a character starts; RE2 tries every byte, so an empty match between the bytes of one character (`\\B`
    inside `日`, where both neighbours are non-word bytes) is one Go never sees: passed over, and the search goes on
    at the next character."""
    while True:
        found = regex.search(data, pos)
        if found is None:
            return None
        start, end = found.span()
        if start == len(data) or data[start] & 0xC0 != 0x80:  # not a UTF-8 continuation byte
            return start, end
        pos = start + 1
        while pos < len(data) and data[pos] & 0xC0 == 0x80:
            pos += 1


@functools.lru_cache(maxsize=4096)
def _first_match(pattern: str, text: str) -> str:
    """find() is pure, and fleets repeat attribute values: google-re2's Python wrapper costs more than a
    cache lookup. Raises re2.error for a bad pattern (never cached)."""
    data = text.encode()
    found = _search(compiled(pattern), data)
    return data[found[0]:found[1]].decode() if found else ""


@functools.lru_cache(maxsize=4096)
def _matched(pattern: str, text: str) -> bool:
    """As _first_match: a cache lookup costs less than google-re2's wrapper. Raises re2.error for a bad pattern."""
    return _search(compiled(pattern), text.encode()) is not None


def matches(text: str, pattern: str) -> Any:
    """cel-go `String.Match` (common/types/string.go): `regexp.MatchString`, its error as the value."""
    if not isinstance(text, str) or not isinstance(pattern, str):  # reached through dyn
        return no_such_overload("matches", (text, pattern))
    try:
        return celvalues.BoolType(_matched(str(pattern), str(text)))
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
        return celvalues.ListType()
    return celvalues.ListType(_S(m) for m in _all_matches(regex, str(text), limit))


def _all_matches(regex: Any, text: str, limit: int) -> list[str]:
    """Go's `FindAllString` (regexp.go allMatches): after an empty match the search moves on by one character, and
    an empty match right where the previous match ended is not taken ("aaa".findAll("a*") is ["aaa"]; "baaa" gives
    ["", "aaa"])."""
    data = text.encode()
    found: list[str] = []
    pos, previous_end = 0, -1
    while pos <= len(data) and len(found) != limit:
        span = _search(regex, data, pos)
        if span is None:
            break
        start, end = span
        if end == pos:  # an empty match where the search began
            accept = start != previous_end
            pos += 1
            while pos < len(data) and data[pos] & 0xC0 == 0x80:
                pos += 1
        else:
            accept, pos = True, end
        previous_end = end
        if accept:
            found.append(data[start:end].decode())
    return found


def library() -> Library:
    return Library("kubernetes.regex", (
        overload("find", "string_find_string", (_S, _S), _find),
        overload("findAll", "string_find_all_string", (_S, _S), _find_all),
        overload("findAll", "string_find_all_string_int", (_S, _S, celvalues.IntType), _find_all),
    ))
