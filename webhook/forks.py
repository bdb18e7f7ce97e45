"""Independent jobs spread over forked processes, results in input order (what `draguard lint --jobs` runs on).

    results = map_forked(job, weights, processes=2)    # job(i) -> the result of item i; weights: cost guesses

Why fork, and not a pool: a pool costs the parent ~20 ms of CPU and ~100 ms of wall before its workers answer
(process start, handler threads, joins at shutdown) -- the whole gain on a corpus-sized input. A fork shares
what the parent has loaded and built (modules, policy, inventory, compiled selectors) for nothing.

Scheduling: the items are cut into contiguous segments of equal weight per process; two processes work each
segment from its two ends and meet where the work runs out (a pair of counters under a file lock), so one slow
file does not leave a process idle, and neighbouring files, which repeat selectors, stay in one process's caches.
The parent works the front of the first segment. Each process keeps the log records each item makes (the
children send theirs back with their results) and the parent replays them all in item order at the end, so
stderr reads as one process would have written it. Items a child did not send back (it died) are done by
the parent at the end.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import struct
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Generic, NamedTuple, NoReturn, TypeVar

from msgspec import Struct

R = TypeVar("R")

_PAIR = struct.Struct("=qq")  # one segment's (next front item, next back item)
_SIZE = struct.Struct("=Q")  # the length of a child's answer, written before it: a cut-off answer is no answer
_PIPE_BYTES = 1 << 20  # a child's pipe holds this much (Linux's default cap), so it can write its answer and exit
_exited: list[int] = []  # children whose whole answer was read, not waited for yet (see reap)
_FRONT, _BACK = 0, 1
_RECORD_FIELDS = ("name", "levelno", "levelname", "pathname", "filename", "module", "lineno", "funcName",
                  "created", "msecs", "relativeCreated", "process", "processName", "thread", "threadName")


def can_fork() -> bool:
    """Linux only: macOS has fork, but system libraries used before it (TLS for --cluster) may crash a child
    (Python's multiprocessing spawns there for that reason)."""
    return sys.platform.startswith("linux") and hasattr(os, "fork")


class Seat(NamedTuple):
    """Where one process takes its items: a segment, from its front or its back."""

    segment: int
    side: int


def seats(processes: int) -> list[Seat]:
    """Two processes per segment (front, back), the last one alone when the count is odd; the parent's first."""
    return [Seat(p // 2, p % 2) for p in range(processes)]


def segments(weights: Sequence[int], places: Sequence[Seat]) -> list[tuple[int, int]]:
    """Contiguous [start, end) segments, each weighing about its number of processes' share of the total;
    none empty (there are at least as many items as segments)."""
    count = places[-1].segment + 1
    sizes = [sum(1 for s in places if s.segment == k) for k in range(count)]
    if not any(weights):
        weights = [1] * len(weights)
    total = sum(weights)
    bounds: list[tuple[int, int]] = []
    start, running, wanted = 0, 0, 0
    for k in range(count):
        wanted += sizes[k]
        end = start + 1  # at least one item
        running += weights[start]
        last = len(weights) - (count - k - 1)  # leave one item for each later segment
        while end < last and (k == count - 1 or running * len(places) < wanted * total):
            running += weights[end]
            end += 1
        bounds.append((start, end))
        start = end
    return bounds


class _Counters:
    """Each segment's next front and back item, in a file every process shares; `fcntl.lockf` locks are the
    process's own and go away with it, so a dead child cannot leave the others waiting."""

    def __init__(self, bounds: Sequence[tuple[int, int]]) -> None:
        self.fd = os.memfd_create("draguard-jobs") if hasattr(os, "memfd_create") else _temporary_fd()
        os.pwrite(self.fd, b"".join(_PAIR.pack(start, end - 1) for start, end in bounds), 0)

    def claim(self, seat: Seat) -> int | None:
        import fcntl

        offset = seat.segment * _PAIR.size
        fcntl.lockf(self.fd, fcntl.LOCK_EX)
        try:
            front: int
            back: int
            front, back = _PAIR.unpack(os.pread(self.fd, _PAIR.size, offset))
            if front > back:
                return None
            os.pwrite(self.fd, _PAIR.pack(front + 1, back) if seat.side == _FRONT else _PAIR.pack(front, back - 1),
                      offset)
            return front if seat.side == _FRONT else back
        finally:
            fcntl.lockf(self.fd, fcntl.LOCK_UN)

    def close(self) -> None:
        os.close(self.fd)


def _temporary_fd() -> int:
    import tempfile

    return os.dup(tempfile.TemporaryFile().fileno())


class _Kept(logging.Handler):
    """A child's log records, per item, as plain fields the parent can rebuild them from."""

    def __init__(self) -> None:
        super().__init__()
        self.item = 0  # the item being worked (Ahead has one, numbered 0)
        self.records: dict[int, list[dict[str, Any]]] = {}

    def emit(self, record: logging.LogRecord) -> None:
        fields = {name: getattr(record, name, None) for name in _RECORD_FIELDS}
        fields["msg"], fields["args"] = record.getMessage(), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        fields["exc_text"], fields["stack_info"] = record.exc_text, record.stack_info
        self.records.setdefault(self.item, []).append(fields)


class _Child(Struct, Generic[R]):
    pid: int
    fd: int
    results: dict[int, tuple[R, list[dict[str, Any]]]] | None = None


def map_forked(job: Callable[[int], R], weights: Sequence[int], processes: int,
               done: Callable[[int], None] | None = None) -> list[R]:
    """`[job(i) for i in range(len(weights))]`, over up to `processes` processes (this one included)."""
    processes = max(1, min(processes, len(weights)))
    if processes == 1 or not can_fork():
        return _here(job, range(len(weights)), done)
    reap()
    places = seats(processes)
    counters = _Counters(segments(weights, places))
    children: list[_Child[R]] = []
    results: dict[int, R] = {}
    records: dict[int, list[dict[str, Any]]] = {}
    kept = _Kept()
    try:
        for seat in places[1:]:
            children.append(_fork(job, counters, seat))
        with _keeping(kept):
            while (item := counters.claim(places[0])) is not None:
                kept.item = item
                results[item] = job(item)
                if done is not None:
                    done(1)
        for child in children:
            _collect(child)
            for item, (result, kept_records) in (child.results or {}).items():
                results[item] = result
                records[item] = kept_records
            if done is not None and child.results:
                done(len(child.results))
    finally:
        for child in children:
            _reap(child)
        counters.close()
        _replay({**records, **kept.records})  # also when a job raised here: what was logged before it
    missing = [i for i in range(len(weights)) if i not in results]
    if missing:  # a child died: its items are done here, as one process would have done them
        logging.getLogger(__name__).debug("%d item(s) of a worker process that failed are done here", len(missing))
        results.update(zip(missing, _here(job, missing, done), strict=True))
    return [results[i] for i in range(len(weights))]


@contextlib.contextmanager
def _keeping(kept: _Kept | None = None) -> Iterator[_Kept]:
    """The root logger's handlers swapped for a `_Kept` while jobs run (put back after)."""
    root = logging.getLogger()
    handlers = root.handlers[:]
    kept = kept if kept is not None else _Kept()
    root.handlers[:] = [kept]
    try:
        yield kept
    finally:
        root.handlers[:] = handlers


def _here(job: Callable[[int], R], items: Sequence[int] | range, done: Callable[[int], None] | None) -> list[R]:
    out = []
    for item in items:
        out.append(job(item))
        if done is not None:
            done(1)
    return out


def _pipe() -> tuple[int, int]:
    """A pipe large enough for most answers: the child then writes its answer and exits without waiting for
    the parent to read it (where the size cannot be set, it waits, as with any pipe)."""
    import fcntl

    read_end, write_end = os.pipe()
    with contextlib.suppress(OSError, AttributeError):
        fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
    return read_end, write_end


def _fork(job: Callable[[int], R], counters: _Counters, seat: Seat) -> _Child[R]:
    read_end, write_end = _pipe()
    pid = os.fork()
    if pid == 0:

        def work(kept: _Kept) -> list[bytes]:
            chunks: list[bytes] = []
            while (item := counters.claim(seat)) is not None:
                kept.item = item
                chunks.append(_chunk(item, job(item), kept))
            return chunks

        _answer(read_end, write_end, work)
    os.close(write_end)
    return _Child(pid, read_end)


def _chunk(item: int, result: Any, kept: _Kept) -> bytes:
    """One item's part of a child's answer: its result and log records, pickled as soon as the item is done (so
    the child's last item is followed by no pickling of everything before it, which the parent would wait for)."""
    return pickle.dumps((item, result, kept.records.pop(item, [])), protocol=pickle.HIGHEST_PROTOCOL)


def frame(chunks: Sequence[bytes]) -> bytes:
    """A child's whole answer: its length, then each item's chunk after its own length."""
    body = b"".join(_SIZE.pack(len(chunk)) + chunk for chunk in chunks)
    return _SIZE.pack(len(body)) + body


def _answer(read_end: int, write_end: int, work: Callable[[_Kept], list[bytes]]) -> NoReturn:
    """The child's whole life: do the work with its log records kept, send both to the parent, exit without
    returning into the caller's stack or flushing the parent's buffers."""
    status = 1
    try:
        os.close(read_end)
        with _keeping() as kept:
            chunks = work(kept)
        view = memoryview(frame(chunks))
        while view:
            view = view[os.write(write_end, view):]
        os.close(write_end)  # the parent reads to the end now, not once this process's memory is torn down
        status = 0
    finally:
        os._exit(status)


def _replay(records: dict[int, list[dict[str, Any]]]) -> None:
    """Log records kept per item, handled here in item order (as one process would have written them)."""
    for item in sorted(records):
        for fields in records[item]:
            logging.getLogger(fields["name"]).handle(logging.makeLogRecord(fields))


def _collect(child: _Child[R]) -> None:
    """Read the child's answer to its end; a child that failed answers nothing, or less than it announced.
    A child that answered in full is waited for only if it has exited already (else by `reap`): its exit, the
    teardown of its memory, takes milliseconds the parent need not wait for."""
    chunks = []
    while chunk := os.read(child.fd, 1 << 20):
        chunks.append(chunk)
    os.close(child.fd)
    child.fd = -1
    data = b"".join(chunks)
    whole = len(data) >= _SIZE.size and _SIZE.unpack_from(data)[0] == len(data) - _SIZE.size
    if whole:
        if os.waitpid(child.pid, os.WNOHANG)[0] == 0:
            _exited.append(child.pid)
        child.pid = 0
        child.results = _unframe(memoryview(data)[_SIZE.size:])
        return
    os.waitpid(child.pid, 0)
    child.pid = 0


def _unframe(body: memoryview) -> dict[int, tuple[Any, list[dict[str, Any]]]]:
    """Each item's result and log records, from the chunks of a whole answer."""
    results: dict[int, tuple[Any, list[dict[str, Any]]]] = {}
    offset = 0
    while offset < len(body):
        (size,) = _SIZE.unpack_from(body, offset)
        offset += _SIZE.size
        item, result, records = pickle.loads(body[offset:offset + size])
        results[item] = (result, records)
        offset += size
    return results


def reap() -> None:
    """Wait for the children that answered in full and were still exiting (no zombies are left behind)."""
    while _exited:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(_exited.pop(), 0)


def _reap(child: _Child[R]) -> None:
    """A child not collected (the parent's own work raised): stopped and waited for."""
    if child.fd >= 0:
        os.close(child.fd)
    if child.pid:
        import signal

        with contextlib.suppress(ProcessLookupError):
            os.kill(child.pid, signal.SIGKILL)
        os.waitpid(child.pid, 0)


class Ahead(Generic[R]):
    """`work()` computed in a forked child while this process goes on (`lint --slices` reads its inventory while
    the rules and celext are imported); `result()` waits for it. A child that fails leaves the work to
    `result()`, here; its log records are replayed here when the result is taken."""

    def __init__(self, work: Callable[[], R]) -> None:
        self._work = work
        self._child: _Child[R] | None = None
        if can_fork():
            reap()
            read_end, write_end = _pipe()
            pid = os.fork()
            if pid == 0:
                _answer(read_end, write_end, lambda kept: [_chunk(0, work(), kept)])
            os.close(write_end)
            self._child = _Child(pid, read_end)

    def cancel(self) -> None:
        """The child stopped and waited for, when its result was not taken (the run ended before it)."""
        child, self._child = self._child, None
        if child is not None:
            _reap(child)

    def result(self) -> R:
        child, self._child = self._child, None
        if child is not None:
            try:
                _collect(child)
            finally:
                _reap(child)
            if child.results:
                value, records = child.results[0]
                _replay({0: records})
                return value
        return self._work()
