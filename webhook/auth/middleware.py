"""`AuthMiddleware`: a WSGI layer that refuses a request before Flask, the views or any rule sees it.

Order: the client certificate's names (when `--client-ca`; the handshake already proved the chain), then the
bearer token (when `--token-jwks`), then, for a token attested for one API group only, the group of the
reviewed object. `/healthz` and `/readyz` are never checked, so kubelet probes keep working.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from typing import Any

import msgspec
from flask import Flask

from webhook.admission.review import MAX_BODY
from webhook.auth import refusals, subjects
from webhook.auth.peer import peer_certificate
from webhook.auth.refusals import Refused
from webhook.auth.settings import AuthSettings
from webhook.auth.tokens import ANY_GROUP, TokenVerifier, covers
from webhook.wire import go_json

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

OPEN_PATHS = frozenset({"/healthz", "/readyz"})


class _Resource(msgspec.Struct):
    group: str = ""


class _Request(msgspec.Struct):
    resource: _Resource | None = None


class _Review(msgspec.Struct):
    request: _Request | None = None


_GROUP_DECODER = msgspec.json.Decoder(_Review)  # reads only request.resource.group, skipping the rest


class AuthMiddleware:
    def __init__(self, app: WSGIApp, settings: AuthSettings, verifier: TokenVerifier | None = None) -> None:
        self.app = app
        self.settings = settings
        self.verifier = verifier

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO") not in OPEN_PATHS:
            try:
                self.check(environ)
            except Refused as refused:
                refusals.record(refused, environ)
                status, headers, body = refusals.answer(refused)
                start_response(status, headers)
                return body
        return self.app(environ, start_response)

    def check(self, environ: dict[str, Any]) -> None:
        if self.settings.client_ca is not None:
            _check_subject(environ, self.settings.allowed_subjects)
        if self.verifier is not None:
            verified = self.verifier.verify(_bearer(environ))
            if verified.api_group != ANY_GROUP:
                _check_group(environ, verified.api_group)


def _check_subject(environ: dict[str, Any], patterns: tuple[str, ...]) -> None:
    der = peer_certificate(environ)
    if der is None:
        raise Refused("client_cert_unavailable", "the server could not read the client certificate of this "
                                                 "connection; refusing rather than guessing")
    names = subjects.peer_names(der)
    if not subjects.allowed(names, patterns):
        raise Refused("subject_not_allowed", f"client certificate {names.describe()} is not allowed "
                                             "(see --allowed-subject)")


def _bearer(environ: dict[str, Any]) -> str:
    header = str(environ.get("HTTP_AUTHORIZATION", "")).strip()
    if not header:
        raise Refused("token_missing", "this webhook requires an Authorization: Bearer token")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Refused("token_malformed", "the Authorization header is not a Bearer token")
    return token.strip()


def _check_group(environ: dict[str, Any], allowed: str) -> None:
    """Read the body (at most the review limit) for its `request.resource.group`, then put it back for the view."""
    stream = environ["wsgi.input"]
    body = stream.read(MAX_BODY + 1)
    if len(body) > MAX_BODY:
        raise Refused("api_group", f"the token is attested for API group {allowed!r} only, and a body over "
                                   f"{MAX_BODY} bytes cannot be checked against it")
    try:
        try:
            review = _GROUP_DECODER.decode(go_json(body))  # the group as the review's reader reads it
        except UnicodeDecodeError:  # a byte that is not UTF-8 inside a string: U+FFFD, as the review's reader has it
            from webhook.wire import go_utf8  # only for such a body

            review = _GROUP_DECODER.decode(go_utf8(go_json(body)))
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError):
        raise Refused("api_group", f"the token is attested for API group {allowed!r} only, and the body is not "
                                   "an AdmissionReview whose group can be checked") from None
    group = review.request.resource.group if review.request and review.request.resource else None
    if group is None or not covers(allowed, group):
        raise Refused("api_group", f"the token is attested for API group {allowed!r}, not for "
                                   f"{group if group is not None else 'this request'!r}")
    environ["wsgi.input"] = io.BytesIO(body)
    environ["CONTENT_LENGTH"] = str(len(body))
    environ.pop("HTTP_TRANSFER_ENCODING", None)


def protect(app: Flask, settings: AuthSettings, tokens: TokenVerifier | None) -> Flask:
    """Wrap `app`'s WSGI callable in the checks `settings` turn on; `app` unchanged when none is."""
    if settings.enabled:
        app.wsgi_app = AuthMiddleware(app.wsgi_app, settings, tokens)  # type: ignore[method-assign]
    return app
