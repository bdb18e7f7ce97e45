"""certs.reload.TLSReloader: new connections get new certificates without a restart; bad files never win."""

from __future__ import annotations

import datetime as dt
import logging
import shutil
import ssl
from pathlib import Path

import pytest
from cryptography import x509

from certs import CertsError
from certs.issue import generate
from certs.pem import load_certs
from certs.reload import TLSReloader
from tests.certs.conftest import handshake

HOST = "draguard.draguard-system.svc"


def _serial(der: bytes) -> int:
    return x509.load_der_x509_certificate(der).serial_number


def _leaf_serial(directory: Path) -> int:
    return load_certs(directory / "tls.crt")[0].serial_number


def _issue(directory: Path, *extra: str) -> None:
    generate(directory, "draguard", "draguard-system", extra_dns=list(extra))


def test_new_connections_get_the_new_certificate_without_a_restart(tmp_path: Path, tls_server: type) -> None:
    _issue(tmp_path)
    first = _leaf_serial(tmp_path)
    reloader = TLSReloader(tmp_path / "tls.crt", tmp_path / "tls.key", check_interval=0)
    server = tls_server(reloader.server_context())
    assert _serial(handshake(server.port, tmp_path / "ca.crt", server_name=HOST)) == first

    _issue(tmp_path, "renamed.example")  # new SANs: the leaf is re-issued in place
    second = _leaf_serial(tmp_path)
    assert second != first
    assert _serial(handshake(server.port, tmp_path / "ca.crt", server_name="renamed.example")) == second
    assert reloader.not_after == load_certs(tmp_path / "tls.crt")[0].not_valid_after_utc
    assert (reloader.loaded, reloader.last_error) == (True, None)


def test_files_are_read_again_only_after_the_check_interval(tmp_path: Path, tls_server: type) -> None:
    _issue(tmp_path)
    first = _leaf_serial(tmp_path)
    reloader = TLSReloader(tmp_path / "tls.crt", tmp_path / "tls.key", check_interval=3600)
    server = tls_server(reloader.server_context())
    _issue(tmp_path, "renamed.example")
    assert _serial(handshake(server.port, tmp_path / "ca.crt", server_name=HOST)) == first
    assert reloader.reload() is True
    assert _serial(handshake(server.port, tmp_path / "ca.crt", server_name=HOST)) == _leaf_serial(tmp_path)
    assert reloader.reload() is False  # unchanged files: nothing to do


def test_invalid_new_files_keep_the_old_certificate_and_say_why(
    tmp_path: Path, tls_server: type, caplog: pytest.LogCaptureFixture
) -> None:
    _issue(tmp_path / "a")
    _issue(tmp_path / "b")
    live = tmp_path / "a"
    first = _leaf_serial(live)
    reloader = TLSReloader(live / "tls.crt", live / "tls.key", check_interval=0)
    server = tls_server(reloader.server_context())

    caplog.set_level(logging.WARNING, logger="certs.reload")
    (live / "tls.crt").write_text("garbage\n")
    for _ in range(2):  # the same bad files are reported once, not on every handshake
        assert _serial(handshake(server.port, live / "ca.crt", server_name=HOST)) == first
    assert reloader.last_error == f"{live}/tls.crt: no PEM certificate found"
    assert reloader.loaded is True
    assert [r.getMessage() for r in caplog.records] == [
        f"keeping the certificate that expires {reloader.not_after:%Y-%m-%d}: {live}/tls.crt: no PEM certificate found"
    ]

    shutil.copy(tmp_path / "b" / "tls.crt", live / "tls.crt")  # a certificate whose key is not beside it
    assert _serial(handshake(server.port, live / "ca.crt", server_name=HOST)) == first
    assert reloader.last_error == f"{live}/tls.key does not match the certificate in {live}/tls.crt"

    shutil.copy(tmp_path / "b" / "tls.key", live / "tls.key")  # now a matching pair (from CA b)
    assert _serial(handshake(server.port, tmp_path / "b" / "ca.crt", server_name=HOST)) == _leaf_serial(tmp_path / "b")
    assert reloader.last_error is None


def test_the_context_requires_tls_1_2_or_newer(tmp_path: Path) -> None:
    _issue(tmp_path)
    context = TLSReloader(tmp_path / "tls.crt", tmp_path / "tls.key").server_context()
    assert context.minimum_version == ssl.TLSVersion.TLSv1_2


def test_unusable_files_at_start_raise_one_line(tmp_path: Path) -> None:
    _issue(tmp_path / "a")
    _issue(tmp_path / "b")
    a, b = tmp_path / "a", tmp_path / "b"
    with pytest.raises(CertsError) as err:
        TLSReloader(a / "missing.crt", a / "tls.key")
    assert err.value.message == f"{a}/missing.crt: cannot read: No such file or directory"
    with pytest.raises(CertsError) as err:
        TLSReloader(a / "tls.crt", b / "tls.key")
    assert err.value.message == f"{b}/tls.key does not match the certificate in {a}/tls.crt"
    with pytest.raises(CertsError) as err:
        TLSReloader(a / "tls.crt", a / "tls.crt")
    assert err.value.message == f"{a}/tls.crt: not a valid PEM private key"


def test_an_expired_certificate_is_refused_at_start(tmp_path: Path) -> None:
    past = dt.datetime.now(dt.UTC) - dt.timedelta(days=800)
    generate(tmp_path, "draguard", "draguard-system", now=past)
    expiry = load_certs(tmp_path / "tls.crt")[0].not_valid_after_utc
    with pytest.raises(CertsError) as err:
        TLSReloader(tmp_path / "tls.crt", tmp_path / "tls.key")
    assert err.value.message == f"{tmp_path}/tls.crt: the certificate expired on {expiry:%Y-%m-%d %H:%M:%S} UTC"


def test_without_memfd_a_private_temporary_file_serves_as_well(
    tmp_path: Path, tls_server: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    monkeypatch.delattr(os, "memfd_create", raising=False)
    _issue(tmp_path)
    server = tls_server(TLSReloader(tmp_path / "tls.crt", tmp_path / "tls.key").server_context())
    assert _serial(handshake(server.port, tmp_path / "ca.crt", server_name=HOST)) == _leaf_serial(tmp_path)


def _ed25519_material(directory: Path) -> None:
    """What cert-manager writes for `privateKey.algorithm: Ed25519`: an Ed25519 CA and serving pair (PKCS#8 key)."""
    from cryptography.hazmat.primitives.asymmetric import ed25519

    from certs.pem import cert_pem

    now = dt.datetime.now(dt.UTC)
    ca_key, key = ed25519.Ed25519PrivateKey.generate(), ed25519.Ed25519PrivateKey.generate()
    name = x509.Name([x509.NameAttribute(x509.NameOID.COMMON_NAME, "ed-ca")])
    ca = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(ca_key.public_key())
          .serial_number(1).not_valid_before(now - dt.timedelta(minutes=5)).not_valid_after(now + dt.timedelta(days=9))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True).sign(ca_key, None))
    leaf = (x509.CertificateBuilder().subject_name(x509.Name([])).issuer_name(name).public_key(key.public_key())
            .serial_number(2).not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=9))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(HOST)]), critical=False).sign(ca_key, None))
    directory.mkdir(exist_ok=True)
    (directory / "ca.crt").write_bytes(cert_pem(ca))
    (directory / "tls.crt").write_bytes(cert_pem(leaf))
    from cryptography.hazmat.primitives import serialization

    (directory / "tls.key").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                          serialization.NoEncryption()))


def test_an_ed25519_pair_is_served(tmp_path: Path, tls_server: type) -> None:
    # Before: "unsupported private key type Ed25519PrivateKey; use ECDSA or RSA", so `draguard serve` could not
    # start on a Secret that cert-manager issued with Ed25519 (which Go's TLS client accepts).
    _ed25519_material(tmp_path)
    reloader = TLSReloader(tmp_path / "tls.crt", tmp_path / "tls.key", check_interval=0)
    server = tls_server(reloader.server_context())
    assert _serial(handshake(server.port, tmp_path / "ca.crt", server_name=HOST)) == 2
