"""The kubeconfig and proxy rules client-go applies and the kubernetes client did not, against the HTTPS stand-in:
paths relative to the file that holds them, tokenFile as client-go reads it, strict base64, insecure with a CA,
proxy-url and the proxy variables as Go reads them. Each failure is one line and exit 2 before any request."""

from __future__ import annotations

import base64
import copy
from pathlib import Path
from typing import Any

import pytest

from tests.certs.apiserver import TOKEN, key_pair, with_user
from tests.webhook.audit.apiserver import AuditAPIServer
from tests.webhook.audit.conftest import Run, one_error, synthetic
from tests.webhook.audit.proxy import ConnectProxy

PROBLEM = "cannot load the Kubernetes configuration"
QUIET = ("-q", "--fail-on", "none", "--format", "json=findings.json")  # nothing on stdout or stderr
NOWHERE = "api.draguard.invalid"  # .invalid never resolves (RFC 6761): reachable through the proxy only


@pytest.fixture
def api(tmp_path: Path) -> Any:
    with AuditAPIServer(tmp_path, copy.deepcopy(synthetic())) as server:
        yield server


def _edit(config: Path, old: str, new: str) -> None:
    text = config.read_text(encoding="utf-8")
    assert old in text
    config.write_text(text.replace(old, new), encoding="utf-8")


def _audit(cli_run: Any, config: Path, *args: str) -> Run:
    return cli_run("audit", "--kubeconfig", str(config), *QUIET, *args)  # type: ignore[no-any-return]


# Relative paths: against the directory of the file that holds them (clientcmd.ResolveLocalPaths)


def test_a_users_relative_files_are_read_next_to_the_users_own_file(
        tmp_path: Path, api: AuditAPIServer, cli_run: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    clusters, users = tmp_path / "clusters", tmp_path / "users"
    clusters.mkdir()
    users.mkdir()
    cert, key = key_pair(users / "pki")
    (users / "client.crt").write_bytes(cert.read_bytes())
    (users / "client.key").write_bytes(key.read_bytes())
    (users / "token").write_text(TOKEN, encoding="utf-8")
    head, rest = api.kubeconfig.read_text(encoding="utf-8").split("users:\n")
    (clusters / "config").write_text(head + "contexts:\n" + rest.split("contexts:\n")[1], encoding="utf-8")
    (users / "config").write_text("apiVersion: v1\nkind: Config\nusers:\n- name: test\n  user:\n    tokenFile: token\n"
                                  "    client-certificate: client.crt\n    client-key: client.key\n", encoding="utf-8")
    monkeypatch.setenv("KUBECONFIG", f"{clusters / 'config'}:{users / 'config'}")
    run = cli_run("audit", *QUIET)  # the kubernetes client looked for client.crt in clusters/
    assert (run.code, run.err) == (0, "")
    assert len(api.requests) == 4


# tokenFile: trimmed, and preferred to a token beside it (transport.NewBearerAuthWithRefreshRoundTripper)


@pytest.mark.parametrize("content", [f"{TOKEN}\n", f"  {TOKEN}\r\n\n", TOKEN])
def test_a_token_file_is_trimmed(tmp_path: Path, api: AuditAPIServer, cli_run: Any, content: str) -> None:
    (tmp_path / "token").write_text(content, encoding="utf-8")  # `kubectl create token ... > token` ends in \n
    with_user(api.kubeconfig, f"    tokenFile: {tmp_path / 'token'}\n")
    assert _audit(cli_run, api.kubeconfig) == Run(0, "", "")  # was: internal error, Invalid header value


@pytest.mark.parametrize(("file", "token"), [
    (TOKEN, "stale"),  # client-go reads the file at each request: it wins
    (None, TOKEN),  # the file cannot be read: the token stands in
    ("", TOKEN),  # the file holds no token: so does it
])
def test_a_token_file_wins_over_a_token(tmp_path: Path, api: AuditAPIServer, cli_run: Any, file: str | None,
                                        token: str) -> None:
    if file is not None:
        (tmp_path / "token").write_text(file, encoding="utf-8")
    with_user(api.kubeconfig, f"    token: {token}\n    tokenFile: {tmp_path / 'token'}\n")
    assert _audit(cli_run, api.kubeconfig) == Run(0, "", "")
    assert len(api.requests) == 4


def test_an_empty_token_file_without_a_token_is_one_line(tmp_path: Path, api: AuditAPIServer, cli_run: Any) -> None:
    (tmp_path / "token").write_text(" \n", encoding="utf-8")
    with_user(api.kubeconfig, f"    tokenFile: {tmp_path / 'token'}\n")
    one_error(_audit(cli_run, api.kubeconfig), f"{PROBLEM}: user test: tokenFile {tmp_path / 'token'} holds no token")
    assert api.requests == []


# base64 as Go decodes a kubeconfig's []byte fields (StdEncoding: padded, only CR and LF skipped)


@pytest.mark.parametrize(("mangle", "ok"), [
    (lambda b64: b64, True),
    (lambda b64: "\n".join(b64[i:i + 64] for i in range(0, len(b64), 64)), True),  # wrapped lines
    (lambda b64: b64[:10] + "!" + b64[10:], False),  # Python dropped the `!` and decoded the rest
    (lambda b64: b64[:10] + " " + b64[10:], False),  # a YAML plain scalar folded onto two lines
    (lambda b64: b64.rstrip("="), False),  # unpadded
])
def test_certificate_data_is_decoded_as_strictly_as_go_decodes_it(api: AuditAPIServer, cli_run: Any, mangle: Any,
                                                                  ok: bool) -> None:
    pem = api.ca_file.read_bytes()
    pem += b"\n" * (len(pem) % 3 == 0)  # a length base64 pads, so that "unpadded" differs from padded
    data = mangle(base64.b64encode(pem).decode())
    quoted = data.replace("\n", "\\n")
    _edit(api.kubeconfig, f"certificate-authority: {api.ca_file}", f'certificate-authority-data: "{quoted}"')
    run = _audit(cli_run, api.kubeconfig)
    if ok:
        assert run == Run(0, "", "")
    else:
        one_error(run, f"{PROBLEM}: cluster test: certificate-authority-data is not base64")
        assert api.requests == []


# insecure-skip-tls-verify beside a CA (transport.TLSConfigFor refuses it)


@pytest.mark.parametrize("ca", ["file", "data"])
def test_insecure_with_a_ca_is_refused(api: AuditAPIServer, cli_run: Any, ca: str) -> None:
    if ca == "data":
        data = base64.b64encode(api.ca_file.read_bytes()).decode()
        _edit(api.kubeconfig, f"certificate-authority: {api.ca_file}", f"certificate-authority-data: {data}")
    _edit(api.kubeconfig, "  cluster:\n", "  cluster:\n    insecure-skip-tls-verify: true\n")
    one_error(_audit(cli_run, api.kubeconfig),
              f"{PROBLEM}: cluster test: specifying a root certificates file with the insecure flag is not allowed "
              "(client-go's rule: drop one of insecure-skip-tls-verify and certificate-authority(-data))")
    assert api.requests == []


# Proxies: a kubeconfig proxy-url always; else HTTPS_PROXY as Go's http.ProxyFromEnvironment reads it


def _nowhere(api: AuditAPIServer) -> str:
    """Point the kubeconfig at NOWHERE (port kept), still checking the stand-in's certificate name."""
    port = api.url.rsplit(":", 1)[1]
    _edit(api.kubeconfig, f"server: {api.url}", f"server: https://{NOWHERE}:{port}\n"
                                                "    tls-server-name: kubernetes.default")
    return f"https://{NOWHERE}:{port}"


@pytest.mark.parametrize(("env", "proxied"), [
    ({"HTTPS_PROXY": "{proxy}"}, True),
    ({"https_proxy": "{proxy}"}, True),
    ({"HTTPS_PROXY": "{bare}"}, True),  # no scheme: Go tries http:// in front
    ({"HTTPS_PROXY": "{proxy}", "https_proxy": "http://127.0.0.1:1"}, True),  # the upper-case name first
    ({"ALL_PROXY": "{proxy}"}, False),  # Go reads no ALL_PROXY
    ({"HTTP_PROXY": "{proxy}"}, False),  # for http servers only
    ({"HTTPS_PROXY": "{proxy}", "NO_PROXY": "draguard.invalid"}, False),  # the domain and its subdomains
    ({"HTTPS_PROXY": "{proxy}", "NO_PROXY": ".draguard.invalid"}, False),
    ({"HTTPS_PROXY": "{proxy}", "NO_PROXY": "*.draguard.invalid"}, False),
    ({"HTTPS_PROXY": "{proxy}", "no_proxy": "other.invalid, api.draguard.invalid:{port}"}, False),
    ({"HTTPS_PROXY": "{proxy}", "NO_PROXY": "*"}, False),
    ({"HTTPS_PROXY": "{proxy}", "NO_PROXY": ".api.draguard.invalid"}, True),  # subdomains only
    ({"HTTPS_PROXY": "{proxy}", "NO_PROXY": "api.draguard.invalid:1"}, True),  # another port
    ({"HTTPS_PROXY": "{proxy}", "NO_PROXY": "10.0.0.0/8,draguard"}, True),
])
def test_the_proxy_variables_are_read_as_go_reads_them(api: AuditAPIServer, cli_run: Any,
                                                       monkeypatch: pytest.MonkeyPatch, env: dict[str, str],
                                                       proxied: bool) -> None:
    server = _nowhere(api)
    with ConnectProxy(int(api.url.rsplit(":", 1)[1])) as proxy:
        for name, value in env.items():
            monkeypatch.setenv(name, value.format(proxy=proxy.url, bare=proxy.url.removeprefix("http://"),
                                                  port=server.rsplit(":", 1)[1]))
        run = _audit(cli_run, api.kubeconfig)
    if proxied:
        assert run == Run(0, "", "")
        assert set(proxy.connects) == {server.removeprefix("https://")}
    else:  # straight to a name that resolves nowhere
        assert (run.code, run.out, proxy.connects) == (2, "", [])
        assert run.err.startswith(f"draguard: error: cannot reach the Kubernetes API server at {server}: ")
        assert run.err.count("\n") == 1


@pytest.mark.parametrize("no_proxy", ["", "*"])
def test_a_kubeconfig_proxy_url_is_used_whatever_no_proxy_says(api: AuditAPIServer, cli_run: Any, no_proxy: str,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    server = _nowhere(api)
    monkeypatch.setenv("NO_PROXY", no_proxy)
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:1")  # the kubeconfig's wins
    with ConnectProxy(int(api.url.rsplit(":", 1)[1])) as proxy:
        _edit(api.kubeconfig, "  cluster:\n", f"  cluster:\n    proxy-url: {proxy.url}\n")
        assert _audit(cli_run, api.kubeconfig) == Run(0, "", "")
        assert set(proxy.connects) == {server.removeprefix("https://")}


def test_a_proxy_that_cannot_be_reached_is_named_without_its_password(api: AuditAPIServer, cli_run: Any,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    server = _nowhere(api)
    monkeypatch.setenv("HTTPS_PROXY", "http://user:s3cret@127.0.0.1:1")
    one_error(_audit(cli_run, api.kubeconfig), f"cannot reach the Kubernetes API server at {server} through the "
                                               "proxy http://127.0.0.1:1: Connection refused")


@pytest.mark.parametrize(("proxy_url", "why"), [
    ("127.0.0.1:3128", 'unsupported scheme "", must be http, https, or socks5'),  # was: internal error
    ("ftp://proxy:21", 'unsupported scheme "ftp", must be http, https, or socks5'),
])
def test_a_bad_proxy_url_is_one_line(api: AuditAPIServer, cli_run: Any, proxy_url: str, why: str) -> None:
    _edit(api.kubeconfig, "  cluster:\n", f"  cluster:\n    proxy-url: {proxy_url}\n")
    one_error(_audit(cli_run, api.kubeconfig),
              f"{PROBLEM}: invalid 'proxy-url' \"{proxy_url}\" for cluster \"test\": {why}")
    assert api.requests == []


def test_a_socks_proxy_without_pysocks_is_one_line(api: AuditAPIServer, cli_run: Any) -> None:
    from importlib.util import find_spec

    if find_spec("socks") is not None:
        pytest.skip("PySocks is installed here")
    _edit(api.kubeconfig, "  cluster:\n", "  cluster:\n    proxy-url: socks5://127.0.0.1:1080\n")
    one_error(_audit(cli_run, api.kubeconfig), f"{PROBLEM}: the proxy socks5://127.0.0.1:1080 is a SOCKS proxy, "
                                               "which needs the PySocks package (pip install pysocks)")
    assert api.requests == []
