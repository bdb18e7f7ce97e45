"""What the front (`webhook.front`) wraps around a connection: a deadline per phase, the body deadline, one write
per answer. `Deadline` and `OneWrite` are made once per connection and serve every request on it: the served
path of a small review is short enough that new timers per request show in its CPU time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

import gevent

from webhook.admission.endpoint import BodyDeadlineExceeded

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class BodyDeadline:
    """WSGI middleware: the request body must arrive within `seconds` of the headers."""

    def __init__(self, app: WSGIApp, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        environ["wsgi.input"] = DeadlineInput(environ["wsgi.input"], time.monotonic() + self.seconds, self.seconds)
        return self.app(environ, start_response)


class DeadlineInput:
    def __init__(self, stream: Any, deadline: float, seconds: float) -> None:
        self._stream = stream
        self._deadline = deadline
        self._seconds = seconds

    def _within(self, read: Callable[[], bytes]) -> bytes:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise BodyDeadlineExceeded(self._seconds)
        with gevent.Timeout(left, False):
            data: bytes = read()
            return data
        raise BodyDeadlineExceeded(self._seconds)

    def read(self, size: int | None = None) -> bytes:
        return self._within(lambda: self._stream.read(size))

    def readline(self, size: int | None = None) -> bytes:
        return self._within(lambda: self._stream.readline(size))

    def __iter__(self) -> Any:
        while line := self.readline():
            yield line


LATE = object()  # what `Deadline.run` returns when the call did not finish in time


class Deadline:
    """A connection's deadline for one phase, used for every request on it: `gevent.Timeout` used as a context
    manager closes its native timer on exit, so each request would make new ones."""

    def __init__(self, seconds: float) -> None:
        self.timer = gevent.Timeout(seconds)

    def run(self, call: Callable[..., Any], *args: Any) -> Any:
        """`call(*args)`, or LATE when it did not return within the deadline (it is interrupted)."""
        timer = self.timer
        timer.start()
        try:
            return call(*args)
        except gevent.Timeout as late:
            if late is not timer:
                raise
            return LATE
        finally:
            timer.cancel()


class OneWrite:
    """The connection as gunicorn's response writer sees it: what it sends is held until `flush()`, then written
    at once (one TLS record and one system call for status line, headers and body, where gunicorn makes two; the
    client is woken once, not twice). Any other use of the socket (close, shutdown, a peer certificate) sends
    what is held first."""

    def __init__(self, sock: Any) -> None:
        self._sock = sock
        self._held: list[bytes] = []

    def sendall(self, data: bytes) -> None:
        self._held.append(bytes(data))

    def flush(self) -> None:
        if self._held:
            data = self._held[0] if len(self._held) == 1 else b"".join(self._held)
            self._held = []
            self._sock.sendall(data)

    def __getattr__(self, name: str) -> Any:
        self.flush()
        return getattr(self._sock, name)
