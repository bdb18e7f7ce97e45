"""The JUnit reporter: one failing test case per deny/warn finding, audit as output, problems as errors."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from webhook.fieldpath import FieldPath
from webhook.findings import Action, Finding, Position
from webhook.report import Summary, render


def test_findings_group_by_file() -> None:
    findings = [
        Finding(FieldPath.root("spec"), "bad", hint="fix it").stamped("r-one", Action.DENY, Position("a.yaml", 2, 3)),
        Finding(FieldPath.root("spec"), "note").stamped("r-two", Action.AUDIT, Position("a.yaml", 4, 1)),
    ]
    root = ET.fromstring(render("junit", findings, Summary(objects=1, problems=["b.yaml: no such file"])))
    assert [root.get(key) for key in ("name", "tests", "failures", "errors")] == ["draguard", "3", "1", "1"]
    suite_a, inputs = root.findall("testsuite")
    cases = suite_a.findall("testcase")
    assert [c.get("name") for c in cases] == ["r-one 2:3", "r-two 4:1"]
    failure = cases[0].find("failure")
    assert failure is not None and (failure.get("type"), failure.text) == ("deny", "spec: bad\nhelp: fix it")
    assert cases[1].find("failure") is None
    assert cases[1].findtext("system-out") == "audit: spec: note"
    assert inputs.find("testcase/error") is not None


def test_a_clean_run_is_one_passing_case() -> None:
    root = ET.fromstring(render("junit", [], Summary(objects=3)))
    (case,) = root.iter("testcase")
    assert case.get("name") == "3 objects checked" and list(case) == []
