"""The client certificate of the connection a request came on, and counting handshakes refused for lack of one.

WSGI has no standard key for the peer certificate. A front may put its DER bytes under `PEER_CERT` in the
environ; gunicorn instead hands the application its `ssl.SSLSocket` as `gunicorn.socket`, whose
`getpeercert(binary_form=True)` returns the certificate verified at the handshake. When neither is there, the
caller fails closed (403 `client_cert_unavailable`): a front that cannot say who called is not trusted.
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping
from typing import Any

from webhook.auth import refusals

PEER_CERT = "draguard.peer_cert"  # DER bytes of the verified client certificate, for fronts that set it

# OpenSSL's reasons for refusing a client at the handshake, by what a user must fix.
_MISSING = {"PEER_DID_NOT_RETURN_A_CERTIFICATE", "TLSV13_ALERT_CERTIFICATE_REQUIRED"}
_UNTRUSTED = {"CERTIFICATE_VERIFY_FAILED"}


def peer_certificate(environ: Mapping[str, Any]) -> bytes | None:
    der = environ.get(PEER_CERT)
    if isinstance(der, bytes) and der:
        return der
    getpeercert = getattr(environ.get("gunicorn.socket"), "getpeercert", None)
    if getpeercert is None:
        return None
    try:
        found = getpeercert(binary_form=True)
    except (ValueError, OSError):  # not connected any more, or no handshake done
        return None
    return found if isinstance(found, bytes) and found else None


def handshake_refusal(err: ssl.SSLError) -> str | None:
    """The `draguard_auth_refused_total` reason of a failed server handshake, None when not about the client's cert."""
    reason = getattr(err, "reason", None)
    if reason in _MISSING:
        return "client_cert_missing"
    if reason in _UNTRUSTED:
        return "client_cert_untrusted"
    return None


def count_handshake_error(err: ssl.SSLError) -> None:
    """Count a failed server handshake when it refused the client's certificate (the serving front calls this
    where it drives the handshake: gevent's SSLSocket ignores a context's socket class)."""
    reason = handshake_refusal(err)
    if reason is not None:
        refusals.count(reason)
