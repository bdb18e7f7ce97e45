"""Certificate figures measured in one run: issuing, the idempotent re-run, and TLSReloader's handshake overhead.

Prints absolute times and the ratios that matter: how much cheaper an idempotent `generate` is than a fresh one,
RSA against ECDSA issuance, and handshakes through `TLSReloader` (stat-checking files on every handshake or once a
second) against a plain `ssl.SSLContext` with the same certificate.
"""

from __future__ import annotations

import socket
import ssl
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from certs.check import Subject, doctor
from certs.issue import generate
from certs.pem import load_certs, load_key
from certs.reload import TLSReloader

HOST = "draguard.draguard.svc"


def per_call(fn: Callable[[], object], repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat


def fresh(base: Path, key_type: str) -> Callable[[], object]:
    counter = iter(range(10**6))
    return lambda: generate(base / f"{key_type}-{next(counter)}", "draguard", "draguard", key_type=key_type)  # type: ignore[arg-type]


def handshakes_per_second(context: ssl.SSLContext, ca_file: Path, count: int) -> float:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def serve() -> None:
        for _ in range(count):
            conn, _ = listener.accept()
            try:
                with context.wrap_socket(conn, server_side=True) as tls:
                    tls.sendall(b"k")
            except (ssl.SSLError, OSError):
                pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    client = ssl.create_default_context(cafile=str(ca_file))
    start = time.perf_counter()
    for _ in range(count):
        with socket.create_connection(("127.0.0.1", port)) as raw, client.wrap_socket(raw, server_hostname=HOST) as t:
            t.recv(1)
    elapsed = time.perf_counter() - start
    thread.join()
    listener.close()
    return count / elapsed


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        ecdsa = per_call(fresh(base, "ecdsa"), 40)
        rsa = per_call(fresh(base, "rsa"), 8)
        out = generate(base / "live", "draguard", "draguard")
        rerun = per_call(lambda: generate(base / "live", "draguard", "draguard"), 200)
        print(f"generate, new CA + leaf, ECDSA P-256: {ecdsa * 1e3:8.2f} ms")
        print(f"generate, new CA + leaf, RSA 2048:    {rsa * 1e3:8.2f} ms   ({rsa / ecdsa:.1f}x ECDSA)")
        print(f"generate, idempotent re-run:          {rerun * 1e3:8.2f} ms   ({ecdsa / rerun:.1f}x cheaper than "
              "fresh)")

        subject = Subject(leaf=load_certs(out.cert_file)[0], leaf_source="tls.crt", key=load_key(out.key_file),
                          bundle=tuple(load_certs(out.ca_file)), host=HOST)
        print(f"check (doctor), all local checks:     {per_call(lambda: doctor(subject), 200) * 1e3:8.2f} ms")

        plain = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        plain.minimum_version = ssl.TLSVersion.TLSv1_2
        plain.load_cert_chain(out.cert_file, out.key_file)
        count = 300
        base_rate = handshakes_per_second(plain, out.ca_file, count)
        every = handshakes_per_second(TLSReloader(out.cert_file, out.key_file, check_interval=0).server_context(),
                                      out.ca_file, count)
        second = handshakes_per_second(TLSReloader(out.cert_file, out.key_file).server_context(), out.ca_file, count)
        print(f"TLS handshakes/s, plain SSLContext:   {base_rate:8.0f}")
        print(f"TLS handshakes/s, TLSReloader 1 s:    {second:8.0f}   ({second / base_rate:.2f}x plain)")
        print(f"TLS handshakes/s, TLSReloader every:  {every:8.0f}   ({every / base_rate:.2f}x plain)")


if __name__ == "__main__":
    main()
