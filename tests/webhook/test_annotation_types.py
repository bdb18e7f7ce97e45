"""Annotation values of the wrong JSON type, as a user of the webhook sees them: `k8s-wire-type` on a ResourceSlice
(as for labels), and a `draguard.io/ignore` that is not a string suppresses nothing and says so."""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import claim_with_selector, slice_with
from tests.webhook.reliability.test_fail_closed import client_for, review

IGNORE = "metadata.annotations[draguard.io/ignore]"


def not_a_string(named: str) -> str:
    return (f"[suppression-reason-missing] {IGNORE}: draguard.io/ignore is a {named}, not a string, "
            "so it suppresses nothing")


def answer(obj: dict[str, Any], path: str = "/validate/resourceslices", **kinds: str) -> dict[str, Any]:
    response: dict[str, Any] = client_for().post(path, json=review(obj, **kinds)).get_json()["response"]
    return response


def annotated(obj: dict[str, Any], **annotations: Any) -> dict[str, Any]:
    obj["metadata"]["annotations"] = annotations
    return obj


@pytest.mark.parametrize(("value", "shown"), [(5, "5"), (True, "true"), ([1], "[1]"), ({"a": 1}, '{"a":1}'),
                                              (None, "null")])
def test_an_annotation_value_that_is_not_a_string_is_a_wire_type_denial_as_for_labels(value: Any, shown: str) -> None:
    response = answer(annotated(slice_with(numa=3), note=value))
    assert response["allowed"] is False
    assert response["status"]["message"] == (
        f"1 problem: metadata.annotations[note]: Invalid value: {shown}: must be of type string [k8s-wire-type]")
    labelled = slice_with(numa=3)
    labelled["metadata"]["labels"] = {"note": value}
    assert answer(labelled)["status"]["message"] == response["status"]["message"].replace("annotations", "labels")


def test_string_annotation_values_are_allowed() -> None:
    assert answer(annotated(slice_with(numa=3), note="5", empty="")) == {"uid": "uid-1", "allowed": True}


@pytest.mark.parametrize(("value", "named"), [(5, "number"), (["numa-node-range: vendor quirk"], "list"),
                                              ({"numa-node-range": "vendor quirk"}, "mapping")])
def test_a_suppression_that_is_not_a_string_suppresses_nothing_and_says_so(value: Any, named: str) -> None:
    response = answer(annotated(slice_with(numa=-2), **{"draguard.io/ignore": value}))
    assert response["allowed"] is False
    causes = [(c["field"], c["message"].split(":")[0]) for c in response["status"]["details"]["causes"]]
    assert causes == [(IGNORE, "Invalid value"),
                      ("spec.devices[0].attributes[resource.kubernetes.io/numaNode].int", "numaNode -2 is negative")]
    assert response["warnings"] == [not_a_string(named)]


def test_a_claims_annotations_are_held_to_the_same_types() -> None:
    claim = annotated(claim_with_selector('device.driver == "x"'), **{"draguard.io/ignore": 5})
    response = answer(claim, "/validate/selectors", kind="ResourceClaim", resource="resourceclaims")
    assert response["status"]["message"] == (
        f"1 problem: {IGNORE}: Invalid value: 5: must be of type string [k8s-wire-type]")
    assert response["warnings"] == [not_a_string("number")]
