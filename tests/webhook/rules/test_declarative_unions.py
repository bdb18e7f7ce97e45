"""Unions that 1.37's API server reports through declarative validation (apimachinery `validate.Union`), seen
through `draguard validate`: a DeviceAttribute's members (`+k8s:beta(since: "1.37")=+k8s:unionMember`, enforced with
DeclarativeValidationBeta, on by default, replacing validateDeviceAttribute's error of the same path and origin) and
a node-allocatable mapping's `capacityKey` / `deviceMultiplier` (unprefixed `+k8s:unionMember`: always enforced, no
hand-written counterpart). Declarative validation skips a spec an update leaves unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.webhook.profiles.conftest import run
from webhook.cli import main
from webhook.manifests import load_text

ATTRIBUTE_MEMBERS = "`int`, `bool`, `string`, `version`, `ints`, `bools`, `strings`, `versions`"
HANDWRITTEN = "exactly one value must be specified"
LONG_KEY = "d" * 60 + ".com/" + "x" * 32  # 97 bytes: validateMap shortens it in the hand-written path
SHORT_KEY = "d" * 47 + "..." + "d" * 9 + ".com/" + "x" * 32


def slice_yaml(device: str) -> str:
    return ("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n"
            "  driver: gpu.example.com\n  pool: {name: p, resourceSliceCount: 1}\n  nodeName: n1\n"
            f"  devices:\n  - name: d0\n{device}")


ATTRIBUTES = slice_yaml("""    attributes:
      mtu: {int: 9000, string: "9000"}
      empty: {}
      nul: null
      one: {int: 1}
""")


def validate(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, *flags: str) -> tuple[int, list[str]]:
    """Exit code and the finding lines (`deny rule: path: message`, position cut off) of `draguard validate`."""
    path = tmp_path / "slice.yaml"
    path.write_text(text)
    code = main(["validate", str(path), "--no-color", *flags])
    out = capsys.readouterr().out
    return code, [line.split(": ", 1)[1] for line in out.splitlines() if line.startswith(str(path))]


def test_1_37_reports_an_attribute_union_in_declarative_words(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert validate(tmp_path, capsys, ATTRIBUTES, "--kubernetes-version", "1.37") == (1, [
        'deny k8s-attribute-union: spec.devices[0].attributes[mtu]: Invalid value: "{int, string}": '
        f"must specify exactly one of: {ATTRIBUTE_MEMBERS}",
        f'deny k8s-attribute-union: spec.devices[0].attributes[empty]: Invalid value: "": '
        f"must specify one of: {ATTRIBUTE_MEMBERS}",
        f'deny k8s-attribute-union: spec.devices[0].attributes[nul]: Invalid value: "": '
        f"must specify one of: {ATTRIBUTE_MEMBERS}",
    ])


@pytest.mark.parametrize("version", ["1.34", "1.35", "1.36"])
def test_earlier_releases_keep_the_hand_written_union_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            version: str) -> None:
    """1.35 runs declarative validation in shadow (DeclarativeValidationTakeover off), 1.36's tags are alpha."""
    assert validate(tmp_path, capsys, ATTRIBUTES, "--kubernetes-version", version) == (1, [
        f'deny k8s-attribute-union: spec.devices[0].attributes[mtu]: Invalid value: {{"int":9000,"string":"9000"}}: '
        f"{HANDWRITTEN}",
        f'deny k8s-attribute-union: spec.devices[0].attributes[empty]: Invalid value: "": {HANDWRITTEN}',
        f'deny k8s-attribute-union: spec.devices[0].attributes[nul]: Invalid value: "": {HANDWRITTEN}',
    ])


def test_a_shortened_key_path_keeps_both_errors() -> None:
    """The hand-written path shortens a key over 96 bytes, the declarative one does not: the errors do not match,
    so the server reports both (besides the key's own error)."""
    obj = load_text(slice_yaml(f"    attributes:\n      {LONG_KEY}: {{}}\n"), "s.yaml").manifests[0].obj
    unions = [(path, message) for rule, _, path, message in run(obj, "1.37") if rule == "k8s-attribute-union"]
    assert unions == [
        (f"spec.devices[0].attributes[{SHORT_KEY}]", f'Invalid value: "": {HANDWRITTEN}'),
        (f"spec.devices[0].attributes[{LONG_KEY}]", f'Invalid value: "": must specify one of: {ATTRIBUTE_MEMBERS}'),
    ]


def test_an_update_that_leaves_the_spec_unchanged_gets_the_hand_written_error() -> None:
    """Declarative validation does not validate an unchanged spec again; validateDevice does."""
    obj = load_text(ATTRIBUTES, "s.yaml").manifests[0].obj
    changed = load_text(ATTRIBUTES.replace("{int: 1}", "{int: 2}"), "s.yaml").manifests[0].obj
    same = {path: message for rule, _, path, message in run(obj, "1.37", old=obj) if rule == "k8s-attribute-union"}
    assert same["spec.devices[0].attributes[empty]"] == f'Invalid value: "": {HANDWRITTEN}'
    edited = {path: message for rule, _, path, message in run(changed, "1.37", old=obj)
              if rule == "k8s-attribute-union"}
    # (a deny the old object had too is a warning in draguard's ratchet, which says so)
    assert edited["spec.devices[0].attributes[empty]"].startswith(
        f'Invalid value: "": must specify one of: {ATTRIBUTE_MEMBERS}')


MAPPINGS = slice_yaml("""    capacity:
      mem: {value: 1Gi}
    nodeAllocatableResources:
      memory: {mapping: {capacityKey: mem, capacityMultiplier: "1", deviceMultiplier: "2"}}
      cpu: {mapping: {}}
      ephemeral-storage: {mapping: {deviceMultiplier: "1"}}
      hugepages-2Mi: {mapping: {capacityKey: mem, capacityMultiplier: "1"}}
""")
MAPPING_MEMBERS = "`capacityKey`, `deviceMultiplier`"


def test_a_node_allocatable_mapping_sets_one_of_capacity_key_and_device_multiplier(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert validate(tmp_path, capsys, MAPPINGS, "--kubernetes-version", "1.37",
                    "--feature-gates", "DRANodeAllocatableResources=true") == (1, [
        "deny k8s-node-allocatable-resources: spec.devices[0].nodeAllocatableResources[memory].mapping: "
        f'Invalid value: "{{capacityKey, deviceMultiplier}}": must specify exactly one of: {MAPPING_MEMBERS}',
        "deny k8s-node-allocatable-resources: spec.devices[0].nodeAllocatableResources[cpu].mapping: "
        f'Invalid value: "": must specify one of: {MAPPING_MEMBERS}',
    ])


def test_an_unchanged_spec_is_not_held_to_the_mapping_union() -> None:
    obj = load_text(MAPPINGS, "s.yaml").manifests[0].obj
    gates = {"DRANodeAllocatableResources": True}
    assert [row for row in run(obj, "1.37", gates, old=obj) if row[0] == "k8s-node-allocatable-resources"] == []
