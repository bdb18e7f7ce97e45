"""`draguard serve` on the command line: flags, one-line errors before anything starts, --self-signed."""

from __future__ import annotations

import logging
import socket
from pathlib import Path

import pytest
from cryptography import x509

from tests.webhook.conftest import free_port, issue_certs
from webhook import cli
from webhook.commands.serve import DEFAULT_CERT_DIR, _self_signed


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(["serve", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_missing_certificates_are_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--cert-dir", str(tmp_path), "--host", "127.0.0.1", "--port", str(free_port()),
                         "--metrics-port", "0")
    assert (code, out) == (2, "")
    assert err.startswith("draguard: error: cannot serve TLS: ")
    assert str(tmp_path / "tls.crt") in err
    assert err.count("\n") == 1


def test_an_invalid_policy_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    issue_certs(tmp_path / "certs")
    policy = tmp_path / "policy.yaml"
    policy.write_text("rules:\n  numa-node-range: maybe\n")
    code, _, err = run(capsys, "--cert-dir", str(tmp_path / "certs"), "--host", "127.0.0.1",
                       "--port", str(free_port()), "--metrics-port", "0", "--policy", str(policy))
    assert code == 2
    assert err == (f"draguard: error: policy {policy}: rules.numa-node-range: unknown action 'maybe'; "
                   "use one of deny, warn, audit, off\n")


def test_a_port_in_use_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code, _, err = run(capsys, "--cert-dir", str(tmp_path), "--host", "127.0.0.1", "--port", str(port))
    assert code == 2
    assert err == f"draguard: error: --port: cannot listen on 127.0.0.1:{port}: Address already in use\n"


def test_metrics_port_equal_to_port_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    port = str(free_port())
    code, _, err = run(capsys, "--cert-dir", str(tmp_path), "--host", "127.0.0.1", "--port", port,
                       "--metrics-port", port)
    assert (code, err) == (2, "draguard: error: --metrics-port must differ from --port\n")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--port", "0"], "argument --port: '0' is not a port (1-65535)"),
        (["--workers", "0"], "argument --workers: '0' must be at least 1"),
        (["--metrics-port", "x"], "argument --metrics-port: 'x' is not a whole number"),
    ],
)
def test_bad_flags_exit_2_with_argparse_wording(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(["serve", *argv])
    assert exited.value.code == 2
    assert capsys.readouterr().err == f"draguard serve: error: {message}\nTry 'draguard serve --help'.\n"


def test_the_default_cert_dir_is_controller_runtimes() -> None:
    assert DEFAULT_CERT_DIR.parts[-2:] == ("k8s-webhook-server", "serving-certs")


def test_self_signed_covers_the_service_localhost_and_the_listen_address(tmp_path: Path) -> None:
    _self_signed(tmp_path, "10.1.2.3")
    cert = x509.load_pem_x509_certificate((tmp_path / "tls.crt").read_bytes())
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert "draguard.draguard.svc" in san.get_values_for_type(x509.DNSName)
    assert "localhost" in san.get_values_for_type(x509.DNSName)
    assert {str(ip) for ip in san.get_values_for_type(x509.IPAddress)} == {"127.0.0.1", "::1", "10.1.2.3"}
    assert (tmp_path / "ca.crt").is_file()
    first = (tmp_path / "tls.crt").read_bytes()
    _self_signed(tmp_path, "10.1.2.3")  # idempotent: a second run keeps what is valid
    assert (tmp_path / "tls.crt").read_bytes() == first


MAKEFILE = Path(__file__).resolve().parents[2] / "Makefile"


def run_target() -> str:
    text = MAKEFILE.read_text()
    return text[text.index("\nrun:"):text.index("\ntest:")]


def test_make_run_prints_a_curl_command_for_a_sample_in_the_repo() -> None:
    target = run_target()
    (curl,) = [line for line in target.splitlines() if "curl " in line]
    sample = curl.split("--data-binary @", 1)[1].split()[0]
    assert (MAKEFILE.parent / sample).is_file()
    assert "https://127.0.0.1:8443/validate/resourceslices" in curl
    assert "draguard serve --self-signed" in target and "--port 8443" in target


@pytest.mark.slow
def test_self_signed_serving_answers_the_make_run_sample(tmp_path: Path) -> None:
    """What `make run` and its curl line do, on a free port: --self-signed, then the sample over HTTPS to 127.0.0.1."""
    import http.client
    import json

    from tests.webhook.conftest import client_context, start_server

    server = start_server(tmp_path, policy="rules: {}\n", issue=False, args=("--self-signed",))
    try:
        sample = (MAKEFILE.parent / "examples" / "admissionreview-resourceslice.json").read_bytes()
        conn = http.client.HTTPSConnection("127.0.0.1", server.port, context=client_context(server.ca_file))
        conn.request("POST", "/validate/resourceslices", sample, {"Content-Type": "application/json"})
        reply = conn.getresponse()
        response = json.loads(reply.read())["response"]
        conn.close()
    finally:
        server.stop()
    assert reply.status == 200
    assert response["uid"] == json.loads(sample)["request"]["uid"]
    assert response["allowed"] is False
    assert response["status"]["message"].startswith("1 problem: spec.devices[1].attributes[dra.net/numaNode].int: ")
    assert [w.split("]")[0] for w in response["warnings"]] == ["[numa-node-standard-missing"]


def test_gunicorn_runs_guarded_gevent_workers_with_keep_alive_over_tls(tmp_path: Path) -> None:
    from webhook.serve import Limits, ServeOptions, gunicorn_settings

    options = ServeOptions(tmp_path / "tls.crt", tmp_path / "tls.key", host="::1", port=9443, workers=3,
                           limits=Limits(max_connections=77))
    settings = gunicorn_settings(options, "::1")
    assert {k: settings[k] for k in ("bind", "workers", "worker_class", "worker_connections", "keepalive",
                                     "accesslog", "control_socket_disable", "certfile", "keyfile")} == {
        "bind": ["[::1]:9443"], "workers": 3, "worker_class": "webhook.front.GuardedWorker",
        "worker_connections": 77, "keepalive": 120, "accesslog": None, "control_socket_disable": True,
        "certfile": str(tmp_path / "tls.crt"), "keyfile": str(tmp_path / "tls.key"),
    }


def test_a_given_metrics_directory_is_emptied_of_old_values(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from webhook.serve import MULTIPROC_ENV, prepare_multiprocess_dir

    (tmp_path / "counter_123.db").write_bytes(b"old")
    (tmp_path / "keep.txt").write_text("not ours")
    monkeypatch.setenv(MULTIPROC_ENV, str(tmp_path))
    assert prepare_multiprocess_dir() is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


def test_metrics_directory_set_after_prometheus_import_is_a_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    import prometheus_client  # noqa: F401  (imported by the Flask tests already; make sure here)

    from webhook.serve import MULTIPROC_ENV, prepare_multiprocess_dir

    monkeypatch.delenv(MULTIPROC_ENV, raising=False)
    with pytest.raises(RuntimeError, match="imported before PROMETHEUS_MULTIPROC_DIR was set"):
        prepare_multiprocess_dir()


def test_gunicorn_builds_no_access_line_that_the_logging_config_drops(monkeypatch: pytest.MonkeyPatch) -> None:
    from gunicorn.config import Config

    from webhook.serve import ServeOptions, gunicorn_settings

    settings = gunicorn_settings(ServeOptions(Path("tls.crt"), Path("tls.key")), "127.0.0.1")
    assert settings["logconfig_dict"]["loggers"]["gunicorn.access"]["level"] == "WARNING"
    monkeypatch.setattr("logging.config.dictConfig", lambda config: None)  # keep this process's logging as it is
    for name in ("gunicorn.error", "gunicorn.access"):
        monkeypatch.setattr(logging.getLogger(name), "handlers", [])
    config = Config()
    config.set("logconfig_dict", settings["logconfig_dict"])
    logger = settings["logger_class"](config)
    monkeypatch.setattr(logger.access_log, "isEnabledFor", lambda level: level >= logging.WARNING)  # as configured
    logger.access(None, None, {}, None)  # gunicorn's own would build its atoms from these and fail
    monkeypatch.setattr(logger.access_log, "isEnabledFor", lambda level: True)
    with pytest.raises(AttributeError):  # a kept line is still gunicorn's, built from the real request
        logger.access(None, None, {}, None)
