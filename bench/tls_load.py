"""The load generator of bench_webhook: lean HTTPS clients that are not the bottleneck, and the CPU both sides spent.

Each load process drives its kept-alive TLS connections from one `selectors` loop: the request's bytes are built
once, a response is read just far enough to know it is complete (status line, Content-Length, body) and checked.
One request is in flight per connection at a time, as the API server sends them (no pipelining). A closed loop
sends the next request as soon as a connection is free; an open loop schedules request k at start + k/rate and
hands it to the first free connection, its latency counted from that scheduled time (a stall is not hidden).

`drive` reports, next to the latencies, the CPU seconds the server's workers spent over the window (from
/proc/<pid>/stat) and those the load processes spent, so a reader sees which side was the limit.
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import selectors
import socket
import ssl
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SNI = "draguard.draguard.svc"
HEAD_END = b"\r\n\r\n"


def request_bytes(path: str, body: bytes) -> bytes:
    head = (f"POST {path} HTTP/1.1\r\nHost: {SNI}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nAccept: application/json\r\n\r\n")
    return head.encode() + body


def context(ca: str) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=ca)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    return ctx


@dataclass(frozen=True, slots=True)
class Load:
    port: int
    ca: str
    request: bytes
    expect: bytes  # a byte string every answer must hold (e.g. b'"allowed":true')
    seconds: float
    connections: int  # per process
    rate: float = 0.0  # requests/s for this process (open loop); 0: closed loop


@dataclass(frozen=True, slots=True)
class Result:
    latencies: list[float]
    seconds: float
    server_cpu: float  # seconds, all workers, over the window
    client_cpu: float  # seconds, all load processes, over the window
    spread: tuple[int, ...] = ()  # the load's connections each worker holds, most first

    def spread_text(self) -> str:
        """`5/3`: the kernel spreads connections over the workers by a hash; a worker serves those it holds."""
        return "/".join(map(str, self.spread)) or "unknown"

    @property
    def rps(self) -> float:
        return len(self.latencies) / self.seconds

    def per_request(self, cpu: float) -> float:
        return cpu / max(1, len(self.latencies))


class _Conn:
    def __init__(self, load: Load, ctx: ssl.SSLContext) -> None:
        raw = socket.create_connection(("127.0.0.1", load.port), timeout=30)
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock = ctx.wrap_socket(raw, server_hostname=SNI)
        self.buf = bytearray()
        self.pending = memoryview(b"")
        self.due = 0.0
        self.busy = False

    def send(self, request: bytes, due: float) -> None:
        self.pending, self.due, self.busy = memoryview(request), due, True
        self.buf.clear()
        self.flush()

    def flush(self) -> bool:
        """Write what is pending; True when all of it went out."""
        while self.pending:
            try:
                sent = self.sock.send(self.pending)
            except (ssl.SSLWantWriteError, BlockingIOError):
                return False
            self.pending = self.pending[sent:]
        return True

    def receive(self, expect: bytes) -> bool:
        """Read what arrived; True when the response is complete (and checked)."""
        while True:
            try:
                chunk = self.sock.recv(1 << 18)
            except (ssl.SSLWantReadError, BlockingIOError):
                break
            if not chunk:
                raise RuntimeError("the server closed a kept-alive connection")
            self.buf += chunk
        end = self.buf.find(HEAD_END)
        if end < 0:
            return False
        head = bytes(self.buf[:end]).decode("latin-1")
        length = next(int(line.split(":", 1)[1]) for line in head.split("\r\n")
                      if line.lower().startswith("content-length:"))
        if len(self.buf) < end + 4 + length:
            return False
        if not head.startswith("HTTP/1.1 200 ") or expect not in self.buf:
            raise RuntimeError(f"unexpected answer: {bytes(self.buf[:300])!r}")
        self.busy = False
        return True


def _run(load: Load, barrier: Any, out: Any) -> None:
    """One load process: connect and warm up, meet the others at the barrier, drive the load, report."""
    ctx = context(load.ca)
    conns = [_Conn(load, ctx) for _ in range(load.connections)]
    for conn in conns:  # handshake and one request each, outside the window
        conn.sock.setblocking(False)
        conn.send(load.request, 0.0)
        while not (conn.flush() and conn.receive(load.expect)):
            time.sleep(0.001)  # set-up only: polling is fine here
    out.put([conn.sock.getsockname()[1] for conn in conns])
    barrier.wait()
    cpu0 = _cpu_self()
    start = time.perf_counter()
    stop = start + load.seconds
    latencies = _loop(load, conns, start, stop)
    cpu = _cpu_self() - cpu0
    for conn in conns:
        conn.sock.close()
    out.put((latencies, cpu))


def _loop(load: Load, conns: list[_Conn], start: float, stop: float) -> list[float]:
    sel = selectors.DefaultSelector()
    for conn in conns:
        sel.register(conn.sock, selectors.EVENT_READ, conn)
    free: deque[_Conn] = deque(conns)
    waiting: deque[float] = deque()  # open loop: scheduled times not yet sent
    latencies: list[float] = []
    sent = 0
    while True:
        now = time.perf_counter()
        if load.rate:
            while now < stop and start + sent / load.rate <= now:
                waiting.append(start + sent / load.rate)
                sent += 1
            while free and waiting:
                _start(sel, free.popleft(), load, waiting.popleft())
        elif now < stop:
            while free:
                _start(sel, free.popleft(), load, now)
        if now >= stop and len(free) == len(conns) and not waiting:
            return latencies
        timeout = max(0.0, start + sent / load.rate - now) if load.rate and now < stop else None
        for key, events in sel.select(timeout if timeout is not None else 1.0):
            conn = key.data
            if events & selectors.EVENT_WRITE and conn.flush():
                sel.modify(conn.sock, selectors.EVENT_READ, conn)
            if events & selectors.EVENT_READ and conn.receive(load.expect):
                done = time.perf_counter()
                if conn.due < stop:
                    latencies.append(done - conn.due)
                free.append(conn)


def _start(sel: selectors.BaseSelector, conn: _Conn, load: Load, due: float) -> None:
    conn.send(load.request, due)
    if conn.pending:
        sel.modify(conn.sock, selectors.EVENT_READ | selectors.EVENT_WRITE, conn)


def _cpu_self() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def workers_of(master: int) -> list[int]:
    """The pids of `master`'s children (the gunicorn workers)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == str(master):
            found.append(int(stat.parent.name))
    return found


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds the processes have used (from /proc/<pid>/stat)."""
    ticks = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def drive(load: Load, master: int, processes: int) -> Result:
    """Run `load` from `processes` load processes against the server whose gunicorn master is `master`."""
    workers = workers_of(master)
    barrier = multiprocessing.Barrier(processes + 1)
    out: Any = multiprocessing.Queue()
    children = [multiprocessing.Process(target=_run, args=(load, barrier, out)) for _ in range(processes)]
    for child in children:
        child.start()
    held = spread(workers, load.port, {port for _ in children for port in out.get()})  # all connected, none started
    barrier.wait()
    server0 = cpu_seconds(workers)
    latencies: list[float] = []
    client = 0.0
    for _ in children:
        mine, cpu = out.get()
        latencies.extend(mine)
        client += cpu
    server = cpu_seconds(workers) - server0
    for child in children:
        child.join()
    return Result(latencies, load.seconds, server, client, held)


def spread(workers: list[int], port: int, clients: set[int]) -> tuple[int, ...]:
    """How many of the connections from the local ports `clients` to `port` each worker holds (from /proc)."""
    inodes: dict[str, int] = {}  # socket inode -> worker
    for pid in workers:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes[target[8:-1]] = pid
    held = dict.fromkeys(workers, 0)
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            local, remote, inode = fields[1], fields[2], fields[9]
            ours = int(local.rsplit(":", 1)[1], 16) == port and int(remote.rsplit(":", 1)[1], 16) in clients
            if ours and inode in inodes:
                held[inodes[inode]] += 1
    return tuple(sorted(held.values(), reverse=True))
