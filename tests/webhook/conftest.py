"""A real `draguard serve` (gunicorn, gthread workers) over real TLS, shared by the serving tests.

Certificates come from `certs.issue.generate` for the Service `draguard` in namespace `draguard`; clients
connect to 127.0.0.1 but send SNI and verify the certificate for `draguard.draguard.svc` against the CA
bundle, as the API server does. Starting a server takes about a second, so the session shares one
(`webhook_server`); tests that rotate certificates, change the policy or stop the server start their own.
"""

from __future__ import annotations

import functools
import http.client
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

import pytest

from tests.conftest import REPO

SNI = "draguard.draguard.svc"
START_DEADLINE = 60.0  # seconds; generous for a loaded 2-core machine, never reached when things work
# The session server's policy: one rule of each action, so allowed, denied, warned and audited are all reachable.
SESSION_POLICY = "rules:\n  numa-node-type: warn\n  k8s-unknown-field: audit\n"


def eventually(condition: Callable[[], bool], what: str, deadline: float = START_DEADLINE) -> None:
    """Poll `condition` until it holds; fail naming `what` after `deadline` seconds (never reached when it works)."""
    give_up = time.monotonic() + deadline
    while not condition():
        if time.monotonic() > give_up:
            raise AssertionError(f"not seen within {deadline}s: {what}")
        time.sleep(0.05)  # polling for a change, not timing it


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def client_context(ca_file: Path) -> ssl.SSLContext:
    """What the API server does: trust only the caBundle, check the name, TLS 1.2 or newer."""
    context = ssl.create_default_context(cafile=str(ca_file))
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    return context


class Connection(http.client.HTTPSConnection):
    """HTTPS to 127.0.0.1 with SNI and name check for `draguard.draguard.svc`; keeps the connection alive."""

    def __init__(self, port: int, context: ssl.SSLContext, timeout: float = 30.0) -> None:
        super().__init__(SNI, port, context=context, timeout=timeout)

    def connect(self) -> None:
        raw = socket.create_connection(("127.0.0.1", self.port), self.timeout)
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as Go's client (the API server) does
        self.sock = self._context.wrap_socket(raw, server_hostname=SNI)  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Reply:
    status: int
    headers: Mapping[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def response(self) -> dict[str, Any]:
        answer: dict[str, Any] = self.json()["response"]
        return answer


def send(conn: http.client.HTTPConnection, method: str, path: str, body: bytes | None = None,
         headers: Mapping[str, str] | None = None) -> Reply:
    conn.request(method, path, body=body, headers=dict(headers or {}))
    raw = conn.getresponse()
    data = raw.read()
    return Reply(raw.status, {k.lower(): v for k, v in raw.getheaders()}, data)


def admission_review(obj: Mapping[str, Any] | None, *, uid: str = "uid-0", operation: str = "CREATE",
                     old: Mapping[str, Any] | None = None, dry_run: bool = False,
                     kind: str | None = None, api_version: str | None = None) -> dict[str, Any]:
    """An AdmissionReview v1 request as the API server sends it for `obj` (or `old` on DELETE)."""
    source = obj if obj is not None else old or {}
    group_version = str(api_version or source.get("apiVersion") or "resource.k8s.io/v1")
    group, _, version = group_version.rpartition("/")
    kind = kind or str(source.get("kind") or "ResourceSlice")
    request: dict[str, Any] = {
        "uid": uid,
        "kind": {"group": group, "version": version, "kind": kind},
        "resource": {"group": group, "version": version,
                     "resource": kind.lower() + ("es" if kind.endswith("s") else "s")},  # deviceclasses
        "requestKind": {"group": group, "version": version, "kind": kind},
        "name": (source.get("metadata") or {}).get("name", ""),
        "operation": operation,
        "userInfo": {"username": "system:serviceaccount:dra:driver", "groups": ["system:serviceaccounts"]},
        "object": obj,
        "oldObject": old,
        "dryRun": dry_run,
        "options": None,
    }
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}


def encode(review: object) -> bytes:
    return json.dumps(review, default=str).encode()


JSON = {"Content-Type": "application/json"}


class ServerProcess:
    """What every started `draguard serve` offers a test: its metrics, its JSON log lines, a SIGTERM stop."""

    process: subprocess.Popen[bytes]
    metrics_port: int
    log_file: Path

    def metrics(self) -> str:
        conn = http.client.HTTPConnection("127.0.0.1", self.metrics_port, timeout=30)
        try:
            return send(conn, "GET", "/metrics").body.decode()
        finally:
            conn.close()

    def logs(self) -> list[dict[str, Any]]:
        """Every JSON line the server wrote to stderr so far (other lines would fail the JSON-logs promise)."""
        return [json.loads(line) for line in self.log_file.read_text().splitlines() if line.strip()]

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=60)


@dataclass
class Server(ServerProcess):
    """One running `draguard serve` subprocess and what a test needs to talk to it."""

    process: subprocess.Popen[bytes]
    port: int
    metrics_port: int
    cert_dir: Path
    policy_file: Path
    log_file: Path
    contexts: list[ssl.SSLContext] = field(default_factory=list)

    @property
    def ca_file(self) -> Path:
        return self.cert_dir / "ca.crt"

    def connect(self, timeout: float = 30.0) -> Connection:
        return Connection(self.port, client_context(self.ca_file), timeout)

    def post(self, path: str, review: object, headers: Mapping[str, str] = JSON) -> Reply:
        conn = self.connect()
        try:
            return send(conn, "POST", path, review if isinstance(review, bytes) else encode(review), headers)
        finally:
            conn.close()

    def get(self, path: str) -> Reply:
        conn = self.connect()
        try:
            return send(conn, "GET", path)
        finally:
            conn.close()



def issue_certs(cert_dir: Path, *extra_dns: str) -> None:
    from certs.issue import generate

    generate(cert_dir, "draguard", "draguard", extra_dns=extra_dns)


class Started(Protocol):
    """What `launch` needs of the object describing a started server."""

    process: subprocess.Popen[bytes]
    log_file: Path

    def stop(self) -> object: ...


S = TypeVar("S", bound=Started)


def launch(base: Path, policy: str, workers: int, args: tuple[str, ...], *, issue: bool,
           describe: Callable[[subprocess.Popen[bytes], int, int, Path, Path, Path], S],
           ready: Callable[[S], bool]) -> S:
    """Start `python -m webhook serve` (certificates, policy file and log under `base`; the server on free ports)
    and return `describe(process, port, metrics_port, cert_dir, policy_file, log_file)` once `ready` says so.
    A free port can be taken by a parallel test before the server binds it: then it starts again on others."""
    base.mkdir(parents=True, exist_ok=True)
    cert_dir, policy_file, log_file = base / "certs", base / "policy.yaml", base / "server.log"
    if issue:
        issue_certs(cert_dir)
    policy_file.write_text(policy)
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    for _attempt in range(3):
        port, metrics_port = free_port(), free_port()
        command = [
            sys.executable, "-m", "webhook", "serve", "--cert-dir", str(cert_dir), "--host", "127.0.0.1",
            "--port", str(port), "--metrics-port", str(metrics_port), "--workers", str(workers),
            "--policy", str(policy_file), *args,
        ]
        with log_file.open("wb") as log:
            process = subprocess.Popen(command, cwd=REPO, stdout=log, stderr=log, env=env)
        server = describe(process, port, metrics_port, cert_dir, policy_file, log_file)
        try:
            poll_ready(server, functools.partial(ready, server))
        except AssertionError:
            if process.returncode == 2 and "cannot listen on" in log_file.read_text():
                continue
            raise
        return server
    raise AssertionError(f"no free port pair for draguard serve:\n{log_file.read_text()}")


def start_server(base: Path, *, policy: str = SESSION_POLICY, workers: int = 2, args: tuple[str, ...] = (),
                 issue: bool = True) -> Server:
    """Start `python -m webhook serve` and return once /readyz answers 200 over TLS."""
    return launch(base, policy, workers, args, issue=issue, describe=Server,
                  ready=lambda server: server.get("/readyz").status == 200)


def wait_ready(server: Server) -> None:
    """Return once the server's /readyz answers 200 over TLS."""
    poll_ready(server, lambda: server.get("/readyz").status == 200)


def poll_ready(server: Started, ready: Callable[[], bool]) -> None:
    """Poll `ready` until it is true; fail (with the server's log) when the server exits or START_DEADLINE passes."""
    deadline = time.monotonic() + START_DEADLINE
    while True:
        if server.process.poll() is not None:
            raise AssertionError(f"draguard serve exited {server.process.returncode}:\n{server.log_file.read_text()}")
        try:
            if ready():
                return
        except (OSError, http.client.HTTPException):
            pass
        if time.monotonic() > deadline:
            server.stop()
            raise AssertionError(f"draguard serve not ready in {START_DEADLINE}s:\n{server.log_file.read_text()}")
        time.sleep(0.1)  # polling for start-up, not timing anything


def served_serial(port: int, bundle: Path) -> int:
    """The serial of the certificate a fresh handshake gets, verified for the Service name against `bundle`."""
    from cryptography import x509

    with socket.create_connection(("127.0.0.1", port), timeout=30) as raw, \
            client_context(bundle).wrap_socket(raw, server_hostname=SNI) as tls:
        der = tls.getpeercert(binary_form=True)
    assert der is not None
    return x509.load_der_x509_certificate(der).serial_number


class Traffic:
    """Client threads sending reviews to /validate/resourceslices until stopped; every failure is kept.

    Each CA bundle (a callable, so a client can re-read a live `ca.crt` per connection as the API server re-reads
    an injected caBundle) gets two threads: one opening a fresh connection (a new handshake) per request, one
    keeping its connection alive. A request fails unless it gets HTTP 200 and `allowed: true` for its own uid.
    """

    def __init__(self, port: int, bundles: list[Callable[[], Path]]) -> None:
        from tests.builders import slice_with

        self.port = port
        self.body = slice_with(numa=1)
        self.stop = threading.Event()
        self.failures: list[str] = []
        plan = [(bundle, fresh) for bundle in bundles for fresh in (True, False)]
        self.counts = [0] * len(plan)
        self.threads = [threading.Thread(target=self._run, args=(n, *p)) for n, p in enumerate(plan)]

    def __enter__(self) -> Traffic:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join()

    def progressed(self, by: int) -> Callable[[], bool]:
        """A condition: every thread has sent `by` more requests than now."""
        start = list(self.counts)
        return lambda: all(now >= then + by for now, then in zip(self.counts, start, strict=True))

    def _run(self, n: int, bundle: Callable[[], Path], fresh: bool) -> None:
        conn: Connection | None = None
        while not self.stop.is_set():
            uid = f"t{n}-{self.counts[n]}"
            try:
                if conn is None:
                    conn = Connection(self.port, client_context(bundle()))
                reply = send(conn, "POST", "/validate/resourceslices", encode(admission_review(self.body, uid=uid)),
                             JSON)
                if reply.status != 200 or reply.response != {"uid": uid, "allowed": True}:
                    self.failures.append(f"{uid}: HTTP {reply.status} {reply.body[:200]!r}")
            except Exception as err:  # every failed request counts, whatever failed
                self.failures.append(f"{uid}: {err!r}")
                conn = None
            if fresh and conn is not None:
                conn.close()
                conn = None
            self.counts[n] += 1
        if conn is not None:
            conn.close()


@pytest.fixture(scope="session")
def webhook_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = start_server(tmp_path_factory.mktemp("webhook-server"))
    yield server
    server.stop()
