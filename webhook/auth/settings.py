"""What `draguard serve` authenticates callers with; everything off unless a flag turns it on."""

from __future__ import annotations

from pathlib import Path

from msgspec import Struct

from webhook.errors import DraguardError

# The ValidatingWebhookConfiguration deploy/base installs; KEP-6060 tokens name the configuration they are bound to.
DEFAULT_CONFIGURATION = "draguard"


class AuthSettings(Struct, frozen=True):
    client_ca: Path | None = None  # require a client certificate chaining to this bundle (at the TLS handshake)
    allowed_subjects: tuple[str, ...] = ()  # CN / DNS / URI patterns; empty: any certificate client_ca signed
    token_issuer: str | None = None
    token_jwks: Path | None = None  # the issuer's JWKS document (`kubectl get --raw /openid/v1/jwks`)
    token_audiences: tuple[str, ...] = ()  # the webhook URL(s) exactly as the API server writes them
    token_configuration: str = DEFAULT_CONFIGURATION
    check_interval: float = 1.0  # how often the JWKS file is stat'ed, at most

    @property
    def tokens(self) -> bool:
        return self.token_jwks is not None

    @property
    def enabled(self) -> bool:
        return self.client_ca is not None or self.tokens

    def check(self) -> AuthSettings:
        """Refuse a combination that would not protect what the user asked for (one-line `DraguardError`)."""
        from webhook.auth.subjects import check_patterns  # imports cryptography: only when serving

        check_patterns(self.allowed_subjects)
        if self.allowed_subjects and self.client_ca is None:
            raise DraguardError("--allowed-subject needs --client-ca: without client certificates there is no "
                                "subject to check")
        given = {"--token-issuer": bool(self.token_issuer), "--token-jwks": self.token_jwks is not None,
                 "--token-audience": bool(self.token_audiences)}
        if any(given.values()) and not all(given.values()):
            missing = ", ".join(flag for flag, present in given.items() if not present)
            raise DraguardError(f"--token-issuer, --token-jwks and --token-audience go together (missing: {missing})")
        if any(not a.strip() for a in self.token_audiences):
            raise DraguardError("--token-audience: an empty audience matches no token")
        if self.tokens and not self.token_configuration.strip():
            raise DraguardError("--token-webhook-configuration: give the ValidatingWebhookConfiguration's name")
        return self
