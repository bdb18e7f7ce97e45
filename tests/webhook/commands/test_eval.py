"""`draguard eval`: run in-process, exact stdout, stderr and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webhook import cli

SLICES = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: nic-n1}
spec:
  driver: dra.net
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: nic-1
    attributes:
      resource.kubernetes.io/numaNode: {ints: [1, 0, 2, 3]}
  - name: nic-6
    attributes:
      resource.kubernetes.io/numaNode: {ints: [6, 4, 5, 7]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: cpu-n1}
spec:
  driver: dra.cpu
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: cpu-4
    attributes:
      resource.kubernetes.io/numaNode: {int: 4}
  - name: cpu-9
    attributes:
      dra.cpu/socket: {int: 1}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: shared}
spec:
  driver: dra.net
  allNodes: true
  pool: {name: fabric, generation: 1, resourceSliceCount: 1}
  devices:
  - name: switch-0
    attributes:
      resource.kubernetes.io/numaNode: {int: 4}
"""

INCLUDES_4 = 'device.attributes["resource.kubernetes.io"].numaNode.includes(4)'
NO_SUCH_KEY = (
    "CEL runtime error: no such key: numaNode. consider using CEL optional chaining (.? followed by orValue()) "
    "or guarding the check with has() for optional fields"
)


@pytest.fixture
def slices(tmp_path: Path) -> str:
    path = tmp_path / "slices.yaml"
    path.write_text(SLICES)
    return str(path)


def test_text_groups_by_node_driver_and_pool(slices: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["eval", INCLUDES_4, "--slices", slices]) == 1  # cpu-9 errors
    assert capsys.readouterr().out == (
        "n1\n"
        "  dra.cpu (pool n1): 1 of 2 match\n"
        "    match     cpu-4\n"
        f"    error     cpu-9: {NO_SUCH_KEY}\n"
        "  dra.net (pool n1): 1 of 2 match\n"
        "    match     nic-6\n"
        "    no match  nic-1\n"
        "(all nodes)\n"
        "  dra.net (pool fabric): 1 of 1 match\n"
        "    match     switch-0\n"
        "5 devices: 3 match, 1 no match, 1 error\n"
    )


def test_json_output(slices: str, capsys: pytest.CaptureFixture[str]) -> None:
    expression = 'device.driver == "dra.net"'
    assert cli.main(["eval", expression, "--slices", slices, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["expression"] == expression
    assert out["summary"] == {"devices": 5, "matches": 3, "nonMatches": 2, "errors": 0}
    assert out["groups"][0] == {"node": "n1", "driver": "dra.cpu", "pool": "n1", "matches": [],
                                "nonMatches": ["cpu-4", "cpu-9"], "errors": []}


def test_no_match_exits_1(slices: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["eval", 'device.driver == "gpu.example.com"', "--slices", slices]) == 1
    assert capsys.readouterr().out.endswith("5 devices: 0 match, 5 no match, 0 errors\n")


def test_guarded_lookup_has_no_errors(slices: str, capsys: pytest.CaptureFixture[str]) -> None:
    guarded = 'has(device.attributes["resource.kubernetes.io"].numaNode) && ' + INCLUDES_4
    assert cli.main(["eval", guarded, "--slices", slices]) == 0
    assert capsys.readouterr().out.endswith("5 devices: 3 match, 2 no match, 0 errors\n")


def test_bad_expression_is_a_usage_error(slices: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["eval", "device.driver ==", "--slices", slices]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("draguard: error: cannot compile EXPR: ")
    assert len(captured.err.splitlines()) == 1


def test_missing_file_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["eval", "true", "--slices", str(tmp_path / "nope.yaml")]) == 2
    assert capsys.readouterr().err == f"draguard: error: {tmp_path / 'nope.yaml'}: no such file or directory\n"


def test_file_without_slices_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "class.yaml"
    path.write_text("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: x}\n")
    assert cli.main(["eval", "true", "--slices", str(path)]) == 2
    assert capsys.readouterr().err == f"draguard: error: no ResourceSlice in {path}\n"


def test_corpus_selector_on_captured_slices(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    slices = corpus / "topology-co-placement" / "manifests-nvidia-a40-resourceslices.yaml"
    expression = "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"
    assert cli.main(["eval", expression, "--slices", str(slices), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    gpus = [g for g in out["groups"] if g["driver"] == "gpu.nvidia.com"]
    assert [g["matches"] for g in gpus] == [["gpu-0", "gpu-1"]]
    assert out["summary"]["errors"] == 0


@pytest.mark.parametrize(("spec", "expected"), [
    ("spec: 5", "3:7: ResourceSlice bad: spec must be a mapping, not a number"),
    ("spec:\n  driver: d\n  devices: {a: 1}", "5:12: ResourceSlice bad: spec.devices must be a list, not a mapping"),
])
def test_malformed_slice_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: str,
                                          expected: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(f"apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n{spec}\nmetadata: {{name: bad}}\n")
    assert cli.main(["eval", "true", "--slices", str(path)]) == 2
    assert capsys.readouterr().err == f"draguard: error: {path}:{expected}\n"


def test_names_from_the_input_reach_the_terminal_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A device named with an escape sequence, a line break or a NUL cannot repaint the terminal or fake a line."""
    path = tmp_path / "s.json"
    path.write_text(json.dumps({
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
        "spec": {"driver": "gpu.example.com", "nodeName": "n1", "pool": {"name": "p", "generation": 1,
                                                                         "resourceSliceCount": 1},
                 "devices": [{"name": "evil\x1b[2J\nFAKE: line\x00"}]}}))
    assert cli.main(["eval", "true", "--slices", str(path)]) == 0
    assert capsys.readouterr().out == ("n1\n  gpu.example.com (pool p): 1 of 1 match\n"
                                       "    match     evil\\x1b[2J\\nFAKE: line\\x00\n"
                                       "1 devices: 1 match, 0 no match, 0 errors\n")


def test_the_draft_include_spelling_is_evaluated_with_a_note_that_kubernetes_refuses_it(
        slices: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["eval", INCLUDES_4.replace(".includes(", ".include("), "--slices", slices]) == 1
    out, err = capsys.readouterr()
    assert "    match     nic-6\n" in out
    assert err == ("draguard: note: include() is the KEP-5491 draft spelling; Kubernetes only declares includes(), so "
                   "the API server rejects this selector (undeclared reference to 'include'); write includes()\n")
    assert cli.main(["eval", INCLUDES_4, "--slices", slices]) == 1
    assert capsys.readouterr().err == ""
