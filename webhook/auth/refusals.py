"""A refused request: its HTTP code, a stable reason (the metric label) and a one-line message.

Every refusal is counted in `draguard_auth_refused_total{reason}` and logged as one JSON line naming the reason,
path and peer; never the token itself. Bodies are JSON like every other answer on the port, and a 401 carries
RFC 6750's `WWW-Authenticate: Bearer` challenge.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from functools import cache
from typing import Any

from prometheus_client import Counter

from webhook.admission.logs import REQUEST_LOGGER

log = logging.getLogger(REQUEST_LOGGER)

# reason -> HTTP code (0: refused during the TLS handshake, no HTTP answer at all)
REASONS: dict[str, int] = {
    "client_cert_missing": 0,
    "client_cert_untrusted": 0,
    "client_cert_unavailable": 403,  # the serving front did not hand the peer certificate over: fail closed
    "subject_not_allowed": 403,
    "token_missing": 401,
    "token_malformed": 401,
    "token_unknown_key": 401,
    "token_signature": 401,
    "token_issuer": 401,
    "token_audience": 401,
    "token_expired": 401,
    "token_not_yet_valid": 401,
    "token_binding": 403,
    "api_group": 403,
}

REFUSED = Counter(
    "draguard_auth_refused_total",
    "Requests refused by authentication: at the TLS handshake (client certificate), 401 (token) or 403 (identity "
    "not allowed).",
    ["reason"],
)


@cache
def _counter(reason: str) -> Counter:
    return REFUSED.labels(reason)


class Refused(Exception):
    """Raised by a check; the middleware answers it. `reason` is one of `REASONS`."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.code = REASONS[reason]
        self.message = message


def count(reason: str) -> None:
    _counter(reason).inc()


def record(refused: Refused, environ: dict[str, Any]) -> None:
    count(refused.reason)
    fields = {
        "event": "auth-refused", "reason": refused.reason, "code": refused.code, "error": refused.message,
        "method": environ.get("REQUEST_METHOD", ""), "path": environ.get("PATH_INFO", ""),
        "remote": environ.get("REMOTE_ADDR", ""),
    }
    log.warning("request refused by authentication", extra={"fields": fields})


def answer(refused: Refused) -> tuple[str, list[tuple[str, str]], Iterable[bytes]]:
    """Status line, headers and body of the refusal."""
    name = "Unauthorized" if refused.code == 401 else "Forbidden"
    body = json.dumps({"code": refused.code, "error": name, "message": refused.message}).encode()
    headers = [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
    if refused.code == 401:
        # RFC 6750 section 3: no error code when the request carried no credentials at all
        challenge = "Bearer" if refused.reason == "token_missing" else 'Bearer error="invalid_token"'
        headers.append(("WWW-Authenticate", challenge))
    return f"{refused.code} {name}", headers, [body]
