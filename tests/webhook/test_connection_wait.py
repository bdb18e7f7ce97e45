"""webhook.connection.waited: how long a review's bytes have sat in the kernel (TCP_INFO), the wait a busy
worker's review spends from its wall budget (webhook.budget.Budget.after)."""

from __future__ import annotations

import socket
import sys
from collections.abc import Iterator

import pytest

from webhook.connection import waited


@pytest.fixture
def tcp_pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        client = socket.create_connection(listener.getsockname())
        server, _ = listener.accept()
        with client, server:
            yield client, server


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="TCP_INFO's layout is Linux's")
def test_a_tcp_connection_reports_seconds_since_its_last_bytes(tcp_pair: tuple[socket.socket, socket.socket]) -> None:
    client, server = tcp_pair
    assert 0.0 <= waited(server) < 60.0  # since the connection was set up: no data yet
    client.sendall(b"POST /validate/resourceslices HTTP/1.1\r\n")
    assert server.recv(64, socket.MSG_PEEK)  # the bytes have arrived
    seconds = waited(server)
    # milliseconds of the kernel's clock as seconds, not a field at the wrong offset (those read as huge counts)
    assert isinstance(seconds, float) and 0.0 <= seconds < 60.0


def test_where_the_kernel_does_not_say_nothing_is_counted() -> None:
    left, right = socket.socketpair()  # not TCP: no TCP_INFO
    with left, right:
        assert waited(left) == 0.0
    assert waited(object()) == 0.0  # not a socket at all
