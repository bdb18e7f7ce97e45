"""`draguard certs ...` in-process through webhook.cli.main: stdout, stderr and exit codes as a user sees them."""

from __future__ import annotations

import base64
import socket
from pathlib import Path

import pytest

from certs.pem import load_certs
from tests.certs.apiserver import VWC_PATH, FakeAPIServer, kubeconfig, webhook_configuration
from webhook.cli import main

SVC = ["--service", "draguard", "--namespace", "draguard-system"]
NAMES = ("draguard, draguard.draguard-system, draguard.draguard-system.svc, "
         "draguard.draguard-system.svc.cluster.local")


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _expiry(path: Path) -> str:
    return f"{load_certs(path)[0].not_valid_after_utc:%Y-%m-%d}"


def test_generate_creates_then_reuses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "certs", "generate", "--dir", str(tmp_path), *SVC, "--ip", "127.0.0.1")
    assert (code, err) == (0, "")
    ca, leaf = _expiry(tmp_path / "ca.crt"), _expiry(tmp_path / "tls.crt")
    assert out == (
        f"CA: created (expires {ca})\n"
        f"serving certificate: issued: a new CA was created (expires {leaf})\n"
        f"names: {NAMES}, 127.0.0.1\n"
        f"wrote ca.crt, ca.key, tls.crt, tls.key to {tmp_path}\n"
    )
    code, out, err = _run(capsys, "certs", "generate", "--dir", str(tmp_path), *SVC, "--ip", "127.0.0.1")
    assert (code, err) == (0, "")
    assert out == (
        f"CA: reused (expires {ca})\n"
        f"serving certificate: kept: valid and current (expires {leaf})\n"
        f"names: {NAMES}, 127.0.0.1\n"
        f"{tmp_path}: unchanged\n"
    )
    code, out, _ = _run(capsys, "certs", "generate", "--dir", str(tmp_path), *SVC)
    assert out.splitlines()[1].startswith("serving certificate: issued: the names change (drops 127.0.0.1)")
    assert out.splitlines()[3] == f"wrote tls.crt, tls.key to {tmp_path}"


def test_generate_with_a_foreign_ca_key_is_one_line_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("a", "b"):
        assert main(["certs", "generate", "--dir", str(tmp_path / name), *SVC]) == 0
    (tmp_path / "a" / "ca.key").write_bytes((tmp_path / "b" / "ca.key").read_bytes())
    (tmp_path / "a" / "tls.crt").unlink()
    capsys.readouterr()
    code, out, err = _run(capsys, "certs", "generate", "--dir", str(tmp_path / "a"), *SVC)
    assert (code, out) == (2, "")
    assert err == f"draguard: error: {tmp_path}/a/ca.key does not match any certificate in {tmp_path}/a/ca.crt\n"
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["ca.crt", "ca.key", "tls.key"]


def test_generate_with_an_unreadable_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ca.crt").mkdir(parents=True)
    code, out, err = _run(capsys, "certs", "generate", "--dir", str(tmp_path), *SVC)
    assert (code, out) == (2, "")
    assert err == f"draguard: error: {tmp_path}/ca.crt: cannot read: Is a directory\n"


def test_generate_rejects_a_bad_service_name_before_any_io(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "certs", "generate", "--dir", str(tmp_path / "x"), "--service", "Web_Hook",
                          "--namespace", "ns")
    assert (code, out) == (2, "")
    assert err.startswith("draguard: error: invalid service name 'Web_Hook': a Service name must be a DNS-1035 label")
    assert err.count("\n") == 1
    assert not (tmp_path / "x").exists()


def test_generate_into_a_secret(apiserver: FakeAPIServer, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["certs", "generate", "--secret", "draguard-system/draguard-tls", *SVC,
            "--kubeconfig", str(apiserver.kubeconfig)]
    code, out, err = _run(capsys, *argv)
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == ("wrote ca.crt, ca.key, tls.crt, tls.key to secret/draguard-tls "
                                    "(namespace draguard-system)")
    code, out, _ = _run(capsys, *argv)
    assert out.splitlines()[-1] == "secret/draguard-tls (namespace draguard-system): unchanged"
    assert [r.method for r in apiserver.requests] == ["GET", "POST", "GET"]


def test_rotate_walks_the_phases(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["certs", "generate", "--dir", str(tmp_path), *SVC])
    capsys.readouterr()
    dir_ = ["--dir", str(tmp_path)]
    code, out, _ = _run(capsys, "certs", "rotate", *dir_)
    assert (code, out) == (0, f"nothing to do: the CA is valid until {_expiry(tmp_path / 'ca.crt')} (rotation starts "
                              "with a third of its life left; --force starts it now)\n")
    code, out, _ = _run(capsys, "certs", "rotate", *dir_, "--force")
    assert out.startswith("phase overlap: ca.crt now trusts the old and a new CA")
    code, out, _ = _run(capsys, "certs", "rotate", *dir_)
    # X.509 times have whole seconds, so the age read back is 0 or 1 s
    assert out.startswith("waiting: the overlap bundle is 0m0")
    assert out.endswith("s old, phase leaf runs after 10m00s; run again later\n")
    code, out, _ = _run(capsys, "certs", "rotate", *dir_, "--phase", "leaf")
    assert out.startswith("phase leaf: the serving certificate now comes from the new CA")
    code, out, _ = _run(capsys, "certs", "rotate", *dir_, "--settle", "0")
    assert out == "phase retire: 1 old CA(s) left ca.crt; inject it to finish the rotation\n"
    code, out, err = _run(capsys, "certs", "rotate", *dir_, "--phase", "retire")
    assert (code, out, err) == (0, "phase retire already done: the bundle holds only the current CA\n", "")


def test_rotate_out_of_order_or_with_a_bad_duration_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["certs", "generate", "--dir", str(tmp_path), *SVC])
    capsys.readouterr()
    assert _run(capsys, "certs", "rotate", "--dir", str(tmp_path), "--phase", "leaf") == (
        2, "", f"draguard: error: {tmp_path}: no rotation in progress; run phase overlap first\n")
    assert _run(capsys, "certs", "rotate", "--dir", str(tmp_path), "--settle", "soon") == (
        2, "", "draguard: error: invalid duration 'soon': use e.g. 90s, 10m, 1h30m or 0\n")
    assert _run(capsys, "certs", "rotate", "--dir", str(tmp_path), "--settle", "9999999999999h") == (
        2, "", "draguard: error: invalid duration '9999999999999h': too long (use e.g. 90s, 10m, 1h30m or 0)\n")


def test_an_empty_directory_name_is_a_usage_error_not_the_current_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as caught:
        main(["certs", "generate", "--dir", "", *SVC])
    assert caught.value.code == 2
    assert "argument --dir: an empty path" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_inject_from_a_directory_then_check_the_live_configuration(
    tmp_path: Path, apiserver: FakeAPIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["certs", "generate", "--dir", str(tmp_path), *SVC])
    apiserver.put(VWC_PATH + "draguard", webhook_configuration("draguard", "slices.draguard.io", "claims.draguard.io"))
    cluster = ["--kubeconfig", str(apiserver.kubeconfig)]
    capsys.readouterr()
    code, out, err = _run(capsys, "certs", "check", "--dir", str(tmp_path), *SVC, "--webhook", "draguard", *cluster)
    assert (code, err) == (1, "")
    assert ("FAIL  bundle: validatingwebhookconfiguration/draguard: webhook(s) slices.draguard.io, claims.draguard.io "
            "have no caBundle; run `draguard certs inject`") in out.splitlines()
    assert out.splitlines()[-1] == "1 problem(s), 0 warning(s)"

    code, out, err = _run(capsys, "certs", "inject", "--webhook", "draguard", "--dir", str(tmp_path), *cluster)
    assert (code, out, err) == (0, "validatingwebhookconfiguration/draguard: caBundle set on 2 of 2 webhook(s) "
                                   "(slices.draguard.io, claims.draguard.io); read back and verified\n", "")
    stored = apiserver.get(VWC_PATH + "draguard")["webhooks"][0]["clientConfig"]["caBundle"]
    assert base64.b64decode(stored) == (tmp_path / "ca.crt").read_bytes()

    code, out, err = _run(capsys, "certs", "check", "--dir", str(tmp_path), *SVC, "--webhook", "draguard", *cluster)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert "ok    bundle: validatingwebhookconfiguration/draguard: all 2 webhook(s) trust the issuing CA" in lines
    assert any(line.startswith("ok    clock: the API server's clock is within ") for line in lines)
    assert lines[-1] == "0 problem(s), 0 warning(s)"

    code, out, _ = _run(capsys, "certs", "inject", "--webhook", "draguard", "--ca-file", str(tmp_path / "ca.crt"),
                        *cluster)
    assert out == "validatingwebhookconfiguration/draguard: caBundle already current on all 2 webhook(s); verified\n"


def test_check_reports_a_skewed_api_server_clock(
    tmp_path: Path, apiserver: FakeAPIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["certs", "generate", "--dir", str(tmp_path), *SVC])
    apiserver.put(VWC_PATH + "draguard", webhook_configuration("draguard", "a.draguard.io"))
    apiserver.state.date = "Sat, 01 Jan 2000 00:00:00 GMT"
    capsys.readouterr()
    code, out, _ = _run(capsys, "certs", "check", "--dir", str(tmp_path), "--webhook", "draguard",
                        "--kubeconfig", str(apiserver.kubeconfig))
    assert code == 1
    assert [line for line in out.splitlines() if line.startswith("FAIL  clock")] == [
        "FAIL  clock: the API server's clock (2000-01-01 00:00:00 UTC) is before the serving certificate's notBefore "
        f"({load_certs(tmp_path / 'tls.crt')[0].not_valid_before_utc:%Y-%m-%d %H:%M:%S} UTC): x509: certificate has "
        "expired or is not yet valid; fix the clocks (NTP)"
    ]


def test_check_a_key_that_does_not_match(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("a", "b"):
        main(["certs", "generate", "--dir", str(tmp_path / name), *SVC])
    capsys.readouterr()
    code, out, err = _run(capsys, "certs", "check", "--dir", str(tmp_path / "a"), "--key", str(tmp_path / "b" /
                                                                                                 "tls.key"))
    assert (code, err) == (1, "")
    assert out.splitlines()[0] == (f"FAIL  key: {tmp_path}/b/tls.key does not belong to {tmp_path}/a/tls.crt: the "
                                   "server cannot complete a handshake (tls: private key does not match public key); "
                                   "re-issue with `draguard certs generate`")


def test_check_with_a_missing_certificate_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys, "certs", "check", "--cert", str(tmp_path / "nope.crt")) == (
        2, "", f"draguard: error: {tmp_path}/nope.crt: no such file\n")
    assert _run(capsys, "certs", "check") == (
        2, "", "draguard: error: no serving certificate to check: give --dir, --secret or --cert\n")


def test_an_unreachable_cluster_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["certs", "generate", "--dir", str(tmp_path), *SVC])
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]
    config = tmp_path / "kubeconfig"
    config.write_text(kubeconfig(f"https://127.0.0.1:{port}", tmp_path / "ca.crt"))
    capsys.readouterr()
    assert _run(capsys, "certs", "inject", "--webhook", "draguard", "--dir", str(tmp_path),
                "--kubeconfig", str(config)) == (
        2, "", f"draguard: error: cannot reach the Kubernetes API server at https://127.0.0.1:{port}: "
               "Connection refused\n")


def test_a_missing_subcommand_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["certs"])
    assert exit_.value.code == 2
    assert "the following arguments are required: SUBCOMMAND" in capsys.readouterr().err


def test_check_reads_a_secret(apiserver: FakeAPIServer, capsys: pytest.CaptureFixture[str]) -> None:
    cluster = ["--kubeconfig", str(apiserver.kubeconfig)]
    assert main(["certs", "check", "--secret", "draguard-system/draguard-tls", *cluster]) == 2
    assert capsys.readouterr().err == "draguard: error: secret draguard-system/draguard-tls not found\n"
    main(["certs", "generate", "--secret", "draguard-system/draguard-tls", *SVC, *cluster])
    capsys.readouterr()
    code, out, _ = _run(capsys, "certs", "check", "--secret", "draguard-system/draguard-tls", *SVC, *cluster)
    assert code == 0
    assert out.splitlines()[:2] == [
        "ok    key: secret draguard-system/draguard-tls tls.key matches secret draguard-system/draguard-tls tls.crt",
        "ok    name: secret draguard-system/draguard-tls tls.crt covers draguard.draguard-system.svc",
    ]


def test_check_without_a_bundle_file_verifies_against_the_live_cabundle(
    tmp_path: Path, apiserver: FakeAPIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["certs", "generate", "--dir", str(tmp_path), *SVC])
    bundle = base64.b64encode((tmp_path / "ca.crt").read_bytes()).decode()
    apiserver.put(VWC_PATH + "draguard", webhook_configuration("draguard", "a.draguard.io", ca_bundle=bundle))
    capsys.readouterr()
    code, out, _ = _run(capsys, "certs", "check", "--cert", str(tmp_path / "tls.crt"), "--webhook", "draguard",
                        "--kubeconfig", str(apiserver.kubeconfig))
    assert code == 0
    assert [line.split(" (issued by")[0] for line in out.splitlines() if "chain" in line] == [
        f"ok    chain: {tmp_path}/tls.crt verifies against the caBundle of webhook a.draguard.io"]


def test_inject_with_an_unreadable_bundle_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys, "certs", "inject", "--webhook", "draguard", "--ca-file", str(tmp_path / "ca.crt")) == (
        2, "", f"draguard: error: {tmp_path}/ca.crt: no such file\n")
    assert _run(capsys, "certs", "inject", "--webhook", "draguard", "--dir", str(tmp_path)) == (
        2, "", f"draguard: error: {tmp_path}: no ca.crt to inject; run `draguard certs generate` first\n")


def test_the_command_module_imports_nothing_heavy_until_it_runs() -> None:
    import subprocess
    import sys

    probe = ("import sys, webhook.commands.certs; "
             "print(sorted(m for m in ('cryptography', 'kubernetes', 'certs') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                            cwd=Path(__file__).resolve().parents[2])
    assert result.stdout == "[]\n"


@pytest.mark.parametrize(("argv", "message"), [
    (["generate", "--ca-years", "0"], "argument --ca-years: 0 is out of range (1 to 100)"),
    (["generate", "--leaf-days", "366"], "argument --leaf-days: 366 is out of range (1 to 365)"),
    (["generate", "--leaf-days", "a year"], "argument --leaf-days: 'a year' is not a whole number"),
    (["check", "--warn-days", "-1"], "argument --warn-days: -1 is out of range (0 to 3650)"),
])
def test_out_of_range_numbers_are_usage_errors_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    # A reused CA never reached the lifetime check before: the flag must fail even when nothing would be issued.
    main(["certs", "generate", "--dir", str(tmp_path), *SVC])
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        main(["certs", argv[0], "--dir", str(tmp_path), *(SVC if argv[0] == "generate" else []), *argv[1:]])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_check_names_the_missing_certificate_of_a_directory_or_secret(
    tmp_path: Path, apiserver: FakeAPIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(capsys, "certs", "check", "--dir", str(tmp_path / "empty")) == (
        2, "", f"draguard: error: {tmp_path}/empty/tls.crt: no such file (give --cert FILE if it has another name)\n")
    apiserver.put("/api/v1/namespaces/draguard-system/secrets/only-ca", {
        "apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
        "metadata": {"name": "only-ca", "namespace": "draguard-system"},
        "data": {"ca.crt": base64.b64encode(b"x").decode()},
    })
    assert _run(capsys, "certs", "check", "--secret", "draguard-system/only-ca",
                "--kubeconfig", str(apiserver.kubeconfig)) == (
        2, "", "draguard: error: secret draguard-system/only-ca holds no tls.crt; "
               "run `draguard certs generate` first\n")


def test_inject_refuses_a_bundle_without_a_ca_before_contacting_the_cluster(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["certs", "generate", "--dir", str(tmp_path), *SVC])
    capsys.readouterr()
    # No kubeconfig exists here: reaching for the cluster first would have said so instead.
    code, out, err = _run(capsys, "certs", "inject", "--webhook", "draguard", "--ca-file", str(tmp_path / "tls.crt"),
                          "--kubeconfig", str(tmp_path / "no-such-kubeconfig"))
    assert (code, out) == (2, "")
    assert err.startswith(f"draguard: error: {tmp_path}/tls.crt: 'draguard.draguard-system.svc' (serial ")
    assert err.endswith(") is not a CA certificate; a caBundle holds CA certificates\n")


def _intermediate_chain(directory: Path) -> tuple[Path, Path]:
    """A cert-manager-style chain: tls.crt = leaf + intermediate, the bundle = the root only."""
    import datetime as dt

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes

    from certs.issue import Issued, issue_ca, issue_leaf, new_key, service_names
    from certs.pem import cert_pem, key_pem

    now = dt.datetime.now(dt.UTC)
    made = issue_ca(now=now)  # draguard's own CA has pathlen 0; a chain CA (cert-manager, Vault) has none
    root = Issued(x509.CertificateBuilder().subject_name(made.cert.subject).issuer_name(made.cert.subject)
                  .public_key(made.key.public_key()).serial_number(5).not_valid_before(now - dt.timedelta(minutes=5))
                  .not_valid_after(now + dt.timedelta(days=3650))
                  .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                  .sign(made.key, hashes.SHA256()), made.key)
    key = new_key("ecdsa")
    ski = x509.SubjectKeyIdentifier.from_public_key(key.public_key())
    inter = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(x509.NameOID.COMMON_NAME, "inter")]))
             .issuer_name(root.cert.subject).public_key(key.public_key()).serial_number(7)
             .not_valid_before(now - dt.timedelta(minutes=5)).not_valid_after(now + dt.timedelta(days=300))
             .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
             .add_extension(ski, critical=False).sign(root.key, hashes.SHA256()))
    leaf = issue_leaf(Issued(inter, key), service_names("draguard", "draguard-system"), days=30, now=now)
    directory.mkdir()
    (directory / "tls.crt").write_bytes(cert_pem([leaf.cert, inter]))
    (directory / "tls.key").write_bytes(key_pem(leaf.key))
    (directory / "ca.crt").write_bytes(cert_pem(root.cert))
    return directory, directory / "tls.crt"


def test_check_follows_the_intermediates_the_server_sends(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Before: the intermediate after the leaf in tls.crt was ignored and the chain reported as an unknown authority,
    # though the API server (Go) verifies it: crypto/tls passes certs[1:] as Intermediates.
    directory, _ = _intermediate_chain(tmp_path / "chain")
    code, out, err = _run(capsys, "certs", "check", "--dir", str(directory), *SVC)
    assert (code, err) == (0, ""), out
    chain = next(line for line in out.splitlines() if "chain:" in line)
    assert chain.startswith(f"ok    chain: {directory}/tls.crt verifies against {directory}/ca.crt (issued by "
                            "'draguard-webhook-ca' (serial ")
    assert chain.endswith(" via 'inter' (serial 7))")
    (directory / "tls.crt").write_bytes((directory / "tls.crt").read_bytes().split(b"-----END CERTIFICATE-----")[0]
                                        + b"-----END CERTIFICATE-----\n")
    code, out, _ = _run(capsys, "certs", "check", "--dir", str(directory), *SVC)
    assert code == 1
    assert (f"FAIL  chain: {directory}/tls.crt does not verify against {directory}/ca.crt: tls: failed to verify "
            "certificate: x509: certificate signed by unknown authority") in out.splitlines()


def test_check_a_wildcard_san_is_a_verdict_not_a_traceback(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    # Before: `*.svc` (which Go never matches to a three-label name) crashed the chain check with a ValueError.
    main(["certs", "generate", "--dir", str(tmp_path), "--service", "draguard", "--namespace", "ns"])
    capsys.readouterr()
    import datetime as dt

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes

    from certs.pem import cert_pem, load_key

    ca, ca_key, key = load_certs(tmp_path / "ca.crt")[0], load_key(tmp_path / "ca.key"), load_key(tmp_path / "tls.key")
    now = dt.datetime.now(dt.UTC)
    wild = (x509.CertificateBuilder().subject_name(x509.Name([])).issuer_name(ca.subject).public_key(key.public_key())
            .serial_number(9).not_valid_before(now - dt.timedelta(minutes=1))
            .not_valid_after(now + dt.timedelta(days=9))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("*.svc")]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    (tmp_path / "tls.crt").write_bytes(cert_pem(wild))
    code, out, err = _run(capsys, "certs", "check", "--dir", str(tmp_path), "--service", "draguard",
                          "--namespace", "ns")
    assert (code, err) == (1, "")
    assert "FAIL  name: x509: certificate is valid for *.svc, not draguard.ns.svc; re-issue for the Service's name" in (
        out.splitlines())
    assert any(line.startswith("ok    chain: ") for line in out.splitlines())


def test_check_reads_a_bundle_as_the_api_server_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Before: one unparsable block made the whole bundle "not a valid PEM certificate" (exit 2); Go's
    # AppendCertsFromPEM skips it and trusts the rest, so the webhook works. Now: a warning and the real verdict.
    main(["certs", "generate", "--dir", str(tmp_path), *SVC])
    capsys.readouterr()
    good = (tmp_path / "ca.crt").read_bytes()
    (tmp_path / "ca.crt").write_bytes(good.replace(b"MII", b"MIX", 1) + b"some text\n" + good)
    code, out, err = _run(capsys, "certs", "check", "--dir", str(tmp_path), *SVC)
    assert (code, err) == (0, ""), out
    assert (f"warn  chain: {tmp_path}/ca.crt: the API server skips a certificate in it (x509: malformed certificate)"
            in out.splitlines())
    (tmp_path / "ca.crt").write_bytes(good.replace(b"MII", b"MIX", 1))
    code, out, err = _run(capsys, "certs", "check", "--dir", str(tmp_path), *SVC)
    assert (code, err) == (1, "")
    assert (f"FAIL  chain: {tmp_path}/ca.crt holds no certificate the API server can use: every call fails"
            in out.splitlines())


def test_check_fails_a_bundle_with_no_certificate_instead_of_skipping_the_chain(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: a ca.crt whose only block had broken base64, or was cut off before its END line, left no certificate
    # and no skipped one: the chain check said nothing and `certs check` passed (exit 0), though the API server
    # finds no CA in such a bundle and every call fails.
    main(["certs", "generate", "--dir", str(tmp_path), *SVC])
    capsys.readouterr()
    good = (tmp_path / "ca.crt").read_bytes()
    (tmp_path / "ca.crt").write_bytes(good[:80] + b"!!!!\n" + good[80:])
    code, out, err = _run(capsys, "certs", "check", "--dir", str(tmp_path), *SVC)
    assert (code, err) == (1, "")
    assert (f"FAIL  chain: {tmp_path}/ca.crt holds no certificate the API server can use: every call fails"
            in out.splitlines())
    (tmp_path / "ca.crt").write_bytes(good[:200])
    assert _run(capsys, "certs", "check", "--dir", str(tmp_path), *SVC) == (
        2, "", f"draguard: error: {tmp_path}/ca.crt: no PEM certificate found\n")


def test_inject_refuses_a_bundle_holding_a_private_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Before: the key block was base64-encoded into every webhook's caBundle, readable cluster-wide (the API server
    # itself skips it, so nothing else would have shown the leak).
    main(["certs", "generate", "--dir", str(tmp_path), *SVC])
    capsys.readouterr()
    bundle = tmp_path / "bundle.pem"
    for key in ("ca.key", "tls.key"):
        bundle.write_bytes((tmp_path / "ca.crt").read_bytes() + (tmp_path / key).read_bytes())
        assert _run(capsys, "certs", "inject", "--webhook", "draguard", "--ca-file", str(bundle),
                    "--kubeconfig", str(tmp_path / "no-such-kubeconfig")) == (
            2, "", f"draguard: error: {bundle} holds a private key (PRIVATE KEY block); a caBundle is readable by "
                   "anyone who can read the webhook configuration: give only the CA certificate(s)\n")


def test_inject_refuses_a_ca_the_api_server_cannot_parse(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import warnings

    from cryptography.utils import CryptographyDeprecationWarning

    from certs.pem import cert_pem, load_key
    from tests.certs.odd import resign

    main(["certs", "generate", "--dir", str(tmp_path), *SVC])
    capsys.readouterr()
    bundle = tmp_path / "bundle.pem"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CryptographyDeprecationWarning)
        negative = resign(load_certs(tmp_path / "ca.crt")[0], load_key(tmp_path / "ca.key"), serial=-7)
        bundle.write_bytes(cert_pem(negative))
    code, out, err = _run(capsys, "certs", "inject", "--webhook", "draguard", "--ca-file", str(bundle),
                          "--kubeconfig", str(tmp_path / "no-such-kubeconfig"))
    assert (code, out) == (2, "")
    assert err == (f"draguard: error: {bundle}: 'draguard-webhook-ca' (serial -7): the API server cannot parse it "
                   "(x509: negative serial number) and would skip it\n")


def test_check_an_ed25519_secret_from_cert_manager(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Before: exit 2, "tls.key: unsupported private key type Ed25519PrivateKey; use ECDSA or RSA", though the docs
    # promise other key types can be checked and the API server accepts Ed25519.
    from tests.certs.test_reload import _ed25519_material

    _ed25519_material(tmp_path)
    code, out, err = _run(capsys, "certs", "check", "--dir", str(tmp_path), *SVC)
    assert (code, err) == (0, ""), out
    assert out.splitlines()[0] == f"ok    key: {tmp_path}/tls.key matches {tmp_path}/tls.crt"
    assert out.splitlines()[2] == (f"ok    chain: {tmp_path}/tls.crt verifies against {tmp_path}/ca.crt (issued by "
                                   "'ed-ca' (serial 1))")
