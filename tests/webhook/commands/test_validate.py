"""`draguard validate`, run in-process as a user runs it: exact stdout, stderr and exit code.

Golden cases live in tests/golden/validate/<case>/ (input.yaml, expected stdout per format);
DRAGUARD_UPDATE_GOLDEN=1 rewrites the expected files for a reviewed diff.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pytest

from tests.builders import slice_with
from tests.conftest import REPO
from webhook import cli

GOLDEN = REPO / "tests" / "golden" / "validate"
NOTHING = ("draguard: note: nothing was checked: no ResourceSlice, ResourceClaim, ResourceClaimTemplate or DeviceClass "
           "in the inputs (--strict makes this fail)\n")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(["validate", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def golden(case: str, name: str, actual: str) -> str:
    path = GOLDEN / case / name
    if os.environ.get("DRAGUARD_UPDATE_GOLDEN") == "1":
        path.write_text(actual, encoding="utf-8")
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize(("case", "code"), [("mixed", 1), ("clean", 0)])
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_golden(case: str, code: int, fmt: str, capsys: pytest.CaptureFixture[str],
                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(GOLDEN / case)
    actual = run(capsys, "input.yaml", "--format", fmt)
    assert actual == (code, golden(case, f"expected.{fmt}", actual[1]), "")


def test_unquoted_pci_address_stays_a_string(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("""\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  nodeName: "n"
  pool: {name: "n", resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes:
      resource.kubernetes.io/pciBusID: {string: 0000:00:05.0}
""", encoding="utf-8")
    assert run(capsys, str(path)) == (0, "1 object checked; 0 deny, 0 warnings, 0 audit\n", "")


@pytest.mark.parametrize("kind", ["ResourceClaim", "ResourceClaimTemplate", "DeviceClass"])
def test_a_claim_side_object_of_a_version_the_server_does_not_serve_is_denied(
        kind: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """kubectl refuses it (`no matches for kind ...`): validate does not pass what it cannot check."""
    path = tmp_path / "old.yaml"
    path.write_text(f"apiVersion: resource.k8s.io/v1alpha3\nkind: {kind}\nmetadata: {{name: x}}\nspec: {{}}\n",
                    encoding="utf-8")
    assert run(capsys, str(path)) == (
        1, f'{path}:1:13: deny k8s-api-version: apiVersion: no matches for kind "{kind}" in version '
           '"resource.k8s.io/v1alpha3"\n'
           "  help: use `apiVersion: resource.k8s.io/v1` (v1alpha2 and v1alpha3 are no longer served)\n"
           "1 object checked; 1 deny, 0 warnings, 0 audit\n", "")


def test_stdin_and_json(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(slice_with(numa=-1))))
    code, out, err = run(capsys, "-")
    assert (code, err) == (1, "")
    assert re.fullmatch(r"<stdin>:1:\d+", out.split(": ")[0])
    assert out.splitlines()[0].split(": ", 1)[1] == (
        "deny numa-node-range: spec.devices[0].attributes[resource.kubernetes.io/numaNode].int: "
        "numaNode -1 is negative")


def test_input_problems_are_one_line_each_and_exit_2_after_the_rest(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "broken.yaml").write_text("kind: [\n", encoding="utf-8")
    (tmp_path / "scalar.yaml").write_text("just text\n", encoding="utf-8")
    (tmp_path / "good.yaml").write_text(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: d.io\n"
        "  nodeName: 'n'\n  pool: {name: 'n', resourceSliceCount: 1}\n  devices:\n  - name: a\n    attributes:\n"
        "      resource.kubernetes.io/numaNode: {int: -1}\n", encoding="utf-8")
    missing = tmp_path / "missing.yaml"
    code, out, err = run(capsys, str(tmp_path), str(missing))
    assert code == 2
    assert out.splitlines()[-1] == "1 object checked; 1 deny, 0 warnings, 0 audit; 3 input problems"
    assert err.splitlines() == [
        f"draguard: {tmp_path / 'broken.yaml'}:2:1: invalid YAML: expected the node content, but found '<stream end>'",
        f"draguard: {missing}: no such file or directory",
        f"draguard: {tmp_path / 'scalar.yaml'}: document 1 is a string, not an object",
    ]


def test_wrong_types_everywhere_are_findings_not_tracebacks(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "weird.yaml"
    path.write_text(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: 7\nspec:\n  driver: [x]\n  pool: 3\n"
        "  nodeName: {a: b}\n  devices:\n  - 5\n  - name: {x: 1}\n    attributes: [1]\n    capacity: {c: 7}\n"
        "  sharedCounters: x\n", encoding="utf-8")
    code, out, err = run(capsys, str(path))
    assert (code, err) == (1, "")
    rules = {line.split(": ")[1].split()[1] for line in out.splitlines()[:-1] if not line.startswith("  help")}
    assert rules == {"k8s-wire-type", "k8s-object-meta", "k8s-driver", "k8s-pool", "k8s-node-selection",
                     "k8s-device-name"}


def test_policy_and_list_types_flags(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import json

    path = tmp_path / "s.json"
    path.write_text(json.dumps(slice_with(numa=[0, 1])), encoding="utf-8")
    assert run(capsys, str(path))[0] == 0
    code, out, _ = run(capsys, str(path), "--list-types", "disabled")
    assert code == 1
    assert out.splitlines()[0].endswith(
        "deny k8s-attribute-union: spec.devices[0].attributes[resource.kubernetes.io/numaNode]: "
        'Invalid value: "": must specify one of: `int`, `bool`, `string`, `version`, `ints`, `bools`, `strings`, '
        "`versions`")
    policy = tmp_path / "policy.yaml"
    policy.write_text("numaNode: {listForm: warn}\n", encoding="utf-8")
    code, out, _ = run(capsys, str(path), "--policy", str(policy))
    assert code == 1  # --fail-on warn, as lint
    assert " warn numa-node-list-form: " in out
    assert run(capsys, str(path), "--config", str(policy), "--fail-on", "deny") == (0, out, "")


def test_bad_policy_is_a_usage_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text("rules: {nope: deny}\n", encoding="utf-8")
    assert run(capsys, "x.yaml", "--policy", str(policy)) == (
        2, "", f"draguard: error: policy {policy}: rules: unknown rule id 'nope' (see `draguard rules`)\n")


def test_ignore_globs_skip_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import json

    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "s.json").write_text(json.dumps(slice_with(numa=-1)), encoding="utf-8")
    policy = tmp_path / "policy.yaml"
    policy.write_text("ignore: ['*/vendor/*']\n", encoding="utf-8")
    assert run(capsys, str(tmp_path / "vendor"), "--policy", str(policy)) == (
        0, "0 objects checked; 0 deny, 0 warnings, 0 audit\n", NOTHING)


def test_json_list_findings_point_at_the_item_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import json

    path = tmp_path / "list.json"
    items = [slice_with(name="a"), slice_with(name="b", numa=-1), {"apiVersion": "v1", "kind": "Pod"}]
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=2)
    path.write_text(text, encoding="utf-8")
    code, out, err = run(capsys, str(path))
    line = 1 + text[:text.index('"int": -1')].count("\n")
    column = len(text.splitlines()[line - 1]) - len("-1") + 1
    assert (code, err) == (1, "")
    assert out.splitlines()[0] == (
        f"{path}:{line}:{column}: deny numa-node-range: "
        "spec.devices[0].attributes[resource.kubernetes.io/numaNode].int: numaNode -1 is negative")
    assert out.splitlines()[-1] == "2 objects checked; 1 deny, 0 warnings, 0 audit; skipped 1 (Pod 1)"


def test_json_with_a_duplicate_key_is_an_input_problem(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "dup.json"
    path.write_text('{"kind": "ResourceSlice",\n "kind": "DeviceClass"}\n', encoding="utf-8")
    code, out, err = run(capsys, str(path))
    assert (code, out.splitlines()[-1]) == (2, "0 objects checked; 0 deny, 0 warnings, 0 audit; 1 input problem")
    assert err.startswith(f"draguard: {path}:2:2: invalid YAML: ") and 'duplicate key "kind"' in err


def test_ignored_files_are_not_even_read(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "broken.yaml").write_text("kind: [\n", encoding="utf-8")
    policy = tmp_path / "policy.yaml"
    policy.write_text("ignore: ['*/vendor/*']\n", encoding="utf-8")
    assert run(capsys, str(tmp_path / "vendor"), "--policy", str(policy)) == (
        0, "0 objects checked; 0 deny, 0 warnings, 0 audit\n", NOTHING)
