"""A whole CA rotation (`draguard certs rotate` overlap -> leaf -> retire) under a running `draguard serve`.

The server is the real one (gunicorn, two workers, `TLSReloader`), started by the webhook tests' helper. While the
phases run, client threads keep sending AdmissionReviews, half on a fresh connection each time (a new handshake) and
half on kept-alive connections: some trust the overlap bundle they were handed after phase `overlap` was injected,
some re-read the live `ca.crt` for every connection as the API server re-reads an injected `caBundle`. Not one
request may fail. The traffic and polling helpers are the webhook tests' own (tests/webhook/conftest.py).
"""

from __future__ import annotations

import shutil
import ssl
from pathlib import Path

import pytest
from cryptography import x509

from tests.webhook.conftest import Traffic, eventually, served_serial, start_server
from webhook.cli import main

pytestmark = pytest.mark.slow


def file_serial(path: Path) -> int:
    return x509.load_pem_x509_certificate(path.read_bytes()).serial_number


def rotate(cert_dir: Path, phase: str) -> None:
    assert main(["certs", "rotate", "--dir", str(cert_dir), "--phase", phase]) == 0


def test_a_full_ca_rotation_under_a_running_server_drops_no_request(tmp_path: Path) -> None:
    server = start_server(tmp_path / "server", policy="rules: {}\n")
    try:
        live = server.cert_dir / "ca.crt"
        old_bundle = Path(shutil.copy(live, tmp_path / "old.crt"))
        first = served_serial(server.port, old_bundle)

        rotate(server.cert_dir, "overlap")  # then `inject`: the API server now holds the overlap bundle
        overlap_bundle = Path(shutil.copy(live, tmp_path / "overlap.crt"))
        with Traffic(server.port, [lambda: overlap_bundle, lambda: live]) as traffic:
            eventually(traffic.progressed(5), "traffic on every client thread")
            assert served_serial(server.port, old_bundle) == first  # the old-bundle client still works

            rotate(server.cert_dir, "leaf")  # the switch: both workers re-read tls.crt/tls.key on a handshake
            switched = file_serial(server.cert_dir / "tls.crt")
            assert switched != first
            streak = [0]

            def serving_the_new_leaf() -> bool:
                streak[0] = streak[0] + 1 if served_serial(server.port, overlap_bundle) == switched else 0
                return streak[0] >= 10

            eventually(serving_the_new_leaf, "ten fresh handshakes in a row served the new serving certificate")

            def old_bundle_refused() -> bool:
                try:
                    served_serial(server.port, old_bundle)
                except ssl.SSLCertVerificationError:
                    return True
                return False

            eventually(old_bundle_refused, "a client with only the old bundle refused after the switch")
            eventually(traffic.progressed(10), "requests on every client thread after the switch")

            rotate(server.cert_dir, "retire")  # then `inject` again: only the new CA is trusted
            assert len(x509.load_pem_x509_certificates(live.read_bytes())) == 1
            assert served_serial(server.port, live) == switched
            eventually(traffic.progressed(10), "requests on every client thread after the retirement")
        assert traffic.failures == []
        assert sorted(p.name for p in server.cert_dir.iterdir()) == ["ca.crt", "ca.key", "tls.crt", "tls.key"]
    finally:
        assert server.stop() == 0
