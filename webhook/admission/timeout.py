"""The caller's `?timeout=` on a review's URL, and the evaluation deadline it leaves draguard.

The API server calls a webhook with `?timeout=<Go duration>` appended to its URL: the time left before it gives up
on the call, the webhook's `timeoutSeconds` (or the less the request itself has left), rounded up to whole seconds
(`k8s.io/apiserver/pkg/admission/plugin/webhook/validating/dispatcher.go`, `callHook`; written by client-go's
`Request.Timeout`). An answer after that is never read: the API server applies the failure policy instead, and
under `failurePolicy: Ignore` the object is admitted unchecked. So the evaluation deadline is the shorter of
`--deadline` and this timeout less the time the answer needs to travel back (`webhook.budget.Budget.within`), and
an object that cannot be checked in time is answered `budget-exceeded` (deny by default) while the API server still
listens.

The value is read as the API server reads its own `?timeout=` (`endpoints/filters/request_deadline.go`,
`parseTimeout`): the first `timeout` parameter, empty meaning none, parsed by Go's `time.ParseDuration`, a text it
refuses answered 400 with its words, and a value of zero or less ignored.
"""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import parse_qs

INVALID_TIMEOUT = "invalid timeout specified in the request URL"  # upstream's invalidTimeoutInURL

_UNITS = {"ns": 1e-9, "us": 1e-6, "\u00b5s": 1e-6, "\u03bcs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_PART = re.compile(r"([0-9]*)(\.[0-9]*)?([^0-9.]*)")  # Go's leadingInt, fraction, then the unit up to a digit or '.'
_MAX_SECONDS = (2**63 - 1) / 1e9  # a time.Duration is int64 nanoseconds


class InvalidDuration(ValueError):
    """A text `time.ParseDuration` refuses; the message is Go's."""


def go_duration(text: str) -> float:
    """Seconds in `text` as Go's `time.ParseDuration` reads it (`1s`, `1m0s`, `1.5h`, `-2s`, `0`)."""
    body = text[1:] if text[:1] in ("+", "-") else text
    if body == "0":
        return 0.0
    if not body:
        raise InvalidDuration(f'time: invalid duration "{text}"')
    total, at = 0.0, 0
    while at < len(body):
        match = _PART.match(body, at)
        assert match is not None  # every group may be empty
        whole, fraction, unit = match.groups()
        if not whole and len(fraction or "") < 2:  # Go needs a digit before or after the point
            raise InvalidDuration(f'time: invalid duration "{text}"')
        if not unit:
            raise InvalidDuration(f'time: missing unit in duration "{text}"')
        if unit not in _UNITS:
            raise InvalidDuration(f'time: unknown unit "{unit}" in duration "{text}"')
        total += float(whole + (fraction or "")) * _UNITS[unit]
        at = match.end()
    if total > _MAX_SECONDS:
        raise InvalidDuration(f'time: invalid duration "{text}"')
    return -total if text[:1] == "-" else total


@lru_cache(maxsize=64)  # the API server sends the same few queries (`timeout=3s`) on every call
def requested_timeout(query: str) -> tuple[str, float] | None:
    """The `timeout` parameter of a URL's query (as written, and in seconds), None when there is none or it is zero
    or less; `InvalidDuration` (with upstream's words before Go's) when it is no duration."""
    text = parse_qs(query, keep_blank_values=True).get("timeout", [""])[0]  # url.Values.Get: the first value
    if not text:
        return None
    try:
        seconds = go_duration(text)
    except InvalidDuration as err:
        raise InvalidDuration(f"{INVALID_TIMEOUT} - {err}") from None
    return (text, seconds) if seconds > 0 else None
