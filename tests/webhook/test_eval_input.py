"""`draguard eval` on malformed ResourceSlices: one line naming the slice and the field path on stderr and
exit 2, in the words the tool uses for YAML/JSON values, never a group or a device it made up or misread."""

from __future__ import annotations

from pathlib import Path

import pytest

from webhook import cli

Capsys = pytest.CaptureFixture[str]

HEAD = "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n"
SPEC = "spec:\n  driver: a.b\n  nodeName: 'n'\n  pool: {name: p}\n  devices:\n  - name: d0\n"


def evaluate(capsys: Capsys, tmp_path: Path, text: str, expression: str = "true") -> tuple[int, str, str]:
    path = tmp_path / "s.yaml"
    path.write_text(text)
    code = cli.main(["eval", expression, "--slices", str(path)])
    out, err = capsys.readouterr()
    return code, out, err.replace(str(path), "s.yaml")


def test_a_well_formed_slice_is_evaluated(capsys: Capsys, tmp_path: Path) -> None:
    assert evaluate(capsys, tmp_path, HEAD + SPEC + "    attributes: {x: {int: 1}}\n") == (
        0, "n\n  a.b (pool p): 1 of 1 match\n    match     d0\n1 devices: 1 match, 0 no match, 0 errors\n", "")


@pytest.mark.parametrize(("text", "expected"), [
    (HEAD + "spec: null\n", "s.yaml:4:7: ResourceSlice s: spec is required (a mapping)"),
    (HEAD, "s.yaml:1:1: ResourceSlice s: spec is required (a mapping)"),
    ("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: null\n",
     "s.yaml:1:1: ResourceSlice <unnamed>: spec is required (a mapping)"),
    ("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: [s]\n" + SPEC,
     "s.yaml:3:11: ResourceSlice <unnamed>: metadata must be a mapping, not a list"),
])
def test_a_slice_without_a_spec_is_refused_not_grouped(capsys: Capsys, tmp_path: Path, text: str,
                                                       expected: str) -> None:
    assert evaluate(capsys, tmp_path, text) == (2, "", f"draguard: error: {expected}\n")


@pytest.mark.parametrize(("device", "expected"), [
    ("    attributes: [1, 2]\n", "10:17: ResourceSlice s: spec.devices[0].attributes must be a mapping, not a list"),
    ("    capacity: [mem]\n", "10:15: ResourceSlice s: spec.devices[0].capacity must be a mapping, not a list"),
    ("    basic: {attributes: [1]}\n",
     "10:25: ResourceSlice s: spec.devices[0].basic.attributes must be a mapping, not a list"),
    ("    allNodes: 'true'\n", "10:15: ResourceSlice s: spec.devices[0].allNodes must be a boolean, not a string"),
])
def test_a_device_whose_attributes_are_not_a_mapping_is_refused(capsys: Capsys, tmp_path: Path, device: str,
                                                                expected: str) -> None:
    expression = 'device.attributes["a.b"].x == 1'
    assert evaluate(capsys, tmp_path, HEAD + SPEC + device, expression) == (
        2, "", f"draguard: error: s.yaml:{expected}\n")


@pytest.mark.parametrize(("item", "word"), [
    ("null", "a null value"), ("5", "a number"), ("true", "a boolean"), ("[d1]", "a list"), ("d1", "a string"),
])
def test_a_device_that_is_not_a_mapping_is_named_in_yaml_words(capsys: Capsys, tmp_path: Path, item: str,
                                                                word: str) -> None:
    assert evaluate(capsys, tmp_path, HEAD + SPEC + f"  - {item}\n") == (
        2, "", f"draguard: error: s.yaml:10:5: ResourceSlice s: spec.devices[1] must be a mapping, not {word}\n")


@pytest.mark.parametrize(("field", "expected"), [
    ("  allNodes: 'true'\n", "spec.allNodes must be a boolean, not a string"),
    ("  perDeviceNodeSelection: 1\n", "spec.perDeviceNodeSelection must be a boolean, not a number"),
    ("  nodeSelector: [a]\n", "spec.nodeSelector must be a mapping, not a list"),
    ("  nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: 5}]}]}\n",
     "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].key must be a string, not a number"),
])
def test_the_node_fields_that_group_a_slice_are_checked(capsys: Capsys, tmp_path: Path, field: str,
                                                        expected: str) -> None:
    text = HEAD + "spec:\n  driver: a.b\n  pool: {name: p}\n" + field + "  devices: [{name: d0}]\n"
    code, out, err = evaluate(capsys, tmp_path, text)
    assert (code, out) == (2, "")
    assert err.startswith("draguard: error: s.yaml:7:")
    assert err.endswith(f": ResourceSlice s: {expected}\n")


@pytest.mark.parametrize(("pool", "expected"), [
    ("{name: p, generation: '1'}", "spec.pool.generation must be an integer, not a string"),
    ("{name: p, resourceSliceCount: 1.0}", "spec.pool.resourceSliceCount must be an integer, not 1.0"),
])
def test_pool_counters_must_be_integers(capsys: Capsys, tmp_path: Path, pool: str, expected: str) -> None:
    code, out, err = evaluate(capsys, tmp_path, HEAD + SPEC.replace("{name: p}", pool))
    assert (code, out) == (2, "")
    assert err.endswith(f": ResourceSlice s: {expected}\n")
