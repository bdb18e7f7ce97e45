"""A stand-in Kubernetes API server for the certs tests: HTTPS on 127.0.0.1, a few paths, exact bookkeeping.

It serves only what draguard's certs commands call (Secrets and ValidatingWebhookConfigurations), checks the
bearer token, records every request (verb, path, query, Content-Type, decoded body) for the tests to compare, and
answers the way kube-apiserver does: `Status` objects with the upstream reasons and messages for 401, 404, 409
and 422, resourceVersion bumps and optimistic-concurrency conflicts on update, RFC 6902 JSON Patch with `test`.
"""

from __future__ import annotations

import copy
import json
import ssl
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit

from certs.issue import generate

TOKEN = "draguard-test-token"
VWC_PATH = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/"
JSON_PATCH = "application/json-patch+json"


@dataclass(frozen=True, slots=True)
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    content_type: str | None
    body: Any


@dataclass
class State:
    objects: dict[str, dict[str, Any]] = field(default_factory=dict)  # URL path -> object
    requests: list[Request] = field(default_factory=list)
    date: str | None = None  # an override for the Date header (clock-skew tests)
    version: int = 100
    on_patch: list[Any] = field(default_factory=list)  # callables run before a PATCH is applied (races)

    def bump(self) -> str:
        self.version += 1
        return str(self.version)


def status(code: int, reason: str, message: str) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": reason, "code": code}


class PatchFailed(Exception):
    pass


def _walk(doc: Any, pointer: str) -> tuple[Any, str]:
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]
    for token in tokens[:-1]:
        try:
            doc = doc[int(token)] if isinstance(doc, list) else doc[token]
        except (KeyError, IndexError, ValueError):
            raise PatchFailed(f"doc is missing path: {pointer}") from None
    return doc, tokens[-1]


def apply_patch(doc: dict[str, Any], ops: list[dict[str, Any]]) -> dict[str, Any]:
    """RFC 6902 `test`, `add` and `replace`, enough for caBundle patches."""
    doc = copy.deepcopy(doc)
    for op in ops:
        parent, key = _walk(doc, op["path"])
        if isinstance(parent, list):
            index = int(key)
            if op["op"] == "test":
                if index >= len(parent) or parent[index] != op["value"]:
                    raise PatchFailed(f"testing value {op['path']} failed: test failed")
            else:
                parent[index] = op["value"]
            continue
        if op["op"] == "test":
            if parent.get(key) != op["value"]:
                raise PatchFailed(f"testing value {op['path']} failed: test failed")
        elif op["op"] == "replace" and key not in parent:
            raise PatchFailed(f"replace operation does not apply: doc is missing key: {op['path']}")
        else:
            parent[key] = op["value"]
    return doc


class JSONHandler(BaseHTTPRequestHandler):
    """What every API-server stand-in of the tests shares: quiet, JSON answers, the request read once."""

    def log_message(self, format: str, *args: Any) -> None:  # quiet: pytest shows failures, not access logs
        del format, args

    def _answer(self, code: int, body: dict[str, Any] | bytes) -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _incoming(self) -> tuple[str, dict[str, list[str]], Any]:
        """The request's path, its query and its JSON body (None when empty)."""
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        return url.path, parse_qs(url.query), json.loads(raw) if raw else None


class _Handler(JSONHandler):
    server: _Server

    def date_time_string(self, timestamp: float | None = None) -> str:
        return self.server.state.date or super().date_time_string(timestamp)

    def _handle(self) -> None:
        state = self.server.state
        path, query, body = self._incoming()
        with self.server.lock:
            state.requests.append(Request(self.command, path, query, self.headers.get("Content-Type"), body))
            if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                self._answer(401, status(401, "Unauthorized", "Unauthorized"))
                return
            code, answer = self._route(path, body)
        self._answer(code, answer)

    do_GET = do_POST = do_PUT = do_PATCH = _handle

    def _route(self, path: str, body: Any) -> tuple[int, dict[str, Any]]:
        state = self.server.state
        parts = path.strip("/").split("/")
        if path.startswith(VWC_PATH):
            kind, name = "validatingwebhookconfigurations.admissionregistration.k8s.io", parts[-1]
        elif len(parts) in (5, 6) and parts[:3] == ["api", "v1", "namespaces"] and parts[4] == "secrets":
            kind, name = "secrets", parts[5] if len(parts) == 6 else (body or {}).get("metadata", {}).get("name")
        else:
            return 404, status(404, "NotFound", "the server could not find the requested resource")
        key = f"{path}/{name}" if path.endswith("/secrets") else path
        current = state.objects.get(key)
        sent = self.headers.get("Content-Type", "application/json")
        if self.command in ("POST", "PUT") and sent != "application/json":
            # kube-apiserver treats a missing Content-Type as its first media type, JSON (negotiate.go)
            return 415, status(415, "UnsupportedMediaType", "the body of the request was in an unknown format")
        if self.command == "POST":
            if current is not None:
                return 409, status(409, "AlreadyExists", f'{kind} "{name}" already exists')
            created = copy.deepcopy(body)
            created["metadata"]["resourceVersion"] = state.bump()
            state.objects[key] = created
            return 201, created
        if current is None:
            return 404, status(404, "NotFound", f'{kind} "{name}" not found')
        if self.command == "GET":
            return 200, current
        if self.command == "PUT":
            if body["metadata"].get("resourceVersion") != current["metadata"]["resourceVersion"]:
                return 409, status(409, "Conflict", f'Operation cannot be fulfilled on {kind} "{name}": the object has '
                                                    "been modified; please apply your changes to the latest version "
                                                    "and try again")
            updated = copy.deepcopy(body)
            updated["metadata"]["resourceVersion"] = state.bump()
            state.objects[key] = updated
            return 200, updated
        if self.command == "PATCH":
            if self.headers.get("Content-Type") != JSON_PATCH:
                return 415, status(415, "UnsupportedMediaType", "the body of the request was in an unknown format")
            for hook in state.on_patch:
                hook(state)
            state.on_patch.clear()
            try:
                patched = apply_patch(state.objects[key], body)
            except PatchFailed as err:
                return 422, status(422, "Invalid", f"the server rejected our request due to an error in our request: "
                                                   f"{err}")
            patched["metadata"]["resourceVersion"] = state.bump()
            state.objects[key] = patched
            return 200, patched
        return 405, status(405, "MethodNotAllowed", "the server does not allow this method on the requested resource")


class StateServer(ThreadingHTTPServer):
    """A threading HTTP server whose handlers share `state` (and `lock` for what they change in it)."""

    daemon_threads = True

    def __init__(self, state: Any, handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(("127.0.0.1", 0), handler)
        self.state = state
        self.lock = threading.Lock()


class StandIn:
    """An API server stand-in on 127.0.0.1 over TLS (a certificate for `kubernetes.default` and 127.0.0.1 from
    draguard's own CA), served on a thread between `__enter__` and `__exit__`; `kubeconfig` points a client at it
    with the test token, and `requests` is what it was sent."""

    def __init__(self, directory: Path, server: StateServer) -> None:
        tls = generate(directory / "apiserver-tls", "kubernetes", "default", extra_ips=["127.0.0.1"])
        self.ca_file = tls.ca_file
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(tls.cert_file, tls.key_file)
        self._server = server
        server.socket = context.wrap_socket(server.socket, server_side=True)
        self.url = f"https://127.0.0.1:{server.server_address[1]}"
        self.kubeconfig = directory / "kubeconfig"
        self.kubeconfig.write_text(kubeconfig(self.url, self.ca_file), encoding="utf-8")
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    @property
    def requests(self) -> list[Request]:
        return self._server.state.requests  # type: ignore[no-any-return]


class _Server(StateServer):
    state: State


class FakeAPIServer(StandIn):
    """Start with `with FakeAPIServer(tmp_path) as api:`; `api.kubeconfig` points the client at it."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.state = State()
        super().__init__(directory, _Server(self.state, _Handler))

    def put(self, path: str, obj: dict[str, Any]) -> None:
        obj = copy.deepcopy(obj)
        obj.setdefault("metadata", {})["resourceVersion"] = self.state.bump()
        self.state.objects[path] = obj

    def get(self, path: str) -> dict[str, Any]:
        return self.state.objects[path]


def kubeconfig(url: str, ca_file: Path, token: str = TOKEN) -> str:
    return (
        "apiVersion: v1\nkind: Config\ncurrent-context: test\n"
        f"clusters:\n- name: test\n  cluster:\n    server: {url}\n    certificate-authority: {ca_file}\n"
        f"users:\n- name: test\n  user:\n    token: {token}\n"
        "contexts:\n- name: test\n  context:\n    cluster: test\n    user: test\n"
    )


# Broken kubeconfigs, one kind each: what every command that reads a cluster refuses before its first request.
BROKEN_KUBECONFIGS = ("yaml", "not-utf8", "not-a-map", "base64", "token-file", "no-key", "wrong-key", "no-server")


def with_user(config: Path, user: str) -> None:
    """Rewrite the kubeconfig file `config` with `user` (lines indented by four) in place of the test token."""
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace(f"    token: {TOKEN}\n", user), encoding="utf-8")


def exec_user(command: Path) -> str:
    """The `user:` lines of an exec credential plugin, for `with_user`."""
    return (f"    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: {command}\n"
            "      interactiveMode: Never\n")


def exec_plugin(path: Path, script: str) -> Path:
    """An executable shell script at `path` running `script`: an exec credential plugin for `exec_user`."""
    path.write_text(f"#!/bin/sh\n{script}", encoding="utf-8")
    path.chmod(0o755)
    return path


def key_pair(directory: Path) -> tuple[Path, Path]:
    """A certificate and its key, new in `directory` (from a new CA)."""
    made = generate(directory, "client", "default")
    return made.cert_file, made.key_file


def break_kubeconfig(config: Path, case: str, scratch: Path) -> str:
    """Break the kubeconfig file `config` in one of the ways of BROKEN_KUBECONFIGS (files it needs go under
    `scratch`); answers the error that follows 'cannot load the Kubernetes configuration: '."""
    if case == "yaml":
        config.write_text("clusters: [\n", encoding="utf-8")
        return f"{config}:2:1: invalid YAML: expected the node content, but found '<stream end>'"
    if case == "not-utf8":  # the client's own reading failed with "user ?: 'utf-8' codec can't decode ..."
        config.write_bytes(config.read_bytes().replace(b"current-context: test", b"current-context: t\xffst"))
        return f"{config}: not UTF-8 text"
    if case == "not-a-map":
        with_user(config, "    - token\n")  # the user a list, not a map
        return f"{config}: not a kubeconfig (TypeError: list indices must be integers or slices, not str)"
    if case == "base64":
        with_user(config, "    client-certificate-data: '!!notbase64'\n")
        return "user test: client-certificate-data is not base64"
    if case == "no-server":  # urllib3 warned twice on stderr, then `No host specified`
        text = config.read_text(encoding="utf-8")
        config.write_text("\n".join("    server: ''" if line.startswith("    server: ") else line
                                    for line in text.split("\n")), encoding="utf-8")
        return "the context's cluster has no server (its `server:` is missing or empty)"
    if case == "token-file":
        with_user(config, f"    tokenFile: {scratch}/absent-token\n")
        return f"user test: cannot read {scratch}/absent-token: No such file or directory"
    cert, _ = key_pair(scratch / "one")
    other = key_pair(scratch / "two")[1]
    with_user(config, f"    client-certificate: {cert}\n" + ("" if case == "no-key" else f"    client-key: {other}\n"))
    return ("user test: a client certificate but no client-key(-data)" if case == "no-key" else
            "user test: the client key does not match the client certificate")


def webhook_configuration(name: str, *hooks: str, service: tuple[str, str] = ("draguard-system", "draguard"),
                          ca_bundle: str | None = None, annotations: dict[str, str] | None = None) -> dict[str, Any]:
    """A ValidatingWebhookConfiguration as `kubectl get -o json` shows it."""
    webhooks = []
    for hook in hooks:
        client_config: dict[str, Any] = {"service": {"namespace": service[0], "name": service[1], "path": "/validate",
                                                     "port": 443}}
        if ca_bundle is not None:
            client_config["caBundle"] = ca_bundle
        webhooks.append({"name": hook, "clientConfig": client_config, "admissionReviewVersions": ["v1"],
                         "sideEffects": "None", "failurePolicy": "Fail",
                         "rules": [{"apiGroups": ["resource.k8s.io"], "apiVersions": ["v1"],
                                    "operations": ["CREATE", "UPDATE"], "resources": ["resourceslices"]}]})
    metadata: dict[str, Any] = {"name": name, "uid": "0b7a1f2e-0000-4000-8000-000000000001"}
    if annotations:
        metadata["annotations"] = annotations
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
            "metadata": metadata, "webhooks": webhooks}
