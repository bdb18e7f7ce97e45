"""Workers come and go without taking the server with them: a worker that exits is replaced while the others
serve on (its exit must not clean up what the master owns), and a stop that arrives while a worker still boots
is not lost in that worker (the master would wait out the whole graceful timeout for it)."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.webhook.conftest import Server, eventually, start_server
from tests.webhook.reliability.test_one_policy import DENY, WARN, answer_kind, replace_file, short_hash

pytestmark = pytest.mark.slow

LONG_DRAIN = "600"  # --graceful-timeout: a lost stop signal would hold the server this long, past every deadline


def _workers(server: Server) -> set[int]:
    """The master's child processes (its workers)."""
    children = Path(f"/proc/{server.process.pid}/task/{server.process.pid}/children")
    return {int(pid) for pid in children.read_text().split()}


def test_a_worker_that_exits_is_replaced_and_the_others_serve_on(tmp_path: Path) -> None:
    server = start_server(tmp_path / "server", policy=DENY, workers=2)
    try:
        eventually(lambda: len(_workers(server)) == 2, "two workers")
        before = _workers(server)
        leaving = min(before)
        os.kill(leaving, signal.SIGTERM)  # as a worker's own exit: graceful, through gunicorn's SystemExit
        eventually(lambda: len(_workers(server)) == 2 and leaving not in _workers(server), "a worker in its place")
        assert server.process.poll() is None
        assert answer_kind(server, "after-exit") == "deny"
        assert "controller_runtime_webhook_requests_total" in server.metrics()  # the shared metrics directory
        replace_file(server.policy_file, WARN)  # the policy channel the master publishes on
        eventually(lambda: answer_kind(server, "edit") == "warn", "the edited policy in force")
        assert server.get("/readyz").json()["checks"]["policy"]["hash"] == short_hash(WARN)
    finally:
        code = server.stop()
    assert code == 0
    assert "Traceback" not in server.log_file.read_text()


@pytest.mark.parametrize("attempt", range(3))
def test_a_stop_while_a_worker_boots_is_not_lost(tmp_path: Path, attempt: int) -> None:
    # Ready means one worker answers; the other is usually still booting when SIGTERM follows at once.
    server = start_server(tmp_path / "server", workers=2, args=("--graceful-timeout", LONG_DRAIN))
    try:
        code = server.stop()  # waits at most 60 s: far less than the drain a lost signal would wait for
    except subprocess.TimeoutExpired:
        server.process.kill()
        pytest.fail(f"SIGTERM did not stop the server (attempt {attempt}):\n{server.log_file.read_text()}")
    log = server.log_file.read_text()
    assert code == 0, log
    assert "Traceback" not in log
    assert "failed to boot" not in log
