"""Whatever JSON arrives, the webhook answers with a review and a 200 or a 4xx, never a 500."""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask.testing import FlaskClient
from hypothesis import example, given, settings
from hypothesis import strategies as st

from webhook.admission import review
from webhook.admission.review import BadReview
from webhook.app import Settings, create_app
from webhook.policy import Policy
from webhook.policy_store import PolicyStore
from webhook.wire import go_json

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
KINDS = ("ResourceSlice", "ResourceClaim", "ResourceClaimTemplate", "DeviceClass", "Pod")


@st.composite
def reviews(draw: st.DrawFn) -> dict[str, Any]:
    """Reviews that are nearly right: real field names, any values in some of them."""
    kind = draw(st.sampled_from(KINDS))
    request: dict[str, Any] = {
        "uid": draw(st.sampled_from(["u", ""]) | JSON_VALUES),
        "kind": draw(st.just({"group": "resource.k8s.io", "version": "v1", "kind": kind}) | JSON_VALUES),
        "operation": draw(st.sampled_from(["CREATE", "UPDATE", "DELETE", "CONNECT"]) | JSON_VALUES),
        "object": draw(st.fixed_dictionaries({"kind": st.just(kind), "spec": JSON_VALUES, "metadata": JSON_VALUES})
                       | JSON_VALUES),
        "oldObject": draw(st.none() | st.fixed_dictionaries({"kind": st.just(kind), "spec": JSON_VALUES})),
        "dryRun": draw(st.booleans() | JSON_VALUES),
        "subResource": draw(st.sampled_from(["", "status"])),
    }
    return {"apiVersion": draw(st.sampled_from(review.API_VERSIONS) | JSON_VALUES), "kind": "AdmissionReview",
            "request": request}


@settings(max_examples=150, deadline=None)
@given(JSON_VALUES)
def test_parse_raises_only_bad_review_on_any_json(value: object) -> None:
    try:
        review.parse(json.dumps(value).encode())
    except BadReview as err:
        assert 400 <= err.code < 500
        assert "\n" not in err.message


CLIENT: FlaskClient = create_app(Settings(), PolicyStore.fixed(Policy.default())).test_client()


@settings(max_examples=200, deadline=None)
@given(reviews())
def test_the_app_never_answers_500(data: dict[str, Any]) -> None:
    client = CLIENT
    for path in ("/validate/resourceslices", "/validate/selectors"):
        reply = client.post(path, data=json.dumps(data), content_type="application/json")
        assert reply.status_code in (200, 400), reply.get_data(as_text=True)
        answer = reply.get_json()
        assert answer["kind"] == "AdmissionReview"
        assert isinstance(answer["response"]["allowed"], bool)


def typed(value: object) -> object:
    """`value` with every number tagged by its type, so 1 and 1.0 (and True) compare unequal."""
    if isinstance(value, dict):
        return {k: typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [typed(v) for v in value]
    return (type(value).__name__, value)


ANY_TEXT = st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from('"\\\t\x00\ud800{}[],:'), max_size=12)
DOCUMENTS = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(DOCUMENTS, st.booleans())
def test_the_fast_decoder_reads_every_document_as_json_loads_does(value: object, ascii_only: bool) -> None:
    body = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    assert typed(review.decode(body)) == typed(json.loads(body))


def _strict(name: str) -> object:
    raise ValueError(f"{name} is a Python extension of JSON that Go's decoder, like the API server, refuses")


@settings(max_examples=200, deadline=None)
@given(ANY_TEXT)
@example("Infinity")
@example("\x000")
@example("0\x00")
def test_the_fast_decoder_refuses_what_json_loads_refuses(text: str) -> None:
    body = text.encode("utf-8", "surrogatepass")
    try:  # UTF-8 only, as the API server sends: json.loads would guess UTF-16 from `\x000` and read it as 0
        expected = json.loads(go_json(body.decode("utf-8")), parse_constant=_strict)  # a lone surrogate: U+FFFD
    except (ValueError, RecursionError):
        with pytest.raises(BadReview) as refused:
            review.decode(body)
        assert refused.value.message.startswith("request body is not valid JSON: ")
        return
    assert typed(review.decode(body)) == typed(expected)


@pytest.mark.parametrize(
    ("body", "value"),
    [
        (b"1e999", ("float", float("inf"))),  # msgspec refuses the overflow; json.loads reads inf, as before
        (b"[18446744073709551616]", [("int", 2**64)]),
        (b'"\\ud800"', ("str", "\ufffd")),  # a lone surrogate escape: U+FFFD, as Go's decoder reads it
    ],
)
def test_what_only_json_loads_reads_is_read_all_the_same(body: bytes, value: object) -> None:
    assert typed(review.decode(body)) == value


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'{"a": NaN}', "NaN is not JSON"),
        (b"[1,]", "Expecting value at line 1 column 4"),
        (b'["abc', "Unterminated string starting at line 1 column 2"),  # Python's message ends with "at"
        (b'{"a": "x"\xff}', "not UTF-8"),  # outside a string (inside one it is U+FFFD, as Go reads it)
        (b'{"a": "\xff", \xff"b": 1}', "not UTF-8"),
    ],
)
def test_refusals_name_the_problem_as_json_loads_does(body: bytes, message: str) -> None:
    with pytest.raises(BadReview) as refused:
        review.decode(body)
    assert refused.value.message == f"request body is not valid JSON: {message}"


def test_json_nested_past_the_readers_depth_is_refused_as_too_deep_not_as_invalid() -> None:
    with pytest.raises(BadReview) as refused:
        review.decode(b"[" * 100_000 + b"]" * 100_000)
    assert (refused.value.code, refused.value.message) == (400, review.DEEP_JSON)
