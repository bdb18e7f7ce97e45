"""`draguard explain` on malformed claims, classes and class files: one line naming the object and the field
path on stderr and exit 2, never an answer built on a field it dropped or misread."""

from __future__ import annotations

from pathlib import Path

import pytest

from webhook import cli

Capsys = pytest.CaptureFixture[str]

SLICES = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: gpus}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
  - name: gpu-1
"""

CLASSES = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: device.driver == "gpu.example.com"}
"""

HEAD = "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: 'n'}\nspec:\n  devices:\n"


@pytest.fixture
def inputs(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "slices.yaml").write_text(SLICES)
    (tmp_path / "classes.yaml").write_text(CLASSES)
    return tmp_path / "slices.yaml", tmp_path / "classes.yaml"


def explain(capsys: Capsys, inputs: tuple[Path, Path], devices: str) -> tuple[int, str, str]:
    claim = inputs[0].parent / "claim.yaml"
    claim.write_text(HEAD + devices)
    code = cli.main(["explain", str(claim), "--slices", str(inputs[0]), "--classes", str(inputs[1])])
    out, err = capsys.readouterr()
    return code, out, err.replace(str(claim), "claim.yaml")


def test_a_well_formed_claim_fits(capsys: Capsys, inputs: tuple[Path, Path]) -> None:
    devices = "    requests:\n    - name: a\n      exactly: {deviceClassName: gpu, count: 2}\n"
    code, out, err = explain(capsys, inputs, devices)
    assert (code, err) == (0, "")
    assert out.splitlines()[1] == "  node n1: fits"


@pytest.mark.parametrize(("selectors", "problem"), [
    ('{cel: {expression: "false"}}', "must be a list, not a mapping"),
    ('"false"', "must be a list, not a string"),
])
def test_request_selectors_that_are_not_a_list_are_refused(capsys: Capsys, inputs: tuple[Path, Path],
                                                           selectors: str, problem: str) -> None:
    devices = ("    requests:\n    - name: a\n      exactly:\n        deviceClassName: gpu\n"
               f"        selectors: {selectors}\n")
    assert explain(capsys, inputs, devices) == (
        2, "", f"draguard: error: claim.yaml:10:20: ResourceClaim c: spec.devices.requests[0].exactly.selectors "
               f"{problem}\n")


def test_a_v1beta1_request_is_checked_on_the_request_itself(capsys: Capsys, inputs: tuple[Path, Path]) -> None:
    devices = ("    requests:\n    - name: a\n      deviceClassName: gpu\n"
               "      selectors: {cel: {expression: 'false'}}\n")
    assert explain(capsys, inputs, devices) == (
        2, "", "draguard: error: claim.yaml:9:18: ResourceClaim c: spec.devices.requests[0].selectors must be a list, "
               "not a mapping\n")


@pytest.mark.parametrize(("request_", "problem"), [
    ("null", "requests[0] must be a mapping, not a null value"),
    ("5", "requests[0] must be a mapping, not a number"),
    ("{exactly: {deviceClassName: gpu}}", "requests[0].name is required (a string)"),
    ("{name: '', exactly: {deviceClassName: gpu}}", "requests[0].name is required (a string)"),
    ("{name: a, exactly: 5}", "requests[0].exactly must be a mapping, not a number"),
    ("{name: a, exactly: {deviceClassName: 5}}", "requests[0].exactly.deviceClassName must be a string, not a number"),
    ("{name: a, exactly: {deviceClassName: gpu, selectors: [null]}}",
     "requests[0].exactly.selectors[0] must be a mapping, not a null value"),
    ("{name: a, exactly: {deviceClassName: gpu, selectors: [{cel: null}]}}",
     "requests[0].exactly.selectors[0].cel is required (a mapping)"),
    ("{name: a, exactly: {deviceClassName: gpu, selectors: [{cel: {expression: 5}}]}}",
     "requests[0].exactly.selectors[0].cel.expression must be a string, not a number"),
    ("{name: a, exactly: {deviceClassName: gpu, selectors: [{cel: {expression: ''}}]}}",
     "requests[0].exactly.selectors[0].cel.expression is required (a string)"),
    ("{name: a, exactly: {deviceClassName: gpu, allocationMode: [All]}}",
     "requests[0].exactly.allocationMode must be a string, not a list"),
    ("{name: a, exactly: {deviceClassName: gpu, count: '2'}}",
     "requests[0].exactly.count must be an integer, not a string"),
    ("{name: a, exactly: {deviceClassName: gpu, count: true}}",
     "requests[0].exactly.count must be an integer, not a boolean"),
    ("{name: a, exactly: {deviceClassName: gpu, count: 1.5}}", "requests[0].exactly.count must be an integer, not 1.5"),
    ("{name: a, exactly: {deviceClassName: gpu, capacity: {requests: [1]}}}",
     "requests[0].exactly.capacity.requests must be a mapping, not a list"),
    ("{name: a, firstAvailable: [null]}", "requests[0].firstAvailable[0] must be a mapping, not a null value"),
    ("{name: a, firstAvailable: {deviceClassName: gpu}}", "requests[0].firstAvailable must be a list, not a mapping"),
    ("{name: a, firstAvailable: [{deviceClassName: gpu}]}",
     "requests[0].firstAvailable[0].name is required (a string)"),
])
def test_a_malformed_request_names_its_field(capsys: Capsys, inputs: tuple[Path, Path], request_: str,
                                             problem: str) -> None:
    code, out, err = explain(capsys, inputs, f"    requests: [{request_}]\n")
    assert (code, out) == (2, "")
    assert err.startswith("draguard: error: claim.yaml:6:")
    assert err.endswith(f": ResourceClaim c: spec.devices.{problem}\n")


def test_two_requests_with_one_name_are_refused(capsys: Capsys, inputs: tuple[Path, Path]) -> None:
    devices = ("    requests:\n    - name: a\n      exactly: {deviceClassName: gpu}\n"
               "    - name: a\n      exactly: {deviceClassName: gpu}\n")
    assert explain(capsys, inputs, devices) == (
        2, "", "draguard: error: claim.yaml:9:13: ResourceClaim c: spec.devices.requests[1].name must be unique: "
               "spec.devices.requests[0] is also named 'a'\n")


def test_two_subrequests_with_one_name_are_refused(capsys: Capsys, inputs: tuple[Path, Path]) -> None:
    devices = ("    requests:\n    - name: a\n      firstAvailable:\n      - {name: x, deviceClassName: gpu}\n"
               "      - {name: x, deviceClassName: gpu}\n")
    assert explain(capsys, inputs, devices) == (
        2, "", "draguard: error: claim.yaml:10:16: ResourceClaim c: spec.devices.requests[0].firstAvailable[1].name "
               "must be unique: spec.devices.requests[0].firstAvailable[0] is also named 'x'\n")


@pytest.mark.parametrize(("constraint", "problem"), [
    ("{matchAttribute: 5}", "constraints[0].matchAttribute must be a string, not a number"),
    ("{distinctAttribute: [a]}", "constraints[0].distinctAttribute must be a string, not a list"),
    ("{matchAttribute: a.b/c, requests: a}", "constraints[0].requests must be a list, not a string"),
    ("{matchAttribute: a.b/c, requests: [null]}", "constraints[0].requests[0] must be a string, not a null value"),
    ("null", "constraints[0] must be a mapping, not a null value"),
])
def test_a_malformed_constraint_names_its_field(capsys: Capsys, inputs: tuple[Path, Path], constraint: str,
                                                problem: str) -> None:
    devices = f"    requests: [{{name: a, exactly: {{deviceClassName: gpu}}}}]\n    constraints: [{constraint}]\n"
    code, out, err = explain(capsys, inputs, devices)
    assert (code, out) == (2, "")
    assert err.startswith("draguard: error: claim.yaml:7:")
    assert err.endswith(f": ResourceClaim c: spec.devices.{problem}\n")


def test_a_template_is_checked_under_spec_spec(capsys: Capsys, inputs: tuple[Path, Path]) -> None:
    claim = inputs[0].parent / "template.yaml"
    claim.write_text("apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: t}\nspec:\n"
                     "  spec:\n    devices:\n      requests: [5]\n")
    assert cli.main(["explain", str(claim), "--slices", str(inputs[0]), "--classes", str(inputs[1])]) == 2
    assert capsys.readouterr().err == (
        f"draguard: error: {claim}:7:18: ResourceClaimTemplate t: spec.spec.devices.requests[0] must be a mapping, "
        "not a number\n")


@pytest.mark.parametrize(("selectors", "problem"), [
    ("[null]", "4:15: DeviceClass gpu: spec.selectors[0] must be a mapping, not a null value"),
    ("[{cel: {expression: 5}}]",
     "4:34: DeviceClass gpu: spec.selectors[0].cel.expression must be a string, not a number"),
])
def test_a_malformed_class_selector_is_refused(capsys: Capsys, inputs: tuple[Path, Path], selectors: str,
                                               problem: str) -> None:
    inputs[1].write_text(f"kind: DeviceClass\nmetadata: {{name: gpu}}\nspec:\n  selectors: {selectors}\n")
    code, out, err = explain(capsys, inputs, "    requests: [{name: a, exactly: {deviceClassName: gpu}}]\n")
    assert (code, out) == (2, "")
    assert err == f"draguard: error: {inputs[1]}:{problem}\n"


def test_a_class_without_a_name_is_refused(capsys: Capsys, inputs: tuple[Path, Path]) -> None:
    inputs[1].write_text("kind: DeviceClass\nmetadata: {name: null}\nspec: {}\n")
    code, _, err = explain(capsys, inputs, "    requests: [{name: a, exactly: {deviceClassName: gpu}}]\n")
    assert code == 2
    assert err == f"draguard: error: {inputs[1]}:2:18: DeviceClass <unnamed>: metadata.name is required (a string)\n"


@pytest.mark.parametrize("text", ["", "kind: ResourceSlice\nmetadata: {name: s}\nspec: {driver: d}\n"])
def test_a_classes_file_without_a_class_is_refused(capsys: Capsys, inputs: tuple[Path, Path], text: str) -> None:
    inputs[1].write_text(text)
    code, out, err = explain(capsys, inputs, "    requests: [{name: a, exactly: {deviceClassName: gpu}}]\n")
    assert (code, out, err) == (2, "", f"draguard: error: no DeviceClass in {inputs[1]}\n")


def test_classes_found_in_any_classes_file_are_enough(capsys: Capsys, inputs: tuple[Path, Path]) -> None:
    """Like --slices: the files given together must hold some class, not each of them."""
    claim = inputs[0].parent / "claim.yaml"
    claim.write_text(HEAD + "    requests: [{name: a, exactly: {deviceClassName: gpu}}]\n")
    empty = inputs[0].parent / "empty.yaml"
    empty.write_text("")
    argv = ["explain", str(claim), "--slices", str(inputs[0]), "--classes", str(empty), "--classes", str(inputs[1])]
    assert cli.main(argv) == 0
    assert capsys.readouterr().err == ""


def test_a_node_with_malformed_labels_is_refused(capsys: Capsys, inputs: tuple[Path, Path]) -> None:
    inputs[0].write_text(SLICES + "---\nkind: Node\nmetadata:\n  name: n1\n  labels: [a]\n")
    code, _, err = explain(capsys, inputs, "    requests: [{name: a, exactly: {deviceClassName: gpu}}]\n")
    assert code == 2
    assert err == f"draguard: error: {inputs[0]}:15:11: Node n1: metadata.labels must be a mapping, not a list\n"
