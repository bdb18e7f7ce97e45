"""AuthMiddleware in-process: what is checked in which order, the API group read from the body, fail-closed."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from flask import Flask
from flask.testing import FlaskClient
from prometheus_client import REGISTRY

from tests.builders import slice_with
from tests.webhook.auth.conftest import AUDIENCE, ISSUER, SLICES, ClientPKI, SigningKey, claims, write_jwks
from tests.webhook.conftest import admission_review, encode
from webhook.admission.review import MAX_BODY
from webhook.app import Settings, create_app
from webhook.auth.middleware import AuthMiddleware, protect
from webhook.auth.peer import PEER_CERT
from webhook.auth.settings import AuthSettings
from webhook.auth.tokens import TokenVerifier
from webhook.policy import Policy
from webhook.policy_store import PolicyStore

KEY = SigningKey.new("kid-1")
BODY = encode(admission_review(slice_with(numa=1), uid="uid-mw"))
ANSWER = {"uid": "uid-mw", "allowed": True}


def refused(reason: str) -> float:
    return REGISTRY.get_sample_value("draguard_auth_refused_total", {"reason": reason}) or 0.0


def make_client(tmp_path: Path, *, tokens: bool = True, subjects: tuple[str, ...] | None = None) -> FlaskClient:
    settings = AuthSettings(client_ca=tmp_path / "ca.crt" if subjects is not None else None,
                            allowed_subjects=subjects or (),
                            token_issuer=ISSUER if tokens else None,
                            token_jwks=write_jwks(tmp_path / "jwks.json", KEY) if tokens else None,
                            token_audiences=(AUDIENCE,) if tokens else ())
    verifier = TokenVerifier(tmp_path / "jwks.json", ISSUER, [AUDIENCE], "draguard") if tokens else None
    app: Flask = protect(create_app(Settings(), PolicyStore.fixed(Policy.default())), settings, verifier)
    return app.test_client()


def post(client: FlaskClient, body: bytes = BODY, *, token: str | None = None, der: bytes | None = None,
         **headers: str) -> tuple[int, Any]:
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    environ = {PEER_CERT: der} if der is not None else {}
    reply = client.post(SLICES, data=body, headers={"Content-Type": "application/json", **headers},
                        environ_overrides=environ)
    return reply.status_code, reply.get_json()


def der_of(path: Path) -> bytes:
    from cryptography.hazmat.primitives.serialization import Encoding

    return x509.load_pem_x509_certificate(path.read_bytes()).public_bytes(Encoding.DER)


def test_nothing_is_wrapped_when_no_check_is_on(tmp_path: Path) -> None:
    app = create_app(Settings(), PolicyStore.fixed(Policy.default()))
    assert not isinstance(protect(app, AuthSettings(), None).wsgi_app, AuthMiddleware)
    assert isinstance(protect(app, AuthSettings(token_jwks=tmp_path), None).wsgi_app, AuthMiddleware)


def test_a_refused_request_never_reaches_the_rules(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    code, body = post(make_client(tmp_path))
    assert (code, body["message"]) == (401, "this webhook requires an Authorization: Bearer token")
    assert [r.getMessage() for r in caplog.records] == ["request refused by authentication"]  # no review line
    fields = caplog.records[0].fields  # type: ignore[attr-defined]
    assert fields == {"event": "auth-refused", "reason": "token_missing", "code": 401,
                      "error": "this webhook requires an Authorization: Bearer token", "method": "POST",
                      "path": SLICES, "remote": "127.0.0.1"}


@pytest.mark.parametrize("header", ["Basic dXNlcjpwYXNz", "Bearer", "Bearer   ", "token abc"])
def test_an_authorization_header_that_is_not_a_bearer_token_is_401(tmp_path: Path, header: str) -> None:
    assert post(make_client(tmp_path), Authorization=header) == (401, {
        "code": 401, "error": "Unauthorized", "message": "the Authorization header is not a Bearer token"})


def test_unknown_paths_are_refused_before_their_404(tmp_path: Path) -> None:
    reply = make_client(tmp_path).get("/nothing-here")
    assert reply.status_code == 401


@pytest.mark.parametrize("path", ["/healthz", "/readyz"])
def test_probes_are_open(tmp_path: Path, path: str) -> None:
    assert make_client(tmp_path).get(path).status_code == 200


@pytest.mark.parametrize(("group", "code"), [("*", 200), ("resource.k8s.io", 200), ("", 403), ("apps", 403)])
def test_the_attested_group_is_checked_against_the_review(tmp_path: Path, group: str, code: int) -> None:
    status, body = post(make_client(tmp_path), token=KEY.sign(claims(group=group)))
    assert status == code
    if code == 200:
        assert body["response"] == ANSWER  # the view read the body the middleware put back
    else:
        assert body["message"] == f"the token is attested for API group {group!r}, not for 'resource.k8s.io'"


def test_a_core_group_review_is_covered_by_a_core_group_token(tmp_path: Path) -> None:
    body = encode(admission_review({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}, uid="u"))
    status, answer = post(make_client(tmp_path), body, token=KEY.sign(claims(group="")))
    assert (status, answer["response"]["uid"]) == (200, "u")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"not json", "the token is attested for API group 'apps' only, and the body is not an AdmissionReview "
                      "whose group can be checked"),
        (b'{"request": {"resource": 7}}', "the token is attested for API group 'apps' only, and the body is not "
                                          "an AdmissionReview whose group can be checked"),
        (b"{}", "the token is attested for API group 'apps', not for 'this request'"),
        (b" " * (MAX_BODY + 1), f"the token is attested for API group 'apps' only, and a body over {MAX_BODY} "
                                "bytes cannot be checked against it"),
    ],
    ids=["not-json", "wrong-shape", "no-request", "over-the-limit"],
)
def test_a_body_whose_group_cannot_be_read_is_refused(tmp_path: Path, body: bytes, message: str) -> None:
    assert post(make_client(tmp_path), body, token=KEY.sign(claims(group="apps"))) == (
        403, {"code": 403, "error": "Forbidden", "message": message})


def test_a_body_at_the_limit_is_read_for_its_group_and_passed_on(tmp_path: Path) -> None:
    review = admission_review(slice_with(numa=1), uid="uid-mw")
    padding = MAX_BODY - len(encode(review)) - len(', "pad": ""')
    body = encode({**review, "pad": "x" * padding})
    assert len(body) == MAX_BODY
    status, answer = post(make_client(tmp_path), body, token=KEY.sign(claims(group="resource.k8s.io")))
    assert (status, answer["response"]) == (200, ANSWER)


def test_subjects_are_checked_before_the_token(tmp_path: Path) -> None:
    pki = ClientPKI(tmp_path / "pki")
    client = make_client(tmp_path, subjects=("kube-apiserver",))
    before = refused("subject_not_allowed")
    status, body = post(client, token=KEY.sign(claims()), der=der_of(pki.client("intruder")[0]))
    assert (status, body["message"]) == (403, "client certificate CN=intruder is not allowed (see --allowed-subject)")
    assert refused("subject_not_allowed") == before + 1
    assert post(client, token=KEY.sign(claims()), der=der_of(pki.client("kube-apiserver")[0]))[0] == 200
    assert post(client, der=der_of(pki.client("kube-apiserver")[0]))[0] == 401  # both checks, when both are on


def test_a_front_that_does_not_hand_over_the_peer_certificate_fails_closed(tmp_path: Path) -> None:
    client = make_client(tmp_path, tokens=False, subjects=())
    before = refused("client_cert_unavailable")
    assert post(client) == (403, {"code": 403, "error": "Forbidden", "message": (
        "the server could not read the client certificate of this connection; refusing rather than guessing")})
    assert refused("client_cert_unavailable") == before + 1


def test_any_certificate_of_the_client_ca_passes_without_subject_patterns(tmp_path: Path) -> None:
    pki = ClientPKI(tmp_path / "pki")
    assert post(make_client(tmp_path, tokens=False, subjects=()), der=der_of(pki.client("anyone")[0]))[0] == 200


def test_the_refusal_body_is_json_with_its_length(tmp_path: Path) -> None:
    reply = make_client(tmp_path).post(SLICES, data=BODY, headers={"Content-Type": "application/json"})
    assert reply.headers["Content-Length"] == str(len(reply.data))
    assert json.loads(reply.data)["code"] == 401
    assert reply.headers["WWW-Authenticate"] == "Bearer"


