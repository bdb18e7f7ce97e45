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
    "no argument for repetition operator": "missing argument to repetition operator",
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
    regex = re2.compile(pattern, _QUIET)
    refusal = _go_refusal(pattern)
    if refusal is not None:
        raise re2.error(refusal)
    return regex


def _go_refusal(pattern: str) -> str | None:
    """What Go's regexp/syntax refuses in a pattern RE2 compiles, as an RE2 error text (`go_text` words it as Go):
    a repeat count of ten digits or more (Go's parseInt gives up past 10^8 and the count is invalid; RE2 reads the
    braces as literal text), and a capture group name that is not ASCII letters, digits and `_` (Go's
    isValidCaptureName; RE2 also takes other word characters). Scans as Go's parser does: `\\Q...\\E` literals,
    escapes and character classes are passed over."""
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            if pattern.startswith("Q", i + 1):
                end = pattern.find("\\E", i + 2)
                i = n if end < 0 else end + 2
            else:
                i = _past_escape(pattern, i)
        elif c == "[":
            i = _past_class(pattern, i)
        elif pattern.startswith(("(?P<", "(?<"), i) and not pattern.startswith(("(?<=", "(?<!"), i):
            start = i + (4 if pattern[i + 2] == "P" else 3)
            close = pattern.find(">", start)
            name = pattern[start:close]
            if not name or not all(ch == "_" or (ch.isascii() and ch.isalnum()) for ch in name):
                return f"invalid named capture group: {pattern[i:close + 1]}"
            i = close + 1
        elif c == "{" and (repeat_end := _too_large_repeat(pattern, i)) is not None:
            return f"invalid repetition size: {pattern[i:repeat_end]}"
        else:
            i += 1
    return None


def _past_escape(pattern: str, i: int) -> int:
    """The index after the escape at `i` (`\\x{...}` and `\\p{...}` end at their brace)."""
    if pattern[i + 1:i + 2] in ("x", "p", "P") and pattern.startswith("{", i + 2):
        close = pattern.find("}", i + 3)
        return len(pattern) if close < 0 else close + 1
    return i + 2


def _past_class(pattern: str, i: int) -> int:
    """The index after the character class opening at `i` (Go parseClass: a `]` first is a literal; `[:name:]`)."""
    j, n, first = i + 1, len(pattern), True
    if pattern.startswith("^", j):
        j += 1
    while j < n and (pattern[j] != "]" or first):
        first = False
        if pattern.startswith("[:", j) and (close := pattern.find(":]", j + 2)) >= 0:
            j = close + 2
        elif pattern[j] == "\\":
            j = _past_escape(pattern, j)
        else:
            j += 1
    return j + 1


def _go_int(pattern: str, i: int) -> tuple[int, int] | None:
    """Go's regexp parseInt at `i`: (value, index after the digits), the value -1 past 10^8; None when there are no
    digits or a leading zero."""
    j = i
    while j < len(pattern) and "0" <= pattern[j] <= "9":
        j += 1
    if j == i or (j - i >= 2 and pattern[i] == "0"):
        return None
    value = 0
    for digit in pattern[i:j]:
        if value >= 100_000_000:
            return -1, j
        value = value * 10 + int(digit)
    return value, j


def _too_large_repeat(pattern: str, i: int) -> int | None:
    """The end of a `{n}`, `{n,}` or `{n,m}` repeat at `i` whose count Go's parseInt gave up on, else None."""
    low = _go_int(pattern, i + 1)
    if low is None:
        return None
    too_large, j = low[0] < 0, low[1]
    if pattern.startswith(",", j) and not pattern.startswith(",}", j):
        high = _go_int(pattern, j + 1)
        if high is None:
            return None
        too_large, j = too_large or high[0] < 0, high[1]
    elif pattern.startswith(",", j):
        j += 1
    return j + 1 if too_large and pattern.startswith("}", j) else None


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
