"""What the API server or the kubeconfig can get wrong, against the HTTPS stand-in: expired tokens in storage-key
order, answers that are not lists, Retry-After, broken kubeconfigs, which cluster wins inside a Pod, proxies and
library noise. Each failure is one line on stderr and exit 2; `lint --cluster` says what `audit` says."""

from __future__ import annotations

import copy
import json
import socket
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.builders import claim_with_selector, device, slice_with
from tests.certs.apiserver import (
    BROKEN_KUBECONFIGS,
    break_kubeconfig,
    exec_plugin,
    exec_user,
    key_pair,
    kubeconfig,
    status,
    with_user,
)
from tests.webhook.audit.apiserver import DRA, AuditAPIServer, Canned
from tests.webhook.audit.conftest import NUMA, Run, one_error, synthetic
from webhook.audit import client
from webhook.audit.client import MAX_RETRIES, MAX_WAIT, Cluster
from webhook.audit.kinds import RESOURCE_CLAIMS, RESOURCE_SLICES
from webhook.audit.pager import MAX_RELISTS, MAX_RESUMES, Listing, pages
from webhook.errors import DraguardError

SLICES = DRA + "resourceslices"
CLASSES = DRA + "deviceclasses"
TOO_MANY = status(429, "TooManyRequests", "too many requests, please try again later")


def _claim(namespace: str, name: str, selector: str = 'device.driver == "gpu.example.com"') -> dict[str, Any]:
    obj = claim_with_selector(selector, name=name)
    obj["metadata"]["namespace"] = namespace
    return obj


def _listed(api: AuditAPIServer, resource: Any, page_size: int = 1) -> tuple[list[str], Listing]:
    cluster = Cluster.connect(str(api.kubeconfig))
    listing = Listing()
    try:
        names = [f"{o['metadata'].get('namespace', '')}/{o['metadata']['name']}"
                 for page in pages(cluster, resource, page_size, listing) for o in page]
    finally:
        cluster.close()
    return names, listing


# 1: a 410 without a fresh token lists again from the start and checks each object once, whatever the order


def test_storage_key_order_is_byte_order_of_namespace_slash_name(tmp_path: Path) -> None:
    with AuditAPIServer(tmp_path, [_claim("team", "z-bad"), _claim("team-a", "a1")]) as api:
        assert _listed(api, RESOURCE_CLAIMS)[0] == ["team-a/a1", "team/z-bad"]  # "-" < "/", as etcd lists them


def test_a_relist_checks_what_sorts_before_the_last_checked_key_in_tuple_order(tmp_path: Path) -> None:
    with AuditAPIServer(tmp_path, [_claim("team", "z-bad"), _claim("team-a", "a1")]) as api:
        api.state.expire["resourceclaims"] = "relist"
        names, listing = _listed(api, RESOURCE_CLAIMS)
    assert names == ["team-a/a1", "team/z-bad"]
    assert (listing.relisted, listing.objects) == (1, 2)


def test_a_relist_never_checks_an_object_twice(tmp_path: Path) -> None:
    objects = [_claim("team-a", "a1"), _claim("team", "z-bad"), _claim("team", "zz")]
    with AuditAPIServer(tmp_path, objects) as api:
        api.state.expire["resourceclaims"] = ["token", "relist"]  # the second page resumes, the third relists
        names, listing = _listed(api, RESOURCE_CLAIMS)
    assert sorted(names) == ["team-a/a1", "team/z-bad", "team/zz"]
    assert (listing.resumed, listing.relisted, listing.objects) == (1, 1, 3)


def test_a_relisted_audit_reports_the_object_behind_the_last_key(tmp_path: Path, cli_run: Any) -> None:
    objects = [slice_with(device("gpu-0", numa=1)), _claim("team-a", "a1"), _claim("team", "z-bad", f"{NUMA} == 1")]
    with AuditAPIServer(tmp_path, objects) as api:
        api.state.expire["resourceclaims"] = "relist"
        run = cli_run("audit", "--kubeconfig", str(api.kubeconfig), "--page-size", "1", "--format", "json")
    assert "ResourceClaim/team/z-bad" in {f["file"] for f in json.loads(run.out)["findings"]}
    assert "3 checked" in run.err


# 10: expiries are bounded, with and without a fresh token (limit-1, limit, limit+1)


@pytest.mark.parametrize(("how", "limit"), [("token", MAX_RESUMES), ("relist", MAX_RELISTS)])
@pytest.mark.parametrize("extra", [-1, 0, 1])
def test_expiries_are_bounded(tmp_path: Path, how: str, limit: int, extra: int) -> None:
    slices = [slice_with(device("gpu-0"), name=f"s{i}") for i in range(2)]
    with AuditAPIServer(tmp_path, slices) as api:
        api.state.expire["resourceslices"] = [how] * (limit + extra)  # type: ignore[list-item]
        if extra <= 0:
            names, listing = _listed(api, RESOURCE_SLICES)
            assert sorted(names) == ["/s0", "/s1"]
            assert (listing.resumed if how == "token" else listing.relisted) == limit + extra
            return
        with pytest.raises(DraguardError) as caught:
            _listed(api, RESOURCE_SLICES)
    assert caught.value.message.startswith("cannot list resourceslices.resource.k8s.io: the API server answered 410 "
                                           "Expired: ")
    assert caught.value.message.endswith(f"(after {limit} resumes)" if how == "token" else
                                         f"(after {limit} fresh starts)")


def test_a_410_that_is_not_expired_fails_the_run(tmp_path: Path) -> None:
    # client-go's pager recovers only a 410 whose reason is Expired (errors.IsResourceExpired); a Gone is an error
    with AuditAPIServer(tmp_path, [slice_with(device("gpu-0"), name=f"s{i}") for i in range(2)]) as api:
        api.state.expire["resourceslices"] = "gone"
        with pytest.raises(DraguardError) as caught:
            _listed(api, RESOURCE_SLICES)
        assert [r.query.get("continue") is not None for r in api.requests] == [False, True]
    assert caught.value.message == ("cannot list resourceslices.resource.k8s.io: the API server answered 410 Gone: "
                                    "too old resource version: 900 (1000)")


# 3: what is not a list of objects fails closed, in audit and lint --cluster alike


@pytest.mark.parametrize(("body", "why"), [
    ({}, "no kind, not a ResourceSliceList"),
    ({"kind": "ResourceSliceList", "apiVersion": "resource.k8s.io/v1", "metadata": {}}, "no items"),
    ({"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Forbidden", "code": 403,
      "message": "nope"}, "a Status: Forbidden nope"),
    ({"kind": "ResourceSliceList", "metadata": {}, "items": [{"metadata": {"name": "ok"}}, 5, None]},
     "items[1] is not an object"),
    ({"kind": "DeviceClassList", "metadata": {}, "items": []}, "kind DeviceClassList, not ResourceSliceList"),
    # an item naming another kind or version would be checked as what it names (a Secret: by no rule at all)
    ({"kind": "ResourceSliceList", "metadata": {}, "items": [{"metadata": {"name": "ok"}}, {
        "kind": "Secret", "apiVersion": "v1", "metadata": {"name": "s"}}]},
     "items[1] has kind Secret, not ResourceSlice"),
    ({"kind": "ResourceSliceList", "metadata": {}, "items": [{
        "kind": "ResourceSlice", "apiVersion": "resource.k8s.io/v1beta1", "metadata": {"name": "s"}}]},
     "items[0] has apiVersion resource.k8s.io/v1beta1, not resource.k8s.io/v1"),
])
@pytest.mark.parametrize("command", ["audit", "lint"])
def test_an_answer_that_is_not_a_list_fails_closed(tmp_path: Path, cli_run: Any, body: dict[str, Any], why: str,
                                                   command: str) -> None:
    with AuditAPIServer(tmp_path, copy.deepcopy(synthetic())) as api:
        api.state.canned[SLICES] = [Canned(200, body)]
        args = ["audit"] if command == "audit" else ["lint", "claim.yaml", "--cluster"]
        run = cli_run(*args, "--kubeconfig", str(api.kubeconfig))
    prefix = "--cluster: " if command == "lint" else ""
    one_error(run, f"{prefix}cannot list resourceslices.resource.k8s.io: the API server did not answer with a "
                    f"list ({why})")


# 6, 7: lint --cluster reads as audit does: same messages, hints, flags and timeouts


def test_lint_cluster_says_what_the_403_says_and_strips_escapes(tmp_path: Path, cli_run: Any) -> None:
    with AuditAPIServer(tmp_path, copy.deepcopy(synthetic())) as api:
        api.state.canned[SLICES] = [Canned(403, status(403, "Forbidden", 'User "u" cannot\x1b[31m list\x1b[0m\n'
                                                                         "resourceslices"))]
        run = cli_run("lint", "claim.yaml", "--cluster", "--kubeconfig", str(api.kubeconfig))
    one_error(run, '--cluster: cannot list resourceslices.resource.k8s.io: the API server answered 403 Forbidden: '
                    'User "u" cannot list resourceslices')


def test_lint_cluster_gives_the_404_hint(tmp_path: Path, cli_run: Any) -> None:
    with AuditAPIServer(tmp_path, copy.deepcopy(synthetic())) as api:
        api.state.dra_versions = ["v1beta2"]  # a 1.33 cluster: `404 page not found` on v1, as kube-apiserver
        run = cli_run("lint", "claim.yaml", "--cluster", "--kubeconfig", str(api.kubeconfig))
    one_error(run, "--cluster: cannot list resourceslices.resource.k8s.io: the API server answered 404 NotFound: "
                    "the server could not find the requested resource (the cluster serves resource.k8s.io v1beta2, "
                    "not v1: draguard reads resource.k8s.io/v1, served from Kubernetes 1.34)")


def test_lint_cluster_takes_kubeconfig_and_context(tmp_path: Path, cli_run: Any) -> None:
    with AuditAPIServer(tmp_path, copy.deepcopy(synthetic())) as api:
        two = api.kubeconfig.read_text(encoding="utf-8").replace("current-context: test", "current-context: none")
        config = tmp_path / "two-contexts"
        config.write_text(two, encoding="utf-8")
        run = cli_run("lint", "claim.yaml", "--cluster", "--kubeconfig", str(config), "--context", "test", "-q")
        assert run.code == 1  # the list-fragile compare, from the cluster's inventory
        assert [(r.method, r.path) for r in api.requests] == [("GET", SLICES), ("GET", CLASSES)]
    assert cli_run("lint", "claim.yaml", "--context", "test").err == (
        "draguard: error: --kubeconfig and --context choose the cluster of --cluster; add --cluster\n")


def test_lint_cluster_notes_an_empty_inventory(tmp_path: Path, cli_run: Any) -> None:
    with AuditAPIServer(tmp_path, []) as api:
        run = cli_run("lint", "claim.yaml", "--cluster", "--kubeconfig", str(api.kubeconfig), "--fail-on", "deny")
    assert run.code == 0
    assert "draguard: note: --cluster: the cluster publishes no ResourceSlices" in run.err


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A TCP listener that accepts and never speaks (no TLS handshake)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join()
    for sock in accepted:
        sock.close()
    listener.close()


@pytest.mark.parametrize("command", ["audit", "lint"])
def test_a_server_that_never_answers_times_out(tmp_path: Path, cli_run: Any, silent_server: int, command: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client, "TIMEOUT", (0.5, 0.5))
    from certs.issue import generate

    config = tmp_path / "kubeconfig"
    config.write_text(kubeconfig(f"https://127.0.0.1:{silent_server}", generate(tmp_path / "tls", "k", "d").ca_file),
                      encoding="utf-8")
    began = time.monotonic()
    args = ["audit"] if command == "audit" else ["lint", "claim.yaml", "--cluster"]
    run = cli_run(*args, "--kubeconfig", str(config))
    assert time.monotonic() - began < 10
    assert run.code == 2
    assert run.err.startswith("draguard: error: ")
    # a GET is tried once more
    assert run.err.endswith("sent nothing for 0.5 s (2 tries) (no answer, or not the rest of one)\n")
    assert run.err.count("\n") == 1


# 9: Retry-After, as client-go: up to MAX_RETRIES answers retried, each wait capped at MAX_WAIT


@pytest.mark.parametrize("extra", [-1, 0, 1])
def test_retry_after_is_retried_up_to_the_limit(tmp_path: Path, cli_run: Any, extra: int,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []
    monkeypatch.setattr(client, "sleep", waits.append)
    with AuditAPIServer(tmp_path, copy.deepcopy(synthetic())) as api:
        api.state.canned[CLASSES] = [Canned(429, TOO_MANY, {"Retry-After": "1"})] * (MAX_RETRIES + extra)
        run = cli_run("audit", "--kubeconfig", str(api.kubeconfig), "-q", "--fail-on", "none")
        sent = sum(1 for r in api.requests if r.path == CLASSES)
    assert waits == [1.0] * min(MAX_RETRIES + extra, MAX_RETRIES)
    if extra <= 0:
        assert (run.code, sent) == (0, MAX_RETRIES + extra + 1)
    else:
        assert sent == MAX_RETRIES + 1
        one_error(run, "cannot list deviceclasses.resource.k8s.io: the API server answered 429 TooManyRequests: "
                        "too many requests, please try again later")


@pytest.mark.parametrize(("header", "wait"), [(str(int(MAX_WAIT) - 1), MAX_WAIT - 1), (str(int(MAX_WAIT)), MAX_WAIT),
                                              (str(int(MAX_WAIT) + 1), MAX_WAIT), ("3600", MAX_WAIT), ("0", 0.0)])
def test_the_wait_is_capped(tmp_path: Path, cli_run: Any, header: str, wait: float,
                            monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []
    monkeypatch.setattr(client, "sleep", waits.append)
    with AuditAPIServer(tmp_path, copy.deepcopy(synthetic())) as api:
        api.state.canned[SLICES] = [Canned(503, status(503, "ServiceUnavailable", "busy"), {"Retry-After": header})]
        assert cli_run("audit", "--kubeconfig", str(api.kubeconfig), "-q", "--fail-on", "none").code == 0
    assert waits == [wait]


@pytest.mark.parametrize(("code", "header"), [(503, None), (503, "Wed, 21 Oct 2026 07:28:00 GMT"), (409, "1")])
def test_only_a_429_or_5xx_with_seconds_is_retried(tmp_path: Path, cli_run: Any, code: int, header: str | None,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client, "sleep", lambda _: pytest.fail("waited"))
    with AuditAPIServer(tmp_path, copy.deepcopy(synthetic())) as api:
        api.state.canned[SLICES] = [Canned(code, status(code, "Nope", "no"), {"Retry-After": header} if header else {})]
        run = cli_run("audit", "--kubeconfig", str(api.kubeconfig))
    one_error(run, f"cannot list resourceslices.resource.k8s.io: the API server answered {code} Nope: no")


# 15: an answer cut short is said as such, not as a Python repr


def test_a_truncated_answer_is_named(tmp_path: Path, cli_run: Any) -> None:
    with AuditAPIServer(tmp_path, copy.deepcopy(synthetic())) as api:
        api.state.canned[SLICES] = [Canned(200, b'{"kind": "ResourceSliceList", "items": [',
                                           {"Content-Length": "1000", "Connection": "close"})] * 2
        run = cli_run("audit", "--kubeconfig", str(api.kubeconfig))
    one_error(run, f"GET {SLICES}: the API server at {api.url} broke the connection after 40 bytes of its answer "
                    "(960 more expected)")


# 2: inside a Pod, a kubeconfig or --context wins over the service account


def test_in_a_pod_a_kubeconfig_in_home_wins(tmp_path: Path, cli_run: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1")  # with no service account files: would fail
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "1")
    with AuditAPIServer(tmp_path, copy.deepcopy(synthetic())) as api:
        (tmp_path / "home" / ".kube").mkdir(parents=True)
        (tmp_path / "home" / ".kube" / "config").write_text(api.kubeconfig.read_text(encoding="utf-8"),
                                                            encoding="utf-8")
        run = cli_run("audit", "--context", "test", "-q", "--fail-on", "none")
        assert run.code == 0
        assert len(api.requests) == 4


def test_context_without_any_kubeconfig_is_an_error_not_the_pod(cli_run: Any,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1")
    one_error(cli_run("audit", "--context", "prod"),
               "--context prod: no kubeconfig file ($KUBECONFIG or ~/.kube/config) to find it in")


# KUBECONFIG with several files, merged as client-go merges them (clientcmd.ClientConfigLoadingRules.Load)


def _elsewhere(path: Path, current: str | None = "elsewhere") -> Path:
    """A kubeconfig whose context `elsewhere` names a server nobody listens on (port 1: refused at once)."""
    head = "" if current is None else f"current-context: {current!r}\n"
    path.write_text(f"apiVersion: v1\nkind: Config\n{head}clusters:\n- name: elsewhere\n  cluster:\n"
                    "    server: https://127.0.0.1:1\nusers:\n- name: elsewhere\n  user:\n    token: t\n"
                    "contexts:\n- name: elsewhere\n  context:\n    cluster: elsewhere\n    user: elsewhere\n",
                    encoding="utf-8")
    return path


@pytest.mark.parametrize("files", [
    ["api", "elsewhere"],  # both set current-context: the first wins (the kubernetes client chose the last)
    ["empty", "api", "elsewhere"],  # an empty file adds nothing (the kubernetes client refused it)
    ["unset", "api", "elsewhere"],  # a file without current-context does not decide
    ["blank", "api", "elsewhere"],  # nor one with current-context ""
    ["api", "api", "elsewhere"],  # a path listed twice is read once
])
def test_kubeconfig_files_merge_as_kubectl_merges_them(tmp_path: Path, cli_run: Any, files: list[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    with AuditAPIServer(tmp_path, copy.deepcopy(synthetic())) as api:
        (tmp_path / "empty").write_text("", encoding="utf-8")
        paths = {"api": api.kubeconfig, "elsewhere": _elsewhere(tmp_path / "elsewhere"), "empty": tmp_path / "empty",
                 "unset": _elsewhere(tmp_path / "unset", None), "blank": _elsewhere(tmp_path / "blank", "")}
        monkeypatch.setenv("KUBECONFIG", ":".join(str(paths[f]) for f in files))
        run = cli_run("audit", "-q", "--fail-on", "none")
        assert (run.code, run.err) == (0, "")
        assert len(api.requests) == 4  # the four lists, from the first file's current context


def test_the_first_files_current_context_is_used_even_when_it_is_elsewhere(tmp_path: Path, cli_run: Any,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    with AuditAPIServer(tmp_path, copy.deepcopy(synthetic())) as api:
        monkeypatch.setenv("KUBECONFIG", f"{_elsewhere(tmp_path / 'elsewhere')}:{api.kubeconfig}")
        run = cli_run("audit", "-q")
        assert api.requests == []
        assert cli_run("audit", "-q", "--context", "test", "--fail-on", "none").code == 0  # its contexts are merged
    one_error(run, "cannot reach the Kubernetes API server at https://127.0.0.1:1: Connection refused")


# 4, 5: a broken kubeconfig stops before any request, in one line naming the problem


def test_a_failing_exec_plugin_stops_before_any_request(tmp_path: Path, cli_run: Any) -> None:
    plugin = exec_plugin(tmp_path / "plugin.sh", "echo \"error: you must log in first\" >&2\nexit 1\n")
    with AuditAPIServer(tmp_path, copy.deepcopy(synthetic())) as api:
        with_user(api.kubeconfig, exec_user(plugin))
        for args in (["audit"], ["lint", "claim.yaml", "--cluster"]):
            run = cli_run(*args, "--kubeconfig", str(api.kubeconfig))
            prefix = "--cluster: " if args[0] == "lint" else ""
            one_error(run, f"{prefix}cannot load the Kubernetes configuration: user test: exec credential plugin "
                            "failed: process returned 1. error: you must log in first")
        assert api.requests == []


def test_a_missing_exec_plugin_is_named(tmp_path: Path, cli_run: Any) -> None:
    with AuditAPIServer(tmp_path, copy.deepcopy(synthetic())) as api:
        with_user(api.kubeconfig, exec_user(tmp_path / "absent"))
        run = cli_run("audit", "--kubeconfig", str(api.kubeconfig))
        assert api.requests == []
    one_error(run, f"cannot load the Kubernetes configuration: user test: exec credential plugin failed: "
                    f"{tmp_path}/absent: No such file or directory")


@pytest.mark.parametrize("case", BROKEN_KUBECONFIGS)
def test_kubeconfig_content_errors_are_one_line(tmp_path: Path, cli_run: Any, case: str) -> None:
    with AuditAPIServer(tmp_path, copy.deepcopy(synthetic())) as api:
        config = api.kubeconfig
        expected = break_kubeconfig(config, case, tmp_path)
        run = cli_run("audit", "--kubeconfig", str(config))
        assert api.requests == []
    one_error(run, f"cannot load the Kubernetes configuration: {expected}")


def test_a_directory_is_not_a_kubeconfig(tmp_path: Path, cli_run: Any) -> None:
    one_error(cli_run("audit", "--kubeconfig", str(tmp_path)), f"{tmp_path}: is a directory, not a kubeconfig file")


# 8, 14: no library noise; no proxy for a loopback API server


@pytest.mark.parametrize("command", [["audit", "--fail-on", "none"], ["lint", "claim.yaml", "--cluster", "--fail-on",
                                                                      "deny"]])
def test_a_server_without_a_scheme_is_https_when_the_cluster_has_a_ca(tmp_path: Path, cli_run: Any,
                                                                      command: list[str]) -> None:
    """client-go's DefaultServerURL: a bare host:port is https when TLS is set up (here a CA), else http; the
    Python client alone would load no CA for it, and urllib3 would warn on stderr at each request."""
    with AuditAPIServer(tmp_path, copy.deepcopy(synthetic())) as api:
        text = api.kubeconfig.read_text(encoding="utf-8")
        api.kubeconfig.write_text(text.replace(f"server: {api.url}", f"server: {api.url.removeprefix('https://')}"),
                                  encoding="utf-8")
        assert "server: 127.0.0.1:" in api.kubeconfig.read_text(encoding="utf-8")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            run = cli_run(*command, "--kubeconfig", str(api.kubeconfig), "-q")
        assert api.requests  # it reached the stand-in, over TLS checked against the CA
    assert (run.code, run.err, caught) == (0, "", [])


def test_insecure_skip_tls_verify_warns_about_nothing(tmp_path: Path, cli_run: Any,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    with AuditAPIServer(tmp_path, copy.deepcopy(synthetic())) as api:
        text = api.kubeconfig.read_text(encoding="utf-8")
        api.kubeconfig.write_text(text.replace(f"    certificate-authority: {api.ca_file}\n",
                                               "    insecure-skip-tls-verify: true\n"), encoding="utf-8")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            run = cli_run("audit", "--kubeconfig", str(api.kubeconfig), "-q", "--page-size", "1", "--fail-on", "none")
    assert (run.code, caught) == (0, [])


def test_a_network_failure_is_one_line_without_retry_warnings(tmp_path: Path, cli_run: Any,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    with AuditAPIServer(tmp_path, copy.deepcopy(synthetic())) as api:
        other = key_pair(tmp_path / "other-ca")
        api.kubeconfig.write_text(api.kubeconfig.read_text(encoding="utf-8").replace(str(api.ca_file), str(other[0])),
                                  encoding="utf-8")
        for args in (["audit"], ["lint", "claim.yaml", "--cluster"]):
            run = cli_run(*args, "--kubeconfig", str(api.kubeconfig))
            prefix = "--cluster: " if args[0] == "lint" else ""
            one_error(run, f"{prefix}cannot reach the Kubernetes API server at {api.url}: TLS: certificate verify "
                            "failed: unable to get local issuer certificate")
    assert [r.getMessage() for r in caplog.records if r.name.startswith("urllib3")] == []


def test_a_name_the_certificate_does_not_hold_is_named(tmp_path: Path, cli_run: Any) -> None:
    with AuditAPIServer(tmp_path, copy.deepcopy(synthetic())) as api:  # its certificate: kubernetes..., 127.0.0.1
        text = api.kubeconfig.read_text(encoding="utf-8")
        api.kubeconfig.write_text(text.replace("https://127.0.0.1:", "https://localhost:"), encoding="utf-8")
        url = api.url.replace("127.0.0.1", "localhost")
        for args in (["audit"], ["lint", "claim.yaml", "--cluster"]):
            run = cli_run(*args, "--kubeconfig", str(api.kubeconfig))
            prefix = "--cluster: " if args[0] == "lint" else ""
            one_error(run, f"{prefix}cannot reach the Kubernetes API server at {url}: TLS: certificate verify "
                            "failed: Hostname mismatch, certificate is not valid for 'localhost'")
        # tls-server-name: the name checked (and sent in SNI) instead of the server's, as kubectl
        api.kubeconfig.write_text(text.replace("https://127.0.0.1:", "https://localhost:").replace(
            "    certificate-authority:", "    tls-server-name: kubernetes.default\n    certificate-authority:"),
            encoding="utf-8")
        run = cli_run("audit", "--kubeconfig", str(api.kubeconfig), "-q", "--fail-on", "none", "--format", "json=o")
        assert run == Run(0, "", "")


@pytest.mark.parametrize("variable", ["HTTPS_PROXY", "https_proxy", "ALL_PROXY"])
def test_no_proxy_for_a_loopback_api_server(tmp_path: Path, cli_run: Any, variable: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as sock:  # a proxy nobody listens on: using it would fail the run
        sock.bind(("127.0.0.1", 0))
        monkeypatch.setenv(variable, f"http://127.0.0.1:{sock.getsockname()[1]}")
    with AuditAPIServer(tmp_path, copy.deepcopy(synthetic())) as api:
        run = cli_run("audit", "--kubeconfig", str(api.kubeconfig), "-q", "--fail-on", "none")
    assert (run.code, run.err) == (0, "")


# 15: as a kubectl plugin, usage says so


def test_usage_names_kubectl_draguard_when_run_as_the_plugin() -> None:
    import subprocess
    import sys

    code = "import sys; sys.argv[0] = '/usr/local/bin/kubectl-draguard'; from webhook import cli; print(cli.PROG)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "kubectl draguard\n"
