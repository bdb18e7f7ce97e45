"""The connection front of `draguard serve`: gunicorn's gevent worker with a deadline on every phase.

Each connection is a greenlet, so a silent or slow client costs a few kilobytes, not a thread. gunicorn's own
gevent worker still waits without limit in the TLS handshake and the first request's headers, so this worker
drives the connection itself:

    accept (one socket for all workers, taken by the worker holding fewest connections, `webhook.balance`;
            at most --max-connections per worker; beyond, the kernel backlog holds them)
    -> TLS handshake            within Limits.handshake seconds, else closed (plain HTTP instead: answered 400)
    -> request headers          within Limits.headers seconds of the first byte waited for, else closed; what
                                gunicorn's parser refuses is answered in one line of JSON (`write_error`)
    -> body                     within Limits.body seconds of the headers (408 answered), via `BodyDeadline`;
                                read from the socket into one buffer (`connection.SocketBody`)
    -> evaluation               bounded by the request budget (`webhook.budget`), answered per policy
    -> answer written           the whole request within Limits.request seconds, else the connection is cut;
                                status line, headers and body in one write (`connection.OneWrite`)
    -> idle keep-alive          up to Limits.keepalive (120 s, longer than the API server's 90 s), then closed

A review (`POST /validate/*`) is answered straight from gunicorn's parsed request by `GuardedWorker._review`,
with the same bytes the WSGI app writes and without building a WSGI environ (docs/webhook.md has the profile);
everything else, and reviews when client authentication wraps the app, goes through WSGI and Flask.

On SIGTERM the listeners close, requests in flight finish within the graceful timeout, and a request that
arrives on a kept-alive connection meanwhile is answered with `Connection: close` (gunicorn's `handle_request`
does that once the worker is no longer alive); once nothing is in flight and `DRAIN_IDLE_GRACE` has passed,
connections still idle are closed (a client's transport retries a request on a connection closed while idle).

The metrics port is served by the same loop on its own SO_REUSEPORT socket in every worker (plain HTTP, same
deadlines and cap), so it is exactly as hard to starve as the webhook port.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import socket as stdsocket
import ssl
import time
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

import gevent
import gevent.ssl
from gevent.pool import Pool
from gevent.server import StreamServer
from gunicorn import SERVER, http, util
from gunicorn import sock as gsock
from gunicorn.http.body import ChunkedReader
from gunicorn.http.errors import UnsupportedTransferCoding
from gunicorn.workers.ggevent import GeventWorker
from werkzeug.http import HTTP_STATUS_CODES
from werkzeug.sansio.utils import get_content_length

from webhook.admission.endpoint import PATHS, collect_cleared
from webhook.admission.response import clip
from webhook.app import AdmissionRoute, error_body
from webhook.auth.peer import count_handshake_error
from webhook.balance import Balance, BalancedServer
from webhook.connection import (
    LATE,
    BodyDeadline,
    Deadline,
    DeadlineInput,
    OneWrite,
    SocketBody,
    body_left,
    waited,
)
from webhook.serve import STOP_SIGNALS, Limits, current

# After SIGTERM, how long kept-alive connections still get their requests answered once nothing is in flight:
# the API server may send on a pooled connection until it notices the endpoint is gone.
DRAIN_IDLE_GRACE = 1.0

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class ListenerDispatch:
    """WSGI middleware: requests to the metrics port go to the metrics app, all others to the webhook."""

    def __init__(self, app: WSGIApp, metrics_port: int, metrics_app: WSGIApp | None) -> None:
        self.app = app
        self.metrics_port = str(metrics_port)
        self.metrics_app = metrics_app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if self.metrics_app is not None and environ.get("SERVER_PORT") == self.metrics_port:
            return self.metrics_app(environ, start_response)
        return self.app(environ, start_response)


class GuardedWorker(GeventWorker):  # type: ignore[misc]
    """gunicorn's gevent worker with per-phase deadlines, a connection cap and a prompt, clean drain."""

    wsgi: WSGIApp
    limits: Limits
    _idle: set[gevent.Greenlet]
    _metrics_socket: Any = None
    _route: AdmissionRoute | None = None
    _parser_cfg: Any = None
    _quit = False
    _balance: Balance | None = None

    def init_signals(self) -> None:
        """gunicorn's handlers, then the stop signals the master blocked across the fork: one already sent is
        delivered now, to those handlers (webhook.serve.STOP_SIGNALS)."""
        super().init_signals()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)

    def load_wsgi(self) -> None:
        super().load_wsgi()
        served = current()
        self.limits = served.limits
        self._idle = set()
        flask_app = self.wsgi
        app: WSGIApp = BodyDeadline(flask_app, self.limits.body)
        metrics_app = None
        if served.metrics_port:
            from webhook import metrics

            metrics_app = metrics.wsgi_app()
        self.wsgi = ListenerDispatch(app, served.metrics_port, metrics_app)
        # The review path without WSGI, when nothing wraps the route (client authentication does) and the
        # environment does not mount the app under a SCRIPT_NAME.
        route = getattr(flask_app, "wsgi_app", None)
        self._route = route if isinstance(route, AdmissionRoute) and not os.environ.get("SCRIPT_NAME") else None
        self._parser_cfg = ConfigValues(self.cfg)
        util.write_error = write_error  # gunicorn's handle_error answers what its parser refuses through it
        if self.cfg.is_ssl:
            _unwrap_sni_callback(tls_context(self.cfg))

    def _listeners(self) -> list[tuple[Any, bool, bool]]:
        """(socket, TLS, balanced): the shared admission sockets, then this worker's own metrics socket."""
        served = current()
        listeners: list[tuple[Any, bool, bool]] = [(s, bool(self.cfg.is_ssl), True) for s in self.sockets]
        if served.metrics_port:
            self._metrics_socket = metrics_socket(served.metrics_host, served.metrics_port, self.cfg.backlog)
            listeners.append((self._metrics_socket, False, False))
        return listeners

    def run(self) -> None:
        servers: list[StreamServer] = []
        balance = self._balance = Balance(current().shares, getattr(self, "balance_slot", None))
        for listener, tls, balanced in self._listeners():
            listener.setblocking(1)
            handle, spawn = partial(self.connection, listener, tls), Pool(self.worker_connections)
            if balanced:
                server = BalancedServer(listener, handle, spawn, balance)
            else:
                server = StreamServer(listener, handle=handle, spawn=spawn)
                server.max_accept = 1  # one connection per wake-up; the other workers' SO_REUSEPORT sockets get theirs
            server.start()
            servers.append(server)
        while self.alive:
            self.notify()
            gevent.sleep(0.1)  # how soon a signal is acted on
        if self._quit:  # Ctrl-C / SIGQUIT: stop now, in-flight requests included
            for server in servers:
                server.close()
            return
        self._drain(servers)

    def handle_quit(self, sig: int, frame: Any) -> None:
        """SIGINT and SIGQUIT: leave the run loop at once (gunicorn's gevent worker raises SystemExit in a
        greenlet, which gevent prints as a traceback at exit)."""
        self.alive = False
        self._quit = True

    def _drain(self, servers: list[StreamServer]) -> None:
        """Stop accepting; finish what is in flight; answer requests on kept-alive connections (with
        `Connection: close`) for DRAIN_IDLE_GRACE after that; then close the idle ones."""
        for server in servers:
            server.close()
        started = time.monotonic()
        deadline = started + self.cfg.graceful_timeout
        while time.monotonic() < deadline:
            active = sum(s.pool.size - s.pool.free_count() for s in servers)
            busy = active - len(self._idle)
            if active == 0 or (busy == 0 and time.monotonic() - started >= DRAIN_IDLE_GRACE):
                break
            self.notify()
            gevent.sleep(0.05)
        gevent.killall(list(self._idle), block=True, timeout=1)
        for server in servers:
            server.stop(timeout=1)

    def connection(self, listener: Any, tls: bool, client: Any, addr: Any) -> None:
        """One connection, from handshake to close, each phase under its deadline."""
        limits = self.limits
        # When the client connected, as the kernel saw it: a busy worker gets to a new connection late, and the
        # caller's timeout for its first review has run since then (the handshake waited for this greenlet too).
        opened = time.monotonic() - waited(client)
        try:
            if client.family in (stdsocket.AF_INET, stdsocket.AF_INET6):
                # An answer goes out as headers then body: with Nagle's algorithm the body waits for the client's
                # delayed ACK (40 ms on Linux) before it is sent.
                client.setsockopt(stdsocket.IPPROTO_TCP, stdsocket.TCP_NODELAY, 1)
            if tls:
                handshaken = self._handshake(client, addr)
                if handshaken is None:  # (the raw socket is still closed below)
                    return
                client = handshaken
            parser = http.get_parser(self._parser_cfg, client, addr)
            out = OneWrite(client)
            listener_name = listener.getsockname()
            headers, whole = Deadline(limits.headers), Deadline(limits.request)
            since: float | None = opened  # the first request's wait runs from the connection's start
            while True:  # after SIGTERM, gunicorn answers with `Connection: close`, which ends the loop
                if since is None and not self._wait_idle(client, parser):
                    return
                req = headers.run(next, parser)
                if req is LATE:
                    self.log.debug("request headers from %s not received within %ss; closed", addr, limits.headers)
                    return
                _check_transfer_coding(req)
                answer = self._answer if since is None else functools.partial(self._answer, since=since)
                if whole.run(answer, tls, listener_name, req, out, addr) is LATE:
                    self.log.warning("request from %s not done within %ss; connection closed", addr, limits.request)
                    return
                since = None
        except StopIteration:  # the answer said Connection: close, or the client closed
            pass
        except (http.errors.NoMoreData, ssl.SSLError, OSError) as err:
            self.log.debug("connection from %s ended: %s", addr, err)
        except gevent.GreenletExit:
            pass
        except Exception as err:  # a malformed request line or header: gunicorn answers 400, within a deadline
            with gevent.Timeout(limits.handshake, False):
                self.handle_error(None, client, addr, err)
        finally:
            _close(client)

    def _answer(self, tls: bool, listener_name: Any, req: Any, out: OneWrite, addr: Any, *,
                since: float | None = None) -> None:
        """One request answered, its bytes written at once, within the request deadline. Past the deadline (a
        gevent.Timeout) nothing held is written: the connection is cut, as a slow reader must not hold it. `since`:
        when the connection opened, for its first request (None for the next ones). Meanwhile the worker is busy for
        its peers (`Balance.answering`): they take new connections rather than step aside for it."""
        balance = self._balance
        if balance is not None:
            balance.answering(True)
        try:
            if not (tls and self._review(req, out, since)):
                self.handle_request(listener_name, req, out, addr)
        except StopIteration:  # answered with `Connection: close`
            out.flush()
            raise
        finally:
            if balance is not None:
                balance.answering(False)
        out.flush()

    def _review(self, req: Any, out: OneWrite, since: float | None = None) -> bool:
        """Answer a review straight from gunicorn's parsed request; False (nothing read or written) when it is not
        one this path takes. The answer is byte for byte what the WSGI path writes (gunicorn's status line and
        headers around `AdmissionRoute.respond`), without its costs: the WSGI environ, Flask's dispatch, the
        middleware and gunicorn's response writer (together more CPU than a small review's rules).
        The answer is written before the decoded review is freed. StopIteration when the connection is to close, as
        gunicorn's `handle_request` does."""
        route = self._route
        if route is None or req.method != "POST" or req.path not in PATHS or req._expected_100_continue:
            return False
        length = content_type = None
        encodings = []
        codings = []
        for name, value in req.headers:
            if name == "CONTENT-LENGTH":
                length = value
            elif name == "CONTENT-TYPE":
                content_type = value
            elif name == "TRANSFER-ENCODING":
                encodings.append(value)
            elif name == "CONTENT-ENCODING":
                codings.append(value)
            elif name == "SCRIPT_NAME":  # gunicorn moves the path under it: the WSGI path sorts that out
                return False
        seconds = self.limits.body
        release: list[object] = []  # the decoded review, freed once the answer is written (endpoint.answer_review)
        status, headers, data = route.respond(
            req.path, length=get_content_length(length, ",".join(encodings) if encodings else None),
            content_type=content_type, stream=DeadlineInput(SocketBody.of(req.body), time.monotonic() + seconds,
                                                                  seconds),
            release=release, waited=max(waited(out), 0.0 if since is None else time.monotonic() - since),
            query=req.query, content_encoding=",".join(codings) if codings else None)
        close = not self.alive or req.should_close() or body_left(req.body)
        head = [f"HTTP/{req.version[0]}.{req.version[1]} {status}", f"Server: {SERVER}", f"Date: {_http_date()}",
                f"Connection: {'close' if close else 'keep-alive'}", *[f"{k}: {v}" for k, v in headers]]
        out.sendall(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + data)
        out.flush()
        release.clear()
        collect_cleared()
        if close:
            raise StopIteration
        return True

    def _handshake(self, client: Any, addr: Any) -> Any:
        """The TLS socket once the handshake is done within Limits.handshake; None (connection closed) if not. A
        client that sends plain HTTP instead is answered 400 (`PLAIN_HTTP`), as a Go server answers it."""
        wrapped = None
        with gevent.Timeout(self.limits.handshake, False):
            if _plain_http(client):
                self.log.debug("plain HTTP from %s on the TLS port; answered 400", addr)
                # What has arrived is taken first: closing with unread bytes resets the connection, and the client
                # would lose the answer.
                client.recv(PLAIN_HTTP_READ)
                write_error(client, 400, "", PLAIN_HTTP)
                return None
            # The context was made in the master, before gevent patched `ssl`: wrap with gevent's SSLSocket directly
            # (it takes the socket over: the raw one is unusable from here on).
            wrapped = gevent.ssl.SSLSocket(sock=client, server_side=True, do_handshake_on_connect=False,
                                           _context=tls_context(self.cfg))
            try:
                wrapped.do_handshake()
            except ssl.SSLError as err:  # gevent's SSLSocket ignores the context's counting socket class
                count_handshake_error(err)
                raise
            return wrapped
        self.log.debug("TLS handshake from %s not done within %ss; closed", addr, self.limits.handshake)
        if wrapped is not None:
            _close(wrapped)
        return None

    def _wait_idle(self, client: Any, parser: Any) -> bool:
        """Wait for the next request on a kept-alive connection; False when it stays idle past keep-alive.

        A request already read (pipelined behind the last one) waits for the worker's other ready connections first:
        reading it takes no wait, so without this yield a client pipelining reviews kept the worker from its other
        connections for as long as it kept its pipeline full (behind 3,000 pipelined reviews, a review on another
        connection of a one-worker server waited 1.3-2.6 s here; 0.06-0.8 s with the yield)."""
        if _buffered(client, parser):
            gevent.sleep(0)
            return True
        me = gevent.getcurrent()
        self._idle.add(me)
        try:
            gevent.socket.wait_read(client.fileno(), timeout=self.limits.keepalive)
        except TimeoutError:
            return False
        finally:
            self._idle.discard(me)
        return True


class ConfigValues:
    """gunicorn's configuration as its HTTP parser reads it, each setting a plain attribute.

    `Config.__getattr__` looks each setting up through its `Setting` object, and the parser reads about 17 of
    them per request (8 % of parsing a small review's request line and headers). A worker's settings do not
    change while it runs (a reload starts new workers), so their values are taken once. Anything else, and the
    settings the configuration shadows with a property of its own (`worker_class`, `address`, ...), is read from
    the configuration itself."""

    def __init__(self, cfg: Any) -> None:
        shadowed = type(cfg)
        self.__dict__.update({name: setting.get() for name, setting in cfg.settings.items()
                              if not hasattr(shadowed, name)})
        self._cfg = cfg

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cfg, name)


def tls_context(cfg: Any) -> ssl.SSLContext:
    """The server context for a new connection: gunicorn's `ssl_context` hook (`webhook.serve.tls_context`)."""
    context: ssl.SSLContext = gsock.ssl_context(cfg)
    return context


def _unwrap_sni_callback(context: ssl.SSLContext) -> None:
    """Hand the context's SNI callback gevent's SSLSocket, as it would get the stdlib one.

    The context is made in the master, before gevent patches `ssl`, so OpenSSL passes the callback gevent's
    inner socket; the callback (`certs.reload.TLSReloader`) sets `.context` on what it is given.
    """
    callback = context.sni_callback
    if callback is None or getattr(callback, "unwraps_gevent", False):
        return

    def unwrapped(sock: Any, server_name: Any, ctx: ssl.SSLContext) -> Any:
        owner = getattr(sock, "_sslsock", None)
        return callback(owner() if owner is not None else sock, server_name, ctx)

    unwrapped.unwraps_gevent = True  # type: ignore[attr-defined]
    context.sni_callback = unwrapped


ERROR_MESSAGE_CHARS = 512  # of the reason gunicorn gives for a refused request (it may quote the request line)
# What a Go HTTPS server answers a client that sent plain HTTP (net/http, `Server.serve`), in its words.
PLAIN_HTTP = "Client sent an HTTP request to an HTTPS server."
PLAIN_HTTP_READ = 64 * 1024  # bytes of such a request read before the answer
# The first five bytes of a request Go's server recognises as plain HTTP rather than a TLS record header.
_HTTP_STARTS = frozenset({b"GET /", b"HEAD ", b"POST ", b"PUT /", b"OPTIO"})


def write_error(sock: Any, code: int, reason: str, message: str) -> None:
    """gunicorn's `util.write_error` in JSON: the answer to a request its parser refused (a malformed request line
    or header, a line or header over its limit, an unsupported transfer coding, a bad `Expect`) is one line of
    `{"code", "error", "message"}` like every other error on the port, not an HTML page, and its status line has the
    standard reason phrase (gunicorn writes `501 Bad Request`). `reason`, gunicorn's phrase, is not used. The
    connection is closed after it, as gunicorn does: what follows the refused request cannot be framed."""
    del reason
    body = error_body(code, clip(message, ERROR_MESSAGE_CHARS)).encode()
    head = (f"HTTP/1.1 {code} {HTTP_STATUS_CODES.get(code, 'Unknown Error')}\r\nConnection: close\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n")
    sock.sendall(head.encode("latin-1") + body)


def _check_transfer_coding(req: Any) -> None:
    """`UnsupportedTransferCoding` (answered 501) for a transfer coding other than `chunked`. gunicorn refuses the
    codings it does not know but lets `gzip`, `deflate` and `compress` before `chunked` through undecoded, so a
    compressed review was read as JSON (`not UTF-8`) and a plain one sent under that label was answered as if it
    were not coded. Go's server, whose rules the API server's clients follow, takes `chunked` alone (501 otherwise).
    A request framed by Content-Length (the API server's) is not looked at: gunicorn refuses a Transfer-Encoding that
    does not end in `chunked`, so only a chunked body can carry another coding."""
    if not isinstance(getattr(req.body, "reader", None), ChunkedReader):
        return
    for name, value in req.headers:
        if name == "TRANSFER-ENCODING" and any(c.strip(" \t").lower() != "chunked" for c in value.split(",")):
            raise UnsupportedTransferCoding(value)


def _plain_http(client: Any) -> bool:
    """Whether the connection starts with a plain HTTP request rather than a TLS handshake (its first five bytes,
    peeked, as Go's server tells one from a TLS record header): such a client is answered 400 in one line rather
    than with a failed handshake it cannot read."""
    try:
        start: bytes = client.recv(5, stdsocket.MSG_PEEK)
    except OSError:
        return False
    return start in _HTTP_STARTS


_date: list[Any] = [0, ""]  # the second and its Date header value


def _http_date() -> str:
    """gunicorn's Date header value, formatted once a second."""
    now = int(time.time())
    if _date[0] != now:
        _date[:] = [now, util.http_date(now)]
    return str(_date[1])


def _buffered(client: Any, parser: Any) -> bool:
    if isinstance(client, ssl.SSLSocket) and client.pending():
        return True
    with parser.unreader.buf.getbuffer() as view:
        return bool(view.nbytes)


def _close(client: Any) -> None:
    with contextlib.suppress(OSError):
        client.close()


def metrics_socket(host: str, port: int, backlog: int) -> Any:
    """This worker's SO_REUSEPORT socket for the metrics port (every worker has one; the kernel spreads them)."""
    from gevent import socket as gsocket

    family = stdsocket.AF_INET6 if ":" in host else stdsocket.AF_INET
    sock = gsocket.socket(family, stdsocket.SOCK_STREAM)
    sock.setsockopt(stdsocket.SOL_SOCKET, stdsocket.SO_REUSEADDR, 1)
    sock.setsockopt(stdsocket.SOL_SOCKET, stdsocket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(backlog)
    return sock


__all__ = ["BodyDeadline", "GuardedWorker", "Limits", "ListenerDispatch"]
