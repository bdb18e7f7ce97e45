"""cel-go's strings extension (`ext.Strings`, version 2 as in the Kubernetes base environment).

    <string>.charAt(<int>) -> string               <string>.indexOf(<string>[, <int>]) -> int
    <string>.lastIndexOf(<string>[, <int>]) -> int <string>.lowerAscii() / .upperAscii() -> string
    <string>.replace(<string>, <string>[, <int>])  <string>.split(<string>[, <int>]) -> list(string)
    <string>.substring(<int>[, <int>]) -> string   <string>.trim() -> string
    <list(string)>.join([<string>]) -> string      <string>.format(<list>) -> string
    strings.quote(<string>) -> string
Indexes count Unicode code points, as upstream. `format` is in `celext.lib.format` (version 2's formatter).
"""

from __future__ import annotations

from typing import Any

from celext import values as celvalues
from celext.lib.format import format_string, go_value
from celext.lib.ints import cel_int
from celext.lib.library import Library, overload
from celext.values import CELEvalError

_S = celvalues.StringType
_I = celvalues.IntType
_L = celvalues.ListType
_ASCII_UPPER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_ASCII_LOWER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _char_at(text: str, index: int) -> Any:
    if index < 0 or index > len(text):
        return CELEvalError(f"index out of range: {index}")
    return _S(text[index:index + 1])


def _index_of(text: str, sub: str, offset: int = 0) -> Any:
    """cel-go v0.26 indexOfOffset: an empty `sub` is found at the offset as given; a negative offset is an
    error; an offset at or past the end finds nothing (the cel-spec tests that expect an error there are the ones
    cel-go's own conformance run skips)."""
    if sub == "":
        return cel_int(offset)
    if offset < 0:
        return CELEvalError(f"index out of range: {offset}")
    return cel_int(text.find(sub, offset) if offset < len(text) else -1)


def _last_index_of(text: str, sub: str, offset: int | None = None) -> Any:
    """cel-go v0.26 lastIndexOf / lastIndexOfOffset, as `_index_of` treats the offset."""
    if offset is None:
        return cel_int(text.rfind(sub))
    if sub == "":
        return cel_int(offset)
    if offset < 0:
        return CELEvalError(f"index out of range: {offset}")
    return cel_int(text.rfind(sub, 0, offset + len(sub)) if offset < len(text) else -1)


def _replace(text: str, old: str, new: str, count: int = -1) -> Any:
    return _S(text.replace(old, new, count if count >= 0 else -1))


def _split(text: str, sep: str, limit: int = -1) -> Any:
    if limit == 0:
        return _L()
    if sep == "":
        parts = list(text)
        if limit > 0 and len(parts) > limit:
            parts = [*parts[:limit - 1], "".join(parts[limit - 1:])]
        return _L(_S(p) for p in parts)
    parts = text.split(sep) if limit < 0 else text.split(sep, limit - 1)
    return _L(_S(p) for p in parts)


def _substring(text: str, start: int, end: int | None = None) -> Any:
    """cel-go substr / substrRange: with an end, a reversed range is refused before either index is checked."""
    if end is not None and start > end:
        return CELEvalError(f"invalid substring range. start: {start}, end: {end}")
    stop = len(text) if end is None else end
    if start < 0 or start > len(text):
        return CELEvalError(f"index out of range: {start}")
    if stop < 0 or stop > len(text):
        return CELEvalError(f"index out of range: {stop}")
    return _S(text[start:stop])


def _join(items: _L, sep: str = "") -> Any:
    for item in items:
        if not isinstance(item, str):  # cel-go joinValSeparator: the first element that is not a string, as %v
            return CELEvalError(f"join: invalid input: {go_value(item)}")
    return _S(sep.join(str(i) for i in items))


def _quote(text: str) -> Any:
    """cel-go's `strings.quote`: escapes for \\a \\b \\f \\n \\r \\t \\v, backslash and double quote."""
    return _S('"' + "".join(_QUOTE_ESCAPES.get(c, c) for c in text) + '"')


_QUOTE_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
                  "\\": "\\\\", '"': '\\"'}


# Go's strings.TrimSpace (cel-go's trim): Unicode White_Space. Python's str.strip() also strips U+001C-U+001F,
# which Go keeps.
GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
           "\u2028\u2029\u202f\u205f\u3000"


def library() -> Library:
    return Library("ext.strings", (
        overload("charAt", "string_char_at_int", (_S, _I), _char_at),
        overload("indexOf", "string_index_of_string", (_S, _S), _index_of),
        overload("indexOf", "string_index_of_string_int", (_S, _S, _I), _index_of),
        overload("lastIndexOf", "string_last_index_of_string", (_S, _S), _last_index_of),
        overload("lastIndexOf", "string_last_index_of_string_int", (_S, _S, _I), _last_index_of),
        overload("lowerAscii", "string_lower_ascii", (_S,), lambda s: _S(s.translate(_ASCII_UPPER))),
        overload("upperAscii", "string_upper_ascii", (_S,), lambda s: _S(s.translate(_ASCII_LOWER))),
        overload("replace", "string_replace_string_string", (_S, _S, _S), _replace),
        overload("replace", "string_replace_string_string_int", (_S, _S, _S, _I), _replace),
        overload("split", "string_split_string", (_S, _S), _split),
        overload("split", "string_split_string_int", (_S, _S, _I), _split),
        overload("substring", "string_substring_int", (_S, _I), _substring),
        overload("substring", "string_substring_int_int", (_S, _I, _I), _substring),
        overload("trim", "string_trim", (_S,), lambda s: _S(s.strip(GO_SPACE))),
        overload("join", "list_join", (_L,), _join),
        overload("join", "list_join_string", (_L, _S), _join),
        overload("format", "string_format", (_S, _L), format_string),
        overload("strings.quote", "strings_quote", (_S,), _quote, member=False),
    ))
