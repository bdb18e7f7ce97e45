"""`draguard lint`, run in-process as a user runs it: exact stdout, stderr and exit code.

Golden cases live in tests/golden/lint/<case>/ (input.yaml, optional `args` one per line, expected.txt
= `exit: N` then stdout); DRAGUARD_UPDATE_GOLDEN=1 rewrites expected.txt for a reviewed diff.
"""

from __future__ import annotations

import io
import json
import os
import shutil
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from tests.conftest import REPO
from webhook import cli

GOLDEN = REPO / "tests" / "golden" / "lint"
SCHEMA = REPO / "tests" / "webhook" / "report" / "sarif-schema-2.1.0.json"
CASES = sorted(p.name for p in GOLDEN.iterdir() if (p / "input.yaml").is_file())

FRAGILE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: c  # keep me
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        selectors:
        - cel:
            expression: device.attributes["gpu.example.com"].model == "A100"    # model check
        - cel:
            expression: "device.attributes[\\"gpu.example.com\\"].family != 'ampere'"
        - cel:
            expression: |
              device.attributes["gpu.example.com"].rdma &&
                device.attributes["gpu.example.com"].index in [0, 1]
        - cel:
            expression: 'device.attributes["gpu.example.com"].series.include(''x'')'
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(["lint", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def golden(case: str, actual: str) -> str:
    path = GOLDEN / case / "expected.txt"
    if os.environ.get("DRAGUARD_UPDATE_GOLDEN") == "1":
        path.write_text(actual, encoding="utf-8")
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("case", CASES)
def test_golden(case: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(GOLDEN / case)
    args_file = GOLDEN / case / "args"
    args = args_file.read_text(encoding="utf-8").split() if args_file.exists() else ["input.yaml"]
    code, out, err = run(capsys, *args)
    assert err == ""
    actual = f"exit: {code}\n{out}"
    assert actual == golden(case, actual)


def test_every_selector_rule_has_a_golden_case() -> None:
    from webhook.rules.selectors import RULES

    assert {r.id for r in RULES} <= set(CASES)


# -- formats -----------------------------------------------------------------------------------------


def _fragile_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "claims" / "gpu.yaml"
    path.parent.mkdir()
    path.write_text(FRAGILE, encoding="utf-8")
    return path


def test_sarif_validates_against_the_official_schema(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    _fragile_file(tmp_path, monkeypatch)
    code, out, err = run(capsys, "claims", "--format", "sarif")
    assert (code, err) == (1, "")
    log = json.loads(out)
    jsonschema.validate(log, json.loads(SCHEMA.read_text(encoding="utf-8")))
    (run_,) = log["runs"]
    first = run_["results"][0]
    assert first["ruleId"] == "list-fragile-compare"
    assert first["level"] == "warning"
    assert first["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "claims/gpu.yaml", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 13, "startColumn": 68, "endLine": 13, "endColumn": 70},
    }
    rules = {r["id"]: r for r in run_["tool"]["driver"]["rules"]}
    assert rules["selector-includes-spelling"]["defaultConfiguration"] == {"level": "warning"}
    assert all(r["ruleIndex"] == list(rules).index(r["ruleId"]) for r in run_["results"])


def test_clean_sarif_still_has_results(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    monkeypatch.chdir(GOLDEN / "clean")
    code, out, _ = run(capsys, "input.yaml", "--format", "sarif")
    log = json.loads(out)
    jsonschema.validate(log, json.loads(SCHEMA.read_text(encoding="utf-8")))
    assert (code, log["runs"][0]["results"]) == (0, [])


def test_several_formats_at_once_to_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    _fragile_file(tmp_path, monkeypatch)
    code, out, err = run(capsys, "claims", "--format", "github", "--format", "junit=report.xml",
                         "--format", "json=report.json")
    assert (code, err) == (1, "")
    lines = out.splitlines()
    assert lines[0].startswith("::warning file=claims/gpu.yaml,line=13,col=68,endColumn=70,"
                               "title=list-fragile-compare::spec.devices.requests[0].exactly.selectors[0]"
                               ".cel.expression: `==` on gpu.example.com/model is silently false")
    assert lines[-1] == "::notice title=draguard::1 object checked; 0 deny, 5 warnings, 0 audit"
    suites = ET.parse(tmp_path / "report.xml").getroot()
    assert (suites.get("tests"), suites.get("failures")) == ("5", "5")
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["summary"]["warn"] == 5


# -- --fix and --diff --------------------------------------------------------------------------------


def test_fix_round_trip_changes_only_the_rewritten_expressions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = _fragile_file(tmp_path, monkeypatch)
    code, out, err = run(capsys, "--fix", str(path))
    fixed = path.read_text(encoding="utf-8")
    assert fixed == FRAGILE.replace(
        '.model == "A100"    #', '.model.includes("A100")    #').replace(
        "device.attributes[\\\"gpu.example.com\\\"].family != 'ampere'",
        "!device.attributes[\\\"gpu.example.com\\\"].family.includes('ampere')").replace(
        '"].rdma &&', '"].rdma.includes(true) &&').replace(
        'device.attributes["gpu.example.com"].index in [0, 1]',
        '[0, 1].exists(v, device.attributes["gpu.example.com"].index.includes(v))').replace(
        ".include(''x'')", ".includes(''x'')")
    assert err.splitlines() == [f"draguard: fixed {path}:{line}" for line in (
        '13:25: device.attributes["gpu.example.com"].model == "A100" → '
        'device.attributes["gpu.example.com"].model.includes("A100")',
        "15:26: device.attributes[\"gpu.example.com\"].family != 'ampere' → "
        "!device.attributes[\"gpu.example.com\"].family.includes('ampere')",
        '18:56: device.attributes["gpu.example.com"].rdma → device.attributes["gpu.example.com"].rdma.includes(true)',
        '19:17: device.attributes["gpu.example.com"].index in [0, 1] → '
        '[0, 1].exists(v, device.attributes["gpu.example.com"].index.includes(v))',
        "21:70: include → includes",
    )]
    assert (code, out) == (0, "1 object checked; 0 deny, 0 warnings, 0 audit\n")
    assert run(capsys, str(path)) == (0, out, "")
    assert run(capsys, "--diff", str(path)) == (0, "", "")


def test_diff_shows_the_fix_and_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = _fragile_file(tmp_path, monkeypatch)
    code, out, err = run(capsys, "--diff", "claims/gpu.yaml")
    assert (code, err) == (1, "")
    assert path.read_text(encoding="utf-8") == FRAGILE
    assert out.startswith("--- a/claims/gpu.yaml\n+++ b/claims/gpu.yaml\n")
    assert '-            expression: device.attributes["gpu.example.com"].model == "A100"    # model check\n' in out
    fixed = '.model.includes("A100")    # model check\n'
    assert '+            expression: device.attributes["gpu.example.com"]' + fixed in out


PLAIN_LEADING = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel:
      expression: device.attributes["gpu.example.com"].family != "ampere"
  - cel:
      expression: device.attributes["gpu.example.com"].index in [0, 1] && device.attributes["gpu.example.com"].ok
"""


def test_fix_of_a_plain_scalar_that_would_begin_with_an_indicator(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """`!x...` would be a YAML tag and `[0, 1]...` a flow sequence: the rewrite is parenthesised instead."""
    monkeypatch.chdir(tmp_path)
    Path("class.yaml").write_text(PLAIN_LEADING, encoding="utf-8")
    assert run(capsys, "--fix", "class.yaml") == (0, "1 object checked; 0 deny, 0 warnings, 0 audit\n", (
        'draguard: fixed class.yaml:7:19: device.attributes["gpu.example.com"].family != "ampere" → '
        '(!device.attributes["gpu.example.com"].family.includes("ampere"))\n'
        'draguard: fixed class.yaml:9:19: device.attributes["gpu.example.com"].index in [0, 1] → '
        '([0, 1].exists(v, device.attributes["gpu.example.com"].index.includes(v)))\n'
        'draguard: fixed class.yaml:9:114: device.attributes["gpu.example.com"].ok → '
        'device.attributes["gpu.example.com"].ok.includes(true)\n'))
    assert Path("class.yaml").read_text(encoding="utf-8") == PLAIN_LEADING.replace(
        'device.attributes["gpu.example.com"].family != "ampere"',
        '(!device.attributes["gpu.example.com"].family.includes("ampere"))').replace(
        'device.attributes["gpu.example.com"].index in [0, 1] && device.attributes["gpu.example.com"].ok',
        '([0, 1].exists(v, device.attributes["gpu.example.com"].index.includes(v))) && '
        'device.attributes["gpu.example.com"].ok.includes(true)')


def test_fix_keeps_crlf_line_breaks(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("class.yaml").write_bytes(PLAIN_LEADING.replace("\n", "\r\n").encode())
    assert run(capsys, "--fix", "class.yaml")[0] == 0
    fixed = Path("class.yaml").read_bytes()
    assert fixed.count(b"\r\n") == fixed.count(b"\n") == PLAIN_LEADING.count("\n")
    assert b"(!device.attributes" in fixed


QUOTED_AND_BLOCK = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel:
      expression: 'device.attributes["gpu.example.com"].family != "ampere"'
  - cel:
      expression: "device.attributes[\\"gpu.example.com\\"].index == 1"
  - cel:
      expression: |
        device.driver == "gpu.example.com" &&
        device.attributes["gpu.example.com"].ok
"""


@pytest.mark.parametrize("line_break", ["\n", "\r\n"])
def test_a_byte_order_mark_moves_no_place_and_fix_keeps_it(line_break: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """libyaml's marks do not count a leading BOM: findings inside quoted and block scalars were one character off
    (placed at the scalar's start) and --fix skipped them as unmappable."""
    monkeypatch.chdir(tmp_path)
    Path("plain.yaml").write_text(QUOTED_AND_BLOCK, encoding="utf-8")
    Path("bom.yaml").write_bytes(b"\xef\xbb\xbf" + QUOTED_AND_BLOCK.replace("\n", line_break).encode())
    plain = run(capsys, "plain.yaml")
    assert [line.split(": warn")[0] for line in plain[1].splitlines() if ": warn " in line] == [
        "plain.yaml:7:64", "plain.yaml:9:65", "plain.yaml:13:9"]  # inside the quoted and block scalars
    assert run(capsys, "bom.yaml") == (plain[0], plain[1].replace("plain.yaml", "bom.yaml"), plain[2])
    assert run(capsys, "--fix", "bom.yaml")[0] == 0
    fixed = Path("bom.yaml").read_bytes()
    assert fixed.startswith(b"\xef\xbb\xbf") and not fixed.startswith(b"\xef\xbb\xbf" * 2)
    assert fixed.count(line_break.encode()) == QUOTED_AND_BLOCK.count("\n")
    assert fixed.count(b".includes(") == 3


def test_fix_leaves_a_file_with_mixed_line_breaks_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    original = PLAIN_LEADING.replace("\n", "\r\n", 1).encode()
    Path("class.yaml").write_bytes(original)
    code, out, err = run(capsys, "--fix", "class.yaml")
    assert Path("class.yaml").read_bytes() == original
    assert code == 2
    assert err == ("draguard: class.yaml: not fixed: the file mixes line break styles; fix it by hand or normalise "
                   "its line breaks first\n")
    assert out.endswith("1 object checked; 0 deny, 3 warnings, 0 audit; 1 input problem\n")


def test_diff_reports_what_it_cannot_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    # A tag and an anchor: scalars whose spelling the fixer does not map (it never guesses).
    tagged = PLAIN_LEADING.replace("expression: device", "expression: !!str device", 1)
    Path("class.yaml").write_text(tagged.replace("expression: device", "expression: &e device", 1), encoding="utf-8")
    code, out, err = run(capsys, "--diff", "class.yaml")
    assert (code, out) == (0, "")
    assert err == "".join(
        f"draguard: class.yaml: spec.selectors[{i}].cel.expression: not fixed: its YAML spelling could not be "
        f"mapped\n" for i in (0, 1))


# -- exit codes, configuration, inputs ----------------------------------------------------------------


@pytest.mark.parametrize(("fail_on", "code"), [("deny", 0), ("warn", 1), ("audit", 1)])
def test_fail_on(fail_on: str, code: int, capsys: pytest.CaptureFixture[str],
                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(GOLDEN / "selector-vendor-numa")
    assert run(capsys, "input.yaml", "--fail-on", fail_on)[0] == code


def test_audit_alone_fails_only_with_fail_on_audit(capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(GOLDEN / "selector-numa-pinned")
    assert run(capsys, "input.yaml")[0] == 0
    assert run(capsys, "input.yaml", "--fail-on", "audit")[0] == 1


def test_config_is_found_walking_up_and_sets_actions_and_ignores(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / ".draguard.yaml").write_text(
        "rules:\n  list-fragile-compare: deny\nignore: [vendor/*]\n", encoding="utf-8")
    (tmp_path / "repo" / "vendor").mkdir(parents=True)
    shutil.copy(GOLDEN / "suppressed" / "input.yaml", tmp_path / "repo" / "vendor" / "x.yaml")
    work = tmp_path / "repo" / "deep"
    work.mkdir()
    (work / "c.yaml").write_text(FRAGILE, encoding="utf-8")
    monkeypatch.chdir(work)
    code, out, _ = run(capsys, "c.yaml", "../vendor", "--format", "json")
    report = json.loads(out)
    assert code == 1
    assert {f["action"] for f in report["findings"] if f["rule"] == "list-fragile-compare"} == {"deny"}
    assert all(f["file"] == "c.yaml" for f in report["findings"])


def test_bad_config_is_one_line_and_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / ".draguard.yaml").write_text("rules:\n  no-such-rule: deny\n", encoding="utf-8")
    (tmp_path / "c.yaml").write_text(FRAGILE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "c.yaml")
    assert (code, out) == (2, "")
    assert err.startswith("draguard: error: policy ") and "unknown rule id 'no-such-rule'" in err
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["missing.yaml"], "draguard: missing.yaml: no such file or directory\n"),
        (["c.yaml", "--format", "xml"], "draguard: error: --format xml: unknown format 'xml'; use one of github, "
                                        "json, junit, sarif, text\n"),
        (["-", "--fix"], "draguard: error: --fix and --diff need files, not stdin\n"),
        (["c.yaml", "--diff", "--format", "sarif=x.sarif"],
         "draguard: error: --diff prints only the diff; run without --diff for --format reports\n"),
    ],
)
def test_usage_and_input_errors_exit_2(argv: list[str], message: str, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.yaml").write_text(FRAGILE, encoding="utf-8")
    code, _out, err = run(capsys, *argv)
    assert (code, err) == (2, message)


def test_invalid_yaml_is_reported_with_its_position(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.yaml").write_text("kind: DeviceClass\nspec: [\n", encoding="utf-8")
    code, out, err = run(capsys, "bad.yaml")
    assert code == 2
    assert err.startswith("draguard: bad.yaml:3:1: invalid YAML: ")
    assert out.endswith("0 objects checked; 0 deny, 0 warnings, 0 audit; 1 input problem\n")


def test_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(FRAGILE))
    code, out, _ = run(capsys, "-")
    assert code == 1
    assert out.startswith("<stdin>:13:68: warn list-fragile-compare: ")


def test_list_dumps_and_json_files_point_into_the_right_item(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "list.yaml").write_text(
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: resource.k8s.io/v1\n  kind: DeviceClass\n"
        "  metadata: {name: ok}\n- apiVersion: resource.k8s.io/v1\n  kind: DeviceClass\n  metadata: {name: bad}\n"
        "  spec:\n    selectors:\n    - cel: {expression: 'device.attributes[\"a.io\"].m == \"x\"'}\n",
        encoding="utf-8")
    (tmp_path / "c.json").write_text(
        '{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "j"},\n'
        ' "spec": {"selectors": [{"cel": {"expression": "device.attributes[\\"a.io\\"].m != \\"x\\""}}]}}\n',
        encoding="utf-8")
    code, out, _ = run(capsys, "list.yaml", "c.json")
    lines = [line for line in out.splitlines() if "list-fragile-compare" in line]
    assert code == 1
    assert lines[0].startswith("c.json:2:79: warn list-fragile-compare: spec.selectors[0].cel.expression: `!=`")
    assert lines[1].startswith("list.yaml:12:54: warn list-fragile-compare: spec.selectors[0].cel.expression: `==`")


def test_findings_in_tagged_and_anchored_scalars_point_at_the_token(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """ruamel places such a value at its first property (`&e`, `!!str`); the finding belongs on the operator
    after them, also when a comment or a line break follows the properties. An alias's finding is where the
    anchored scalar spells the token. (--fix still leaves these scalars alone.)"""
    monkeypatch.chdir(tmp_path)
    Path("class.yaml").write_text("""\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: tagged
spec:
  selectors:
  - cel:
      expression: !!str device.attributes["gpu.example.com"].model == "a100"
  - cel:
      expression: &e 'device.attributes["gpu.example.com"].count == 8'
  - cel:
      expression: &f !!str # the family
        "device.attributes[\\"gpu.example.com\\"].family == 'x'"
  - cel:
      expression: *e
  - cel:
      expression: !!str |
        device.attributes["gpu.example.com"].ok
""", encoding="utf-8")
    code, out, _ = run(capsys, "--format", "json", "class.yaml")
    assert code == 1
    assert [(f["path"], f["line"], f["column"]) for f in json.loads(out)["findings"]] == [
        ("spec.selectors[0].cel.expression", 8, 68),
        ("spec.selectors[1].cel.expression", 10, 66),
        ("spec.selectors[3].cel.expression", 10, 66),
        ("spec.selectors[2].cel.expression", 13, 56),
        ("spec.selectors[4].cel.expression", 18, 9),
    ]
