"""Go's `%q` of a string (strconv.Quote), as Go's error texts and cel-go's format() print one.

Shared by `format()` (celext.lib.format), blang/semver's errors (celext.semver) and strconv's errors in the
timestamp getters (celext.lib.timestamps); imports nothing of celext, so any module may use it.
"""

from __future__ import annotations

_GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
               "\\": "\\\\", '"': '\\"'}


def go_quote(text: str) -> str:
    """Escapes for quotes, backslashes and control characters; a character Python does not print as
    `\\xXX`, `\\uXXXX` or `\\UXXXXXXXX` (Go's IsPrint and Python's isprintable differ only where their Unicode
    tables do)."""
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
