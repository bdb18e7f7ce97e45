"""Helpers for the authentication tests: signing keys and a JWKS file, KEP-6060 tokens, client certificates,
and a real `draguard serve` that a client reaches with a certificate and/or a bearer token."""

from __future__ import annotations

import datetime as dt
import json
import os
import ssl
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from certs.client import client_subject, issue_client
from certs.issue import Issued, issue_ca
from certs.pem import cert_pem, key_pem
from tests.webhook.conftest import (
    JSON,
    SESSION_POLICY,
    Connection,
    Reply,
    ServerProcess,
    admission_review,
    client_context,
    encode,
    launch,
    send,
)

ISSUER = "https://kubernetes.default.svc.cluster.local"
AUDIENCE = "https://draguard.draguard.svc:443/validate/resourceslices"
SUBJECT = "system:serviceaccount:kube-system:webhook-auth"
GROUP_CLAIM = "webhook-authentication.k8s.io/allowedAPIGroup"
SLICES = "/validate/resourceslices"


@dataclass
class SigningKey:
    kid: str
    alg: str
    private: ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey

    @classmethod
    def new(cls, kid: str, alg: str = "ES256") -> SigningKey:
        private: ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey
        private = rsa.generate_private_key(public_exponent=65537, key_size=2048) if alg.startswith("RS") \
            else ec.generate_private_key(ec.SECP256R1())
        return cls(kid, alg, private)

    def jwk(self) -> dict[str, Any]:
        algorithm = jwt.algorithms.RSAAlgorithm if self.alg.startswith("RS") else jwt.algorithms.ECAlgorithm
        entry: dict[str, Any] = json.loads(algorithm.to_jwk(self.private.public_key()))
        return {**entry, "kid": self.kid, "use": "sig", "alg": self.alg}

    def sign(self, claims: Mapping[str, Any], **header: Any) -> str:
        return jwt.encode(dict(claims), self.private, algorithm=self.alg, headers={"kid": self.kid, **header})


def write_jwks(path: Path, *keys: SigningKey) -> Path:
    """Replace the JWKS file atomically (a new inode), as a mounted ConfigMap update does."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"keys": [k.jwk() for k in keys]}))
    os.replace(tmp, path)
    return path


def claims(*, group: str = "*", configuration: str = "draguard", lifetime: int = 600, now: float | None = None,
           **overrides: Any) -> dict[str, Any]:
    """The payload the API server's KEP-6060 token carries for this webhook; `overrides` replace claims (None drops)."""
    issued = int(now if now is not None else time.time())
    payload: dict[str, Any] = {
        "iss": ISSUER, "aud": [AUDIENCE], "sub": SUBJECT, "iat": issued, "nbf": issued, "exp": issued + lifetime,
        "kubernetes.io": {
            "namespace": "kube-system", "serviceaccount": {"name": "webhook-auth", "uid": "0c7a"},
            "validatingWebhookConfiguration": {"name": configuration, "uid": "44e8"},
            "attestationClaims": {GROUP_CLAIM: [group]},
        },
    }
    payload.update(overrides)
    return {k: v for k, v in payload.items() if v is not None}


@dataclass
class ClientPKI:
    """A client CA (its bundle in `ca_file`) and client certificates it issued."""

    base: Path
    ca: Issued = field(default_factory=issue_ca)

    @property
    def ca_file(self) -> Path:
        return self.base / "client-ca.crt"

    def write_ca(self, *extra: Issued) -> Path:
        self.base.mkdir(parents=True, exist_ok=True)
        tmp = self.ca_file.with_suffix(".tmp")
        tmp.write_bytes(cert_pem([self.ca.cert, *(e.cert for e in extra)]))
        os.replace(tmp, self.ca_file)
        return self.ca_file

    def client(self, name: str, *, dns: tuple[str, ...] = (), uris: tuple[str, ...] = ()) -> tuple[Path, Path]:
        issued = issue_client(self.ca, client_subject(name, dns, uris))
        self.base.mkdir(parents=True, exist_ok=True)
        stem = f"{name}-{issued.cert.serial_number:x}"
        cert, key = self.base / f"{stem}.crt", self.base / f"{stem}.key"
        cert.write_bytes(cert_pem(issued.cert))
        key.write_bytes(key_pem(issued.key))
        return cert, key


def tls_client(ca_file: Path, client: tuple[Path, Path] | None = None) -> ssl.SSLContext:
    context = client_context(ca_file)
    if client is not None:
        context.load_cert_chain(str(client[0]), str(client[1]))
    return context


@dataclass
class AuthServer(ServerProcess):
    process: subprocess.Popen[bytes]
    port: int
    metrics_port: int
    cert_dir: Path
    log_file: Path

    def connect(self, client: tuple[Path, Path] | None = None) -> Connection:
        return Connection(self.port, tls_client(self.cert_dir / "ca.crt", client))

    def request(self, method: str, path: str, *, client: tuple[Path, Path] | None = None, token: str | None = None,
                body: object = None) -> Reply:
        conn = self.connect(client)
        try:
            headers = dict(JSON)
            if token is not None:
                headers["Authorization"] = f"Bearer {token}"
            data = None if body is None else body if isinstance(body, bytes) else encode(body)
            return send(conn, method, path, data, headers)
        finally:
            conn.close()

    def review(self, **kwargs: Any) -> Reply:
        from tests.builders import slice_with

        return self.request("POST", SLICES, body=admission_review(slice_with(numa=1), uid="uid-auth"), **kwargs)



def start_auth_server(base: Path, args: tuple[str, ...], *, ready_client: tuple[Path, Path] | None = None,
                      ready_token: str | None = None, workers: int = 1) -> AuthServer:
    """`python -m webhook serve` with the given auth flags, once /readyz answers over TLS (with `ready_client`)."""
    def describe(process: subprocess.Popen[bytes], port: int, metrics_port: int, cert_dir: Path, _policy: Path,
                 log_file: Path) -> AuthServer:
        return AuthServer(process, port, metrics_port, cert_dir, log_file)

    return launch(base, SESSION_POLICY, workers, args, issue=True, describe=describe,
                  ready=lambda server: server.request("GET", "/readyz", client=ready_client,
                                                      token=ready_token).status == 200)


def refused_count(metrics: str, reason: str) -> float:
    prefix = f'draguard_auth_refused_total{{reason="{reason}"}} '
    return sum(float(line[len(prefix):]) for line in metrics.splitlines() if line.startswith(prefix))


def now_utc() -> dt.datetime:
    return dt.datetime.now(dt.UTC)
