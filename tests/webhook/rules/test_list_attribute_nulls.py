"""A `null` inside an attribute is Go's zero value, as the API server's JSON decoder reads it.

sigs.k8s.io/json (encoding/json's `literalStore`) ignores a null for a primitive: a null list item stays
0, false or "", and a null attribute is an empty DeviceAttribute. So none of them is a wrong type; what the
server then says is about the zero value (a version "" is not semver, an empty attribute sets no member).
"""

from __future__ import annotations

import pytest

from tests.webhook.rules.yaml_slices import ATTRS, attribute_yaml, run_yaml

# 1.37 (the default) reports an attribute's union through declarative validation (apimachinery validate.Union)
NO_MEMBER = ('Invalid value: "": must specify one of: `int`, `bool`, `string`, `version`, `ints`, `bools`, '
             '`strings`, `versions`')


def findings(attribute: str) -> list[tuple[str, str, str, str]]:
    return run_yaml(attribute_yaml(attribute))


@pytest.mark.parametrize("attribute", [
    "ids: {ints: [1, null]}",
    "flags: {bools: [true, null]}",
    "names: {strings: [a, null]}",
])
def test_a_null_list_item_is_the_zero_value(attribute: str) -> None:
    assert findings(attribute) == []


def test_a_null_version_item_is_the_empty_version() -> None:
    assert findings("releases: {versions: [1.0.0, null]}") == [
        ("k8s-attribute-value", "deny", f"{ATTRS}[releases].versions[1]",
         'Invalid value: "": must be a string compatible with semver.org spec 2.0.0')]


def test_a_null_attribute_is_an_empty_one() -> None:
    assert findings("model: null") == [
        ("k8s-attribute-union", "deny", f"{ATTRS}[model]", NO_MEMBER)]


@pytest.mark.parametrize(("attribute", "path", "expected"), [
    ("ids: {ints: [1, x]}", "[ids].ints[1]", 'Invalid value: "x": must be of type integer'),
    ("flags: {bools: [true, 1]}", "[flags].bools[1]", "Invalid value: 1: must be of type boolean"),
    ("names: {strings: [a, 1]}", "[names].strings[1]", "Invalid value: 1: must be of type string"),
])
def test_a_wrong_list_item_is_still_a_wrong_type(attribute: str, path: str, expected: str) -> None:
    assert findings(attribute) == [("k8s-wire-type", "deny", ATTRS + path, expected)]


@pytest.mark.parametrize(("total", "expected"), [
    (47, []),
    (48, []),
    (49, [("k8s-attribute-limits", "deny", "spec.devices[0]",
           "Invalid value: 49: the total number of attribute values must not exceed 48")]),
])
def test_null_items_count_toward_the_48_values(total: int, expected: list[tuple[str, str, str, str]]) -> None:
    items = ", ".join(["0"] * (total - 1) + ["null"])
    assert findings(f"ids: {{ints: [{items}]}}") == expected
