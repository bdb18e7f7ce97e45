"""webhook.auth.tokens: every check a KEP-6060 token passes, at its limits, in-process."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jwt
import pytest

from tests.webhook.auth.conftest import AUDIENCE, GROUP_CLAIM, ISSUER, SUBJECT, SigningKey, claims, write_jwks
from webhook.auth.refusals import Refused
from webhook.auth.tokens import LEEWAY, TokenVerifier, Verified, covers, load_jwks
from webhook.errors import DraguardError

KEY = SigningKey.new("es-key")


def verifier(tmp_path: Path, *keys: SigningKey, check_interval: float = 3600) -> TokenVerifier:
    jwks = write_jwks(tmp_path / "jwks.json", *(keys or (KEY,)))
    return TokenVerifier(jwks, ISSUER, [AUDIENCE], "draguard", check_interval=check_interval)


def refusal(tmp_path: Path, token: str) -> tuple[str, int, str]:
    with pytest.raises(Refused) as caught:
        verifier(tmp_path).verify(token)
    return caught.value.reason, caught.value.code, caught.value.message


def test_the_api_servers_token_verifies(tmp_path: Path) -> None:
    assert verifier(tmp_path).verify(KEY.sign(claims())) == Verified(SUBJECT, "draguard", "*")


def test_an_rsa_key_and_a_single_audience_string_verify(tmp_path: Path) -> None:
    rsa_key = SigningKey.new("rs-key", "RS256")
    token = rsa_key.sign(claims(aud=AUDIENCE, group="resource.k8s.io"))
    assert verifier(tmp_path, rsa_key).verify(token).api_group == "resource.k8s.io"


@pytest.mark.parametrize(("expired_ago", "ok"), [(LEEWAY - 10, True), (LEEWAY + 10, False)])
def test_expiry_allows_one_minute_of_clock_skew(tmp_path: Path, expired_ago: int, ok: bool) -> None:
    token = KEY.sign(claims(now=time.time() - 600 - expired_ago, lifetime=600))
    if ok:
        assert verifier(tmp_path).verify(token).subject == SUBJECT
    else:
        assert refusal(tmp_path, token) == ("token_expired", 401, "the token has expired")


@pytest.mark.parametrize(("ahead", "ok"), [(LEEWAY - 10, True), (LEEWAY + 10, False)])
def test_a_token_from_a_clock_ahead_is_accepted_within_the_skew(tmp_path: Path, ahead: int, ok: bool) -> None:
    token = KEY.sign(claims(now=time.time() + ahead))
    if ok:
        assert verifier(tmp_path).verify(token).subject == SUBJECT
    else:
        assert refusal(tmp_path, token)[:2] == ("token_not_yet_valid", 401)


@pytest.mark.parametrize(
    ("make", "want"),
    [
        (lambda: "not-a-jwt", ("token_malformed", 401, "the bearer token is not a signed JWT")),
        (lambda: jwt.encode(claims(), "an-hmac-secret-of-32-bytes-or-more", algorithm="HS256",
                            headers={"kid": "es-key"}),
         ("token_malformed", 401, "the bearer token's algorithm 'HS256' is not accepted (one of RS256, RS384, "
                                  "RS512, PS256, PS384, PS512, ES256, ES384, ES512)")),
        (lambda: jwt.encode(claims(), None, algorithm="none"),
         ("token_malformed", 401, "the bearer token's algorithm 'none' is not accepted (one of RS256, RS384, "
                                  "RS512, PS256, PS384, PS512, ES256, ES384, ES512)")),
        (lambda: jwt.encode(claims(), KEY.private, algorithm="ES256"), ("token_unknown_key", 401,
                                        "no signing key with id None in the token keys (--token-jwks)")),
        (lambda: SigningKey("es-key", "RS256", SigningKey.new("x", "RS256").private).sign(claims()),
         ("token_signature", 401, "the token is signed with RS256, its key 'es-key' is for ES256")),
        (lambda: KEY.sign(claims(sub=None)), ("token_malformed", 401, "the token lacks the 'sub' claim")),
        (lambda: KEY.sign(claims(exp=None)), ("token_malformed", 401, "the token lacks the 'exp' claim")),
        (lambda: KEY.sign(claims(aud=[])), ("token_malformed", 401, "the token lacks the 'aud' claim")),
    ],
    ids=["garbage", "hs256", "alg-none", "no-kid", "alg-mismatch", "no-sub", "no-exp", "empty-aud"],
)
def test_a_malformed_token_is_401(tmp_path: Path, make: Callable[[], str], want: tuple[str, int, str]) -> None:
    # Signed when the test runs, not at collection: a long, loaded run must not see the token expire first.
    assert refusal(tmp_path, make()) == want


def private(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = dict(claims()["kubernetes.io"])
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


BOUND = {"name": "draguard", "uid": "1"}


@pytest.mark.parametrize(
    ("k8s", "message"),
    [
        (None, "the token is not bound to a webhook configuration (no kubernetes.io.validatingWebhookConfiguration "
               "claim)"),
        (private(validatingWebhookConfiguration=None), "the token is not bound to a webhook configuration (no "
                                                       "kubernetes.io.validatingWebhookConfiguration claim)"),
        (private(mutatingWebhookConfiguration=BOUND), "the token is bound to both a validating and a mutating "
                                                      "webhook configuration (KEP-6060 allows one)"),
        (private(validatingWebhookConfiguration=None, mutatingWebhookConfiguration=BOUND),
         "the token is bound to a MutatingWebhookConfiguration; draguard is ValidatingWebhookConfiguration "
         "'draguard'"),
        (private(validatingWebhookConfiguration={"name": "someone-else", "uid": "2"}),
         "the token is bound to ValidatingWebhookConfiguration 'someone-else', not 'draguard'"),
        (private(attestationClaims=None), f"the token's attestation claim {GROUP_CLAIM} must hold exactly one "
                                          "API group"),
        (private(attestationClaims={GROUP_CLAIM: []}), f"the token's attestation claim {GROUP_CLAIM} must hold "
                                                       "exactly one API group"),
        (private(attestationClaims={GROUP_CLAIM: ["a", "b"]}), f"the token's attestation claim {GROUP_CLAIM} must "
                                                               "hold exactly one API group"),
        (private(attestationClaims={GROUP_CLAIM: "*"}), f"the token's attestation claim {GROUP_CLAIM} must hold "
                                                        "exactly one API group"),
    ],
    ids=["plain-sa-token", "no-binding", "both", "mutating", "other-configuration", "no-attestation", "zero-groups",
         "two-groups", "group-not-a-list"],
)
def test_a_valid_token_not_bound_to_this_webhook_is_403(tmp_path: Path, k8s: Any, message: str) -> None:
    assert refusal(tmp_path, KEY.sign(claims(**{"kubernetes.io": k8s}))) == ("token_binding", 403, message)


@pytest.mark.parametrize(("allowed", "group", "ok"), [
    ("*", "resource.k8s.io", True), ("*", "", True), ("resource.k8s.io", "resource.k8s.io", True),
    ("", "", True), ("resource.k8s.io", "", False), ("", "resource.k8s.io", False), ("resource.k8s", "resource.k8s.io",
                                                                                      False)])
def test_an_attested_group_covers_only_itself_unless_it_is_the_wildcard(allowed: str, group: str, ok: bool) -> None:
    assert covers(allowed, group) is ok


def test_a_changed_jwks_file_is_read_after_the_interval_and_a_bad_one_keeps_the_keys(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    new = SigningKey.new("new-key")
    check = verifier(tmp_path, check_interval=0)
    write_jwks(check.jwks, new)
    assert check.verify(new.sign(claims())).subject == SUBJECT
    caplog.set_level(logging.WARNING, logger="webhook.auth.tokens")
    check.jwks.write_text("{not json")
    for _ in range(2):  # reported once, not on every request
        assert check.verify(new.sign(claims())).subject == SUBJECT
    assert [r.getMessage() for r in caplog.records] == [
        f"keeping the previous token signing keys: {check.jwks}: not a JSON Web Key Set (not JSON)"]


def test_the_jwks_file_is_not_read_again_within_the_interval(tmp_path: Path) -> None:
    new = SigningKey.new("new-key")
    check = verifier(tmp_path, check_interval=3600)
    write_jwks(check.jwks, new)
    with pytest.raises(Refused):
        check.verify(new.sign(claims()))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "not a JSON Web Key Set (not JSON)"),
        ("[]", 'not a JSON Web Key Set (no "keys" list)'),
        ('{"keys": {}}', 'not a JSON Web Key Set (no "keys" list)'),
        ('{"keys": []}', "holds no usable signing key (RSA or EC, with a kid)"),
        (json.dumps({"keys": [{**KEY.jwk(), "kid": ""}]}), "holds no usable signing key (RSA or EC, with a kid)"),
        (json.dumps({"keys": [{**KEY.jwk(), "use": "enc"}]}), "holds no usable signing key (RSA or EC, with a kid)"),
        (json.dumps({"keys": [{"kty": "oct", "k": "c2VjcmV0", "kid": "h"}]}),
         "holds no usable signing key (RSA or EC, with a kid)"),
    ],
    ids=["not-json", "a-list", "keys-not-a-list", "no-keys", "no-kid", "encryption-key", "symmetric-key"],
)
def test_an_unusable_jwks_file_is_one_line(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "jwks.json"
    path.write_text(content)
    with pytest.raises(DraguardError) as caught:
        load_jwks(path)
    assert str(caught.value) == f"{path}: {message}"


def test_a_missing_jwks_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(DraguardError) as caught:
        load_jwks(tmp_path / "absent.json")
    assert str(caught.value) == f"{tmp_path / 'absent.json'}: cannot read: No such file or directory"


def test_unusable_keys_beside_a_good_one_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps({"keys": [{"kty": "oct", "k": "c2VjcmV0", "kid": "h"}, KEY.jwk()]}))
    assert list(load_jwks(path)) == ["es-key"]


@pytest.mark.parametrize(
    ("changes", "want"),
    [
        ({"aud": "https://draguard.draguard.svc/validate/resourceslices"}, (
            "token_audience", 401, "the token's audience 'https://draguard.draguard.svc/validate/resourceslices' is "
                                   f"not this webhook's URL ({AUDIENCE})")),
        ({"aud": ["https://a.example", "https://b.example"]}, (
            "token_audience", 401, "the token's audience ['https://a.example', 'https://b.example'] is not this "
                                   f"webhook's URL ({AUDIENCE})")),
        ({"iss": ISSUER + "/"}, ("token_issuer", 401, f"the token's issuer is not {ISSUER}")),
    ],
    ids=["audience-without-port", "other-audiences", "issuer-with-slash"],
)
def test_issuer_and_audience_must_match_exactly(tmp_path: Path, changes: dict[str, Any],
                                                want: tuple[str, int, str]) -> None:
    assert refusal(tmp_path, KEY.sign(claims(**changes))) == want


def test_one_of_several_audiences_is_enough(tmp_path: Path) -> None:
    jwks = write_jwks(tmp_path / "jwks.json", KEY)
    check = TokenVerifier(jwks, ISSUER, ["https://draguard.draguard.svc:443/validate/selectors", AUDIENCE], "draguard")
    assert check.verify(KEY.sign(claims(aud=["https://x.example", AUDIENCE]))).subject == SUBJECT


def test_a_remembered_token_is_refused_once_it_expires(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from webhook.auth import tokens

    check = verifier(tmp_path)
    issued = time.time()
    token = KEY.sign(claims(now=issued, lifetime=600))
    assert check.verify(token).subject == SUBJECT
    monkeypatch.setattr(tokens, "_now", lambda: issued + 600 + LEEWAY - 1)
    assert check.verify(token).subject == SUBJECT  # within the skew
    monkeypatch.setattr(tokens, "_now", lambda: issued + 600 + LEEWAY)
    with pytest.raises(Refused) as caught:
        check.verify(token)
    assert (caught.value.reason, caught.value.message) == ("token_expired", "the token has expired")


def test_a_remembered_token_is_refused_once_its_key_is_withdrawn(tmp_path: Path) -> None:
    check = verifier(tmp_path, check_interval=0)
    token = KEY.sign(claims())
    assert check.verify(token).subject == SUBJECT
    write_jwks(check.jwks, SigningKey.new("successor"))
    with pytest.raises(Refused) as caught:
        check.verify(token)
    assert caught.value.reason == "token_unknown_key"


@pytest.mark.parametrize(("count", "remembered"), [(2, 2), (3, 3), (4, 1)])
def test_the_memory_of_verified_tokens_is_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, count: int, remembered: int
) -> None:
    from webhook.auth import tokens

    monkeypatch.setattr(tokens, "MAX_REMEMBERED", 3)
    check = verifier(tmp_path)
    for n in range(count):
        assert check.verify(KEY.sign(claims(jti=str(n)))).subject == SUBJECT
    assert len(check._verified) == remembered
