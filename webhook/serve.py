"""`draguard serve` under gunicorn: gevent workers behind per-phase deadlines, TLS 1.2+ with hot reload,
one policy for all workers, a graceful drain.

Choices and why (docs/webhook.md has the measurements):
- Workers: `webhook.front.GuardedWorker`, gunicorn's gevent worker driving each connection itself, so an idle,
  slow or half-open connection costs a greenlet and is closed at its phase's deadline (`Limits`), never a
  thread that the next valid request waits for. At most `max_connections` connections per worker.
- keep-alive 120 s: longer than the API server's idle-connection timeout (Go's transport default, 90 s), so
  the server is not the side that closes an idle connection just as a request is sent on it.
- One listening socket, the master's, shared by the workers; a worker takes a new connection only while it holds
  no more connections than any other worker (`webhook.balance`), so the API server's few long-lived connections
  are spread evenly, not by the kernel's hash of their ports (SO_REUSEPORT put 7 of 8 on one worker).
- TLS: the worker wraps each accepted connection with `tls_context()`, the `certs.reload.TLSReloader` context
  (TLS 1.2 minimum) whose SNI callback hands each new handshake the newest valid certificate. `tls_context` is
  the one place a TLS context is made (client-certificate checks plug in there).
- Policy: the master alone reads the file and publishes what loads (`webhook.policy_store.PolicyPublisher`);
  workers follow the published state before every request, so all switch at once, or none does.
- SIGTERM: the workers stop accepting, close idle keep-alive connections, finish in-flight requests within
  `graceful_timeout` (default 25 s, inside Kubernetes' 30 s grace period), answering a request that arrives
  meanwhile with `Connection: close`. SIGINT (Ctrl-C) stops at once.
- Metrics: `PROMETHEUS_MULTIPROC_DIR` is set (and emptied) before any worker imports prometheus_client; every
  worker serves the summed values on `--metrics-port` through the same guarded loop.
- No gunicorn control socket and heartbeat files in /dev/shm, so a read-only root filesystem works.
"""

from __future__ import annotations

import contextlib
import gc
import ipaddress
import logging
import os
import resource
import shutil
import signal
import socket
import ssl
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from msgspec import Struct, field, structs

from webhook.auth.settings import AuthSettings
from webhook.balance import MAX_SLOTS, Shares
from webhook.budget import DEFAULT_BUDGET, Budget
from webhook.errors import DraguardError

if TYPE_CHECKING:
    from flask import Flask

    from certs.reload import TLSReloader
    from webhook.auth.tokens import TokenVerifier
    from webhook.policy_store import PolicyPublisher, PolicyStore

KEEPALIVE = 120  # seconds; see the module docstring
# The collector's young-generation threshold in the workers (CPython's default is 700). Its count is net of
# frees, so a review's short-lived, acyclic objects (a maximal slice decodes to ~2,200 containers, the rules add
# more) no longer set off collections: with the default, ~3 per maximal review, 0.3 ms of its CPU, and now and then
# a full one of several ms (its p99). Cyclic garbage is still collected once this many objects pile up.
YOUNG_GC_THRESHOLD = 50_000
GRACEFUL_TIMEOUT = 25
# Spelled out, not imported from webhook.metrics: importing prometheus_client before it is set would
# fix single-process mode for good (client_python picks its value class at import).
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


class Limits(Struct, frozen=True):
    """Deadlines (seconds) for each phase of a connection, and the connection cap per worker."""

    handshake: float = 5.0  # TLS handshake, from accept
    headers: float = 10.0  # request line and headers, from the first byte waited for
    body: float = 15.0  # the body, from the end of the headers (a 7 MiB review needs well under 1 s)
    request: float = 30.0  # body, evaluation and answer together; then the connection is cut
    keepalive: float = KEEPALIVE  # idle between requests
    max_connections: int = 1000  # per worker; more wait in the kernel's accept backlog


DEFAULT_LIMITS = Limits()


EVERY_ADDRESS = ""  # --host's default: see listen_host
# The signals that stop a worker. The master blocks them across each fork, and the worker unblocks them once its
# own handlers are in place (webhook.front.GuardedWorker.init_signals): one that arrives in between (a Pod deleted
# while a worker boots) would run the master's handler the child inherited, which queues it where nobody reads,
# and the master would wait out the whole graceful timeout before it kills that worker.
STOP_SIGNALS = frozenset({signal.SIGTERM, signal.SIGINT, signal.SIGQUIT})


class ServeOptions(Struct, frozen=True):
    cert_file: Path
    key_file: Path
    host: str = EVERY_ADDRESS
    port: int = 8443
    workers: int = 2
    limits: Limits = DEFAULT_LIMITS
    budget: Budget = DEFAULT_BUDGET
    policy_path: Path | None = None
    metrics_port: int = 8080  # 0 turns the metrics listener off
    metrics_host: str | None = None  # None: the same address as --host
    graceful_timeout: int = GRACEFUL_TIMEOUT
    log_level: str = "info"
    check_interval: float = 1.0  # how often certificate and policy files are stat'ed, at most
    auth: AuthSettings = field(default_factory=AuthSettings)  # who may call (webhook.auth); off by default


class Served(Struct):
    """What the workers serve with, built and checked in the master and inherited by every forked worker.

    The certificate holder looks at its files lazily (on a handshake) and holds no thread, so each worker's
    copy keeps itself current; the policy is the master's, followed through `channel` (a private directory).
    """

    tls: TLSReloader
    policy: PolicyStore
    channel: Path
    limits: Limits
    budget: Budget
    metrics_host: str
    metrics_port: int
    publisher: PolicyPublisher | None = None
    tokens: TokenVerifier | None = None
    shares: Shares | None = None  # connections held per worker (`webhook.balance`), shared over fork


_SERVED: dict[str, Served] = {}  # "current" -> what this process serves with


def current() -> Served:
    return _SERVED["current"]


def serve(options: ServeOptions) -> None:
    """Check everything a user can get wrong (one-line `DraguardError`), then run gunicorn until stopped."""
    options.auth.check()
    options = structs.replace(options, host=listen_host(options.host))
    check_listen(options.host, options.port, "--port")
    metrics_host = options.metrics_host or options.host
    if options.metrics_port:
        check_listen(metrics_host, options.metrics_port, "--metrics-port")
        if options.metrics_port == options.port and metrics_host == options.host:
            raise DraguardError("--metrics-port must differ from --port")
    owned_dir = prepare_multiprocess_dir() if options.metrics_port else None
    channel = Path(tempfile.mkdtemp(prefix="draguard-policy-"))
    try:
        raise_fd_limit(options.limits.max_connections + 64 + MAX_SLOTS)  # (+ the workers' bells, webhook.balance)
        served = Served(_open_tls(options), _open_policy(options), channel, options.limits, options.budget,
                        metrics_host, options.metrics_port)
        served.tokens = _open_tokens(options)
        served.publisher = _publisher(served)
        served.shares = Shares()
        _SERVED["current"] = served
        warm_up()
        _application_class()(options, metrics_host).run()
    finally:
        shutil.rmtree(channel, ignore_errors=True)
        if owned_dir is not None:
            shutil.rmtree(owned_dir, ignore_errors=True)


def raise_fd_limit(wanted: int) -> None:
    """Lift the soft open-file limit towards the hard one: each held connection is a descriptor."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def warm_up() -> None:
    """Import and exercise the rule path once in the master, then freeze what exists for the collector.

    Every worker inherits the imported catalogue, celext and the parser tables instead of paying for them on
    its first request. `gc.freeze()` then moves those tens of thousands of long-lived objects out of the
    collector's reach: a full collection otherwise walks all of them (about 10 ms here), which showed as
    the p99 of large reviews. It also keeps the forked pages shared (gunicorn's documentation suggests it).
    Young collections are made rare (`YOUNG_GC_THRESHOLD`): they cost about a tenth of a maximal slice's review.
    """
    from webhook.admission import handlers
    from webhook.admission.review import GroupVersionKind, GroupVersionResource, Request
    from webhook.policy import Policy

    group, version = "resource.k8s.io", "v1"
    slice_ = {"apiVersion": f"{group}/{version}", "kind": "ResourceSlice", "metadata": {"name": "warm-up"},
              "spec": {"driver": "warm.up", "nodeName": "n", "pool": {"name": "p", "generation": 0,
                                                                          "resourceSliceCount": 1},
                       "devices": [{"name": "d", "attributes": {"resource.kubernetes.io/numaNode": {"int": 0}}}]}}
    claim = {"apiVersion": f"{group}/{version}", "kind": "ResourceClaim", "metadata": {"name": "warm-up"},
             "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "c", "selectors": [
                 {"cel": {"expression": 'device.attributes["resource.kubernetes.io"].numaNode == 0'}}]}}]}}}
    for obj, handler in ((slice_, handlers.resourceslices), (claim, handlers.selectors)):
        kind = str(obj["kind"])
        request = Request("warm-up", GroupVersionKind(group, version, kind),
                          GroupVersionResource(group, version, kind.lower() + "s"), "CREATE", obj)
        try:
            handler(request, Policy.default())
        except Exception:  # a warm-up problem must not keep the server from starting; requests will show it
            logging.getLogger(__name__).exception("warm-up of %s failed", kind)
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_GC_THRESHOLD, *gc.get_threshold()[1:])


def listen_host(host: str) -> str:
    """The address to bind: `host` as given; for EVERY_ADDRESS, as a Go server's `:8443` listens: `::` where the
    kernel has IPv6 and maps IPv4 onto it (IPv4-only, dual-stack and IPv6-only pods alike), else `0.0.0.0`."""
    if host != EVERY_ADDRESS:
        return host
    return "::" if _dual_stack() else "0.0.0.0"


def _dual_stack() -> bool:
    """Does an IPv6 wildcard socket also take IPv4 here? Not without IPv6 (disabled on the node or the pod), and
    not where `net.ipv6.bindv6only` makes such sockets IPv6-only (gunicorn leaves the kernel's default)."""
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::", 0))
            return probe.getsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY) == 0
    except OSError:
        return False


def check_listen(host: str, port: int, flag: str) -> None:
    """Fail fast with one line when the address cannot be bound (gunicorn would retry for five seconds)."""
    try:
        family = socket.AF_INET6 if ipaddress.ip_address(host).version == 6 else socket.AF_INET
    except ValueError:
        family = socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as err:
            raise DraguardError(f"{flag}: cannot listen on {host}:{port}: {err.strerror or err}") from None


def prepare_multiprocess_dir() -> Path | None:
    """Use PROMETHEUS_MULTIPROC_DIR when set (emptied of old values), else a private temporary directory.

    Returns the directory when this process created it (and must remove it), None when it was given.
    """
    if "prometheus_client.values" in sys.modules and not os.environ.get(MULTIPROC_ENV):
        raise RuntimeError("prometheus_client was imported before PROMETHEUS_MULTIPROC_DIR was set")
    given = os.environ.get(MULTIPROC_ENV)
    if given:
        directory = Path(given)
        directory.mkdir(parents=True, exist_ok=True)
        for stale in directory.glob("*.db"):
            stale.unlink(missing_ok=True)
        return None
    created = Path(tempfile.mkdtemp(prefix="draguard-metrics-"))
    os.environ[MULTIPROC_ENV] = str(created)
    return created


def _open_tls(options: ServeOptions) -> TLSReloader:
    from certs import CertsError
    from certs.reload import TLSReloader

    try:
        reloader = TLSReloader(options.cert_file, options.key_file, check_interval=options.check_interval,
                               client_ca=options.auth.client_ca)
    except CertsError as err:
        raise DraguardError(f"cannot serve TLS: {err.message}") from None
    return reloader


def _open_tokens(options: ServeOptions) -> TokenVerifier | None:
    from webhook.auth.tokens import open_verifier

    return open_verifier(options.auth)


def _open_policy(options: ServeOptions) -> PolicyStore:
    from webhook.policy_store import PolicyStore

    def count(error: str | None) -> None:
        from webhook import metrics

        metrics.policy_reloaded(error)

    return PolicyStore(options.policy_path, check_interval=options.check_interval, on_reload=count)


def _publisher(served: Served) -> PolicyPublisher:
    from webhook import metrics
    from webhook.admission import logs
    from webhook.policy_store import PolicyPublisher

    def changed(error: str | None) -> None:
        metrics.policy_active(served.policy.hash)
        logs.set_policy_hash(served.policy.hash)

    publisher = PolicyPublisher(served.policy, served.channel, on_change=changed)
    changed(None)
    return publisher


def tls_context(config: Any = None, default_factory: Callable[[], ssl.SSLContext] | None = None) -> ssl.SSLContext:
    """The TLS server context for a new connection (gunicorn's `ssl_context` hook); the one place it is made."""
    return _SERVED["current"].tls.server_context()


def gunicorn_settings(options: ServeOptions, metrics_host: str) -> dict[str, Any]:
    from webhook.admission.logs import logging_config

    bind = f"[{options.host}]:{options.port}" if ":" in options.host else f"{options.host}:{options.port}"

    def when_ready(server: Any) -> None:
        server.log.info("serving https://%s with %d workers sharing one socket, connections spread evenly", bind,
                        options.workers)
        publisher = _SERVED["current"].publisher
        if publisher is not None:
            publisher.start()
        if options.metrics_port:
            server.log.info("metrics on http://%s:%s/metrics", metrics_host, options.metrics_port)

    def pre_fork(server: Any, worker: Any) -> None:
        shares = _SERVED["current"].shares
        worker.balance_slot = shares.assign(worker.age) if shares is not None else None

    def child_exit(server: Any, worker: Any) -> None:
        from webhook import metrics

        metrics.mark_dead(worker.pid)
        shares = _SERVED["current"].shares
        if shares is not None:
            shares.release(worker.age)

    settings: dict[str, Any] = {
        "bind": [bind],
        "workers": options.workers,
        "worker_class": "webhook.front.GuardedWorker",
        "worker_connections": options.limits.max_connections,
        "keepalive": int(options.limits.keepalive),
        "reuse_port": False,  # one socket for all workers, taken by the one holding fewest (webhook.balance)
        "graceful_timeout": options.graceful_timeout,
        "timeout": 30,
        "certfile": str(options.cert_file),
        "keyfile": str(options.key_file),
        "ssl_context": tls_context,
        "when_ready": when_ready,
        "pre_fork": pre_fork,
        "child_exit": child_exit,
        "logconfig_dict": logging_config(options.log_level),
        "loglevel": options.log_level,
        "accesslog": None,  # the admission views write one richer JSON line per request
        "logger_class": _logger_class(),
        "proc_name": "draguard",
        "control_socket_disable": True,
        "limit_request_line": 8190,
    }
    if Path("/dev/shm").is_dir():
        settings["worker_tmp_dir"] = "/dev/shm"
    return settings


def _end_worker(code: object) -> NoReturn:
    """A worker's exit with gunicorn's status, its output flushed, and nothing of the master's run after."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code if isinstance(code, int) else 0 if code is None else 1)


def _logger_class() -> type:
    from gunicorn.glogging import Logger

    class QuietAccessLogger(Logger):  # type: ignore[misc]
        """gunicorn's logger, minus the access line nobody reads.

        With a logging config given, gunicorn formats its access-log atoms for every request even when the
        `gunicorn.access` logger drops the line (about a tenth of a small review's time in a worker profile);
        the admission views write their own richer line, so the atoms are built only when the line is kept.
        """

        def access(self, resp: Any, req: Any, environ: Any, request_time: Any) -> None:
            if self.access_log.isEnabledFor(logging.INFO):
                super().access(resp, req, environ, request_time)

    return QuietAccessLogger


def _build_app(options: ServeOptions) -> Flask:
    """The worker's app: it follows the master's published policy and answers within the request budget."""
    from webhook.admission import logs
    from webhook.app import Settings, create_app
    from webhook.auth.middleware import protect
    from webhook.policy_store import PolicyFollower

    def switched(policy_hash: str) -> None:
        logs.set_policy_hash(policy_hash)

    served = _SERVED["current"]
    follower = PolicyFollower(served.channel, on_switch=switched)
    app = create_app(Settings(options.policy_path, options.check_interval, budget=served.budget), follower,
                     served.tls)
    return protect(app, options.auth, served.tokens)


def _application_class() -> type:
    from gunicorn.app.base import BaseApplication
    from gunicorn.arbiter import Arbiter

    class Master(Arbiter):  # type: ignore[misc]
        def spawn_worker(self) -> int:
            """A worker forked with STOP_SIGNALS blocked (the child inherits the mask; see STOP_SIGNALS). The
            worker ends here: gunicorn ends it with SystemExit, which would unwind through this process's callers,
            whose cleanup (serve's) is the master's: it removed the policy channel and the metrics directory the
            master and the other workers still use, and the worker started in its place then failed to boot,
            which stops the whole server."""
            master = os.getpid()
            blocked = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
            try:
                pid: int = super().spawn_worker()
                return pid
            except SystemExit as done:
                if os.getpid() == master:
                    raise
                _end_worker(done.code)
            finally:
                if os.getpid() == master:
                    signal.pthread_sigmask(signal.SIG_SETMASK, blocked)

    class Application(BaseApplication):  # type: ignore[misc]
        def __init__(self, options: ServeOptions, metrics_host: str) -> None:
            self.options = options
            self.metrics_host = metrics_host
            super().__init__()

        def run(self) -> None:
            """BaseApplication.run with the Master above."""
            try:
                Master(self).run()
            except RuntimeError as err:  # gunicorn's start-up errors, worded as gunicorn does
                print(f"\nError: {err}\n", file=sys.stderr)
                sys.stderr.flush()
                sys.exit(1)

        def load_config(self) -> None:
            for key, value in gunicorn_settings(self.options, self.metrics_host).items():
                if key in self.cfg.settings:  # settings a gunicorn release lacks are skipped
                    self.cfg.set(key, value)

        def load(self) -> Flask:
            return _build_app(self.options)

    return Application

