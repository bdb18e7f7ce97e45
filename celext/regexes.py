"""RE2 patterns, compiled once and quietly, and their refusals in the words of Go's regexp.

Shared by the checker (constant patterns are judged when a selector is compiled: celext.check.regex) and the
Kubernetes regex library at run time (celext.lib.regex); imports neither cel-python nor lark.
"""

from __future__ import annotations

import functools
from typing import Any

import re2  # type: ignore[import-untyped]

# RE2's error code texts (re2/regexp.cc) -> Go's regexp/syntax ErrorCode texts.
_GO_CODES = {
    "missing )": "missing closing )",
    "missing ]": "missing closing ]",
    "unexpected )": "unexpected )",
    "bad repetition operator": "invalid nested repetition operator",
    "invalid repetition size": "invalid repeat count",
    "missing argument to repetition operator": "missing argument to repetition operator",
    "trailing \\": "trailing backslash at end of expression",
    "invalid escape sequence": "invalid escape sequence",
    "invalid character class": "invalid character class",
    "invalid character class range": "invalid character class range",
    "invalid named capture group": "invalid named capture",
    "duplicate capture group name": "duplicate capture group name",
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "invalid UTF-8": "invalid UTF-8",
    "pattern too large - compile failed": "expression too large",
    "pattern too large - reverse compile failed": "expression too large",
    "bad repetition count": "invalid repeat count",
}


def _options() -> re2.Options:
    options = re2.Options()
    options.log_errors = False  # RE2 would log every refused pattern to stderr itself
    return options


_QUIET = _options()


@functools.lru_cache(maxsize=1024)
def go_error(pattern: str) -> str | None:
    """Go's `regexp.Compile` error text for a pattern RE2 refuses (None when it compiles)."""
    try:
        compiled(pattern)
    except re2.error as err:
        return go_text(err)
    return None


def go_text(err: Exception) -> str:
    """RE2's refusal (`missing ): (`) in the words of Go's regexp/syntax (`missing closing ): `(``)."""
    detail = err.args[0] if err.args else str(err)
    if isinstance(detail, bytes):
        detail = detail.decode(errors="replace")
    code, _, fragment = str(detail).partition(": ")
    return f"error parsing regexp: {_GO_CODES.get(code, code)}: `{fragment}`"


@functools.lru_cache(maxsize=256)
def compiled(pattern: str) -> Any:
    if _has_any_byte(pattern):  # RE2 (C++) takes `\C`, any one byte; Go's regexp/syntax has no such escape
        raise re2.error("invalid escape sequence: \\C")
    return re2.compile(pattern, _QUIET)


def _has_any_byte(pattern: str) -> bool:
    """Whether the pattern holds the escape `\\C` (outside a `\\Q...\\E` literal), which Go refuses."""
    if "\\C" not in pattern:
        return False
    i = 0
    while (i := pattern.find("\\", i)) >= 0:
        escaped = pattern[i + 1:i + 2]
        if escaped == "C":
            return True
        if escaped == "Q":  # a literal up to `\\E` (or the end)
            end = pattern.find("\\E", i + 2)
            if end < 0:
                return False
            i = end
        i += 2
    return False
