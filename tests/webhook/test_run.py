"""run_rules(): dispatch, policy actions, positions, suppression, ratcheting, rule failures."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from tests.builders import device, slice_with
from webhook.fieldpath import FieldPath
from webhook.findings import Action, Finding, Position
from webhook.manifests import load_text
from webhook.policy import Policy
from webhook.rules.base import Rule, RuleContext
from webhook.run import RATCHET_NOTE, run_rules
from webhook.wire import Obj


def summary(findings: list[Finding]) -> list[tuple[str, str, str]]:
    return [(f.rule, f.action.value if f.action else "", str(f.path)) for f in findings]


def test_other_kinds_give_an_empty_outcome() -> None:
    outcome = run_rules({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}, Policy.default())
    assert outcome.findings == [] and outcome.suppressed == []


def test_findings_are_stamped_with_rule_and_policy_action() -> None:
    policy = Policy.from_mapping({"rules": {"numa-node-range": "audit"}})
    assert summary(run_rules(slice_with(numa=-1), policy).findings) == [
        ("numa-node-range", "audit", "spec.devices[0].attributes[resource.kubernetes.io/numaNode].int")]


def test_rules_set_off_do_not_run() -> None:
    policy = Policy.from_mapping({"rules": {"numa-node-range": "off"}})
    assert run_rules(slice_with(numa=-1), policy).findings == []


def test_findings_are_sorted_by_path_without_positions() -> None:
    obj = slice_with(device("gpu-0", numa=-1), device("gpu-1", numa=[2, 5, 3, -4]))
    order_on = Policy.from_mapping({"rules": {"numa-node-order": "warn"}})  # off by default; its ints[2] sorts here
    assert [str(f.path) for f in run_rules(obj, order_on).findings] == [
        "spec.devices[0].attributes[resource.kubernetes.io/numaNode].int",
        "spec.devices[1].attributes[resource.kubernetes.io/numaNode].ints",
        "spec.devices[1].attributes[resource.kubernetes.io/numaNode].ints[2]",
        "spec.devices[1].attributes[resource.kubernetes.io/numaNode].ints[3]",
    ]


SLICE_YAML = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: node-0-gpu
spec:
  driver: gpu.example.com
  nodeName: node-0
  pool: {name: node-0, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes:
      resource.kubernetes.io/numaNode:
        int: -1
"""


def test_positions_come_from_the_manifest() -> None:
    [manifest] = load_text(SLICE_YAML, "slice.yaml").manifests
    [finding] = run_rules(manifest.obj, Policy.default(), manifest=manifest).findings
    assert finding.position == Position("slice.yaml", 13, 14)


def test_v1beta1_positions_find_fields_under_basic() -> None:
    text = SLICE_YAML.replace("v1\n", "v1beta1\n", 1).replace(
        "  - name: gpu-0\n    attributes:\n      resource.kubernetes.io/numaNode:\n        int: -1\n",
        "  - name: gpu-0\n    basic:\n      attributes:\n        resource.kubernetes.io/numaNode:\n          int: -1\n")
    [manifest] = load_text(text, "beta.yaml").manifests
    [finding] = run_rules(manifest.obj, Policy.default(), manifest=manifest).findings
    assert str(finding.path) == "spec.devices[0].attributes[resource.kubernetes.io/numaNode].int"
    assert finding.position == Position("beta.yaml", 14, 16)


def test_suppression_with_reason_moves_findings_aside() -> None:
    obj = slice_with(numa=-1, annotations={"draguard.io/ignore": "numa-node-range, numa-node-order: firmware bug #7"})
    outcome = run_rules(obj, Policy.default())
    assert outcome.findings == []
    assert summary(outcome.suppressed) == [
        ("numa-node-range", "deny", "spec.devices[0].attributes[resource.kubernetes.io/numaNode].int")]


def test_suppression_without_reason_suppresses_nothing() -> None:
    obj = slice_with(numa=-1, annotations={"draguard.io/ignore": "numa-node-range"})
    outcome = run_rules(obj, Policy.default())
    assert outcome.suppressed == []
    assert summary(outcome.findings) == [
        ("suppression-reason-missing", "warn", "metadata.annotations[draguard.io/ignore]"),
        ("numa-node-range", "deny", "spec.devices[0].attributes[resource.kubernetes.io/numaNode].int"),
    ]


def test_update_ratchets_a_deny_the_old_object_already_had() -> None:
    old = slice_with(numa=-1)
    new = slice_with(numa=-1)
    new["metadata"]["labels"] = {"changed": "yes"}
    [finding] = run_rules(new, Policy.default(), old=old).findings
    assert (finding.rule, finding.action) == ("numa-node-range", Action.WARN)
    assert finding.message == "numaNode -1 is negative" + RATCHET_NOTE


def test_update_introducing_a_problem_is_still_denied() -> None:
    [finding] = run_rules(slice_with(numa=-1), Policy.default(), old=slice_with(numa=0)).findings
    assert (finding.rule, finding.action, finding.message) == (
        "numa-node-range", Action.DENY, "numaNode -1 is negative")


def _boom(obj: Obj, ctx: RuleContext) -> Iterator[Finding]:
    raise RuntimeError("kaput")
    yield  # pragma: no cover


def _fine(obj: Obj, ctx: RuleContext) -> Iterator[Finding]:
    yield Finding(FieldPath.root("spec"), "fine")


def test_a_rule_that_raises_is_a_rule_error_logged_and_the_others_run(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    rules = [Rule("test-boom", frozenset({"ResourceSlice"}), Action.DENY, "s", "r", _boom),
             Rule("test-fine", frozenset({"ResourceSlice"}), Action.DENY, "s", "r", _fine)]
    monkeypatch.setattr("webhook.run.rules_for", lambda kind: rules)
    with caplog.at_level(logging.ERROR, logger="webhook.run"):
        outcome = run_rules(slice_with(), Policy.default())
    assert [(f.rule, f.action, f.message) for f in outcome.findings] == [
        ("rule-error", Action.DENY, "rule test-boom could not check this object: RuntimeError: kaput"),
        ("test-fine", Action.WARN, "fine"),  # an unknown id gets the policy's fallback action
    ]
    assert outcome.errors == ["test-boom"]
    assert caplog.messages == [
        "rule test-boom failed on ResourceSlice 'node-0-gpu' (a draguard bug): RuntimeError: kaput"]


def test_dropping_list_fields_copies_and_handles_v1beta1_basic() -> None:
    import copy

    from webhook.profiles import load_profile
    from webhook.rules.k8s.gates import drop_list_attributes

    obj = {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceSlice", "spec": {"devices": [
        {"name": "a", "basic": {"attributes": {"n": {"ints": [1]}, "m": {"int": 2}}}}, "junk"]}}
    before = copy.deepcopy(obj)
    dropped, errs = drop_list_attributes(obj, None, load_profile("1.36"))
    assert obj == before
    assert dropped["spec"]["devices"] == [{"name": "a", "basic": {"attributes": {"n": {}, "m": {"int": 2}}}}, "junk"]
    assert [(rule, str(f.path)) for rule, f in errs] == [("k8s-feature-gate", "spec.devices[0].attributes[n].ints")]


def test_deeply_nested_values_are_reported_not_raised() -> None:
    deep: list[object] = []
    for _ in range(3000):
        deep = [deep]
    obj = slice_with(device(attributes={"x": {"int": deep}}))
    assert [(f.rule, f.message) for f in run_rules(obj, Policy.default()).findings] == [
        ("k8s-wire-type", 'Invalid value: "<value omitted>": must be of type integer')]


def test_a_field_the_locator_cannot_place_gets_its_nearest_placeable_ancestor() -> None:
    # ruamel keeps no marks for keys a YAML merge (`<<`) brought in; that must not crash the run.
    text = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  nodeName: "n"
  pool: {name: "n", resourceSliceCount: 1}
  devices:
  - &d
    name: gpu-0
    attributes:
      resource.kubernetes.io/numaNode: {int: -1}
  - <<: *d
    name: gpu-1
"""
    [manifest] = load_text(text, "m.yaml").manifests
    outcome = run_rules(manifest.obj, Policy.default(), manifest=manifest)
    assert [(f.rule, str(f.path), f.position) for f in outcome.findings] == [
        ("numa-node-range", "spec.devices[0].attributes[resource.kubernetes.io/numaNode].int",
         Position("m.yaml", 12, 46)),
        ("numa-node-range", "spec.devices[1].attributes[resource.kubernetes.io/numaNode].int",
         Position("m.yaml", 13, 5)),
    ]


def test_enabled_rules_are_per_kind_and_follow_the_policy_and_the_catalogue(monkeypatch: pytest.MonkeyPatch) -> None:
    from webhook import run

    policy = Policy.from_mapping({"rules": {"numa-node-duplicates": "off"}})
    for kind in ("ResourceSlice", "ResourceClaim", "DeviceClass", "ResourceSlice"):  # asked again: remembered
        expected = [r.id for r in run.rules_for(kind)
                    if r.id not in run.RUNNER_RULES and policy.action(r.id) is not Action.OFF]
        assert [r.id for r in run.enabled_rules(kind, policy)] == expected
    assert "numa-node-duplicates" not in [r.id for r in run.enabled_rules("ResourceSlice", policy)]
    assert "numa-node-duplicates" in [r.id for r in run.enabled_rules("ResourceSlice", Policy.default())]
    assert "numa-node-order" not in [r.id for r in run.enabled_rules("ResourceSlice", Policy.default())]  # off
    order_on = Policy.from_mapping({"rules": {"numa-node-order": "warn"}})
    assert "numa-node-order" in [r.id for r in run.enabled_rules("ResourceSlice", order_on)]
    only = [r for r in run.rules_for("ResourceSlice") if r.id == "numa-node-range"]
    monkeypatch.setattr(run, "rules_for", lambda kind: only)  # a catalogue replaced after the policy was used
    assert [r.id for r in run.enabled_rules("ResourceSlice", policy)] == ["numa-node-range"]
