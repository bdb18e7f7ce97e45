"""A ResourceSlice's metadata as the API server's ValidateObjectMeta judges it (cluster-scoped, the name a
DNS subdomain): name and generateName, label keys and values, annotation keys, a namespace. Messages are
apimachinery's, quoted in full."""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import device, slice_with
from tests.webhook.rules.upstream_texts import LABEL_VALUE, NAME_PART, SUBDOMAIN
from webhook.policy import Policy
from webhook.run import run_rules

RULE = "k8s-object-meta"
NAME_HINT = "use a lower-case DNS subdomain as the name, like `node-1-gpu.example.com`"


def seen(metadata: dict[str, Any]) -> list[tuple[str, str, str, str | None]]:
    obj = slice_with(device("d"))
    obj["metadata"] = metadata
    return [(f.rule, str(f.path), f.message, f.hint) for f in run_rules(obj, Policy.default()).findings]


@pytest.mark.parametrize(("metadata", "expected"), [
    pytest.param({"generateName": "node-a-"}, [], id="generate-name-ending-in-dash"),
    pytest.param({"generateName": "Node_"}, [
        (RULE, "metadata.generateName", f'Invalid value: "Node_": {SUBDOMAIN}', NAME_HINT)], id="generate-name-bad"),
    pytest.param({}, [(RULE, "metadata.name", "Required value: name or generateName is required", NAME_HINT)],
                 id="no-name"),
    pytest.param({"name": "Bad_Name"}, [(RULE, "metadata.name", f'Invalid value: "Bad_Name": {SUBDOMAIN}', NAME_HINT)],
                 id="name-bad"),
    pytest.param({"name": "s", "labels": {"bad key!": "v"}}, [
        (RULE, "metadata.labels", f'Invalid value: "bad key!": {NAME_PART}', NAME_HINT)], id="label-key-bad"),
    pytest.param({"name": "s", "labels": {"k": "bad value!"}}, [
        (RULE, "metadata.labels", f'Invalid value: "bad value!": {LABEL_VALUE}', NAME_HINT)], id="label-value-bad"),
    pytest.param({"name": "s", "labels": {"n": 5}}, [
        ("k8s-wire-type", "metadata.labels[n]", "Invalid value: 5: must be of type string",
         "give each field its API type: a list in [ ], an object in { }, strings and versions quoted, "
         "numbers and booleans bare, quantities like `16Gi`")],
        id="label-value-not-a-string"),
    pytest.param({"name": "s", "annotations": {"bad key!": "v"}}, [
        (RULE, "metadata.annotations", f'Invalid value: "bad key!": {NAME_PART}', NAME_HINT)], id="annotation-key-bad"),
    pytest.param({"name": "s", "annotations": {"Upper.example.com/OK": "x"}}, [], id="annotation-key-upper-case"),
    pytest.param({"name": "s", "annotations": ["x"]}, [
        ("k8s-wire-type", "metadata.annotations", 'Invalid value: ["x"]: must be of type object',
         "give each field its API type: a list in [ ], an object in { }, strings and versions quoted, "
         "numbers and booleans bare, quantities like `16Gi`")],
        id="annotations-not-a-map"),
    # The API server clears a cluster-scoped object's namespace before it validates (rest.BeforeCreate).
    pytest.param({"name": "s", "namespace": "default"}, [], id="namespace-cleared-by-the-server"),
])
def test_object_meta(metadata: dict[str, Any], expected: list[tuple[str, str, str, str | None]]) -> None:
    assert seen(metadata) == expected


@pytest.mark.parametrize(("size", "expected"), [
    (256 * 1024 - 1, []),
    (256 * 1024, []),
    (256 * 1024 + 1, [(RULE, "metadata.annotations", "Too long: may not be more than 262144 bytes")]),
])
def test_annotations_hold_at_most_256_kib(size: int, expected: list[tuple[str, str, str]]) -> None:
    """apimachinery's TotalAnnotationSizeLimitB over keys and values together, as for every other object."""
    found = seen({"name": "s", "annotations": {"k": "a" * (size - 2), "x": ""}})
    assert [(rule, path, message) for rule, path, message, _hint in found] == expected
