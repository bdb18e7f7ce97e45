"""Profiles as data, the policy's `kubernetes` / `featureGates`, the command-line flags, and the webhook and
`validate` agreeing under one profile."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.builders import device, slice_with
from tests.webhook.profiles.conftest import policy_for
from webhook import cli
from webhook.admission import handlers
from webhook.admission.review import GroupVersionKind, GroupVersionResource, Request
from webhook.errors import DraguardError
from webhook.policy import Policy, set_command_line
from webhook.profiles import NEWEST, SUPPORTED, load_profile, parse_gates


def test_every_release_has_a_data_file_and_the_newest_is_the_default() -> None:
    assert SUPPORTED == ("1.34", "1.35", "1.36", "1.37")
    assert NEWEST == "1.37"
    assert [load_profile(v).version for v in SUPPORTED] == list(SUPPORTED)
    assert Policy.default().kubernetes == "1.37"
    assert Policy.default().profile.version == "1.37"


@pytest.mark.parametrize(("version", "gate", "stage", "default"), [
    ("1.34", "DRAPartitionableDevices", "alpha", False),
    ("1.35", "DRADeviceTaints", "alpha", False),
    ("1.36", "DRADeviceTaints", "beta", True),
    ("1.36", "DRAListTypeAttributes", "alpha", False),
    ("1.37", "DRADeviceTaints", "GA", True),
    ("1.37", "DRAFractionalCapacityRange", "beta", True),
    ("1.37", "DRAPartitionableDevicesType", "alpha", False),
])
def test_gate_defaults_follow_the_versioned_gate_table(version: str, gate: str, stage: str, default: bool) -> None:
    spec = load_profile(version).gate_specs[gate]
    assert (spec.stage, spec.default) == (stage, default)


def test_release_fields_differ_where_the_api_types_differ() -> None:
    assert not load_profile("1.35").has_field("attribute.ints")
    assert load_profile("1.36").has_field("device.nodeAllocatableResourceMappings")
    assert not load_profile("1.37").has_field("device.nodeAllocatableResourceMappings")
    assert load_profile("1.37").fields["spec.partitionTypeAttribute"] == ("DRAPartitionableDevicesType",)
    assert load_profile("1.37").fields["device.bindsToNode"] == (
        "DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus")


@pytest.mark.parametrize(("call", "message"), [
    (lambda: load_profile("1.33"), "--kubernetes-version: unsupported Kubernetes version '1.33'; supported: "
     "1.34, 1.35, 1.36, 1.37"),
    (lambda: parse_gates("DRADeviceTaints"), "--feature-gates: 'DRADeviceTaints' is not Name=true or Name=false"),
    (lambda: parse_gates("DRADeviceTaints=yes"),
     "--feature-gates: 'DRADeviceTaints=yes' is not Name=true or Name=false"),
    (lambda: load_profile("1.35").with_gates({"DRAListTypeAttributes": True}),
     "featureGates: unknown feature gate 'DRAListTypeAttributes' for Kubernetes 1.35; known DRA gates: "
     "DRAAdminAccess, DRAConsumableCapacity, DRADeviceBindingConditions, DRADeviceTaints, DRAExtendedResource, "
     "DRAPartitionableDevices, DRAPrioritizedList, DRAResourceClaimDeviceStatus"),
    (lambda: load_profile("1.37").with_gates({"DRAResourceClaimDeviceStatus": False}),
     "featureGates: cannot set feature gate DRAResourceClaimDeviceStatus to false, feature is locked to true in "
     "Kubernetes 1.37"),
])
def test_bad_profile_input_is_one_line(call: Any, message: str) -> None:
    with pytest.raises(DraguardError) as err:
        call()
    assert err.value.message == message


def test_gate_syntax_is_kube_apiservers() -> None:
    assert parse_gates(" A=true, B=False ,") == {"A": True, "B": False}


@pytest.mark.parametrize(("data", "message"), [
    ({"kubernetes": "1.38"}, "policy p: kubernetes: unsupported Kubernetes version '1.38'; supported: 1.34, 1.35, "
     "1.36, 1.37"),
    ({"kubernetes": True}, "policy p: kubernetes: expected a release like \"1.36\", got True"),
    ({"featureGates": ["DRADeviceTaints"]},
     "policy p: featureGates: expected a mapping of gate name to true or false, got ['DRADeviceTaints']"),
    ({"featureGates": {"DRADeviceTaints": "on"}},
     "policy p: featureGates: expected a mapping of gate name to true or false, got {'DRADeviceTaints': 'on'}"),
    ({"featureGates": {"DRAFractionalCapacityRange": True}, "kubernetes": "1.36"},
     "policy p: featureGates: unknown feature gate 'DRAFractionalCapacityRange' for Kubernetes 1.36; known DRA "
     "gates: DRAAdminAccess, DRAConsumableCapacity, DRADeviceBindingConditions, DRADeviceTaints, "
     "DRAExtendedResource, DRAListTypeAttributes, DRANodeAllocatableResources, DRAPartitionableDevices, "
     "DRAPrioritizedList, DRAResourceClaimDeviceStatus"),
    ({"listTypes": "enabled", "kubernetes": "1.35"}, "policy p: listTypes: Kubernetes 1.35 has no "
     "DRAListTypeAttributes gate (list attributes arrive in 1.36); leave listTypes out"),
    ({"listTypes": "disabled", "featureGates": {"DRAListTypeAttributes": True}},
     "policy p: listTypes and featureGates.DRAListTypeAttributes disagree; set one of them"),
])
def test_bad_profile_keys_in_the_policy_are_one_line(data: object, message: str) -> None:
    with pytest.raises(DraguardError) as err:
        Policy.from_mapping(data, "p")
    assert err.value.message == message


def test_list_types_is_the_list_gate() -> None:
    assert Policy.from_mapping({}).list_types is True  # draguard's default policy keeps list attributes on
    assert Policy.from_mapping({"featureGates": {"DRAListTypeAttributes": False}}).list_types is False
    assert Policy.from_mapping({"listTypes": "disabled"}).profile.enabled("DRAListTypeAttributes") is False
    assert Policy.from_mapping({"kubernetes": "1.35"}).list_types is False  # the release has no list attributes
    assert Policy.default().with_list_types(False).profile.enabled("DRAListTypeAttributes") is False


def test_the_command_line_wins_over_the_file_and_survives_a_reload(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text('kubernetes: "1.36"\nfeatureGates: {DRANodeAllocatableResources: true}\n')
    try:
        set_command_line("1.37", {"DRAOptionalNodeOperations": True})
        loaded = Policy.load(path)
        assert loaded.kubernetes == "1.37"
        assert loaded.profile.enabled("DRANodeAllocatableResources")  # the file's gate, known to 1.37 too
        assert loaded.profile.enabled("DRAOptionalNodeOperations")
        with pytest.raises(DraguardError, match="locked to true"):
            set_command_line(None, {"DRAResourceClaimDeviceStatus": False})
    finally:
        set_command_line(None, None)
    assert Policy.load(path).kubernetes == "1.36"


SKIPPING = slice_with(device("d0", taints=[{"key": "k", "effect": "Sometimes"}]),
                      skipNodeOperations=["NodePrepareResources"], partitionTypeAttribute="x")


@pytest.mark.parametrize(("argv", "code", "lines"), [
    ([], 1, ["deny k8s-taints: spec.devices[0].taints[0].effect: Unsupported value: \"Sometimes\": supported values: "
             "\"NoExecute\", \"NoSchedule\", \"None\"",
             "warn k8s-feature-gate: spec.partitionTypeAttribute: the API server drops this field: feature gate "
             "DRAPartitionableDevicesType (alpha in Kubernetes 1.37, off by default; this cluster: off)",
             "warn k8s-feature-gate: spec.skipNodeOperations: the API server drops this field: feature gate "
             "DRAOptionalNodeOperations (alpha in Kubernetes 1.37, off by default; this cluster: off)"]),
    (["--kubernetes-version", "1.35"], 1, [  # validate fails on warn, as lint does (issue 17)
        "warn k8s-unknown-field: spec.partitionTypeAttribute: unknown field \"spec.partitionTypeAttribute\"",
        "warn k8s-unknown-field: spec.skipNodeOperations: unknown field \"spec.skipNodeOperations\"",
        "warn k8s-feature-gate: spec.devices[0].taints: the API server drops this field: feature gate "
        "DRADeviceTaints (alpha in Kubernetes 1.35, off by default; this cluster: off)"]),
])
def test_validate_takes_the_profile_flags(argv: list[str], code: int, lines: list[str], tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "slice.json"
    path.write_text(json.dumps(SKIPPING))
    assert cli.main(["validate", "--format", "json", *argv, str(path)]) == code
    found = json.loads(capsys.readouterr().out)["findings"]
    assert sorted(f"{f['action']} {f['rule']}: {f['path']}: {f['message']}" for f in found) == sorted(lines)


def test_lint_takes_the_profile_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "slice.json"
    path.write_text(json.dumps(SKIPPING))
    assert cli.main(["lint", "--format", "json", "--kubernetes-version", "1.35", str(path)]) == 1
    found = json.loads(capsys.readouterr().out)["findings"]
    assert sorted((f["rule"], f["path"]) for f in found) == [
        ("k8s-feature-gate", "spec.devices[0].taints"), ("k8s-unknown-field", "spec.partitionTypeAttribute"),
        ("k8s-unknown-field", "spec.skipNodeOperations")]


@pytest.mark.parametrize(("argv", "error"), [
    (["--feature-gates", "DRAResourceClaimDeviceStatus=false"], "--feature-gates: cannot set feature gate "
     "DRAResourceClaimDeviceStatus to false, feature is locked to true in Kubernetes 1.37"),
    (["--kubernetes-version", "1.35", "--feature-gates", "DRAListTypeAttributes=true"], "--feature-gates: unknown "
     "feature gate 'DRAListTypeAttributes' for Kubernetes 1.35; known DRA gates: DRAAdminAccess, "
     "DRAConsumableCapacity, DRADeviceBindingConditions, DRADeviceTaints, DRAExtendedResource, "
     "DRAPartitionableDevices, DRAPrioritizedList, DRAResourceClaimDeviceStatus"),
])
def test_serve_refuses_a_bad_profile_before_starting(argv: list[str], error: str,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    try:
        assert cli.main(["serve", *argv]) == 2
    finally:
        set_command_line(None, None)
    assert capsys.readouterr().err == f"draguard: error: {error}\n"


SLICE_GVK = GroupVersionKind("resource.k8s.io", "v1", "ResourceSlice")


@pytest.mark.parametrize(("version", "gates"), [
    ("1.35", {}), ("1.36", {"DRANodeAllocatableResources": True}), ("1.37", {"DRAOptionalNodeOperations": True}),
])
def test_the_webhook_and_validate_give_the_same_findings(version: str, gates: dict[str, bool], tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    obj = slice_with(device("d0", capacity={"mem": "1"}, taints=[{"key": "k", "effect": "Sometimes"}],
                            nodeAllocatableResourceMappings={"gpu": {}}),
                     skipNodeOperations=["NodePrepareResources"])
    request = Request("uid-1", SLICE_GVK, GroupVersionResource("resource.k8s.io", "v1", "resourceslices"), "CREATE",
                      obj, None)
    answer = handlers.resourceslices(request, policy_for(version, gates))
    path = tmp_path / "slice.json"
    path.write_text(json.dumps(obj))
    flags = ["--feature-gates", ",".join(f"{g}={str(v).lower()}" for g, v in gates.items())] if gates else []
    cli.main(["validate", "--format", "json", "--kubernetes-version", version, *flags, str(path)])
    found = json.loads(capsys.readouterr().out)["findings"]
    assert sorted(answer.causes) == sorted((f["path"], f["message"]) for f in found if f["action"] == "deny")
    # The webhook words a warning `[rule] path: message` (handlers.warning_line).
    assert sorted(answer.warnings) == sorted(f"[{f['rule']}] {f['path']}: {f['message']}"
                                             for f in found if f["action"] == "warn")
    assert answer.causes or answer.warnings  # the object is not clean under any of these profiles
