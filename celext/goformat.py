"""cel-go's `string.format` scanner (v0.26, ext/formatting.go `parseFormatString`, the strings extension at the
version Kubernetes declares), shared by the run time (celext.lib.format) and the compile-time validator
(celext.check.format_calls), so both read a format string the same way and fail with the same words.

    text, used = interpolate(template, count, clause, arguments_first=True)

`clause(index, verb, precision)` makes the text of one clause (`%s`, `%.3f`, ...) for argument `index`, or raises
`FormatError`; `interpolate` raises `FormatFailure` with upstream's message:

- `%%` is a `%`; any other `%` takes the next argument (`index N out of range` past the last one; the run time
  asks for it first, the validator after the end-of-string check, as upstream's two argument lists do);
- a `%` at the end: `unexpected end of string`;
- a precision `.digits` that never ends or has no digits: `could not parse formatting clause: error while parsing
  precision: ...` with Go's strconv text;
- a verb other than s, d, f, e, b, x, X, o: `could not parse formatting clause: unrecognized formatting clause
  "q"` (Go reads one byte: a non-ASCII verb shows as the character of its first UTF-8 byte);
- a clause that cannot format its argument: `error during formatting: <the clause's message>`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from celext.gostrconv import parse_int

__all__ = ["VERBS", "FormatError", "FormatFailure", "interpolate"]

VERBS = frozenset("sdfebxXo")
_PRECISION = "could not parse formatting clause: error while parsing precision: "


class FormatError(ValueError):
    """A clause that cannot format its argument; `at` is what the validator reports the error at."""

    def __init__(self, message: str, at: Any = None) -> None:
        super().__init__(message)
        self.at = at


class FormatFailure(Exception):
    """The format call's error: `message` as upstream words it, `at` the argument it is about (None: the call)."""

    def __init__(self, message: str, at: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.at = at


Clause = Callable[[int, str, int | None], str]  # (argument index, verb, precision) -> the clause's text


def interpolate(template: str, count: int, clause: Clause, *, arguments_first: bool) -> tuple[str, int]:
    """The formatted text and how many arguments the clauses took. Raises FormatFailure. `arguments_first`: the run
    time's argument list answers `index N out of range` before the end-of-string check (the validator's, after)."""
    out: list[str] = []
    used, i, end = 0, 0, len(template)
    while True:
        at = template.find("%", i)
        if at < 0:
            out.append(template[i:])
            return "".join(out), used
        out.append(template[i:at])
        if at + 1 < end and template[at + 1] == "%":
            out.append("%")
            i = at + 2
            continue
        if arguments_first and used >= count:
            raise _out_of_range(used)
        if at + 1 >= end:
            raise FormatFailure("unexpected end of string")
        if used >= count:
            raise _out_of_range(used)
        verb_at, precision = _precision(template, at + 1)
        verb = template[verb_at]
        if verb not in VERBS:
            shown = verb if verb < "\x80" else chr(verb.encode("utf-8", "surrogatepass")[0])
            raise FormatFailure(f'could not parse formatting clause: unrecognized formatting clause "{shown}"')
        try:
            out.append(clause(used, verb, precision))
        except FormatError as err:
            raise FormatFailure(f"error during formatting: {err}", err.at) from None
        used += 1
        i = verb_at + 1


def _out_of_range(index: int) -> FormatFailure:
    return FormatFailure(f"index {index} out of range")


def _precision(template: str, start: int) -> tuple[int, int | None]:
    """upstream parsePrecision: where the verb is, and the precision (None when there is no `.`)."""
    if template[start] != ".":
        return start, None
    i = start + 1
    while True:
        if i >= len(template):
            raise FormatFailure(_PRECISION + "could not find end of precision specifier")
        if not "0" <= template[i] <= "9":
            break
        i += 1
    try:
        return i, parse_int(template[start + 1:i], "Atoi")  # (digits only: never negative)
    except ValueError as err:  # no digits, or more than int64 holds
        raise FormatFailure(_PRECISION + f"error while converting precision to integer: {err}") from None
