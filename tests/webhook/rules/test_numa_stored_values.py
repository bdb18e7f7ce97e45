"""The numaNode rules judge the value the API server stores, which is what the webhook is sent.

kubectl sends YAML's `-1.0` as -1 (sigs.k8s.io/yaml), and the decoder reads a null `ints` item as 0; so `lint`
on the file must say what the webhook says on the object. A value the decoder refuses (a bool, a number beyond
int64) is k8s-wire-type's alone: no numaNode finding piles onto it.
"""

from __future__ import annotations

import pytest

from webhook.manifests.roundtrip import load_text
from webhook.policy import Policy
from webhook.run import run_rules

NUMA = "spec.devices[0].attributes[resource.kubernetes.io/numaNode]"
SLICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: node-0-nic}}
spec:
  driver: dra.net
  nodeName: node-0
  pool: {{name: node-0, resourceSliceCount: 1}}
  devices:
  - name: nic-0
    attributes:
      {attributes}
"""


def findings(attributes: str, policy: Policy | None = None) -> list[tuple[str, str, str]]:
    [manifest] = load_text(SLICE.format(attributes=attributes)).manifests
    outcome = run_rules(manifest.obj, policy or Policy.default())
    return [(f.rule, str(f.path), f.message) for f in outcome.findings]


@pytest.mark.parametrize(("value", "expected"), [
    ("-1.0", [("numa-node-range", f"{NUMA}.int", "numaNode -1 is negative")]),
    ("0.0", []),
    ("1023.0", []),
    ("1024.0", [("numa-node-range", f"{NUMA}.int", "numaNode 1024 must be below 1024")]),
    ("1025.0", [("numa-node-range", f"{NUMA}.int", "numaNode 1025 must be below 1024")]),
])
def test_an_integral_float_is_judged_as_the_int_kubectl_sends(value: str, expected: list[tuple[str, str, str]]) -> None:
    assert findings(f"resource.kubernetes.io/numaNode: {{int: {value}}}") == expected


def test_a_null_list_item_is_node_0() -> None:
    assert findings("resource.kubernetes.io/numaNode: {ints: [0, null]}") == [
        ("numa-node-duplicates", f"{NUMA}.ints[1]", "numaNode null (stored as 0) appears twice in the list (also at "
                                                    "index 0)")]


def test_an_integral_float_repeating_a_node_is_a_duplicate() -> None:
    assert findings("resource.kubernetes.io/numaNode: {ints: [1, 1.0]}") == [
        ("numa-node-duplicates", f"{NUMA}.ints[1]", "numaNode 1 appears twice in the list (also at index 0)")]


@pytest.mark.parametrize(("value", "path"), [
    ("{int: 18446744073709551616}", f"{NUMA}.int"),
    ("{ints: [0, -18446744073709551616]}", f"{NUMA}.ints[1]"),
])
def test_a_number_beyond_int64_is_only_a_wrong_type(value: str, path: str) -> None:
    assert [(rule, where) for rule, where, _ in findings(f"resource.kubernetes.io/numaNode: {value}")] == [
        ("k8s-wire-type", path)]


def test_an_alias_written_as_an_integral_float_is_compared() -> None:
    assert findings("{resource.kubernetes.io/numaNode: {int: 1}, dra.net/numaNode: {int: 0.0}}") == [
        ("numa-node-alias-mismatch", "spec.devices[0].attributes[dra.net/numaNode].int",
         "dra.net/numaNode is 0 but resource.kubernetes.io/numaNode says the device is on NUMA node 1")]


def test_a_negative_alias_written_as_a_float_is_reported() -> None:
    assert findings("{resource.kubernetes.io/numaNode: {int: 1}, dra.net/numaNode: {int: -1.0}}") == [
        ("numa-node-alias-type", "spec.devices[0].attributes[dra.net/numaNode].int",
         "NUMA alias dra.net/numaNode is -1")]


def test_an_alias_beyond_int64_is_only_a_wrong_type() -> None:
    assert [rule for rule, _, _ in findings(
        "{resource.kubernetes.io/numaNode: {int: 1}, dra.net/numaNode: {int: 18446744073709551616}}")] == [
        "k8s-wire-type"]


def test_list_form_does_not_call_a_non_list_a_list() -> None:
    policy = Policy.from_mapping({"numaNode": {"listForm": "deny"}})
    assert findings("resource.kubernetes.io/numaNode: {ints: 3}", policy) == [
        ("k8s-wire-type", f"{NUMA}.ints", "Invalid value: 3: must be of type array")]


def test_both_spellings_of_an_alias_are_compared() -> None:
    """Bare `numaNode` under driver dra.net is dra.net/numaNode too: CEL keeps one of the two at random."""
    assert findings("{resource.kubernetes.io/numaNode: {int: 1}, dra.net/numaNode: {int: 1}, numaNode: {int: 0}}") == [
        ("numa-node-alias-mismatch", "spec.devices[0].attributes[numaNode].int",
         "dra.net/numaNode is 0 but resource.kubernetes.io/numaNode says the device is on NUMA node 1")]


def test_both_spellings_of_an_alias_are_typed() -> None:
    assert findings("{resource.kubernetes.io/numaNode: {int: 1}, dra.net/numaNode: {int: 1}, numaNode: {int: -1}}") == [
        ("numa-node-alias-type", "spec.devices[0].attributes[numaNode].int", "NUMA alias dra.net/numaNode is -1")]
