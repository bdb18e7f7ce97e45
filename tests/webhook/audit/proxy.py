"""An HTTP CONNECT proxy on 127.0.0.1 for the proxy tests: it records each `CONNECT host:port` it is asked for
and tunnels every one to the same local port (the API-server stand-in), so a server name that resolves nowhere
(`api.draguard.invalid`) is reachable through the proxy only."""

from __future__ import annotations

import select
import socket
import threading
from typing import Self


class ConnectProxy:
    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.connects: list[str] = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def __enter__(self) -> Self:
        self._listener.settimeout(0.05)
        self._spawn(self._accept)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in list(self._threads):
            thread.join()
        self._listener.close()

    def _spawn(self, target: object, *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)  # type: ignore[arg-type]
        self._threads.append(thread)
        thread.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                continue
            self._spawn(self._tunnel, client)

    def _tunnel(self, client: socket.socket) -> None:
        with client:
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = client.recv(4096)
                if not chunk:
                    return
                head += chunk
            method, target, _ = head.split(b"\r\n", 1)[0].decode().split(" ", 2)
            if method != "CONNECT":
                client.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
                return
            self.connects.append(target)
            with socket.create_connection(("127.0.0.1", self.target_port)) as upstream:
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                pair = {client: upstream, upstream: client}
                while not self._stop.is_set():
                    ready, _, _ = select.select(list(pair), [], [], 0.05)
                    for sock in ready:
                        data = sock.recv(65536)
                        if not data:
                            return
                        pair[sock].sendall(data)
