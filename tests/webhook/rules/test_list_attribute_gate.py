"""List attributes on a cluster that does not store them are reported, once per field, at the field.

With `DRAListTypeAttributes` off (1.36/1.37) the API server's strategy sets every list field to nil before
validating (dropDisableDRAListTypeAttributesFields), so `{int: 0, ints: [0, 1]}` is stored as `{int: 0}`
without a word: `k8s-feature-gate` says so. 1.34/1.35 have no list fields at all, so the decoder drops them as
unknown fields: `k8s-unknown-field`, naming the release that added them. Each finding takes the action the
policy gives its rule; an attribute left without a value is also the server's union error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.webhook.rules.yaml_slices import ATTRS, Row, attribute_yaml, run_yaml, slice_yaml
from webhook import cli
from webhook.findings import Finding
from webhook.manifests.roundtrip import load_text
from webhook.policy import Policy
from webhook.run import run_rules

NUMA = f"{ATTRS}[resource.kubernetes.io/numaNode]"
GATE_HINT = ("enable DRAListTypeAttributes on the cluster (kube-apiserver --feature-gates=DRAListTypeAttributes=true) "
             "or leave the field out; draguard: featureGates in the policy or --feature-gates")
UNION = 'Invalid value: "": exactly one value must be specified'
MEMBERS = "`int`, `bool`, `string`, `version`, `ints`, `bools`, `strings`, `versions`"
UNION_1_37 = f'Invalid value: "": must specify one of: {MEMBERS}'  # declarative validation's words (1.37)


def gate_off(version: str, **policy: Any) -> Policy:
    return Policy.from_mapping({"kubernetes": version, "featureGates": {"DRAListTypeAttributes": False}, **policy})


def dropped(version: str, path: str) -> Row:
    return ("k8s-feature-gate", "warn", path, "the API server drops this field: feature gate DRAListTypeAttributes "
            f"(alpha in Kubernetes {version}, off by default; this cluster: off)")


def unknown(path: str) -> Row:
    return ("k8s-unknown-field", "warn", path, f'unknown field "{path}"')


@pytest.mark.parametrize("version", ["1.36", "1.37"])
def test_a_list_beside_a_scalar_is_dropped_with_a_warning(version: str) -> None:
    text = attribute_yaml("resource.kubernetes.io/numaNode: {int: 0, ints: [0, 1]}")
    assert run_yaml(text, gate_off(version)) == [dropped(version, f"{NUMA}.ints")]
    multiple = ('Invalid value: {"int":0,"ints":[0,1]}: exactly one value must be specified' if version == "1.36"
                else f'Invalid value: "{{int, ints}}": must specify exactly one of: {MEMBERS}')
    assert run_yaml(text, Policy.from_mapping({"kubernetes": version})) == [  # gate on: the union error alone
        ("k8s-attribute-union", "deny", NUMA, multiple)]


@pytest.mark.parametrize("version", ["1.34", "1.35"])
def test_a_release_without_list_fields_drops_them_as_unknown(version: str) -> None:
    text = attribute_yaml("resource.kubernetes.io/numaNode: {int: 0, ints: [0, 1]}")
    assert run_yaml(text, Policy.from_mapping({"kubernetes": version})) == [unknown(f"{NUMA}.ints")]
    [finding] = findings_of(text, Policy.from_mapping({"kubernetes": version}))
    assert finding.hint == f"Kubernetes {version} has no such field (added in 1.36); the API server drops it"


@pytest.mark.parametrize("member", ["ints: [1]", "bools: [true]", "strings: [a]", "versions: [1.0.0]", "ints: []"])
def test_each_list_member_and_an_empty_list(member: str) -> None:
    name = member.partition(":")[0]
    assert run_yaml(attribute_yaml(f"gpu.example.com/x: {{string: a, {member}}}"), gate_off("1.37")) == [
        dropped("1.37", f"{ATTRS}[gpu.example.com/x].{name}")]


def test_one_finding_per_dropped_field_and_the_union_error_of_the_emptied_attribute() -> None:
    text = attribute_yaml("gpu.example.com/x: {ints: [1], strings: [a], bools: null}")  # a null list is nil already
    assert run_yaml(text, gate_off("1.37")) == [
        ("k8s-attribute-union", "deny", f"{ATTRS}[gpu.example.com/x]", UNION_1_37),
        dropped("1.37", f"{ATTRS}[gpu.example.com/x].ints"),
        dropped("1.37", f"{ATTRS}[gpu.example.com/x].strings")]
    outcome = findings_of(text, gate_off("1.37"))
    assert outcome[0].hint == ("the cluster runs without the DRAListTypeAttributes feature gate, so the API server "
                               "dropped the list value; publish a scalar (int, bool, string, version) or enable the "
                               "gate")
    assert outcome[1].hint == GATE_HINT


def test_the_union_hint_on_a_release_without_list_fields() -> None:
    [union, _unknown] = findings_of(attribute_yaml("gpu.example.com/x: {ints: [1]}"), Policy.from_mapping(
        {"kubernetes": "1.35"}))
    assert (union.rule, union.hint) == ("k8s-attribute-union", "Kubernetes 1.35 has no list attributes (added in "
                                        "1.36), so the API server dropped the list value; publish a scalar (int, "
                                        "bool, string, version)")


@pytest.mark.parametrize(("version", "rule", "action", "expected"), [
    ("1.37", "k8s-feature-gate", "deny", [("k8s-feature-gate", "deny")]),
    ("1.37", "k8s-feature-gate", "off", []),
    ("1.35", "k8s-unknown-field", "audit", [("k8s-unknown-field", "audit")]),
])
def test_the_policy_sets_the_action(version: str, rule: str, action: str, expected: list[tuple[str, str]]) -> None:
    text = attribute_yaml("resource.kubernetes.io/numaNode: {int: 0, ints: [0, 1]}")
    policy = gate_off(version, rules={rule: action}) if version >= "1.36" else Policy.from_mapping(
        {"kubernetes": version, "rules": {rule: action}})
    assert [(r[0], r[1]) for r in run_yaml(text, policy)] == expected


def test_an_update_keeps_lists_the_stored_object_had_only_where_the_release_has_them() -> None:
    [manifest] = load_text(attribute_yaml("resource.kubernetes.io/numaNode: {ints: [0, 1]}")).manifests
    obj = manifest.obj
    assert run_rules(obj, gate_off("1.36"), old=obj).findings == []
    assert [(f.rule, str(f.path)) for f in run_rules(obj, Policy.from_mapping({"kubernetes": "1.35"}), old=obj)
            .findings] == [("k8s-attribute-union", NUMA), ("k8s-unknown-field", f"{NUMA}.ints")]


@pytest.mark.parametrize("devices", [63, 64, 65])
def test_dropped_lists_do_not_count_toward_the_64_devices_limit(devices: int) -> None:
    items = "\n".join(f"  - {{name: gpu-{i}, attributes: {{ids: {{int: {i}, ints: [{i}]}}}}}}" for i in range(devices))
    text = slice_yaml(f"  nodeName: node-0\n  devices:\n{items}")
    off = run_yaml(text, gate_off("1.37"))
    assert {row[0] for row in off} == {"k8s-feature-gate"} and len(off) == devices
    on = [row for row in run_yaml(text, Policy.from_mapping({"kubernetes": "1.37"})) if row[0] == "k8s-device-count"]
    assert on == ([("k8s-device-count", "deny", "spec.devices", f"Too many: {devices}: must have at most 64 items")]
                  if devices > 64 else [])


def test_a_v1beta1_device_is_reported_at_its_flat_path_and_its_own_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "slice.yaml"
    text = slice_yaml("  nodeName: node-0\n  devices:\n  - name: gpu-0\n    basic:\n      attributes:\n"
                      "        ids: {int: 0, ints: [0]}")
    path.write_text(text.replace("resource.k8s.io/v1", "resource.k8s.io/v1beta1"))
    assert cli.main(["validate", "--kubernetes-version", "1.36", "--list-types", "disabled", str(path)]) == 1
    assert f"{path}:12:29: warn k8s-feature-gate: {ATTRS}[ids].ints: the API server drops this field" in \
        capsys.readouterr().out


def findings_of(text: str, policy: Policy) -> list[Finding]:
    [manifest] = load_text(text).manifests
    return list(run_rules(manifest.obj, policy).findings)


@pytest.mark.parametrize(("attribute", "path", "expected"), [
    ('{ints: "x"}', f"{NUMA}.ints", 'Invalid value: "x": must be of type array'),
    ('{int: 0, ints: [1, "a"]}', f"{NUMA}.ints[1]", 'Invalid value: "a": must be of type integer'),
    ("{int: 0, bools: [1]}", f"{NUMA}.bools[0]", "Invalid value: 1: must be of type boolean"),
])
def test_a_list_field_the_decoder_refuses_is_not_dropped_but_refused(attribute: str, path: str, expected: str) -> None:
    # The field exists in 1.36/1.37 with the gate off, so the decoder reads it before the strategy drops it: a value
    # it cannot decode fails the whole request, whatever the gate.
    found = run_yaml(attribute_yaml(f"resource.kubernetes.io/numaNode: {attribute}"), gate_off("1.37"))
    assert ("k8s-wire-type", "deny", path, expected) in found
    assert not [row for row in found if row[0] == "k8s-feature-gate"]


def test_a_list_item_null_is_a_zero_value_and_the_field_is_dropped() -> None:
    text = attribute_yaml("resource.kubernetes.io/numaNode: {int: 0, ints: [1, null]}")
    assert run_yaml(text, gate_off("1.37")) == [dropped("1.37", f"{NUMA}.ints")]
