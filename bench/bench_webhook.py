"""Admission webhook throughput and latency: a real `draguard serve` over HTTPS with keep-alive, under attack.

The server (gunicorn, 2 guarded gevent workers) runs in its own processes; the load comes from separate lean
load processes (`tls_load`: pre-built request bytes on raw TLS sockets, one request in flight per connection,
as the API server sends them). While it measures, 200 stalled TCP connections are held open against the
webhook port. It reports:
- in process: the handler path (parse, rules, answer, encode) and the WSGI app around it, against the
  json.loads + json.dumps floor of the same AdmissionReview, and the CPU time per maximal-slice request;
- closed loop, small slice (4 devices): requests/s with 8 keep-alive connections, and p50/p99;
- open loop at 200 requests/s, maximal slice (64 devices x 48 attribute values): p50/p99, latency counted from
  each request's scheduled send time, so a stall is not hidden (no coordinated omission); then the same for an
  UPDATE of that slice (the old object is the slice as it was: what a driver republishing its slice sends);
- the floor, served: the same front (2 guarded gevent workers, TLS, the same review path, 200 stalled connections)
  serving an app that only reads the body and runs `json.loads` + `json.dumps` over it (the webhook issue's
  "stdlib JSON of its body"), answering a small allowed review, at the same 200 maximal reviews/s;
- for all: the CPU per request of the server's workers and of the load processes (from /proc and getrusage),
  and how many cores each kept busy, so a reader sees which side was the limit;
- memory: the workers' summed RSS, its peak over the second half of a warm-up and over N reviews that each
  carry a new distinct selector, read every 250 reviews (N = 3,000 after a 2,500-review warm-up by default;
  `BENCH_RSS_REQUESTS=100000 make bench` for the long run the issue asks for).
Targets from the webhook issue: >= 2,000 requests/s for the small slice; maximal-slice p99 < 10 ms at 200
requests/s; RSS flat (within 10 %). All figures come from one run on this machine; nothing here asserts them.
"""

from __future__ import annotations

import gc
import http.client
import json
import os
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import tls_load  # noqa: E402  (bench/, beside this script)

SNI = "draguard.draguard.svc"
PATH = "/validate/resourceslices"
DRIVER = "gpu.example.com"
CLOSED_SECONDS = 6.0
OPEN_SECONDS = 8.0
RATE = 200.0
STALLED = 200
CONNECTIONS = 8
LOAD_PROCESSES = 2
ALLOWED = b'"allowed":true'
RSS_REQUESTS = int(os.environ.get("BENCH_RSS_REQUESTS", "3000"))
# Enough distinct selectors that each worker has cleared celext's caches once (64 MiB estimated, about 900 of
# these selectors): the RSS before is the steady state, not the empty start.
RSS_WARM_UP = 2500
RSS_SAMPLE = 250  # reviews between two readings of the workers' RSS


def device(i: int, *, maximal: bool) -> dict[str, Any]:
    numa = i % 8
    attrs: dict[str, Any] = {
        "resource.kubernetes.io/numaNode": {"ints": [numa, *sorted({numa ^ 1, numa ^ 2, numa ^ 3})]},
        "resource.kubernetes.io/pcieRoot": {"string": f"pci0000:{numa * 16:02x}"},
        "resource.kubernetes.io/pciBusID": {"string": f"0000:{i + 16:02x}:00.0"},
        "dra.net/numaNode": {"int": numa},
    }
    capacity: dict[str, Any] = {"memory": {"value": "80Gi"}}
    if maximal:  # 48 attribute values (7 above + 20 scalars + a 21-item list), 25 attributes + 4 capacities
        attrs.update({f"prop{k}": {"int": k} for k in range(20)})
        attrs["models"] = {"strings": [f"model-{k}" for k in range(21)]}
        capacity.update({f"cap{k}": {"value": str(k + 1)} for k in range(3)})
    return {"name": f"gpu-{i}", "attributes": attrs, "capacity": capacity}


def resource_slice(devices: int, *, maximal: bool = False) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"node-a-{DRIVER}-{devices}"},
        "spec": {
            "driver": DRIVER,
            "nodeName": "node-a",
            "pool": {"name": "node-a", "generation": 1, "resourceSliceCount": 1},
            "devices": [device(i, maximal=maximal) for i in range(devices)],
        },
    }


def review(obj: dict[str, Any], uid: str = "bench", old: dict[str, Any] | None = None) -> bytes:
    """A CREATE review of `obj`; an UPDATE (as a driver republishing its slice sends) when `old` is given."""
    request = {
        "uid": uid,
        "kind": {"group": "resource.k8s.io", "version": "v1", "kind": "ResourceSlice"},
        "resource": {"group": "resource.k8s.io", "version": "v1", "resource": "resourceslices"},
        "name": obj["metadata"]["name"],
        "operation": "CREATE" if old is None else "UPDATE",
        "userInfo": {"username": "system:serviceaccount:gpu:driver"},
        "object": obj,
        "dryRun": False,
        # The API server sends `oldObject` on every review, `null` on CREATE (a RawExtension is never omitted).
        "oldObject": old,
    }
    return json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}).encode()


class Connection(http.client.HTTPSConnection):
    def __init__(self, port: int, context: ssl.SSLContext) -> None:
        super().__init__(SNI, port, context=context, timeout=30)

    def connect(self) -> None:
        raw = socket.create_connection(("127.0.0.1", self.port), self.timeout)
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock = self._context.wrap_socket(raw, server_hostname=SNI)  # type: ignore[attr-defined]


def context(ca: str) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=ca)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    return ctx


def post(conn: Connection, body: bytes) -> None:
    conn.request("POST", PATH, body, {"Content-Type": "application/json"})
    reply = conn.getresponse()
    data = reply.read()
    if reply.status != 200 or b'"allowed":true' not in data:
        raise RuntimeError(f"unexpected answer {reply.status}: {data[:300]!r}")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def in_process(body: bytes, repeat: int) -> tuple[float, float, float]:
    """Median seconds per call: the handler path, the whole app (one WSGI call: Flask, the admission route), and
    the json floor."""
    import io
    import logging

    from werkzeug.test import EnvironBuilder

    from webhook.admission import handlers, review
    from webhook.app import Settings, create_app
    from webhook.policy import Policy

    policy = Policy.default()
    app = create_app(Settings())
    environ = EnvironBuilder(path=PATH, method="POST", data=body, content_type="application/json").get_environ()
    environ["wsgi.input_terminated"] = True  # as gunicorn sets it: the body is read straight from the stream
    logging.getLogger("draguard.admission").setLevel(logging.WARNING)  # no log line: the handler path writes none

    def handler() -> None:
        req = review.parse(body)
        json.dumps(review.answer(req.uid, handlers.resourceslices(req, policy), req.api_version))

    def flask_app() -> None:
        env = dict(environ, **{"wsgi.input": io.BytesIO(body)})
        b"".join(app(env, lambda status, headers, exc_info=None: None))

    def floor() -> None:
        json.dumps(json.loads(body))

    def median(fn: Any) -> float:
        fn()
        samples = []
        for _ in range(repeat):
            t = time.perf_counter()
            fn()
            samples.append(time.perf_counter() - t)
        return statistics.median(samples)

    return median(handler), median(flask_app), median(floor)


def start_server(tmp: Path, *, floor: bool = False) -> tuple[subprocess.Popen[bytes], int, str]:
    """`draguard serve` as the bench runs it; with `floor`, the same server serving `floor_app` instead."""
    from certs.issue import generate

    certs = generate(tmp / "certs", "draguard", "draguard")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = (tmp / "server.log").open("wb")
    command = [sys.executable, __file__, FLOOR_SERVER] if floor else [sys.executable, "-m", "webhook"]
    process = subprocess.Popen(
        [*command, "serve", "--cert-dir", str(tmp / "certs"), "--host", "127.0.0.1",
         "--port", str(port), "--metrics-port", "0", "--workers", "2", "--log-level", "warning",
         "--handshake-timeout", "300", "--header-timeout", "300"],  # the stalled connections stay for the run
        cwd=REPO, stdout=log, stderr=log,
    )
    ctx = context(str(certs.ca_file))
    deadline = time.monotonic() + 60
    while True:
        try:
            conn = Connection(port, ctx)
            conn.request("GET", "/readyz")
            if conn.getresponse().status == 200:
                conn.close()
                return process, port, str(certs.ca_file)
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"server did not start:\n{(tmp / 'server.log').read_text()}")
        time.sleep(0.1)


FLOOR_SERVER = "--floor-server"  # argv[1] of this script when it runs the floor's server (start_server(floor=True))


def floor_app() -> Any:
    """The floor, served: draguard's app with its review route replaced by one that reads the body as a review is
    read (`endpoint.read_body`: the same limits and deadline) and runs only `json.loads` + `json.dumps` over it,
    then answers a small allowed review. The front takes it exactly as it takes a review (`GuardedWorker._review`
    hands it the parsed request; one write), so the figure is the front plus stdlib JSON of the body."""
    from webhook.admission.endpoint import read_body
    from webhook.app import AdmissionRoute, Settings, create_app

    class FloorRoute(AdmissionRoute):
        def respond(self, path: str, *, length: int | None, content_type: str | None, stream: Any,
                    release: list[object] | None = None, waited: float = 0.0, query: str = "",
                    content_encoding: str | None = None) -> tuple[str, list[tuple[str, str]], bytes]:
            decoded = json.loads(read_body(length, content_type, stream))
            json.dumps(decoded)
            data = json.dumps({"apiVersion": decoded["apiVersion"], "kind": "AdmissionReview",
                               "response": {"uid": decoded["request"]["uid"], "allowed": True}},
                              separators=(",", ":")).encode()
            if release is not None:
                release.append(decoded)  # freed after the answer is written, as a review is
            return "200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(data)))], data

    app = create_app(Settings())
    route = app.wsgi_app
    assert isinstance(route, AdmissionRoute)
    app.wsgi_app = FloorRoute(route.app, route.state, route.logger)  # type: ignore[method-assign]
    return app


def serve_floor(argv: list[str]) -> int:
    """`draguard serve argv...` with every worker serving `floor_app()` (the workers inherit this patch by fork)."""
    import webhook.serve
    from webhook.cli import main as cli

    webhook.serve._build_app = lambda options: floor_app()
    return cli(argv)


def worker_rss(master: int) -> int:
    """Summed resident set (bytes) of the master's children, from /proc."""
    total = 0
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        except OSError:
            continue
        if fields.get("PPid", "").strip() == str(master):
            total += int(fields.get("VmRSS", "0 kB").split()[0]) * 1024
    return total


def selector_review(n: int) -> bytes:
    """A DeviceClass review whose one selector no earlier request carried (about 1 KiB of CEL)."""
    padding = f"{n:08d}" * 110
    expression = f'device.attributes["{DRIVER}"].model == "m-{padding}" || device.attributes["{DRIVER}"].index == {n}'
    obj = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": f"class-{n}"},
           "spec": {"selectors": [{"cel": {"expression": expression}}]}}
    request = {
        "uid": f"rss-{n}",
        "kind": {"group": "resource.k8s.io", "version": "v1", "kind": "DeviceClass"},
        "resource": {"group": "resource.k8s.io", "version": "v1", "resource": "deviceclasses"},
        "name": f"class-{n}", "operation": "CREATE", "object": obj,
    }
    return json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}).encode()


def distinct_selectors(port: int, ca: str, master: int, count: int, connections: int = 4) -> tuple[int, int]:
    """The workers' peak RSS over the second half of RSS_WARM_UP reviews and over `count` more, each with a new
    selector. Sampled every RSS_SAMPLE reviews: the caches fill and clear in steps, so one reading at each end
    can land before or after a clear and show growth or shrinking that is not there."""
    ctx = context(ca)

    def run(first: int, total: int) -> None:
        def loop(k: int) -> None:
            conn = Connection(port, ctx)
            for n in range(first + k, first + total, connections):
                conn.request("POST", "/validate/selectors", selector_review(n), {"Content-Type": "application/json"})
                reply = conn.getresponse()
                reply.read()
                if reply.status != 200:
                    raise RuntimeError(f"selector review answered {reply.status}")
            conn.close()

        threads = [threading.Thread(target=loop, args=(k,)) for k in range(connections)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    def peak(first: int, total: int) -> int:
        highest = 0
        for start in range(first, first + total, RSS_SAMPLE):
            run(start, min(RSS_SAMPLE, first + total - start))
            highest = max(highest, worker_rss(master))
        return highest

    run(0, RSS_WARM_UP // 2)
    return peak(RSS_WARM_UP // 2, RSS_WARM_UP - RSS_WARM_UP // 2), peak(10**7, count)


def stalled(port: int, count: int) -> list[socket.socket]:
    """`count` TCP connections that send one byte of a TLS record and nothing more."""
    socks = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        sock.sendall(b"\x16")
        socks.append(sock)
    return socks


def cpu_line(result: tls_load.Result) -> str:
    server, client = result.per_request(result.server_cpu), result.per_request(result.client_cpu)
    return (f"CPU per request: server {ms(server)}, client {ms(client)} (cores busy: server "
            f"{result.server_cpu / result.seconds:.2f}, client {result.client_cpu / result.seconds:.2f} of "
            f"{os.cpu_count()}); connections per worker {result.spread_text()}")


def front_line(result: tls_load.Result, in_process: float, cold: float | None = None) -> str:
    """What serving adds to a request's CPU (TLS, HTTP parsing, the event loop): served minus in process, and minus
    in process with cold caches (what a served request pays for them is not the front's)."""
    served = result.per_request(result.server_cpu)
    share = served - in_process
    line = f"served minus in process (the front's share): {ms(share)} ({share / served:.0%})"
    if cold is not None:
        line += f", minus in process with cold caches: {ms(served - cold)} ({(served - cold) / served:.0%})"
    return line


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def main() -> None:
    small = review(resource_slice(4))
    maximal = review(resource_slice(64, maximal=True))
    # The same slice republished with a new generation: the UPDATE a driver sends most.
    republished = resource_slice(64, maximal=True)
    republished["spec"]["pool"]["generation"] = 2
    update = review(republished, old=resource_slice(64, maximal=True))
    from webhook.admission import handlers
    from webhook.admission import review as wire
    from webhook.policy import Policy
    from webhook.serve import warm_up

    # The in-process figures are taken as a worker runs: rule path exercised, collector tuned (serve.warm_up).
    warm_up()
    handlers_ms: dict[str, float] = {}
    for name, body in (("small", small), ("maximal", maximal), ("update", update)):
        answer = handlers.resourceslices(wire.parse(body), Policy.default())
        if not answer.allowed or answer.findings:
            raise SystemExit(f"the {name} slice is not clean: {[f.rule for f in answer.findings]}")
    print(f"bodies: small slice (4 devices) {len(small):,} bytes; maximal slice (64 devices x 48 values) "
          f"{len(maximal):,} bytes; machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")

    print("in process: handler (parse + rules + answer + encode), the app around it (one WSGI call: Flask, the "
          "admission route, metrics, no log line), and the json.loads+json.dumps floor of the same review:")
    for name, body, repeat in (("small", small, 200), ("maximal", maximal, 40), ("update", update, 40)):
        handler, flask_app, floor = in_process(body, repeat)
        handlers_ms[name] = handler
        print(f"  {name + ':':9}handler {ms(handler)}, app {ms(flask_app)} ({flask_app / handler:.2f}x the handler), "
              f"floor {ms(floor)} (handler {handler / floor:.1f}x the floor)")

    small_cpu, maximal_cpu = cpu_per_request(small, 1000), cpu_per_request(maximal, 100)
    update_cpu = cpu_per_request(update, 100)
    print(f"  CPU per request, in process (WSGI app): small {ms(small_cpu)}, maximal {ms(maximal_cpu)} (target 2.5 ms "
          f"served: {maximal_cpu * 1000 / 2.5:.2f}x before any serving), maximal UPDATE {ms(update_cpu)}")
    small_cold, maximal_cold = cpu_per_request(small, 300, cold=True), cpu_per_request(maximal, 100, cold=True)
    print(f"  the same with the caches written over before each request, as between served requests: small "
          f"{ms(small_cold)} ({small_cold / small_cpu:.2f}x), maximal {ms(maximal_cold)} "
          f"({maximal_cold / maximal_cpu:.2f}x)")

    # This process is the load generator from here on. It imported the catalogue for the figures above; frozen, those
    # objects are not walked by its collector, whose pauses would otherwise show as server latency.
    gc.collect()
    gc.freeze()
    gc.set_threshold(700, 10, 10)  # CPython's default again: the load processes stand for an ordinary client
    with tempfile.TemporaryDirectory(prefix="draguard-bench-") as tmp:
        process, port, ca = start_server(Path(tmp))
        held = stalled(port, STALLED)
        try:
            closed = tls_load.drive(tls_load.Load(port, ca, tls_load.request_bytes(PATH, small), ALLOWED,
                                                  CLOSED_SECONDS, CONNECTIONS // LOAD_PROCESSES),
                                    process.pid, LOAD_PROCESSES)
            max_open = tls_load.drive(tls_load.Load(port, ca, tls_load.request_bytes(PATH, maximal), ALLOWED,
                                                    OPEN_SECONDS, CONNECTIONS, RATE), process.pid, 1)
            update_open = tls_load.drive(tls_load.Load(port, ca, tls_load.request_bytes(PATH, update), ALLOWED,
                                                       OPEN_SECONDS, CONNECTIONS, RATE), process.pid, 1)
            rss_before, rss_after = distinct_selectors(port, ca, process.pid, RSS_REQUESTS)
        finally:
            for sock in held:
                sock.close()
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)
    with tempfile.TemporaryDirectory(prefix="draguard-bench-floor-") as tmp:
        process, port, ca = start_server(Path(tmp), floor=True)
        held = stalled(port, STALLED)
        try:
            floor_open = tls_load.drive(tls_load.Load(port, ca, tls_load.request_bytes(PATH, maximal), ALLOWED,
                                                      OPEN_SECONDS, CONNECTIONS, RATE), process.pid, 1)
        finally:
            for sock in held:
                sock.close()
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)

    print(f"over HTTPS with keep-alive (server: 2 guarded gevent workers; load: separate processes, one request in "
          f"flight per connection; {STALLED} stalled connections held open throughout; CPU per request from "
          f"/proc, server = both workers, client = the load processes):")
    print(f"  small, closed loop, {CONNECTIONS} connections from {LOAD_PROCESSES} processes: {closed.rps:,.0f} "
          f"requests/s (target 2,000: {closed.rps / 2000:.2f}x), p50 {ms(percentile(closed.latencies, 0.5))}, "
          f"p99 {ms(percentile(closed.latencies, 0.99))}; {cpu_line(closed)}; "
          f"{front_line(closed, small_cpu, small_cold)}")
    p50, p99 = percentile(max_open.latencies, 0.5), percentile(max_open.latencies, 0.99)
    print(f"  maximal, open loop {RATE:.0f} requests/s x {OPEN_SECONDS:.0f} s ({len(max_open.latencies)} requests, "
          f"{CONNECTIONS} connections): p50 {ms(p50)}, p99 {ms(p99)} (target 10 ms: {p99 * 1000 / 10:.2f}x), "
          f"p50 / in-process handler {p50 / handlers_ms['maximal']:.1f}x; {cpu_line(max_open)} (target 2.5 ms: "
          f"{max_open.per_request(max_open.server_cpu) * 1000 / 2.5:.2f}x); "
          f"{front_line(max_open, maximal_cpu, maximal_cold)}")
    p50, p99 = percentile(update_open.latencies, 0.5), percentile(update_open.latencies, 0.99)
    print(f"  maximal UPDATE (old object: the same slice), open loop {RATE:.0f} requests/s x {OPEN_SECONDS:.0f} s: "
          f"p50 {ms(p50)}, p99 {ms(p99)}; {cpu_line(update_open)}; {front_line(update_open, update_cpu)}")
    floor_cpu, max_cpu = (r.per_request(r.server_cpu) for r in (floor_open, max_open))
    p50, p99 = percentile(floor_open.latencies, 0.5), percentile(floor_open.latencies, 0.99)
    print(f"  the floor, served: the same front answering the maximal review after only json.loads + json.dumps of its "
          f"body, open loop {RATE:.0f} requests/s x {OPEN_SECONDS:.0f} s: p50 {ms(p50)}, p99 {ms(p99)}; "
          f"{cpu_line(floor_open)} (target 2.5 ms: {floor_cpu * 1000 / 2.5:.2f}x); draguard's maximal review "
          f"{max_cpu / floor_cpu:.2f}x the floor's server CPU, {ms(max_cpu - floor_cpu)} more")
    print(f"  workers' RSS (both, peak of readings every {RSS_SAMPLE} reviews), {RSS_REQUESTS:,} reviews with distinct "
          f"selectors: {rss_before / 2**20:.0f} MiB over the warm-up's second half, {rss_after / 2**20:.0f} MiB over "
          f"the run ({rss_after / rss_before:.2f}x; target within 1.10x)")
    # The load generator and anything else running share the two cores with the server: read the figures with this.
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (1 min) on {os.cpu_count()} cores")


# Bigger than the caches a review can find its data in (L2 and the shared L3): written over between two requests
# by `cpu_per_request(cold=True)`, as a worker's caches are by the load generator, the other worker and the kernel.
CACHE_SWEEP = 32 * 2**20


def cpu_per_request(body: bytes, repeat: int, *, cold: bool = False) -> float:
    """CPU seconds per request through the whole WSGI app (what a worker spends besides TLS and HTTP parsing).

    Back to back, a review finds its code and data in the caches; a served one, between other processes' work,
    does not. With `cold`, a buffer larger than the caches is written over before each request (not timed)."""
    import io
    import logging

    from werkzeug.test import EnvironBuilder

    from webhook.app import Settings, create_app

    app = create_app(Settings())
    environ = EnvironBuilder(path=PATH, method="POST", data=body, content_type="application/json").get_environ()
    environ["wsgi.input_terminated"] = True
    logging.getLogger("draguard.admission").setLevel(logging.WARNING)

    def call() -> None:
        env = dict(environ, **{"wsgi.input": io.BytesIO(body)})
        b"".join(app(env, lambda *args: None))

    for _ in range(10):
        call()
    sweep, spent = bytearray(CACHE_SWEEP if cold else 0), 0.0
    for _ in range(repeat):
        if cold:
            sweep[::64] = bytes(len(sweep) // 64)  # one write per cache line
        started = time.thread_time()  # this thread's CPU, each request alone, as both ways are timed
        call()
        spent += time.thread_time() - started
    return spent / repeat


if __name__ == "__main__":
    if sys.argv[1:2] == [FLOOR_SERVER]:
        raise SystemExit(serve_floor(sys.argv[2:]))
    main()
