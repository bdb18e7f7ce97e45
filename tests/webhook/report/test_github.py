"""The GitHub Actions reporter: workflow commands with escaped values."""

from __future__ import annotations

from pathlib import Path

import pytest

from webhook.fieldpath import FieldPath
from webhook.findings import Action, Finding, Position
from webhook.report import Summary, render


def test_annotation_lines_escape_their_values() -> None:
    findings = [
        Finding(FieldPath.root("spec"), "100% bad,\nreally", hint="h").stamped(
            "r", Action.WARN, Position("d,1/a:b.yaml", 2, 3, 2, 9)),
        Finding(FieldPath.root("spec"), "m").stamped("q", Action.AUDIT, None),
    ]
    assert render("github", findings, Summary(objects=1)).splitlines() == [
        "::warning file=d%2C1/a%3Ab.yaml,line=2,col=3,endColumn=9,title=r::spec: 100%25 bad,%0Areally%0Ahelp: h",
        "::notice title=q::spec: m",
        "::notice title=draguard::1 object checked; 0 deny, 1 warning, 1 audit",
    ]


def test_file_is_relative_to_the_workspace_the_runner_reads_it_against(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "deploy").mkdir()
    monkeypatch.chdir(tmp_path / "deploy")  # a step's working-directory below the repository
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    findings = [Finding(FieldPath.root("spec"), "m").stamped("r", Action.DENY, Position(file, 2, 3))
                for file in ("a.yaml", "../b.yaml", "/elsewhere/c.yaml")]
    assert [line.split(",")[0] for line in render("github", findings, Summary()).splitlines()[:3]] == [
        "::error file=deploy/a.yaml", "::error file=b.yaml", "::error file=/elsewhere/c.yaml"]
    monkeypatch.delenv("GITHUB_WORKSPACE")
    assert render("github", findings[:1], Summary()).startswith("::error file=a.yaml,")


def test_a_file_name_that_is_not_utf8_is_spelled_visibly() -> None:
    finding = Finding(FieldPath.root("spec"), "m").stamped("r", Action.WARN, Position("bytes \udcff.yaml", 1, 1))
    assert render("github", [finding], Summary()).encode("utf-8").startswith(
        b"::warning file=bytes \\udcff.yaml,line=1,col=1,")
