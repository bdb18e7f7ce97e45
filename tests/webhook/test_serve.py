"""`draguard serve` as the API server meets it: real gunicorn, real TLS, real HTTPS requests."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import ssl
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.builders import claim_with_selector, slice_with
from tests.webhook.conftest import (
    JSON,
    SESSION_POLICY,
    SNI,
    Reply,
    Server,
    admission_review,
    client_context,
    encode,
    eventually,
    send,
)
from webhook.admission.response import WARNING_ITEM_RUNES
from webhook.admission.review import MAX_BODY

pytestmark = pytest.mark.slow

SLICES, SELECTORS = "/validate/resourceslices", "/validate/selectors"
NUMA = "spec.devices[0].attributes[resource.kubernetes.io/numaNode]"


def test_a_clean_slice_is_allowed(webhook_server: Server) -> None:
    reply = webhook_server.post(SLICES, admission_review(slice_with(numa=2), uid="uid-allowed"))
    assert (reply.status, reply.headers["content-type"]) == (200, "application/json")
    assert reply.json() == {
        "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
        "response": {"uid": "uid-allowed", "allowed": True},
    }


def expected(obj: dict[str, Any], uid: str, *, old: dict[str, Any] | None = None) -> dict[str, Any]:
    """The answer the handler gives in-process under the session policy (rule wording is the rules' own)."""
    from webhook.admission import handlers, review
    from webhook.policy import Policy

    policy = Policy.from_mapping(yaml_policy(SESSION_POLICY))
    req = review.parse(encode(admission_review(obj, uid=uid, old=old, operation="UPDATE" if old else "CREATE")))
    answer: dict[str, Any] = review.answer(uid, handlers.resourceslices(req, policy))["response"]
    return answer


def yaml_policy(text: str) -> Any:
    from ruamel.yaml import YAML

    return YAML(typ="safe", pure=True).load(text)


def test_a_violation_is_denied_with_its_field_path(webhook_server: Server) -> None:
    reply = webhook_server.post(SLICES, admission_review(slice_with(numa=-2), uid="uid-denied"))
    assert reply.status == 200
    response = reply.response
    assert response == expected(slice_with(numa=-2), "uid-denied")
    assert (response["allowed"], response["status"]["code"], response["status"]["reason"]) == (False, 403, "Forbidden")
    assert response["status"]["message"].startswith(f"1 problem: {NUMA}.int: ")
    assert response["status"]["message"].endswith(" [numa-node-range]")
    assert [c["field"] for c in response["status"]["details"]["causes"]] == [f"{NUMA}.int"]


def test_a_warn_rule_answers_allowed_with_a_warning(webhook_server: Server) -> None:
    response = webhook_server.post(SLICES, admission_review(slice_with(numa="x"), uid="uid-warned")).response
    assert response == expected(slice_with(numa="x"), "uid-warned")
    assert (response["allowed"], len(response["warnings"])) == (True, 1)
    assert response["warnings"][0].startswith(f"[numa-node-type] {NUMA}: ")
    assert "status" not in response


def test_an_audit_rule_answers_with_an_audit_annotation(webhook_server: Server) -> None:
    obj = slice_with(numa=1)
    obj["spec"]["colour"] = "blue"
    response = webhook_server.post(SLICES, admission_review(obj, uid="uid-audit")).response
    assert response == expected(obj, "uid-audit")
    assert (response["allowed"], list(response["auditAnnotations"])) == (True, ["k8s-unknown-field"])
    assert response["auditAnnotations"]["k8s-unknown-field"].startswith("spec.colour: ")
    assert "warnings" not in response


def test_update_ratchets_a_violation_the_old_object_already_had(webhook_server: Server) -> None:
    old = slice_with(numa=-2)
    new = slice_with(numa=-2, annotations={"example.com/touched": "yes"})
    response = webhook_server.post(SLICES, admission_review(new, old=old, operation="UPDATE", uid="uid-r")).response
    assert response == expected(new, "uid-r", old=old)
    assert response["allowed"] is True
    (warning,) = response["warnings"]
    assert warning.startswith(f"[numa-node-range] {NUMA}.int: ")
    assert warning.endswith(" (already present before this update)")
    worse = webhook_server.post(SLICES, admission_review(new, old=slice_with(numa=1), operation="UPDATE"))
    assert worse.response["allowed"] is False


def test_dry_run_gets_the_same_answer_and_is_logged_as_such(webhook_server: Server) -> None:
    real = webhook_server.post(SLICES, admission_review(slice_with(numa=-2), uid="uid-wet"))
    dry = webhook_server.post(SLICES, admission_review(slice_with(numa=-2), uid="uid-dry", dry_run=True))
    assert {**dry.response, "uid": "uid-wet"} == real.response
    (line,) = [entry for entry in webhook_server.logs() if entry.get("uid") == "uid-dry"]
    assert (line["dryRun"], line["decision"]) == (True, "denied")


@pytest.mark.parametrize("operation", ["DELETE", "CONNECT"])
def test_delete_and_connect_are_allowed_untouched(webhook_server: Server, operation: str) -> None:
    reply = webhook_server.post(
        SLICES, admission_review(None, old=slice_with(numa=-2), operation=operation, uid="uid-del")
    )
    assert reply.response == {"uid": "uid-del", "allowed": True}


def test_an_unknown_resource_is_allowed_and_logged(webhook_server: Server) -> None:
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {}}
    reply = webhook_server.post(SLICES, admission_review(config_map, uid="uid-unknown"))
    assert reply.response == {"uid": "uid-unknown", "allowed": True}
    (line,) = [entry for entry in webhook_server.logs() if entry.get("uid") == "uid-unknown"]
    assert (line["level"], line["note"]) == ("warning", "v1, Kind=ConfigMap is not handled by this webhook; "
                                                        "allowed without checks")


def test_selectors_warn_about_list_fragile_comparisons(webhook_server: Server) -> None:
    claim = claim_with_selector('device.attributes["resource.kubernetes.io"].numaNode == 0')
    response = webhook_server.post(SELECTORS, admission_review(claim, uid="uid-claim")).response
    assert response["allowed"] is True
    assert any(w.startswith("[list-fragile-compare] spec.devices.requests[0].exactly.selectors[0].cel.expression: ")
               for w in response["warnings"])


def test_selectors_warn_about_the_include_spelling(webhook_server: Server) -> None:
    claim = claim_with_selector('device.attributes["gpu.example.com"].models.include("a100")')
    response = webhook_server.post(SELECTORS, admission_review(claim)).response
    assert response["allowed"] is True
    assert any(w.startswith("[selector-includes-spelling] ") for w in response["warnings"])


REVIEW = encode(admission_review(slice_with(numa=1), uid="uid-m"))


@pytest.mark.parametrize(
    ("body", "headers", "want"),
    [
        (b"", JSON, (400, "", "request body is empty")),
        (b"this is not json", JSON, (400, "", "request body is not valid JSON: Expecting value at line 1 column 1")),
        (REVIEW, {"Content-Type": "text/plain"}, (415, "", "contentType=text/plain, expected application/json")),
        (REVIEW, {}, (415, "", "contentType=, expected application/json")),
        (REVIEW.replace(b'"AdmissionReview"', b'"Pod"'), JSON, (400, "uid-m",
         'expected admission.k8s.io/v1, Kind=AdmissionReview, got "admission.k8s.io/v1", Kind="Pod"')),
        (REVIEW.replace(b'"admission.k8s.io/v1"', b'"admission.k8s.io/v2"'), JSON, (400, "uid-m",
         'expected admission.k8s.io/v1, Kind=AdmissionReview, got "admission.k8s.io/v2", Kind="AdmissionReview"')),
        (REVIEW.replace(b'"uid": "uid-m"', b'"uid": ""'), JSON, (400, "", "request.uid is missing or empty")),
        (encode(admission_review(None, uid="uid-noobj")), JSON, (400, "uid-noobj",
         "request.object is missing: a CREATE review carries the object")),
        (b"{" + b" " * MAX_BODY + b"}", JSON, (413, "", f"request entity is too large; limit is {MAX_BODY} bytes")),
        (b'{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}', JSON,
         (400, "", "request is missing: an AdmissionReview sent to a webhook carries request")),
        (b"[]", JSON, (400, "", "expected a JSON object of kind AdmissionReview, got an array")),
        (b'{"kind": "x"\xff}', JSON, (400, "", "request body is not valid JSON: not UTF-8")),  # outside a string
        (REVIEW.replace(b'"uid": "uid-m"', b'"uid": NaN'), JSON,
         (400, "", "request body is not valid JSON: NaN is not JSON")),
        (encode(admission_review(None, uid="uid-upd", operation="UPDATE", old=slice_with(numa=1))), JSON,
         (400, "uid-upd", "request.object is missing: an UPDATE review carries the object")),
    ],
    ids=["empty", "not-json", "text-plain", "no-content-type", "wrong-kind", "wrong-apiversion", "no-uid",
         "no-object", "too-large", "no-request", "array", "not-utf8", "nan", "update-without-object"],
)
def test_malformed_requests_get_a_clear_4xx_on_the_wire(
    webhook_server: Server, body: bytes, headers: dict[str, str], want: tuple[int, str, str]
) -> None:
    status, uid, message = want
    reply = webhook_server.post(SLICES, body, headers)
    assert reply.status == status
    assert reply.headers["content-type"] == "application/json"
    response = reply.response
    assert (response["uid"], response["allowed"], response["status"]["code"], response["status"]["message"]) == (
        uid, False, status, message,
    )
    assert b"Traceback" not in reply.body


def test_a_body_just_under_the_cap_is_read_whole(webhook_server: Server) -> None:
    obj = slice_with(numa=1, annotations={"example.com/padding": "x" * (MAX_BODY - 4096)})
    body = encode(admission_review(obj, uid="uid-big"))
    assert MAX_BODY - 4096 < len(body) <= MAX_BODY
    reply = webhook_server.post(SLICES, body)
    assert (reply.status, reply.response["uid"]) == (200, "uid-big")


def test_a_chunked_body_is_read_like_any_other(webhook_server: Server) -> None:
    conn = webhook_server.connect()
    try:
        conn.request("POST", SLICES, body=iter([REVIEW[:100], REVIEW[100:]]), headers=JSON, encode_chunked=True)
        raw = conn.getresponse()
        assert (raw.status, json.loads(raw.read())["response"]) == (200, {"uid": "uid-m", "allowed": True})
    finally:
        conn.close()


def test_a_chunked_body_over_the_cap_is_a_413(webhook_server: Server) -> None:
    conn = webhook_server.connect()
    try:
        chunks = iter([b"{" + b" " * (1024 * 1024)] * 8)  # 8 MiB, no Content-Length
        conn.request("POST", SLICES, body=chunks, headers=JSON, encode_chunked=True)
        raw = conn.getresponse()
        assert (raw.status, json.loads(raw.read())["response"]["status"]["message"]) == (
            413, f"request entity is too large; limit is {MAX_BODY} bytes")
    finally:
        conn.close()


def test_a_broken_chunked_body_is_a_400_not_a_bug(webhook_server: Server) -> None:
    panics = metric(webhook_server.metrics(), "controller_runtime_webhook_panics_total")
    head = (f"POST {SLICES} HTTP/1.1\r\nHost: {SNI}\r\nContent-Type: application/json\r\n"
            "Transfer-Encoding: chunked\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", webhook_server.port), timeout=30) as raw, \
            client_context(webhook_server.ca_file).wrap_socket(raw, server_hostname=SNI) as tls:
        tls.sendall(head + b"zz\r\n{}\r\n0\r\n\r\n")  # "zz" is no chunk size
        reply = http.client.HTTPResponse(tls)
        reply.begin()
        status, body = reply.status, json.loads(reply.read())
    assert (status, body["response"]["status"]["message"]) == (
        400, "request body could not be read: Invalid chunk size: b'zz'")
    assert metric(webhook_server.metrics(), "controller_runtime_webhook_panics_total") == panics


def test_a_body_cut_short_by_the_client_is_logged_as_such(webhook_server: Server) -> None:
    head = (f"POST {SLICES} HTTP/1.1\r\nHost: {SNI}\r\nContent-Type: application/json\r\n"
            "Content-Length: 999983\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", webhook_server.port), timeout=30) as raw, \
            client_context(webhook_server.ca_file).wrap_socket(raw, server_hostname=SNI) as tls:
        tls.sendall(head + REVIEW[:100])
        with contextlib.suppress(ssl.SSLError):  # the server's answer may cross our close_notify
            tls.unwrap()  # close_notify: the body ends after 100 of the 999983 bytes announced
    message = "request body ended after 100 of 999983 bytes (the client closed the connection)"
    eventually(lambda: any(line.get("error") == message and line["code"] == 400 for line in webhook_server.logs()),
               "the log line of the cut-short request")


def test_wrong_method_and_unknown_path(webhook_server: Server) -> None:
    assert webhook_server.get(SLICES).status == 405
    assert webhook_server.post("/validate/pods", REVIEW).status == 404


def test_a_connection_is_kept_alive_across_requests_and_errors(webhook_server: Server) -> None:
    conn = webhook_server.connect()
    try:
        first = send(conn, "POST", SLICES, REVIEW, JSON)
        sock = conn.sock
        bad = send(conn, "POST", SLICES, b"{", JSON)
        again = send(conn, "POST", SELECTORS, REVIEW, JSON)
        assert [first.status, bad.status, again.status] == [200, 400, 200]
        assert conn.sock is sock  # the same TLS connection served all three
        assert "close" not in first.headers.get("connection", "")
    finally:
        conn.close()


def test_the_certificate_is_verified_for_the_service_name(webhook_server: Server) -> None:
    context = client_context(webhook_server.ca_file)
    with socket.create_connection(("127.0.0.1", webhook_server.port)) as raw, \
            context.wrap_socket(raw, server_hostname=SNI) as tls:
        assert tls.version() in ("TLSv1.2", "TLSv1.3")
    with socket.create_connection(("127.0.0.1", webhook_server.port)) as raw, \
            pytest.raises(ssl.SSLCertVerificationError):
        context.wrap_socket(raw, server_hostname="other.example.com")


@pytest.mark.filterwarnings("ignore:ssl.TLSVersion.TLSv1_1 is deprecated:DeprecationWarning")
def test_tls_older_than_1_2_is_refused(webhook_server: Server) -> None:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.load_verify_locations(str(webhook_server.ca_file))
    context.maximum_version = ssl.TLSVersion.TLSv1_1
    context.minimum_version = ssl.TLSVersion.MINIMUM_SUPPORTED
    with socket.create_connection(("127.0.0.1", webhook_server.port)) as raw, pytest.raises(ssl.SSLError):
        context.wrap_socket(raw, server_hostname=SNI)


def test_concurrent_requests_each_get_their_own_answer(webhook_server: Server) -> None:
    failures: list[str] = []
    answered: list[int] = []

    def client(n: int) -> None:
        conn = webhook_server.connect()
        try:
            for i in range(15):
                uid = f"uid-{n}-{i}"
                numa = -2 if i % 3 == 0 else 1
                reply = send(conn, "POST", SLICES, encode(admission_review(slice_with(numa=numa), uid=uid)), JSON)
                response = reply.response
                if reply.status != 200 or response["uid"] != uid or response["allowed"] is not (numa == 1):
                    failures.append(f"{uid}: {reply.status} {response}")
                answered.append(1)
        except Exception as err:  # any failure is reported below
            failures.append(f"client {n}: {err!r}")
        finally:
            conn.close()

    threads = [threading.Thread(target=client, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert len(answered) == 8 * 15


def test_kept_alive_connections_are_spread_over_the_workers(webhook_server: Server) -> None:
    """Sixteen connections opened one after another, as an API server opens its pool, reach both workers (the
    exact even split is tests/webhook/reliability/test_spread.py, on a server of its own)."""
    conns = [webhook_server.connect() for _ in range(16)]
    try:
        for n, conn in enumerate(conns):
            assert send(conn, "POST", SLICES, encode(admission_review(slice_with(numa=1), uid=f"uid-spread-{n}")),
                        JSON).status == 200
    finally:
        for conn in conns:
            conn.close()
    workers = {line["uid"]: line["worker"] for line in webhook_server.logs() if line.get("uid", "").startswith(
        "uid-spread-")}
    assert len(workers) == 16
    assert len(set(workers.values())) == 2


def metric(text: str, name: str, **labels: str) -> float:
    """The value of one sample in Prometheus text format (0 when absent)."""
    want = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        key, _, value = line.rpartition(" ")
        sample_name, _, rest = key.partition("{")
        got = ",".join(sorted(rest.rstrip("}").split(","))) if rest else ""
        if sample_name == name and got == want:
            return float(value)
    return 0.0


def test_metrics_use_controller_runtime_names_summed_over_workers(webhook_server: Server) -> None:
    before = webhook_server.metrics()
    for _ in range(6):
        webhook_server.post(SLICES, REVIEW, {"Content-Type": "text/yaml"})
    webhook_server.post(SLICES, admission_review(slice_with(numa=-2)))
    after = webhook_server.metrics()

    def delta(name: str, **labels: str) -> float:
        return metric(after, name, **labels) - metric(before, name, **labels)

    assert delta("controller_runtime_webhook_requests_total", webhook=SLICES, code="415") == 6
    assert delta("controller_runtime_webhook_requests_total", webhook=SLICES, code="200") == 1
    assert delta("controller_runtime_webhook_latency_seconds_count", webhook=SLICES) == 7
    assert delta("draguard_rule_findings_total", webhook=SLICES, rule="numa-node-range", action="deny") == 1
    assert delta("draguard_admission_decisions_total", webhook=SLICES, decision="rejected") == 6
    assert metric(after, "controller_runtime_webhook_requests_in_flight", webhook=SLICES) == 0
    assert "# TYPE controller_runtime_webhook_latency_seconds histogram" in after
    assert metric(after, "draguard_certificate_expiry_timestamp_seconds") > 0


def test_every_request_is_one_json_log_line(webhook_server: Server) -> None:
    webhook_server.post(SLICES, admission_review(slice_with(numa=-2), uid="uid-logline"))
    (line,) = [entry for entry in webhook_server.logs() if entry.get("uid") == "uid-logline"]
    assert line["latencyMs"] >= 0
    assert {k: line[k] for k in ("logger", "msg", "webhook", "decision", "code", "kind", "resource", "name",
                                 "operation", "rules")} == {
        "logger": "draguard.admission", "msg": "admission review", "webhook": SLICES, "decision": "denied",
        "code": 200, "kind": "ResourceSlice", "resource": "resource.k8s.io/v1/resourceslices",
        "name": "node-0-gpu", "operation": "CREATE", "rules": ["numa-node-range"],
    }
    serving = (f"serving https://127.0.0.1:{webhook_server.port} with 2 workers sharing one socket, connections spread "
               "evenly")
    assert [entry["logger"] for entry in webhook_server.logs() if entry["msg"] == serving] == ["gunicorn.error"]


def test_health_probes(webhook_server: Server) -> None:
    assert webhook_server.get("/healthz").body == b"ok\n"
    ready = webhook_server.get("/readyz")
    assert ready.status == 200
    checks = ready.json()["checks"]
    assert (checks["policy"]["ok"], checks["policy"]["source"]) == (True, str(webhook_server.policy_file))
    assert checks["certificate"]["ok"] is True


CORPUS_KINDS = {
    "ResourceSlice": SLICES, "ResourceClaim": SELECTORS, "ResourceClaimTemplate": SELECTORS, "DeviceClass": SELECTORS,
}


def corpus_objects(corpus: Path) -> list[tuple[str, dict[str, Any]]]:
    from webhook.manifests import load_paths

    loaded = load_paths([str(corpus)])
    return [
        (f"{Path(m.source).relative_to(corpus)}#{m.document}:{m.base}", dict(m.obj))
        for m in loaded.manifests
        if m.obj.get("kind") in CORPUS_KINDS
    ]


def valid_answer(reply: Reply, uid: str) -> str | None:
    """Why `reply` is not a valid AdmissionReview answer for `uid`, or None when it is."""
    if reply.status != 200:
        return f"HTTP {reply.status}: {reply.body[:300]!r}"
    review = reply.json()
    response = review.get("response", {})
    if (review.get("apiVersion"), review.get("kind"), response.get("uid")) != (
        "admission.k8s.io/v1", "AdmissionReview", uid,
    ):
        return f"not an answer for {uid}: {review}"
    if not isinstance(response.get("allowed"), bool):
        return "allowed is not a bool"
    if not response["allowed"] and not response.get("status", {}).get("message"):
        return "denied without a message"
    for warning in response.get("warnings", []):
        if len(warning) > WARNING_ITEM_RUNES or any(ord(c) < 32 or 127 <= ord(c) < 160 for c in warning):
            return f"warning the API server would drop or cut: {warning!r}"
    return None


def test_every_corpus_object_gets_a_valid_answer(webhook_server: Server, corpus: Path) -> None:
    objects = corpus_objects(corpus)
    assert len(objects) >= 300  # INDEX.md: 89 DeviceClass, 70 ResourceClaim, 101 templates, 58 ResourceSlices
    conn = webhook_server.connect()
    problems: dict[str, str] = {}
    decisions: dict[str, int] = {}
    try:
        for n, (where, obj) in enumerate(objects):
            uid = f"corpus-{n}"
            reply = send(conn, "POST", CORPUS_KINDS[obj["kind"]], encode(admission_review(obj, uid=uid)), JSON)
            problem = valid_answer(reply, uid)
            if problem:
                problems[where] = problem
            else:
                decision = "allowed" if reply.response["allowed"] else "denied"
                decisions[decision] = decisions.get(decision, 0) + 1
    finally:
        conn.close()
    assert problems == {}
    assert sum(decisions.values()) == len(objects)


def test_v1beta1_reviews_are_answered_in_kind(webhook_server: Server) -> None:
    review = admission_review(slice_with(numa=1), uid="uid-beta")
    review["apiVersion"] = "admission.k8s.io/v1beta1"
    assert json.loads(webhook_server.post(SLICES, review).body)["apiVersion"] == "admission.k8s.io/v1beta1"
