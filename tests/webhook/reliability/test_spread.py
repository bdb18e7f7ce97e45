"""Kept-alive connections are spread evenly over the workers, whatever their client ports hash to.

The API server opens a few connections and keeps them; each stays on the worker that accepted it. With one
SO_REUSEPORT socket per worker the kernel's hash decided, and 7 of 8 connections on one worker was seen. Now the
worker holding fewer connections takes the next one (`webhook.balance`), so ten connections opened one after
another, each answered before the next, end up five on each worker, every run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builders import slice_with
from tests.webhook.conftest import JSON, admission_review, encode, send, start_server

pytestmark = pytest.mark.slow


def test_ten_kept_alive_connections_are_five_on_each_worker(tmp_path: Path) -> None:
    server = start_server(tmp_path)
    conns = []
    try:
        for n in range(10):
            conn = server.connect()
            conns.append(conn)
            reply = send(conn, "POST", "/validate/resourceslices",
                         encode(admission_review(slice_with(numa=1), uid=f"spread-{n}")), JSON)
            assert reply.status == 200
        # A second request on each kept-alive connection is answered by the worker that holds it.
        for n, conn in enumerate(conns):
            assert send(conn, "POST", "/validate/resourceslices",
                        encode(admission_review(slice_with(numa=1), uid=f"again-{n}")), JSON).status == 200
    finally:
        for conn in conns:
            conn.close()
        server.stop()
    worker = {line["uid"]: line["worker"] for line in server.logs() if line.get("msg") == "admission review"}
    first = [worker[f"spread-{n}"] for n in range(10)]
    assert sorted(first.count(pid) for pid in set(first)) == [5, 5]
    assert [worker[f"again-{n}"] for n in range(10)] == first
