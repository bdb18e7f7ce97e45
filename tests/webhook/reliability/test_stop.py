"""Ctrl-C stops `draguard serve` (as `make run` starts it) within 2 s, even with kept-alive connections open."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.builders import slice_with
from tests.conftest import REPO
from tests.webhook.conftest import JSON, Server, admission_review, encode, free_port, issue_certs, send, wait_ready

pytestmark = pytest.mark.slow

STOP_WITHIN = 2.0  # seconds, the issue's promise for Ctrl-C


def test_ctrl_c_stops_within_two_seconds_with_connections_open(tmp_path: Path) -> None:
    cert_dir, log_file = tmp_path / "certs", tmp_path / "server.log"
    issue_certs(cert_dir)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    command = [sys.executable, "-m", "webhook", "serve", "--cert-dir", str(cert_dir), "--host", "127.0.0.1",
               "--port", str(port), "--metrics-port", str(free_port())]
    with log_file.open("wb") as log:
        # Its own process group, as a terminal's foreground job: Ctrl-C signals every process in it.
        process = subprocess.Popen(command, cwd=REPO, stdout=log, stderr=log, env=env, start_new_session=True)
    server = Server(process, port, 0, cert_dir, tmp_path / "none.yaml", log_file)
    wait_ready(server)
    kept = [server.connect() for _ in range(4)]
    try:
        for n, conn in enumerate(kept):
            reply = send(conn, "POST", "/validate/resourceslices",
                         encode(admission_review(slice_with(numa=1), uid=f"c-{n}")), JSON)
            assert reply.status == 200
        started = time.monotonic()
        os.killpg(process.pid, signal.SIGINT)
        code = process.wait(timeout=30)
        took = time.monotonic() - started
    finally:
        for conn in kept:
            conn.close()
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    text = log_file.read_text()
    assert "out of memory" not in text
    assert "Traceback" not in text
    assert code == 0
    assert took < STOP_WITHIN, f"stopped after {took:.1f} s"
