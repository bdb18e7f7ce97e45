"""The API server's `?timeout=` reaches the evaluation deadline on every door: served (gunicorn, TLS), the WSGI
route and the Flask views."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from flask import Flask

from tests.builders import slice_with
from tests.webhook.conftest import JSON, Server, admission_review, encode, send
from tests.webhook.test_served_path import flask_only
from webhook.app import Settings, create_app
from webhook.policy import Policy
from webhook.policy_store import PolicyStore

SLICES = "/validate/resourceslices"
INVALID = 'invalid timeout specified in the request URL - time: unknown unit "x" in duration "3x"'


def test_a_timeout_that_leaves_no_time_is_answered_budget_exceeded(webhook_server: Server) -> None:
    """`timeout=1us` leaves 0.5 us, less than a TLS handshake takes: a connection's first review has waited longer
    than that when the worker reads it, so the answer is `budget-exceeded` (deny by default) whatever the load.
    With `--deadline 2.5` alone it was allowed, an answer the API server would have stopped waiting for."""
    reply = webhook_server.post(f"{SLICES}?timeout=1us", admission_review(slice_with(numa=1), uid="uid-1us"))
    assert reply.status == 200
    response = reply.response
    assert (response["uid"], response["allowed"], response["status"]["code"]) == ("uid-1us", False, 403)
    message = response["status"]["message"]
    assert message.startswith("1 problem: <root>: the review waited ")
    assert message.endswith("past its deadline of 5e-07 s (the request's timeout=1us, less time to answer); "
                            "not evaluated [budget-exceeded]")
    (line,) = [entry for entry in webhook_server.logs() if entry.get("uid") == "uid-1us"]
    assert (line["timeout"], line["decision"], line["rules"]) == ("1us", "denied", ["budget-exceeded"])


def test_the_shipped_timeout_leaves_the_deadline_as_it_is(webhook_server: Server) -> None:
    """What the API server appends for `timeoutSeconds: 3`: the object is checked as without it."""
    reply = webhook_server.post(f"{SLICES}?timeout=3s", admission_review(slice_with(numa=-2), uid="uid-3s"))
    assert (reply.status, reply.response["allowed"]) == (200, False)
    assert reply.response["status"]["message"].endswith("[numa-node-range]")
    (line,) = [entry for entry in webhook_server.logs() if entry.get("uid") == "uid-3s"]
    assert line["timeout"] == "3s"


def test_an_invalid_timeout_is_a_400_and_the_connection_goes_on(webhook_server: Server) -> None:
    conn = webhook_server.connect()
    try:
        bad = send(conn, "POST", f"{SLICES}?timeout=3x", encode(admission_review(slice_with(numa=1), uid="u-x")), JSON)
        good = send(conn, "POST", f"{SLICES}?timeout=3s", encode(admission_review(slice_with(numa=1), uid="u-y")), JSON)
    finally:
        conn.close()
    assert (bad.status, bad.response) == (400, {"uid": "u-x", "allowed": False, "status": {
        "status": "Failure", "code": 400, "reason": "BadRequest", "message": INVALID}})
    assert (good.status, good.response) == (200, {"uid": "u-y", "allowed": True})


def _app() -> Flask:
    return create_app(Settings(), PolicyStore.fixed(Policy.default()))


@pytest.mark.parametrize("make", [_app, lambda: flask_only(_app())], ids=["route", "views"])
def test_every_door_reads_the_timeout(make: Callable[[], Flask]) -> None:
    reply = make().test_client().post(f"{SLICES}?a=1&timeout=3x", json=admission_review(slice_with(numa=1)))
    assert (reply.status_code, reply.get_json()["response"]["status"]["message"]) == (400, INVALID)
