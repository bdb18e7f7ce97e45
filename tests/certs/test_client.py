"""The API server's client certificate: `certs.client` and `draguard certs client`, and a server requiring one."""

from __future__ import annotations

import datetime as dt
import socket
import ssl
import stat
import threading
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID

from certs import CertsError
from certs.client import MAX_CLIENT_DAYS, client_subject, issue_client
from certs.issue import generate, issue_ca
from certs.pem import cert_pem, key_pem, load_certs
from certs.reload import TLSReloader
from webhook.cli import main

HOST = "draguard.draguard.svc"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_client_certificate_is_for_client_auth_only_and_names_its_subject() -> None:
    ca = issue_ca()
    cert = issue_client(ca, client_subject("kube-apiserver", ["apiserver.example"], ["spiffe://c/sa"])).cert
    assert cert.subject.rfc4514_string() == "CN=kube-apiserver"
    assert cert.issuer == ca.cert.subject
    assert list(cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value) == [
        ExtendedKeyUsageOID.CLIENT_AUTH]
    assert cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca is False
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert (san.get_values_for_type(x509.DNSName), san.get_values_for_type(x509.UniformResourceIdentifier)) == (
        ["apiserver.example"], ["spiffe://c/sa"])


def test_a_client_certificate_never_outlives_its_ca() -> None:
    now = dt.datetime.now(dt.UTC)
    ca = issue_ca(years=1, now=now - dt.timedelta(days=300))
    cert = issue_client(ca, client_subject("kube-apiserver"), now=now).cert
    assert cert.not_valid_after_utc == ca.cert.not_valid_after_utc


@pytest.mark.parametrize(("days", "ok"), [(0, False), (1, True), (MAX_CLIENT_DAYS, True), (MAX_CLIENT_DAYS + 1, False)])
def test_the_lifetime_is_one_to_365_days(days: int, ok: bool) -> None:
    if ok:
        issue_client(issue_ca(), client_subject("x"), days=days)
        return
    with pytest.raises(CertsError) as caught:
        issue_client(issue_ca(), client_subject("x"), days=days)
    assert caught.value.message == f"the client certificate lifetime must be 1 to 365 days, not {days}"


@pytest.mark.parametrize(
    ("cn", "dns", "uris", "message"),
    [
        ("", (), (), "invalid subject '': give a non-empty Common Name without surrounding spaces"),
        (" x", (), (), "invalid subject ' x': give a non-empty Common Name without surrounding spaces"),
        ("x" * 65, (), (), f"invalid subject '{'x' * 65}': a Common Name is at most 64 characters"),
        ("x", ("a b",), (), "invalid DNS name 'a b': must be a lower-case DNS-1123 subdomain (RFC 1123)"),
        ("x", ("Bad_Name",), (), "invalid DNS name 'Bad_Name': must be a lower-case DNS-1123 subdomain (RFC 1123)"),
        ("a\nb", (), (), "invalid subject 'a\\nb': a Common Name has no control characters"),
        ("x", (), ("not-a-uri",), "invalid URI 'not-a-uri': give an absolute URI such as "
                                  "spiffe://cluster.local/ns/x/sa/y"),
        ("x", (), ("http://[::1",), "invalid URI 'http://[::1': Invalid IPv6 URL"),
    ],
)
def test_bad_names_are_one_line(cn: str, dns: tuple[str, ...], uris: tuple[str, ...], message: str) -> None:
    with pytest.raises(CertsError) as caught:
        client_subject(cn, dns, uris)
    assert caught.value.message == message


def test_a_64_character_common_name_is_accepted() -> None:
    assert client_subject("x" * 64).common_name == "x" * 64


def test_certs_client_writes_the_pair_from_the_webhook_ca(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    generate(tmp_path / "tls", "draguard", "draguard")
    code, out, err = _run(capsys, "certs", "client", "--dir", str(tmp_path / "tls"), "--subject", "kube-apiserver",
                          "--uri", "spiffe://cluster.local/ns/kube-system/sa/webhook-auth", "--out",
                          str(tmp_path / "apiserver"), "--days", "30")
    assert (code, err) == (0, "")
    cert = load_certs(tmp_path / "apiserver" / "client.crt")[0]
    assert out == (f"client certificate: issued for CN=kube-apiserver, URI:spiffe://cluster.local/ns/kube-system/"
                   f"sa/webhook-auth (serial {cert.serial_number:x}, expires {cert.not_valid_after_utc:%Y-%m-%d})\n"
                   f"wrote {tmp_path}/apiserver/client.crt and {tmp_path}/apiserver/client.key\n")
    cert.verify_directly_issued_by(load_certs(tmp_path / "tls" / "ca.crt")[0])
    assert stat.S_IMODE((tmp_path / "apiserver" / "client.key").stat().st_mode) == 0o600


def test_certs_client_without_a_ca_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "certs", "client", "--dir", str(tmp_path), "--subject", "kube-apiserver",
                          "--out", str(tmp_path / "out"))
    assert (code, out) == (2, "")
    assert err == f"draguard: error: {tmp_path}: no ca.crt and ca.key; run `draguard certs generate` first\n"
    assert not (tmp_path / "out").exists()


def _serve_once(context: ssl.SSLContext, listener: socket.socket) -> None:
    conn, _ = listener.accept()
    try:
        with context.wrap_socket(conn, server_side=True) as tls:
            tls.sendall(b"ok")
    except (ssl.SSLError, OSError):
        pass


def _client_says(port: int, ca_file: Path, pair: tuple[Path, Path] | None) -> bytes:
    context = ssl.create_default_context(cafile=str(ca_file))
    if pair:
        context.load_cert_chain(str(pair[0]), str(pair[1]))
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw, \
            context.wrap_socket(raw, server_hostname=HOST) as tls:
        return tls.recv(2)


def _pair(directory: Path, ca_dir: Path) -> tuple[Path, Path]:
    from certs.issue import Issued
    from certs.pem import load_key

    ca = Issued(load_certs(ca_dir / "ca.crt")[0], load_key(ca_dir / "ca.key"))
    issued = issue_client(ca, client_subject("kube-apiserver"))
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "c.crt").write_bytes(cert_pem(issued.cert))
    (directory / "c.key").write_bytes(key_pem(issued.key))
    return directory / "c.crt", directory / "c.key"


def test_the_reloader_requires_a_client_certificate_and_follows_a_rotated_client_ca(tmp_path: Path) -> None:
    generate(tmp_path / "tls", "draguard", "draguard")
    generate(tmp_path / "other", "draguard", "draguard")
    client_ca = tmp_path / "client-ca.crt"
    client_ca.write_bytes((tmp_path / "tls" / "ca.crt").read_bytes())
    reloader = TLSReloader(tmp_path / "tls" / "tls.crt", tmp_path / "tls" / "tls.key", check_interval=0,
                           client_ca=client_ca)
    good, other = _pair(tmp_path / "good", tmp_path / "tls"), _pair(tmp_path / "o", tmp_path / "other")
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]

        def attempt(pair: tuple[Path, Path] | None) -> bytes | str:
            server = threading.Thread(target=_serve_once, args=(reloader.server_context(), listener))
            server.start()
            try:
                return _client_says(port, tmp_path / "tls" / "ca.crt", pair)
            except (ssl.SSLError, OSError) as err:
                return type(err).__name__
            finally:
                server.join(timeout=10)

        assert attempt(good) == b"ok"
        assert attempt(None) != b"ok"
        assert attempt(other) != b"ok"
        client_ca.write_bytes((tmp_path / "other" / "ca.crt").read_bytes())  # the client CA rotates
        assert attempt(other) == b"ok"
        assert attempt(good) != b"ok"
        client_ca.write_text("garbage\n")  # a broken bundle never replaces a good one
        assert attempt(other) == b"ok"
        assert reloader.last_error == f"{client_ca}: no PEM certificate found"
