"""`draguard serve --token-issuer --token-jwks --token-audience` over real TLS: KEP-6060 bearer tokens."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.builders import slice_with
from tests.webhook.auth.conftest import (
    AUDIENCE,
    ISSUER,
    SLICES,
    AuthServer,
    SigningKey,
    claims,
    refused_count,
    start_auth_server,
    write_jwks,
)
from tests.webhook.conftest import JSON, admission_review, encode, eventually

pytestmark = pytest.mark.slow

ANSWER = {"uid": "uid-auth", "allowed": True}


@pytest.fixture(scope="module")
def key() -> SigningKey:
    return SigningKey.new("k8s-2026", "RS256")  # the API server's default service-account key type


def token_args(jwks: Path) -> tuple[str, ...]:
    return ("--token-issuer", ISSUER, "--token-jwks", str(jwks), "--token-audience", AUDIENCE)


@pytest.fixture(scope="module")
def server(key: SigningKey, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AuthServer]:
    base = tmp_path_factory.mktemp("tokens")
    jwks = write_jwks(base / "jwks.json", key)
    started = start_auth_server(base / "server", token_args(jwks))
    yield started
    started.stop()


def test_the_api_servers_token_is_answered(server: AuthServer, key: SigningKey) -> None:
    reply = server.review(token=key.sign(claims()))
    assert (reply.status, reply.response) == (200, ANSWER)


def test_probes_need_no_token(server: AuthServer) -> None:
    assert server.request("GET", "/healthz").status == 200
    assert server.request("GET", "/readyz").status == 200


@pytest.mark.parametrize(
    ("make", "reason", "message"),
    [
        (lambda k: None, "token_missing", "this webhook requires an Authorization: Bearer token"),
        (lambda k: k.sign(claims(aud=["https://other.example/validate"])), "token_audience",
         f"the token's audience ['https://other.example/validate'] is not this webhook's URL ({AUDIENCE})"),
        (lambda k: k.sign(claims(iss="https://evil.example")), "token_issuer",
         f"the token's issuer is not {ISSUER}"),
        (lambda k: k.sign(claims(now=time.time() - 3600)), "token_expired", "the token has expired"),
        (lambda k: SigningKey("k8s-2026", "RS256", SigningKey.new("x", "RS256").private).sign(claims()),
         "token_signature", "the token's signature does not verify"),
        (lambda k: SigningKey.new("rotated-away").sign(claims()), "token_unknown_key",
         "no signing key with id 'rotated-away' in the token keys (--token-jwks)"),
    ],
    ids=["missing", "wrong-audience", "wrong-issuer", "expired", "bad-signature", "unknown-kid"],
)
def test_a_bad_token_is_401_counted_and_logged_without_the_token(
    server: AuthServer, key: SigningKey, make: object, reason: str, message: str
) -> None:
    token = make(key)  # type: ignore[operator]
    before = refused_count(server.metrics(), reason)
    reply = server.review(token=token)
    assert (reply.status, reply.json()) == (401, {"code": 401, "error": "Unauthorized", "message": message})
    assert reply.headers["www-authenticate"] == ("Bearer" if token is None else 'Bearer error="invalid_token"')
    assert refused_count(server.metrics(), reason) == before + 1
    lines = [e for e in server.logs() if e.get("reason") == reason]
    assert lines and lines[-1]["error"] == message
    if token is not None:
        assert token not in server.log_file.read_text()


def test_a_token_for_another_api_group_is_403(server: AuthServer, key: SigningKey) -> None:
    reply = server.review(token=key.sign(claims(group="ninja.turtles.ai")))
    assert (reply.status, reply.json()["message"]) == (
        403, "the token is attested for API group 'ninja.turtles.ai', not for 'resource.k8s.io'")


def test_a_token_for_the_reviewed_api_group_is_answered(server: AuthServer, key: SigningKey) -> None:
    reply = server.review(token=key.sign(claims(group="resource.k8s.io")))
    assert (reply.status, reply.response) == (200, ANSWER)


def test_a_chunked_review_is_read_for_its_group_and_answered(server: AuthServer, key: SigningKey) -> None:
    body = encode(admission_review(slice_with(numa=1), uid="uid-chunked"))
    conn = server.connect()
    try:
        headers = {**JSON, "Authorization": f"Bearer {key.sign(claims(group='resource.k8s.io'))}"}
        conn.request("POST", SLICES, body=iter([body[:100], body[100:]]), headers=headers, encode_chunked=True)
        raw = conn.getresponse()
        assert (raw.status, json.loads(raw.read())["response"]) == (200, {"uid": "uid-chunked", "allowed": True})
        # the connection stays usable: a refused request on it is answered too
        conn.request("POST", SLICES, body=body, headers=JSON)
        refused = conn.getresponse()
        assert (refused.status, json.loads(refused.read())["code"]) == (401, 401)
        # and its unread body does not spill into the next request
        conn.request("POST", SLICES, body=body, headers=headers)
        again = conn.getresponse()
        assert (again.status, json.loads(again.read())["response"]["uid"]) == (200, "uid-chunked")
    finally:
        conn.close()


def test_a_rotated_jwks_file_admits_the_new_key(tmp_path: Path) -> None:
    old, new = SigningKey.new("old"), SigningKey.new("new")
    jwks = write_jwks(tmp_path / "jwks.json", old)
    server = start_auth_server(tmp_path / "server", token_args(jwks), workers=2)
    try:
        assert server.review(token=old.sign(claims())).status == 200
        assert server.review(token=new.sign(claims())).status == 401
        write_jwks(jwks, new)  # the issuer rotated its signing key; the mounted file follows
        # Every worker re-reads the file on its own: several requests in a row must all see the new keys.
        eventually(lambda: all(server.review(token=new.sign(claims())).status == 200 for _ in range(6)),
                   "a token signed with the new key accepted by every worker without a restart")
        eventually(lambda: all(server.review(token=old.sign(claims())).status == 401 for _ in range(6)),
                   "the withdrawn key no longer verifies on any worker")
    finally:
        server.stop()
