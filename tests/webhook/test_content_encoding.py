"""A compressed review body: the API server never sends one (client-go compresses no request body), so any coding
but `identity` is a 415 naming it, on every door, rather than a body misread as JSON that is not UTF-8."""

from __future__ import annotations

import gzip
from collections.abc import Callable

import pytest
from flask import Flask

from tests.builders import slice_with
from tests.webhook.conftest import Server, admission_review, encode
from tests.webhook.test_served_path import flask_only
from webhook.admission.review import BadReview, check_content_encoding
from webhook.app import Settings, create_app
from webhook.policy import Policy
from webhook.policy_store import PolicyStore

SLICES = "/validate/resourceslices"


@pytest.mark.parametrize("encoding", [None, "", "identity", " Identity ", "identity, identity"])
def test_no_coding_or_identity_is_accepted(encoding: str | None) -> None:
    check_content_encoding(encoding)  # no BadReview


@pytest.mark.parametrize(("encoding", "named"), [
    ("gzip", "gzip"), ("br", "br"), ("identity, gzip", "identity, gzip"), ("x-gzip ", "x-gzip"),
    ("z" * 80, "z" * 64),  # quoted up to 64 characters
])
def test_any_other_coding_is_a_415_naming_it(encoding: str, named: str) -> None:
    with pytest.raises(BadReview) as caught:
        check_content_encoding(encoding)
    assert (caught.value.code, caught.value.message) == (
        415, f"Content-Encoding {named} is not supported; send the review uncompressed")


def test_a_gzip_review_is_answered_415_by_the_server(webhook_server: Server) -> None:
    body = encode(admission_review(slice_with(numa=1), uid="uid-gz"))
    reply = webhook_server.post(SLICES, gzip.compress(body),
                                {"Content-Type": "application/json", "Content-Encoding": "gzip"})
    assert (reply.status, reply.response) == (415, {"uid": "", "allowed": False, "status": {
        "status": "Failure", "code": 415, "reason": "UnsupportedMediaType",
        "message": "Content-Encoding gzip is not supported; send the review uncompressed"}})
    plain = webhook_server.post(SLICES, body, {"Content-Type": "application/json", "Content-Encoding": "identity"})
    assert (plain.status, plain.response) == (200, {"uid": "uid-gz", "allowed": True})


def _app() -> Flask:
    return create_app(Settings(), PolicyStore.fixed(Policy.default()))


@pytest.mark.parametrize("make", [_app, lambda: flask_only(_app())], ids=["route", "views"])
def test_every_door_reads_the_coding(make: Callable[[], Flask]) -> None:
    body = gzip.compress(encode(admission_review(slice_with(numa=1))))
    reply = make().test_client().post(SLICES, data=body, headers={"Content-Type": "application/json",
                                                                  "Content-Encoding": "gzip"})
    assert (reply.status_code, reply.get_json()["response"]["status"]["code"]) == (415, 415)
