"""What authenticating the API server costs per request, as ratios to an unauthenticated request (one run).

Three real `draguard serve` processes (1 gthread worker each) on 127.0.0.1: no authentication, `--client-ca
--allowed-subject`, and `--token-*` (an ES256 KEP-6060 token). Measured with one client, sequentially:
- a new connection per request (TLS handshake included): mTLS against plain, i.e. the handshake with a client
  certificate plus the subject check;
- keep-alive requests: mTLS (subject check, the certificate's names cached) and a bearer token (signature and
  claims verified on every request) against plain;
- in process: verifying a token seen for the first time (ES256, RS256) and one already verified (the API server
  re-uses a token for its ten-minute life), against one unauthenticated review through the Flask app (WSGI test
  client).
Variants take turns in short rounds and the fastest round of each counts, the one least disturbed by other load.
The machine is shared, so only the ratios mean anything, and only roughly; nothing here asserts them.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import jwt  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec, rsa  # noqa: E402

from certs.client import client_subject, issue_client  # noqa: E402
from certs.issue import Issued, generate  # noqa: E402
from certs.pem import cert_pem, key_pem, load_certs, load_key  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_webhook import Connection  # noqa: E402  (the same kept-alive, TCP_NODELAY client)

PATH = "/validate/resourceslices"
ISSUER, AUDIENCE = "https://kubernetes.default.svc.cluster.local", "https://draguard.draguard.svc:443" + PATH
SECONDS = 3.0  # per measured variant, split into ROUNDS turns
ROUNDS = 6


def review() -> bytes:
    obj = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
           "spec": {"driver": "gpu.example.com", "nodeName": "n", "pool": {"name": "p", "generation": 0,
                                                                              "resourceSliceCount": 1},
                    "devices": [{"name": f"d{i}", "attributes": {"resource.kubernetes.io/numaNode": {"int": i}}}
                                for i in range(4)]}}
    request = {"uid": "bench", "kind": {"group": "resource.k8s.io", "version": "v1", "kind": "ResourceSlice"},
               "resource": {"group": "resource.k8s.io", "version": "v1", "resource": "resourceslices"},
               "operation": "CREATE", "userInfo": {"username": "u"}, "object": obj}
    return json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}).encode()


def token(key: ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey, kid: str, alg: str) -> str:
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": [AUDIENCE], "sub": "system:serviceaccount:kube-system:webhook-auth", "iat": now,
              "nbf": now, "exp": now + 600, "kubernetes.io": {
                  "validatingWebhookConfiguration": {"name": "draguard", "uid": "u"},
                  "attestationClaims": {"webhook-authentication.k8s.io/allowedAPIGroup": ["*"]}}}
    return jwt.encode(claims, key, algorithm=alg, headers={"kid": kid})


def jwks(path: Path, *entries: tuple[ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey, str, str]) -> Path:
    keys = []
    for key, kid, alg in entries:
        algorithm = jwt.algorithms.RSAAlgorithm if alg.startswith("RS") else jwt.algorithms.ECAlgorithm
        keys.append({**json.loads(algorithm.to_jwk(key.public_key())), "kid": kid, "use": "sig", "alg": alg})
    path.write_text(json.dumps({"keys": keys}))
    return path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def start(base: Path, cert_dir: Path, args: list[str], context: ssl.SSLContext, headers: dict[str, str]) -> tuple[
        subprocess.Popen[bytes], int]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    log = (base / f"server-{port}.log").open("wb")
    process = subprocess.Popen([sys.executable, "-m", "webhook", "serve", "--cert-dir", str(cert_dir), "--host",
                                "127.0.0.1", "--port", str(port), "--metrics-port", "0", "--workers", "1",
                                "--log-level", "warning", *args], cwd=REPO, stdout=log, stderr=log, env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            conn = Connection(port, context)
            conn.request("GET", "/readyz", headers=headers)
            if conn.getresponse().status == 200:
                conn.close()
                return process, port
        except (OSError, http.client.HTTPException):
            time.sleep(0.1)
    raise SystemExit(f"server did not start: {args}")


def rate(send: Callable[[], None], seconds: float = SECONDS) -> float:
    """Seconds per request, sending for `seconds` after a short warm-up."""
    for _ in range(20):
        send()
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        send()
        count += 1
    return (time.perf_counter() - start) / count


def interleaved(senders: dict[str, Callable[[], None]], rounds: int = ROUNDS) -> dict[str, float]:
    """Fastest round of each sender (the least disturbed by other load), taking turns in short rounds."""
    times: dict[str, list[float]] = {name: [] for name in senders}
    for _ in range(rounds):
        for name, send in senders.items():
            times[name].append(rate(send, SECONDS / rounds))
    return {name: min(values) for name, values in times.items()}


def fresh_sender(port: int, context: ssl.SSLContext, body: bytes, headers: dict[str, str]) -> Callable[[], None]:
    def send() -> None:
        conn = Connection(port, context)
        conn.request("POST", PATH, body=body, headers=headers)
        response = conn.getresponse()
        response.read()
        assert response.status == 200, response.status
        conn.close()
    return send


def kept_sender(port: int, context: ssl.SSLContext, body: bytes, headers: dict[str, str]) -> Callable[[], None]:
    conn = Connection(port, context)

    def send() -> None:
        conn.request("POST", PATH, body=body, headers=headers)
        response = conn.getresponse()
        response.read()
        assert response.status == 200, response.status
    return send


def in_process(base: Path) -> None:
    from prometheus_client import REGISTRY  # noqa: F401  (single-process metrics, as in tests)

    from webhook.app import Settings, create_app
    from webhook.auth.tokens import TokenVerifier
    from webhook.policy import Policy
    from webhook.policy_store import PolicyStore

    client = create_app(Settings(), PolicyStore.fixed(Policy.default())).test_client()
    body = review()

    def plain() -> None:
        client.post(PATH, data=body, headers={"Content-Type": "application/json"})

    ec_key, rsa_key = ec.generate_private_key(ec.SECP256R1()), rsa.generate_private_key(public_exponent=65537,
                                                                                         key_size=2048)
    path = jwks(base / "inproc.json", (ec_key, "ec", "ES256"), (rsa_key, "rsa", "RS256"))
    verifier = TokenVerifier(path, ISSUER, [AUDIENCE], "draguard")
    es, rs = token(ec_key, "ec", "ES256"), token(rsa_key, "rsa", "RS256")
    keys = verifier.keys()
    measured = interleaved({
        "plain": plain,
        "es": lambda: verifier._verify(es, keys),  # the first sight of a token: signature and claims
        "rs": lambda: verifier._verify(rs, keys),
        "remembered": lambda: verifier.verify(es),  # the API server's next requests with the same token
    })
    base = measured["plain"]
    print(f"in process: review through the app {base * 1e6:.0f} us; a new token verified: ES256 "
          f"{measured['es'] * 1e6:.0f} us ({measured['es'] / base:.2f}x the review), RS256 "
          f"{measured['rs'] * 1e6:.0f} us ({measured['rs'] / base:.2f}x); a remembered token "
          f"{measured['remembered'] * 1e6:.1f} us ({measured['remembered'] / base:.4f}x)")


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="draguard-bench-auth-") as tmp:
        base = Path(tmp)
        cert_dir = base / "certs"
        generate(cert_dir, "draguard", "draguard")
        ca = Issued(load_certs(cert_dir / "ca.crt")[0], load_key(cert_dir / "ca.key"))
        client = issue_client(ca, client_subject("kube-apiserver"))
        (base / "c.crt").write_bytes(cert_pem(client.cert))
        (base / "c.key").write_bytes(key_pem(client.key))
        signing = ec.generate_private_key(ec.SECP256R1())
        jwks_file = jwks(base / "jwks.json", (signing, "bench", "ES256"))

        plain_ctx = ssl.create_default_context(cafile=str(cert_dir / "ca.crt"))
        mtls_ctx = ssl.create_default_context(cafile=str(cert_dir / "ca.crt"))
        mtls_ctx.load_cert_chain(str(base / "c.crt"), str(base / "c.key"))
        json_headers = {"Content-Type": "application/json"}
        bearer = {**json_headers, "Authorization": f"Bearer {token(signing, 'bench', 'ES256')}"}
        servers = {
            "plain": start(base, cert_dir, [], plain_ctx, json_headers),
            "mtls": start(base, cert_dir, ["--client-ca", str(cert_dir / "ca.crt"), "--allowed-subject",
                                           "kube-apiserver"], mtls_ctx, json_headers),
            "token": start(base, cert_dir, ["--token-issuer", ISSUER, "--token-jwks", str(jwks_file),
                                            "--token-audience", AUDIENCE], plain_ctx, json_headers),
        }
        try:
            body = review()
            fresh = interleaved({
                "plain": fresh_sender(servers["plain"][1], plain_ctx, body, json_headers),
                "mtls": fresh_sender(servers["mtls"][1], mtls_ctx, body, json_headers)})
            kept = interleaved({
                "plain": kept_sender(servers["plain"][1], plain_ctx, body, json_headers),
                "mtls": kept_sender(servers["mtls"][1], mtls_ctx, body, json_headers),
                "token": kept_sender(servers["token"][1], plain_ctx, body, bearer)})
            fresh_plain, fresh_mtls = fresh["plain"], fresh["mtls"]
            kept_plain, kept_mtls, kept_token = kept["plain"], kept["mtls"], kept["token"]
            print(f"new connection per request: plain {fresh_plain * 1e3:.2f} ms, mTLS {fresh_mtls * 1e3:.2f} ms "
                  f"({fresh_mtls / fresh_plain:.2f}x)")
            print(f"keep-alive: plain {kept_plain * 1e3:.2f} ms, mTLS {kept_mtls * 1e3:.2f} ms "
                  f"({kept_mtls / kept_plain:.2f}x), token {kept_token * 1e3:.2f} ms ({kept_token / kept_plain:.2f}x)")
        finally:
            for process, _ in servers.values():
                process.terminate()
                process.wait(timeout=60)
        in_process(base)


if __name__ == "__main__":
    main()
