"""One policy across workers: good, bad, good edits never give two answers for one request.

A client keeps sending the same review on fresh connections (spread over both workers by the kernel) while
the policy file goes good -> bad -> good. Each answer is recorded with when it was sent; once a policy's
answer has been received, no request sent afterwards may get an earlier policy's answer.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import threading
import time
from pathlib import Path

import pytest

from tests.builders import slice_with
from tests.webhook.conftest import Server, admission_review, eventually, start_server
from tests.webhook.test_serve import metric

pytestmark = pytest.mark.slow

SLICES = "/validate/resourceslices"
DENY = "rules: {}\n"  # numa-node-range denies a negative node by default
WARN = "rules:\n  numa-node-range: warn\n"
AUDIT = "rules:\n  numa-node-range: audit\n"
BAD = "rules:\n  no-such-rule: deny\n"


def short_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def replace_file(path: Path, text: str) -> None:
    fresh = path.with_suffix(".new")
    fresh.write_text(text)
    os.replace(fresh, path)


def answer_kind(server: Server, uid: str) -> str:
    response = server.post(SLICES, admission_review(slice_with(numa=-2), uid=uid)).response
    if not response["allowed"]:
        return "deny"
    return "warn" if response.get("warnings") else "audit"


def test_good_bad_good_edits_never_give_two_answers(tmp_path: Path) -> None:
    server = start_server(tmp_path / "server", policy=DENY, workers=2)
    seen: list[tuple[float, float, str]] = []  # (sent, received, answer)
    failures: list[str] = []
    stop = threading.Event()

    def client() -> None:
        n = 0
        while not stop.is_set():
            sent = time.monotonic()
            try:
                kind = answer_kind(server, f"p-{n}")
            except (OSError, http.client.HTTPException) as err:
                failures.append(repr(err))
            else:
                seen.append((sent, time.monotonic(), kind))
            n += 1

    thread = threading.Thread(target=client)
    thread.start()
    try:
        eventually(lambda: len(seen) >= 5, "answers under the first policy")
        replace_file(server.policy_file, WARN)
        eventually(lambda: seen[-1][2] == "warn", "the good edit in force")
        ready = server.get("/readyz").json()["checks"]["policy"]
        assert (ready["ok"], ready["hash"]) == (True, short_hash(WARN))

        replace_file(server.policy_file, BAD)
        eventually(lambda: server.get("/readyz").status == 503, "the bad edit noticed")
        count = len(seen)
        eventually(lambda: len(seen) >= count + 10, "answers while the bad file is in place")
        assert {kind for _, _, kind in seen[count:]} == {"warn"}  # the previous policy, in every worker
        ready = server.get("/readyz").json()["checks"]["policy"]
        assert (ready["ok"], ready["hash"]) == (False, short_hash(WARN))
        assert ready["lastReloadError"] == (
            f"policy {server.policy_file}: rules: unknown rule id 'no-such-rule' (see `draguard rules`)")

        replace_file(server.policy_file, AUDIT)
        eventually(lambda: seen[-1][2] == "audit", "the second good edit in force")
        count = len(seen)
        eventually(lambda: len(seen) >= count + 10, "answers under the last policy")
        assert server.get("/readyz").status == 200
    finally:
        stop.set()
        thread.join()
        metrics = server.metrics()
        logs = server.logs()
        server.stop()
    assert failures == []
    order = ["deny", "warn", "audit"]
    for sent, _, kind in seen:
        # Every answer received before this request was sent came from this policy or an earlier one.
        newest_before = max((order.index(k) for _, received, k in seen if received < sent), default=0)
        assert order.index(kind) >= newest_before, f"a request sent at {sent} got {kind} after a newer policy answered"
    assert [k for i, k in enumerate(kind for _, _, kind in seen) if i == 0 or seen[i - 1][2] != k] == order
    assert metric(metrics, "draguard_policy_reload_errors_total") == 1
    assert metric(metrics, "draguard_policy_info", hash=short_hash(AUDIT)) == 1
    assert metric(metrics, "draguard_policy_info", hash=short_hash(WARN)) == 0
    review_lines = [line for line in logs if line["msg"] == "admission review"]
    assert {line["policy"] for line in review_lines} == {short_hash(DENY), short_hash(WARN), short_hash(AUDIT)}
