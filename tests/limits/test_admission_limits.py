"""The AdmissionReview body limit at limit - 1, at the limit and at limit + 1, through the Flask app.

draguard's MAX_BODY (webhook/admission/review.py) is 7 MiB, controller-runtime's webhook request limit
(pkg/webhook/admission/http.go, maxRequestSize), sized for etcd's 1.5 MiB objects with oldObject, JSON-encoded.
"""

from __future__ import annotations

import json

import pytest
from flask.testing import FlaskClient

from tests.builders import slice_with
from tests.webhook.test_app import SLICES, FakeTLS, review
from webhook.admission.review import MAX_BODY
from webhook.app import Settings, create_app
from webhook.policy import Policy
from webhook.policy_store import PolicyStore


@pytest.fixture
def client() -> FlaskClient:
    return create_app(Settings(), PolicyStore.fixed(Policy.default()), FakeTLS()).test_client()


def padded(size: int) -> bytes:
    """A valid, allowed review of exactly `size` bytes (JSON allows trailing whitespace)."""
    body = json.dumps(review(slice_with(numa=1))).encode()
    return body + b" " * (size - len(body))


@pytest.mark.parametrize("size", [MAX_BODY - 1, MAX_BODY])
def test_a_review_up_to_7_mib_is_answered(client: FlaskClient, size: int) -> None:
    reply = client.post(SLICES, data=padded(size), headers={"Content-Type": "application/json"})
    assert reply.status_code == 200
    assert reply.get_json()["response"] == {"uid": "uid-1", "allowed": True}


def test_one_byte_more_is_413(client: FlaskClient) -> None:
    reply = client.post(SLICES, data=padded(MAX_BODY + 1), headers={"Content-Type": "application/json"})
    assert reply.status_code == 413
    assert reply.get_json()["response"] == {
        "uid": "", "allowed": False,
        "status": {"status": "Failure", "code": 413, "reason": "RequestEntityTooLarge",
                   "message": f"request entity is too large; limit is {MAX_BODY} bytes"}}
