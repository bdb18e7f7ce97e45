"""Only the API server may call the webhook: client certificates (mTLS) and KEP-6060 bearer tokens, both opt-in.

Two seams plug this into any serving front:

- TLS: `certs.reload.TLSReloader(client_ca=...)` makes every handshake require a client certificate chaining to
  `--client-ca` (reloaded with the serving pair); the serving front counts the refusals (`peer.count_handshake_error`).
- HTTP: `middleware.AuthMiddleware` wraps the WSGI app. It checks the peer certificate's names against
  `--allowed-subject` and verifies `Authorization: Bearer` tokens, before any view or rule runs.
  `/healthz` and `/readyz` stay open. A front that is not gunicorn hands the peer certificate over as
  `environ[peer.PEER_CERT]` (DER bytes); without it, certificate checks fail closed.
"""

from webhook.auth.settings import AuthSettings

__all__ = ["AuthSettings"]
