"""Verify KEP-6060 bearer tokens: a service-account JWT the API server presents, bound to this webhook.

Checks, in order, each refusal naming what failed (never the token): the signature against the key of the
header's `kid` in `--token-jwks` (asymmetric algorithms only), `iss`, `aud` (one of `--token-audience`, the
webhook URL as the API server writes it), `exp`/`nbf`/`iat` with go-jose's default leeway of one minute, then the
KEP's private claims under `kubernetes.io`: bound to exactly one webhook configuration, a
ValidatingWebhookConfiguration named `--token-webhook-configuration`, and an `attestationClaims` entry
`webhook-authentication.k8s.io/allowedAPIGroup` holding exactly one API group (`*`: every group). The group is
checked against the review itself by `covers()`.

The JWKS file is re-read when it changes (stat'ed at most once per `check_interval`); an unusable new file is
logged once and the previous keys stay, as the TLS reloader does for certificates.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import jwt
from msgspec import Struct

from webhook.auth.refusals import Refused
from webhook.auth.settings import AuthSettings
from webhook.errors import DraguardError

log = logging.getLogger(__name__)

LEEWAY = 60  # seconds; go-jose's DefaultLeeway, which the API server's own token validation applies
ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512")
GROUP_CLAIM = "webhook-authentication.k8s.io/allowedAPIGroup"
ANY_GROUP = "*"

MAX_REMEMBERED = 256  # verified tokens kept; the API server holds one per webhook and API group

_Stamp = tuple[int, int, int, int]


def _now() -> float:
    return time.time()


class Verified(Struct, frozen=True):
    """What a valid token says: who, and which API group it may ask about (`*`: any)."""

    subject: str
    configuration: str
    api_group: str


def _stamp(path: Path) -> _Stamp:
    try:
        st = os.stat(path)
    except OSError:
        return (-1, -1, -1, -1)
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)


def load_jwks(path: Path) -> dict[str, jwt.PyJWK]:
    """Signing keys by key id; a file without one usable signing key is a `DraguardError` naming it."""
    try:
        data = json.loads(path.read_bytes())
    except OSError as err:
        raise DraguardError(f"{path}: cannot read: {err.strerror or err}") from None
    except ValueError:
        raise DraguardError(f"{path}: not a JSON Web Key Set (not JSON)") from None
    entries = data.get("keys") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise DraguardError(f'{path}: not a JSON Web Key Set (no "keys" list)')
    keys: dict[str, jwt.PyJWK] = {}
    for entry in entries:
        if not isinstance(entry, dict) or entry.get("use", "sig") != "sig" or not entry.get("kid"):
            continue  # only signing keys with an id can verify a Kubernetes token
        try:
            key = jwt.PyJWK(entry)
        except jwt.PyJWKError:
            continue  # a key type this verifier cannot use; others may still verify
        if key.algorithm_name in ALGORITHMS:
            keys[str(entry["kid"])] = key
    if not keys:
        raise DraguardError(f"{path}: holds no usable signing key (RSA or EC, with a kid)")
    return keys


class TokenVerifier:
    def __init__(self, jwks: Path, issuer: str, audiences: Sequence[str], configuration: str, *,
                 check_interval: float = 1.0, leeway: int = LEEWAY) -> None:
        self.jwks, self.issuer, self.audiences = jwks, issuer, list(audiences)
        self.configuration, self.check_interval, self.leeway = configuration, check_interval, leeway
        self._lock = threading.Lock()
        self._stamp = _stamp(jwks)
        self._keys = load_jwks(jwks)  # raises: nothing to verify with yet
        self._rejected: _Stamp | None = None
        self._checked = time.monotonic()
        self._verified: dict[str, tuple[Verified, float]] = {}  # token -> what it said, and its exp

    def keys(self) -> Mapping[str, jwt.PyJWK]:
        """The keys in force, re-reading the file first when it changed and the interval has passed."""
        now = time.monotonic()
        if now - self._checked >= self.check_interval and self._lock.acquire(blocking=False):
            try:
                self._checked = now
                self._reload()
            finally:
                self._lock.release()
        return self._keys

    def _reload(self) -> None:
        stamp = _stamp(self.jwks)
        if stamp in (self._stamp, self._rejected):
            return
        try:
            keys = load_jwks(self.jwks)
        except DraguardError as err:
            self._rejected = stamp
            log.warning("keeping the previous token signing keys: %s", err)
            return
        self._keys, self._stamp, self._rejected = keys, stamp, None
        self._verified.clear()
        log.info("token signing keys reloaded from %s (%d key(s))", self.jwks, len(keys))

    def verify(self, token: str) -> Verified:
        """The token's claims when it is valid for this webhook; `Refused` (401 or 403) naming what failed.

        The API server re-uses one token for many requests (KEP-6060 tokens live ten minutes), so a token that
        verified is remembered until it expires: the same string carries the same signature. The memory is
        dropped whenever the keys change, so a token signed with a withdrawn key is refused at once.
        """
        keys = self.keys()  # first: a changed key file empties the memory
        known = self._verified.get(token)
        if known is not None:
            verified, expires = known
            if _now() >= expires + self.leeway:
                self._verified.pop(token, None)  # another thread may have dropped it already
                raise Refused("token_expired", "the token has expired")
            return verified
        verified, expires = self._verify(token, keys)
        if len(self._verified) >= MAX_REMEMBERED:
            self._verified.clear()  # a burst of distinct tokens: start over rather than track ages
        self._verified[token] = (verified, expires)
        return verified

    def _verify(self, token: str, keys: Mapping[str, jwt.PyJWK]) -> tuple[Verified, float]:
        try:
            header = jwt.get_unverified_header(token)
        except jwt.DecodeError:
            raise Refused("token_malformed", "the bearer token is not a signed JWT") from None
        alg, kid = header.get("alg"), header.get("kid")
        if alg not in ALGORITHMS:
            raise Refused("token_malformed", f"the bearer token's algorithm {alg!r} is not accepted "
                                             f"(one of {', '.join(ALGORITHMS)})")
        key = keys.get(kid) if isinstance(kid, str) else None
        if key is None:
            raise Refused("token_unknown_key", f"no signing key with id {kid!r} in the token keys (--token-jwks)")
        if key.algorithm_name != alg:
            raise Refused("token_signature", f"the token is signed with {alg}, its key {kid!r} is for "
                                             f"{key.algorithm_name}")
        try:
            claims = jwt.decode(token, key.key, algorithms=[alg], audience=self.audiences, issuer=self.issuer,
                                leeway=self.leeway, options={"require": ["exp", "iat", "iss", "aud", "sub"]})
        except jwt.InvalidTokenError as err:
            raise self._refusal(err, token) from None
        return self._binding(claims), float(claims["exp"])

    def _binding(self, claims: Mapping[str, Any]) -> Verified:
        private = claims.get("kubernetes.io")
        private = private if isinstance(private, dict) else {}
        validating = private.get("validatingWebhookConfiguration")
        mutating = private.get("mutatingWebhookConfiguration")
        if validating is not None and mutating is not None:
            raise Refused("token_binding", "the token is bound to both a validating and a mutating webhook "
                                           "configuration (KEP-6060 allows one)")
        if mutating is not None:
            raise Refused("token_binding", "the token is bound to a MutatingWebhookConfiguration; draguard is "
                                           f"ValidatingWebhookConfiguration {self.configuration!r}")
        name = validating.get("name") if isinstance(validating, dict) else None
        if not name:
            raise Refused("token_binding", "the token is not bound to a webhook configuration (no "
                                           "kubernetes.io.validatingWebhookConfiguration claim)")
        if name != self.configuration:
            raise Refused("token_binding", f"the token is bound to ValidatingWebhookConfiguration {name!r}, "
                                           f"not {self.configuration!r}")
        attested = private.get("attestationClaims")
        groups = attested.get(GROUP_CLAIM) if isinstance(attested, dict) else None
        if not (isinstance(groups, list) and len(groups) == 1 and isinstance(groups[0], str)):
            raise Refused("token_binding", f"the token's attestation claim {GROUP_CLAIM} must hold exactly one "
                                           "API group")
        return Verified(str(claims["sub"]), str(name), groups[0])


    def _refusal(self, err: jwt.InvalidTokenError, token: str) -> Refused:
        if isinstance(err, jwt.ExpiredSignatureError):
            return Refused("token_expired", "the token has expired")
        if isinstance(err, jwt.ImmatureSignatureError):
            return Refused("token_not_yet_valid", "the token is not valid yet (nbf or iat in the future)")
        if isinstance(err, jwt.InvalidAudienceError):
            # The signature verified (PyJWT checks claims after it), so the audience is the issuer's word: naming
            # it shows an operator which --token-audience the API server writes.
            carried = jwt.decode(token, options={"verify_signature": False}).get("aud")
            return Refused("token_audience", f"the token's audience {carried!r} is not this webhook's URL "
                                             f"({', '.join(self.audiences)})")
        if isinstance(err, jwt.InvalidIssuerError):
            return Refused("token_issuer", f"the token's issuer is not {self.issuer}")
        if isinstance(err, jwt.InvalidSignatureError):
            return Refused("token_signature", "the token's signature does not verify")
        if isinstance(err, jwt.MissingRequiredClaimError):
            return Refused("token_malformed", f"the token lacks the {err.claim!r} claim")
        return Refused("token_malformed", f"the bearer token is not a valid JWT ({type(err).__name__})")


def covers(allowed: str, group: str) -> bool:
    """Whether a token attested for API group `allowed` may ask about an object of `group` (`""`: the core group)."""
    return allowed in (ANY_GROUP, group)


def open_verifier(settings: AuthSettings) -> TokenVerifier | None:
    """The verifier `settings` ask for, its JWKS read now so a bad file stops the server at start; None when off."""
    if settings.token_jwks is None or settings.token_issuer is None:
        return None
    return TokenVerifier(settings.token_jwks, settings.token_issuer, settings.token_audiences,
                         settings.token_configuration, check_interval=settings.check_interval)
