"""Go's strconv, as Go's error texts and cel-go's conversions use it: `Quote` (`%q`), and `ParseInt`/`ParseUint`
in base 10 (also `Atoi`, which is ParseInt under its own name).

Go's int64 and uint64 ranges (`INT64`, `UINT64_MAX`) live here too. Shared by `format()` (celext.lib.format),
`int()`/`uint()` of a string (celext.lib.operators), blang/semver's numbers (celext.semver) and the timestamp
getters' offsets (celext.lib.timestamps); imports nothing of celext, so any module may use it.
"""

from __future__ import annotations

import re

_GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
               "\\": "\\\\", '"': '\\"'}
# Base 10: ASCII digits, a sign only for ParseInt; no underscores, blanks or base prefixes, which int() takes.
_SIGNED = re.compile(r"[+-]?[0-9]+", re.ASCII)
_UNSIGNED = re.compile(r"[0-9]+", re.ASCII)
INT64 = (-(2**63), 2**63 - 1)  # Go's int64 and uint64 ranges, shared by every module that checks them
UINT64_MAX = 2**64 - 1


def go_quote(text: str) -> str:
    """Escapes for quotes, backslashes and control characters; a character Python does not print as
    `\\xXX`, `\\uXXXX` or `\\UXXXXXXXX` (Go's IsPrint and Python's isprintable differ only where their Unicode
    tables do)."""
    if text.isprintable() and '"' not in text and "\\" not in text:  # the common case, in one C pass
        return f'"{text}"'
    out = []
    for char in text:
        if char in _GO_ESCAPES:
            out.append(_GO_ESCAPES[char])
        elif not char.isprintable():
            code = ord(char)
            out.append(f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def parse_int(text: str, function: str = "ParseInt") -> int:
    """`strconv.ParseInt(text, 10, 64)`; raises ValueError with Go's text (`strconv.Atoi: parsing "x": invalid
    syntax`, `...: value out of range`) under the name of the `function` called."""
    if not _SIGNED.fullmatch(text):
        raise ValueError(f"strconv.{function}: parsing {go_quote(text)}: invalid syntax")
    value = _digits(text)
    if value is None or not INT64[0] <= value <= INT64[1]:
        raise ValueError(f"strconv.{function}: parsing {go_quote(text)}: value out of range")
    return value


def parse_uint(text: str) -> int:
    """`strconv.ParseUint(text, 10, 64)`; raises ValueError with Go's text, as parse_int."""
    if not _UNSIGNED.fullmatch(text):
        raise ValueError(f"strconv.ParseUint: parsing {go_quote(text)}: invalid syntax")
    value = _digits(text)
    if value is None or value > UINT64_MAX:
        raise ValueError(f"strconv.ParseUint: parsing {go_quote(text)}: value out of range")
    return value


def _digits(text: str) -> int | None:
    """int() of a signed decimal numeral, or None when it has more significant digits than any 64-bit value
    (Python refuses to convert more than 4,300 digits, leading zeros included; Go's parsers just overflow)."""
    significant = text.lstrip("+-").lstrip("0")
    if len(significant) > 20:
        return None
    value = int(significant or "0")
    return -value if text.startswith("-") else value
