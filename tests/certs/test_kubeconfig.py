"""`draguard certs ...` choose the cluster and check the kubeconfig as `draguard audit` does (certs.kubeconfig):
a kubeconfig wins over the Pod's service account, `--context` without one is an error, a broken kubeconfig or a
failing exec credential plugin is one line (exit 2) before any request, and urllib3 neither retries nor warns."""

from __future__ import annotations

import logging
import socket
from pathlib import Path
from typing import Any, ClassVar

import pytest
import urllib3

from certs import CertsError
from certs.issue import generate
from certs.kube import Kube, connect
from tests.certs.apiserver import (
    BROKEN_KUBECONFIGS,
    TOKEN,
    VWC_PATH,
    FakeAPIServer,
    break_kubeconfig,
    exec_plugin,
    exec_user,
    key_pair,
    kubeconfig,
    webhook_configuration,
    with_user,
)
from webhook.cli import main

SVC = ["--service", "draguard", "--namespace", "draguard-system"]
SECRET = "draguard-system/draguard-tls"
PROBLEM = "cannot load the Kubernetes configuration"


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No kubeconfig anywhere, not in a Pod, and an empty home; answers the home directory."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_PORT", raising=False)
    return home


def _in_a_pod(monkeypatch: pytest.MonkeyPatch) -> None:
    # No service account files here: going in-cluster would fail, and say so.
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "1")


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _commands(tmp_path: Path) -> dict[str, list[str]]:
    """One command line of each kind that reads the cluster, without --kubeconfig/--context."""
    material = tmp_path / "material"
    if not (material / "ca.crt").exists():
        generate(material, "draguard", "draguard-system")
    return {
        "inject": ["certs", "inject", "--webhook", "draguard", "--dir", str(material)],
        "generate": ["certs", "generate", "--secret", SECRET, *SVC],
        "check": ["certs", "check", "--secret", SECRET, *SVC],
        "rotate": ["certs", "rotate", "--secret", SECRET],
        "client": ["certs", "client", "--secret", SECRET, "--subject", "kube-apiserver", "--out", str(tmp_path / "o")],
    }


@pytest.mark.parametrize("command", ["inject", "generate", "check", "rotate", "client"])
def test_a_failing_exec_plugin_stops_before_any_request(
    tmp_path: Path, env: Path, apiserver: FakeAPIServer, command: str, *, capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    plugin = exec_plugin(tmp_path / "plugin.sh", "echo \"error: you must log in first\" >&2\nexit 1\n")
    with_user(apiserver.kubeconfig, exec_user(plugin))
    argv = _commands(tmp_path)[command]
    caplog.set_level(logging.DEBUG)
    assert _run(capsys, *argv, "--kubeconfig", str(apiserver.kubeconfig)) == (
        2, "", f"draguard: error: {PROBLEM}: user test: exec credential plugin failed: process returned 1. error: "
               "you must log in first\n")
    assert apiserver.requests == []  # not sent anonymously
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_a_missing_exec_plugin_is_named(tmp_path: Path, env: Path, apiserver: FakeAPIServer,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    with_user(apiserver.kubeconfig, exec_user(tmp_path / "absent"))
    assert _run(capsys, *_commands(tmp_path)["check"], "--kubeconfig", str(apiserver.kubeconfig)) == (
        2, "", f"draguard: error: {PROBLEM}: user test: exec credential plugin failed: {tmp_path}/absent: No such "
               "file or directory\n")
    assert apiserver.requests == []


def test_a_working_exec_plugin_supplies_the_token(tmp_path: Path, env: Path, apiserver: FakeAPIServer,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    credential = ('{"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential", '
                  f'"status": {{"token": "{TOKEN}"}}}}')
    plugin = exec_plugin(tmp_path / "plugin.sh", f"echo '{credential}'\n")
    with_user(apiserver.kubeconfig, exec_user(plugin))
    apiserver.put(VWC_PATH + "draguard", webhook_configuration("draguard", "slices.draguard.io"))
    code, out, err = _run(capsys, *_commands(tmp_path)["inject"], "--kubeconfig", str(apiserver.kubeconfig))
    assert (code, err) == (0, "")
    assert out.startswith("validatingwebhookconfiguration/draguard: caBundle set on 1 of 1 webhook(s)")


@pytest.mark.parametrize("case", BROKEN_KUBECONFIGS)
def test_an_invalid_kubeconfig_is_one_line_and_exit_2_before_any_request(
    tmp_path: Path, env: Path, apiserver: FakeAPIServer, case: str, capsys: pytest.CaptureFixture[str],
) -> None:
    config = apiserver.kubeconfig
    expected = break_kubeconfig(config, case, tmp_path)
    for argv in _commands(tmp_path).values():
        code, out, err = _run(capsys, *argv, "--kubeconfig", str(config))
        assert (code, out, err) == (2, "", f"draguard: error: {PROBLEM}: {expected}\n")
    assert apiserver.requests == []
    # the same exit as the certs commands' other input errors: a missing kubeconfig, an unreadable bundle
    assert _run(capsys, *_commands(tmp_path)["check"], "--kubeconfig", str(tmp_path / "nope")) == (
        2, "", f"draguard: error: {tmp_path / 'nope'}: no such kubeconfig file\n")
    assert _run(capsys, "certs", "inject", "--webhook", "draguard", "--ca-file", str(tmp_path / "nope"))[0] == 2


def test_context_without_any_kubeconfig_is_an_error_not_the_pod(
    tmp_path: Path, env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for in_a_pod in (False, True):
        if in_a_pod:
            _in_a_pod(monkeypatch)
        for argv in _commands(tmp_path).values():
            assert _run(capsys, *argv, "--context", "prod") == (
                2, "", "draguard: error: --context prod: no kubeconfig file ($KUBECONFIG or ~/.kube/config) to find "
                       "it in\n")


def test_in_a_pod_a_kubeconfig_in_home_wins_with_or_without_context(
    tmp_path: Path, env: Path, apiserver: FakeAPIServer, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _in_a_pod(monkeypatch)
    (env / ".kube").mkdir()
    (env / ".kube" / "config").write_text(apiserver.kubeconfig.read_text(encoding="utf-8"), encoding="utf-8")
    apiserver.put(VWC_PATH + "draguard", webhook_configuration("draguard", "slices.draguard.io"))
    for context in ([], ["--context", "test"]):
        code, _, err = _run(capsys, *_commands(tmp_path)["inject"], *context)
        assert (code, err) == (0, "")
    assert apiserver.requests


def test_in_a_pod_without_a_kubeconfig_the_service_account_is_used(
    tmp_path: Path, env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _in_a_pod(monkeypatch)
    with pytest.raises(CertsError) as err:
        connect()
    assert err.value.message.startswith(f"{PROBLEM}: in-cluster: ")


def test_no_kubeconfig_and_not_in_a_pod_is_one_line(tmp_path: Path, env: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys, *_commands(tmp_path)["check"]) == (
        2, "", f"draguard: error: {PROBLEM}: no kubeconfig ($KUBECONFIG or ~/.kube/config) and not inside a "
               "cluster\n")


def test_a_network_failure_is_one_line_without_urllib3_warnings(
    tmp_path: Path, env: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]  # closed again: nothing listens there
    config = tmp_path / "kubeconfig"
    config.write_text(kubeconfig(f"https://127.0.0.1:{port}", key_pair(tmp_path / "ca")[0]), encoding="utf-8")
    caplog.set_level(logging.DEBUG)
    assert _run(capsys, *_commands(tmp_path)["check"], "--kubeconfig", str(config)) == (
        2, "", f"draguard: error: cannot reach the Kubernetes API server at https://127.0.0.1:{port}: Connection "
               "refused\n")
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_no_proxy_for_a_loopback_api_server(tmp_path: Path, env: Path, apiserver: FakeAPIServer,
                                            monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as sock:  # a proxy nobody listens on: using it would fail the run
        sock.bind(("127.0.0.1", 0))
        monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{sock.getsockname()[1]}")
    apiserver.put(VWC_PATH + "draguard", webhook_configuration("draguard", "slices.draguard.io"))
    code, _, err = _run(capsys, *_commands(tmp_path)["inject"], "--kubeconfig", str(apiserver.kubeconfig))
    assert (code, err) == (0, "")


class _Configuration:
    host = "https://127.0.0.1:6443"
    proxy = None


class _ApiClient:
    configuration = _Configuration()


class _Response:
    status = 200
    data = b"{}"
    headers: ClassVar[dict[str, str]] = {}


def _failing(errors: list[Exception]) -> Any:
    calls: list[int] = []

    def method(**_: Any) -> _Response:
        calls.append(1)
        if errors:
            raise errors.pop(0)
        return _Response()

    method.calls = calls  # type: ignore[attr-defined]
    return method


def _refused() -> Exception:
    conn = urllib3.connection.HTTPSConnection("127.0.0.1", 6443)
    reason = urllib3.exceptions.NewConnectionError(conn, "Failed to establish a new connection: [Errno 111] "
                                                         "Connection refused")
    return urllib3.exceptions.MaxRetryError(None, "/", reason)  # type: ignore[arg-type]


def test_a_connection_that_never_sent_is_tried_once_more_quietly() -> None:
    method = _failing([_refused()])
    assert Kube(_ApiClient()).call(method, what="x").body == {}
    assert len(method.calls) == 2

    method = _failing([_refused(), _refused()])
    with pytest.raises(CertsError) as err:
        Kube(_ApiClient()).call(method, what="x")
    assert err.value.message == "cannot reach the Kubernetes API server at https://127.0.0.1:6443: Connection refused"
    assert len(method.calls) == 2


def test_a_read_that_failed_after_sending_is_not_retried() -> None:
    method = _failing([urllib3.exceptions.ReadTimeoutError(None, "/", "Read timed out.")])  # type: ignore[arg-type]
    with pytest.raises(CertsError, match="cannot reach"):
        Kube(_ApiClient()).call(method, what="x")
    assert len(method.calls) == 1

