"""The Flask app through its test client: fast checks of the views, probes, logs and metrics."""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from prometheus_client import REGISTRY

from tests.builders import slice_with
from webhook.admission.review import MAX_BODY
from webhook.app import Settings, create_app
from webhook.policy import Policy
from webhook.policy_store import PolicyFollower, PolicyPublisher, PolicyStore

SLICES = "/validate/resourceslices"


def review(obj: Any, *, uid: str = "uid-1", operation: str = "CREATE", **extra: Any) -> dict[str, Any]:
    request = {
        "uid": uid,
        "kind": {"group": "resource.k8s.io", "version": "v1", "kind": "ResourceSlice"},
        "resource": {"group": "resource.k8s.io", "version": "v1", "resource": "resourceslices"},
        "name": "node-0-gpu",
        "operation": operation,
        "object": obj,
        **extra,
    }
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}


class FakeTLS:
    loaded = True
    not_after = dt.datetime(2030, 1, 2, tzinfo=dt.UTC)


@pytest.fixture
def app() -> Flask:
    return create_app(Settings(), PolicyStore.fixed(Policy.default()), FakeTLS())


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_an_allowed_review_is_answered_200(client: FlaskClient) -> None:
    reply = client.post(SLICES, json=review(slice_with(numa=1)))
    assert (reply.status_code, reply.mimetype) == (200, "application/json")
    assert reply.get_json() == {
        "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": {"uid": "uid-1", "allowed": True},
    }


def test_a_denial_is_answered_200_with_allowed_false(client: FlaskClient) -> None:
    reply = client.post(SLICES, json=review(slice_with(numa=-2)))
    assert reply.status_code == 200
    response = reply.get_json()["response"]
    assert (response["allowed"], response["status"]["code"]) == (False, 403)


REASONS = {400: "BadRequest", 413: "RequestEntityTooLarge", 415: "UnsupportedMediaType"}  # metav1.StatusReason


@pytest.mark.parametrize(
    ("data", "content_type", "code", "message"),
    [
        (b"", "application/json", 400, "request body is empty"),
        (b"{}", "text/plain", 415, "contentType=text/plain, expected application/json"),
        (b"{}", None, 415, "contentType=, expected application/json"),
        (b"{", "application/json", 400,
         "request body is not valid JSON: Expecting property name enclosed in double quotes at line 1 column 2"),
        (b" " * (MAX_BODY + 1), "application/json", 413, f"request entity is too large; limit is {MAX_BODY} bytes"),
    ],
)
def test_malformed_requests_get_a_4xx_review(
    client: FlaskClient, data: bytes, content_type: str | None, code: int, message: str
) -> None:
    headers = {"Content-Type": content_type} if content_type else {}
    reply = client.post(SLICES, data=data, headers=headers)
    assert reply.status_code == code
    assert reply.get_json()["response"] == {
        "uid": "", "allowed": False,
        "status": {"status": "Failure", "code": code, "reason": REASONS[code],
                   "message": message},
    }


def test_wrong_method_and_unknown_path_answer_json(client: FlaskClient) -> None:
    reply = client.get(SLICES)
    assert reply.status_code == 405
    assert set(reply.headers["Allow"].split(", ")) == {"OPTIONS", "POST"}
    assert reply.get_json()["error"] == "Method Not Allowed"
    assert client.post("/validate/pods").get_json()["code"] == 404


def test_a_bug_is_answered_500_with_the_uid_and_no_traceback(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*args: object, **kwargs: object) -> object:
        raise KeyError("boom")

    monkeypatch.setattr("webhook.run.run_rules", broken)
    before = sample("controller_runtime_webhook_panics_total")
    with caplog.at_level(logging.INFO, "draguard.admission"):
        reply = client.post(SLICES, json=review(slice_with(numa=1), uid="uid-bug"))
    assert reply.status_code == 500
    assert reply.get_json()["response"] == {
        "uid": "uid-bug", "allowed": False,
        "status": {"status": "Failure", "code": 500, "reason": "InternalError",
                   "message": "internal error in the draguard webhook (KeyError); see its log for uid uid-bug"},
    }
    assert "Traceback" not in reply.get_data(as_text=True)
    assert sample("controller_runtime_webhook_panics_total") == before + 1
    (record,) = [r for r in caplog.records if r.name == "draguard.admission"]
    assert record.levelno == logging.ERROR and record.exc_info is not None
    assert record.fields["uid"] == "uid-bug"  # type: ignore[attr-defined]


def test_one_log_line_per_request_with_what_an_operator_needs(
    client: FlaskClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, "draguard.admission"):
        client.post(SLICES, json=review(slice_with(numa=-2), uid="uid-log", dryRun=True))
    (record,) = [r for r in caplog.records if r.name == "draguard.admission"]
    fields = dict(record.fields)  # type: ignore[attr-defined]
    latency = fields.pop("latencyMs")
    assert isinstance(latency, float) and latency >= 0
    assert fields == {
        "webhook": SLICES, "decision": "denied", "code": 200, "worker": os.getpid(), "uid": "uid-log",
        "kind": "ResourceSlice",
        "resource": "resource.k8s.io/v1/resourceslices", "namespace": "", "name": "node-0-gpu",
        "operation": "CREATE", "dryRun": True, "user": "", "rules": ["numa-node-range"], "warnings": 0,
    }


def test_the_log_line_is_json(caplog: pytest.LogCaptureFixture) -> None:
    from webhook.admission.logs import JSONFormatter

    record = logging.LogRecord("draguard.admission", logging.INFO, __file__, 1, "admission review", None, None)
    record.fields = {"uid": "u", "rules": ["a"]}
    line = JSONFormatter().format(record)
    assert "\n" not in line
    data = json.loads(line)
    assert (data["level"], data["msg"], data["uid"], data["rules"]) == ("info", "admission review", "u", ["a"])


def test_a_refused_review_is_logged_with_its_uid_when_it_could_be_read(
    client: FlaskClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, "draguard.admission"):
        client.post(SLICES, json=review(None, uid="uid-refused"))
    (record,) = [r for r in caplog.records if r.name == "draguard.admission"]
    fields = dict(record.fields)  # type: ignore[attr-defined]
    fields.pop("latencyMs")
    assert record.levelno == logging.WARNING
    assert fields == {
        "webhook": SLICES, "decision": "rejected", "code": 400, "worker": os.getpid(), "uid": "uid-refused",
        "rules": [],
        "error": "request.object is missing: a CREATE review carries the object",
    }


COUNTED = (
    ("controller_runtime_webhook_requests_total", {"webhook": SLICES, "code": "200"}),
    ("controller_runtime_webhook_latency_seconds_count", {"webhook": SLICES}),
    ("draguard_rule_findings_total", {"webhook": SLICES, "rule": "numa-node-range", "action": "deny"}),
    ("draguard_admission_decisions_total", {"webhook": SLICES, "decision": "denied"}),
    ("controller_runtime_webhook_requests_total", {"webhook": SLICES, "code": "400"}),
)


def counted() -> list[float]:
    return [sample(name, **labels) for name, labels in COUNTED]


def test_metrics_count_requests_decisions_and_rule_findings(client: FlaskClient) -> None:
    before = counted()
    client.post(SLICES, json=review(slice_with(numa=-2)))
    client.post(SLICES, data=b"{", content_type="application/json")
    assert [a - b for a, b in zip(counted(), before, strict=True)] == [1, 2, 1, 1, 1]
    assert sample("controller_runtime_webhook_requests_in_flight", webhook=SLICES) == 0
    assert sample("draguard_certificate_expiry_timestamp_seconds") == FakeTLS.not_after.timestamp()


def test_healthz_and_readyz(client: FlaskClient) -> None:
    assert (client.get("/healthz").status_code, client.get("/healthz").data) == (200, b"ok\n")
    assert client.get("/readyz").get_json() == {
        "ready": True,
        "checks": {
            "policy": {"ok": True, "source": "<default>", "hash": "default", "lastReloadError": None},
            "certificate": {"ok": True, "notAfter": "2030-01-02T00:00:00+00:00"},
        },
    }


def test_readyz_is_503_without_a_certificate() -> None:
    class NoCert(FakeTLS):
        loaded = False

    client = create_app(Settings(), PolicyStore.fixed(Policy.default()), NoCert()).test_client()
    reply = client.get("/readyz")
    assert (reply.status_code, reply.get_json()["ready"]) == (503, False)


def test_readyz_is_503_once_the_certificate_in_use_has_expired() -> None:
    class Expired(FakeTLS):
        not_after = dt.datetime(2020, 1, 1, tzinfo=dt.UTC)

    reply = create_app(Settings(), PolicyStore.fixed(Policy.default()), Expired()).test_client().get("/readyz")
    assert reply.status_code == 503
    assert reply.get_json()["checks"]["certificate"] == {"ok": False, "notAfter": "2020-01-01T00:00:00+00:00"}


def test_readyz_reports_the_policy_the_master_published_last(tmp_path: Path) -> None:
    """A worker's /readyz follows the channel before it reports: a bad edit the master just published is not
    ready at the very next request, and the good edit after it is ready again."""
    policy = tmp_path / "policy.yaml"
    policy.write_text("rules:\n  numa-node-range: warn\n")
    publisher = PolicyPublisher(PolicyStore(policy, check_interval=0.0), tmp_path / "channel")
    client = create_app(Settings(), PolicyFollower(tmp_path / "channel"), FakeTLS()).test_client()
    assert client.get("/readyz").status_code == 200
    for text, status in (("rules:\n  no-such-rule: deny\n", 503), ("rules:\n  numa-node-range: audit\n", 200)):
        policy.write_text(text)
        os.utime(policy, (1, 1 + status))  # a new stamp even within the file system's time resolution
        publisher.poll()
        assert client.get("/readyz").status_code == status


def test_the_app_reads_the_policy_file_from_settings(tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text("rules:\n  numa-node-range: warn\n")
    client = create_app(Settings(policy_path=policy)).test_client()
    response = client.post(SLICES, json=review(slice_with(numa=-2))).get_json()["response"]
    assert response["allowed"] is True
    assert response["warnings"] == [
        "[numa-node-range] spec.devices[0].attributes[resource.kubernetes.io/numaNode].int: numaNode -2 is negative"
    ]
