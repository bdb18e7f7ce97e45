"""The values of CEL literal tokens, decoded as cel-go decodes them (`parser/unescape.go`).

Strings and bytes: quotes `'`/`"` or triple quotes (raw newlines allowed), an `r`/`R` prefix turns escapes off;
escapes `\\a \\b \\f \\n \\r \\t \\v \\\\ \\' \\" \\` \\?`, `\\x`/`\\X` with two hex digits, `\\u` with four,
`\\U` with eight, and three octal digits. In a string those name code points; in bytes, `\\x` and octal name
bytes and `\\u`/`\\U` are errors. A string or bytes literal with a bad escape is refused by the parser
with cel-go's text (`escape_error`). Numbers are read as cel-go's `VisitInt`/`VisitUint`/`VisitDouble` read them
(`strconv.ParseInt`/`ParseUint`/`ParseFloat`): an int or uint beyond 64 bits, or a double that overflows to
infinity, is refused by the parser at the literal (`number_error`: `invalid int literal`, `invalid uint literal`,
`invalid double literal`); its `value_of` is an error value.
"""

from __future__ import annotations

import math
import re
from typing import Any

from celext import values as celvalues
from celext.gostrconv import INT64, UINT64_MAX
from celext.syntax.nodes import Token
from celext.values import CELEvalError

_SIMPLE = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\", "'": "'",
           '"': '"', "`": "`", "?": "?"}
_ESCAPE = re.compile(r"\\(?:([abfnrtv\\'\"`?])|[xX]([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})"
                     r"|([0-3][0-7]{2})|([0-3].?.?)|(.?))", re.S)
# cel-go's unescape() texts (parser/unescape.go); its parser reports them at the literal.
UNESCAPE = "unable to unescape string"
BAD_OCTAL = "unable to unescape octal sequence in string"
BAD_CODE_POINT = "invalid unicode code point"


def _body(text: str) -> tuple[str, bool]:
    """The text between the quotes and whether the literal is raw (prefixes `b` and `r` in either order)."""
    raw = False
    while text[:1] in ("r", "R", "b", "B"):
        raw = raw or text[0] in "rR"
        text = text[1:]
    quote = text[:3] if text[:3] in ('"""', "'''") else text[:1]
    return text[len(quote):len(text) - len(quote)], raw


def _escape(match: re.Match[str], is_bytes: bool) -> str | int:
    """One escape's value as cel-go's unescapeChar reads it: a code point (str) or, in bytes, a byte (int).
    Raises ValueError with cel-go's text."""
    simple, hex2, hex4, hex8, octal, bad_octal, _ = match.groups()
    if simple:
        return _SIMPLE[simple]
    if bad_octal is not None:
        raise ValueError(BAD_OCTAL)
    if (hex4 or hex8) and is_bytes:
        raise ValueError(UNESCAPE)  # \u and \U name code points: not in bytes
    if not (hex2 or hex4 or hex8 or octal):
        raise ValueError(UNESCAPE)
    code = int(octal, 8) if octal else int(hex2 or hex4 or hex8, 16)
    if is_bytes and (hex2 or octal):
        return code
    if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        raise ValueError(BAD_CODE_POINT)
    return chr(code)


def decode_string(text: str) -> str:
    """The value of a string literal token's text. Raises ValueError (cel-go's text) on a bad escape."""
    body, raw = _body(text)
    if raw or "\\" not in body:
        return body
    return _ESCAPE.sub(lambda match: str(_escape(match, False)), body)


def string_value(text: str) -> str | None:
    """The value of a CEL string literal token (quotes, raw prefix and escapes as cel-go decodes them), or None."""
    try:
        return decode_string(text)
    except ValueError:
        return None


def decode_bytes(text: str) -> bytes:
    """The value of a bytes literal token's text. Raises ValueError (cel-go's text) on a bad escape."""
    body, raw = _body(text)
    if raw or "\\" not in body:
        return body.encode("utf-8")
    out = bytearray()
    at = 0
    for match in _ESCAPE.finditer(body):
        out += body[at:match.start()].encode("utf-8")
        at = match.end()
        value = _escape(match, True)
        if isinstance(value, int):
            out.append(value)
        else:
            out += value.encode("utf-8")
    out += body[at:].encode("utf-8")
    return bytes(out)


def escape_error(kind: str, text: str) -> str | None:
    """cel-go's parser error for a string or bytes literal token whose escapes do not decode, else None."""
    try:
        if kind in ("STRING_LIT", "MLSTRING_LIT"):
            decode_string(text)
        elif kind == "BYTES_LIT":
            decode_bytes(text)
    except ValueError as err:
        return str(err)
    return None


def _integer(text: str) -> int:
    negative = text.startswith("-")
    digits = text[1:] if negative else text
    value = int(digits[2:], 16) if digits[:2] == "0x" else int(digits, 10)
    return -value if negative else value


# cel-go's parser texts for a number literal strconv cannot read (parser/parser.go VisitInt, VisitUint, VisitDouble)
INVALID_NUMBER = {"INT_LIT": "invalid int literal", "UINT_LIT": "invalid uint literal",
                  "FLOAT_LIT": "invalid double literal"}


def number_error(kind: str, text: str) -> str | None:
    """cel-go's parser error for a number literal token that has no value (an int or uint beyond 64 bits, a double
    that overflows: `strconv.ParseFloat`'s ErrRange), else None. cel-go reports it at the literal, its sign
    included."""
    if kind in INVALID_NUMBER and isinstance(value_of(kind, text), CELEvalError):
        return INVALID_NUMBER[kind]
    return None


def value(token: Token) -> Any:
    """The CEL value of a literal token (celtypes), or a CELEvalError for a literal no CEL value has."""
    return value_of(token.type, str(token))


def value_of(kind: str, text: str) -> Any:
    """`value()` of a token of this kind and text."""
    try:
        if kind == "INT_LIT":
            number = _integer(text)
            if not INT64[0] <= number <= INT64[1]:
                return CELEvalError(f"invalid int literal: {text}")
            return int.__new__(celvalues.IntType, number)  # range checked: skip celtypes' slow wrapper
        if kind == "UINT_LIT":
            number = _integer(text[:-1])
            if not 0 <= number <= UINT64_MAX:
                return CELEvalError(f"invalid uint literal: {text}")
            return int.__new__(celvalues.UintType, number)
        if kind == "FLOAT_LIT":
            double = float(text)
            if math.isinf(double):  # (Go's ParseFloat: ErrRange; the text of a literal never spells `inf`)
                return CELEvalError(f"invalid double literal: {text}")
            return celvalues.DoubleType(double)
        if kind in ("STRING_LIT", "MLSTRING_LIT"):
            return celvalues.StringType(decode_string(text))
        if kind == "BYTES_LIT":
            return celvalues.BytesType(decode_bytes(text))
        if kind == "BOOL_LIT":
            return celvalues.BoolType(text == "true")
        if kind == "NULL_LIT":
            return None
    except ValueError as err:
        return CELEvalError(f"invalid literal {text}: {err}")
    return CELEvalError(f"unknown literal {kind} {text}")
