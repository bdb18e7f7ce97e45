"""Whatever JSON arrives, the webhook answers with a review and a 200 or a 4xx, never a 500."""

from __future__ import annotations

import json
from typing import Any

from flask.testing import FlaskClient
from hypothesis import given, settings
from hypothesis import strategies as st

from webhook.admission import review
from webhook.admission.review import BadReview
from webhook.app import Settings, create_app
from webhook.policy import Policy
from webhook.policy_store import PolicyStore

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
