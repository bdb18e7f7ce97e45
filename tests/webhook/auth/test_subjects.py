"""--allowed-subject patterns, and the flag combinations `draguard serve` refuses before starting."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives.serialization import Encoding

from certs.client import client_subject, issue_client
from certs.issue import issue_ca
from tests.webhook.conftest import free_port, issue_certs
from webhook import cli
from webhook.auth.settings import AuthSettings
from webhook.auth.subjects import PeerNames, allowed, peer_names
from webhook.errors import DraguardError

APISERVER = PeerNames(("kube-apiserver",), ("apiserver.example",), ("spiffe://cluster.local/ns/kube-system/sa/x",))


@pytest.mark.parametrize(
    ("patterns", "ok"),
    [
        ((), True),
        (("kube-apiserver",), True),
        (("kube-apiserve",), False),
        (("Kube-apiserver",), False),  # case-sensitive, as Go's string comparison
        (("kube-*",), True),
        (("apiserver.example",), True),
        (("*.example",), True),
        (("spiffe://cluster.local/ns/kube-system/*",), True),
        (("spiffe://cluster.local/ns/default/*",), False),
        (("nobody", "apiserver.*"), True),
    ],
)
def test_a_pattern_matches_the_cn_or_a_dns_or_uri_name(patterns: tuple[str, ...], ok: bool) -> None:
    assert allowed(APISERVER, patterns) is ok


def test_names_are_read_from_the_certificate() -> None:
    issued = issue_client(issue_ca(), client_subject("kube-apiserver", ["a.example"], ["spiffe://c/x"]))
    names = peer_names(issued.cert.public_bytes(Encoding.DER))
    assert names == PeerNames(("kube-apiserver",), ("a.example",), ("spiffe://c/x",))
    assert names.describe() == "CN=kube-apiserver, DNS:a.example, URI:spiffe://c/x"


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (AuthSettings(allowed_subjects=("kube-apiserver",)),
         "--allowed-subject needs --client-ca: without client certificates there is no subject to check"),
        (AuthSettings(client_ca=Path("ca.crt"), allowed_subjects=("",)),
         "--allowed-subject: an empty pattern matches no certificate; give a name or glob"),
        (AuthSettings(token_issuer="https://k"), "--token-issuer, --token-jwks and --token-audience go together "
                                                 "(missing: --token-jwks, --token-audience)"),
        (AuthSettings(token_jwks=Path("j"), token_audiences=("https://a",)),
         "--token-issuer, --token-jwks and --token-audience go together (missing: --token-issuer)"),
        (AuthSettings(token_issuer="https://k", token_jwks=Path("j"), token_audiences=(" ",)),
         "--token-audience: an empty audience matches no token"),
        (AuthSettings(token_issuer="https://k", token_jwks=Path("j"), token_audiences=("https://a",),
                      token_configuration=""),
         "--token-webhook-configuration: give the ValidatingWebhookConfiguration's name"),
    ],
)
def test_settings_that_would_not_protect_anything_are_refused(settings: AuthSettings, message: str) -> None:
    with pytest.raises(DraguardError) as caught:
        settings.check()
    assert str(caught.value) == message


def serve(capsys: pytest.CaptureFixture[str], tmp_path: Path, *argv: str) -> tuple[int, str]:
    issue_certs(tmp_path / "certs")
    code = cli.main(["serve", "--cert-dir", str(tmp_path / "certs"), "--host", "127.0.0.1", "--port",
                     str(free_port()), "--metrics-port", "0", *argv])
    out, err = capsys.readouterr()
    assert out == ""
    return code, err


def test_a_missing_client_ca_file_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert serve(capsys, tmp_path, "--client-ca", str(tmp_path / "absent.crt")) == (
        2, f"draguard: error: cannot serve TLS: {tmp_path / 'absent.crt'}: cannot read: No such file or directory\n")


def test_a_client_ca_file_without_a_ca_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    issue_certs(tmp_path / "certs")
    leaf = tmp_path / "certs" / "tls.crt"  # a serving certificate, not a CA
    assert serve(capsys, tmp_path, "--client-ca", str(leaf)) == (
        2, f"draguard: error: cannot serve TLS: {leaf}: holds no CA certificate (basicConstraints CA:TRUE) to "
           "verify clients with\n")


def test_an_unusable_jwks_file_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    jwks = tmp_path / "jwks.json"
    jwks.write_text('{"keys": []}')
    assert serve(capsys, tmp_path, "--token-issuer", "https://k", "--token-jwks", str(jwks),
                 "--token-audience", "https://a") == (
        2, f"draguard: error: {jwks}: holds no usable signing key (RSA or EC, with a kid)\n")


def test_incomplete_token_flags_are_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert serve(capsys, tmp_path, "--token-issuer", "https://k") == (
        2, "draguard: error: --token-issuer, --token-jwks and --token-audience go together (missing: --token-jwks, "
           "--token-audience)\n")
