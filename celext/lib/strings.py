"""cel-go's strings extension (`ext.Strings`, version 2 as in the Kubernetes base environment).

    <string>.charAt(<int>) -> string               <string>.indexOf(<string>[, <int>]) -> int
    <string>.lastIndexOf(<string>[, <int>]) -> int <string>.lowerAscii() / .upperAscii() -> string
    <string>.replace(<string>, <string>[, <int>])  <string>.split(<string>[, <int>]) -> list(string)
    <string>.substring(<int>[, <int>]) -> string   <string>.trim() -> string
    <list(string)>.join([<string>]) -> string      <string>.format(<list>) -> string
    strings.quote(<string>) -> string
Indexes count Unicode code points, as upstream. `format` supports %s %d %f %e %b %o %x %X %% with an
optional precision (`%.2f`); other verbs are a runtime error.
"""

from __future__ import annotations

import re
from typing import Any

from celpy import celtypes
from celpy.evaluation import CELEvalError

from celext.lib import Library, overload

_S = celtypes.StringType
_I = celtypes.IntType
_L = celtypes.ListType
_ASCII_UPPER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_ASCII_LOWER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_FORMAT_VERB = re.compile(r"%(?:\.(\d+))?([a-zA-Z%])")


def _char_at(text: str, index: int) -> Any:
    if index < 0 or index > len(text):
        return CELEvalError(f"index out of range: {index}")
    return _S(text[index:index + 1])


def _index_of(text: str, sub: str, offset: int = 0) -> Any:
    if offset < 0 or offset > len(text):
        return CELEvalError(f"index out of range: {offset}")
    return _I(text.find(sub, offset))


def _last_index_of(text: str, sub: str, offset: int | None = None) -> Any:
    if offset is None:
        return _I(text.rfind(sub))
    if offset < 0 or offset > len(text):
        return CELEvalError(f"index out of range: {offset}")
    return _I(text.rfind(sub, 0, offset + len(sub)))


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
    stop = len(text) if end is None else end
    if start < 0 or start > len(text):
        return CELEvalError(f"index out of range: {start}")
    if stop < 0 or stop > len(text):
        return CELEvalError(f"index out of range: {stop}")
    if start > stop:
        return CELEvalError(f"invalid substring range. start: {start}, end: {stop}")
    return _S(text[start:stop])


def _join(items: _L, sep: str = "") -> Any:
    if not all(isinstance(i, str) for i in items):
        return CELEvalError("join: list must contain only strings")
    return _S(sep.join(str(i) for i in items))


def _format_one(verb: str, precision: str | None, value: Any) -> str:
    if verb == "s":
        if isinstance(value, celtypes.BoolType):
            return "true" if value else "false"
        if isinstance(value, _L):
            return "[" + ", ".join(_format_one("s", None, v) for v in value) + "]"
        return str(value)
    if verb == "d":
        if isinstance(value, celtypes.BoolType) or not isinstance(value, int):
            raise ValueError("decimal clause can only be used on integers")
        return str(int(value))
    if verb in "fe":
        digits = 6 if precision is None else int(precision)
        return format(float(value), f".{digits}{verb}")
    if verb in "boxX":
        if isinstance(value, str):
            encoded = value.encode().hex()
            return encoded.upper() if verb == "X" else encoded
        return format(int(value), verb)
    raise ValueError(f"unrecognized formatting clause \"{verb}\"")


def _format(template: str, args: _L) -> Any:
    pieces: list[str] = []
    position = 0
    used = 0
    for match in _FORMAT_VERB.finditer(template):
        pieces.append(template[position:match.start()])
        position = match.end()
        if match.group(2) == "%":
            pieces.append("%")
            continue
        if used >= len(args):
            return CELEvalError(f"index {used} out of range")
        try:
            pieces.append(_format_one(match.group(2), match.group(1), args[used]))
        except (ValueError, TypeError) as err:
            return CELEvalError(f"error during formatting: {err}")
        used += 1
    pieces.append(template[position:])
    return _S("".join(pieces))


def _quote(text: str) -> Any:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return _S(f'"{escaped}"')


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
        overload("trim", "string_trim", (_S,), lambda s: _S(s.strip())),
        overload("join", "list_join", (_L,), _join),
        overload("join", "list_join_string", (_L, _S), _join),
        overload("format", "string_format", (_S, _L), _format),
        overload("strings.quote", "strings_quote", (_S,), _quote, member=False),
    ))
