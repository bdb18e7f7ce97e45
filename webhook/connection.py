"""What the front (`webhook.front`) wraps around a connection: a deadline per phase, the body deadline, the body read
straight from the socket, one write per answer. `Deadline` and `OneWrite` are made once per connection and serve
every request on it: the served path of a small review is short enough that new timers per request show in its CPU
time.
"""

from __future__ import annotations

import socket
import struct
import time
from collections.abc import Callable, Iterable
from typing import Any

import gevent
from gunicorn.http.body import Body, ChunkedReader, LengthReader
from gunicorn.http.unreader import SocketUnreader

from webhook.admission.endpoint import BodyDeadlineExceeded

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class BodyDeadline:
    """WSGI middleware: the request body must arrive within `seconds` of the headers."""

    def __init__(self, app: WSGIApp, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        body = environ["wsgi.input"]
        environ["wsgi.input"] = DeadlineInput(SocketBody.of(body), time.monotonic() + self.seconds, self.seconds)
        answer = self.app(environ, start_response)
        if body_left(body):
            # As the direct path does (`GuardedWorker._review`): the answer says `Connection: close` and the
            # connection closes. gunicorn drops a Connection header the app sets, so its response is told directly
            # (the start_response it hands the app is the response's method); it would otherwise promise keep-alive,
            # then stop at the next request on the connection (a failed body) without answering it.
            close = getattr(getattr(start_response, "__self__", None), "force_close", None)
            if close is not None:
                close()
        return answer


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


class SocketBody:
    """A request body of known length (`Content-Length`) read from the connection into one buffer of its size.

    gunicorn's reader (`Body` over `LengthReader` over `SocketUnreader`) passes every TLS record of a body through
    two `BytesIO` buffers, each grown by reallocation, and slices them again on the way out, and each `recv` it
    makes allocates a buffer as large as the rest of the body (over 128 KiB, a fresh mapping): about four copies
    of a 138 KB UPDATE review. This reader takes what gunicorn read past the headers, then `recv_into` one buffer,
    never past the body's end (a pipelined request stays in the socket for gunicorn's parser), and returns it as
    bytes: one copy. gunicorn's state stays in step: the length left to read (what `Parser.finish_body` drains
    before the next request) and `Body.failed` when a read raises an error (the connection is then closed)."""

    def __init__(self, body: Body) -> None:
        self._body = body
        self._reader: LengthReader = body.reader
        self._unreader: SocketUnreader = body.reader.unreader

    @classmethod
    def of(cls, body: Any) -> Any:
        """A `SocketBody` for gunicorn's body of a request framed by its length; `body` itself for any other (a
        chunked body, a reader already started, a stream that is not gunicorn's)."""
        reader: Any = getattr(body, "reader", None)
        if (type(body) is Body and type(reader) is LengthReader and isinstance(reader.unreader, SocketUnreader)
                and not body.buf.tell()):
            return cls(body)
        return body

    def read(self, size: int | None = None) -> bytes:
        """Up to `size` bytes of the body (all of it when None or negative), fewer only at its end or when the
        client closed the connection."""
        if self._body.buf.tell():  # gunicorn's reader holds part of it (a `readline` below): it reads on
            data: bytes = self._body.read(size)
            return data
        reader = self._reader
        wanted = reader.length if size is None or size < 0 else min(size, reader.length)
        if wanted <= 0:
            return b""
        held: bytes = self._unreader.take_buffered()
        if len(held) >= wanted:
            if len(held) > wanted:  # the start of a pipelined request: gunicorn's parser reads it next
                self._unreader.unread(held[wanted:])
                held = held[:wanted]
            reader.length -= wanted
            return held
        got = len(held)
        buffer = bytearray(wanted)
        with memoryview(buffer) as view:
            view[:got] = held
            try:
                while got < wanted:
                    count = self._unreader.sock.recv_into(view[got:], wanted - got)
                    if not count:
                        break
                    got += count
            except Exception:  # as gunicorn's `Body`: the next request's start is unknown; a deadline is not this
                self._body.failed = True
                raise
            finally:
                reader.length -= got  # what was taken from the socket is not drained again
            return bytes(buffer) if got == wanted else bytes(view[:got])

    def __getattr__(self, name: str) -> Any:
        """Anything else (`readline`, iteration) is gunicorn's `Body`, which reads on from where this left off."""
        return getattr(self._body, name)

    def __iter__(self) -> Any:
        return iter(self._body)


def body_left(body: Any) -> bool:
    """Whether part of the request body is still on the connection (answered 408, or cut short by a framing error):
    gunicorn would read it as the start of the next request, so the answer closes the connection instead."""
    reader = getattr(body, "reader", None)
    if getattr(body, "failed", False):
        return True
    if isinstance(reader, LengthReader):
        return bool(reader.length > 0)
    return isinstance(reader, ChunkedReader) and reader.parser is not None


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


_LAST_DATA_RECEIVED = struct.Struct("=I")  # struct tcp_info's tcpi_last_data_recv (ms), at byte 52 since Linux 2.6
_TCP_INFO_OFFSET = 52


def waited(sock: Any) -> float:
    """Seconds since the last bytes of the request on `sock` arrived (the kernel's TCP_INFO): how long a review
    waited for this worker, which evaluates one object at a time. 0 where the kernel does not say (not Linux, not
    TCP)."""
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    except (AttributeError, OSError, ValueError):  # (ValueError: a socket already closed, on some wrappers)
        return 0.0
    if len(info) < _TCP_INFO_OFFSET + _LAST_DATA_RECEIVED.size:
        return 0.0
    return float(_LAST_DATA_RECEIVED.unpack_from(info, _TCP_INFO_OFFSET)[0]) / 1000.0

