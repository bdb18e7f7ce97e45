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


def test_any_message_is_well_formed_xml() -> None:
    """XML 1.0 cannot hold a control character (but tab and line breaks) even as a reference, nor a lone surrogate
    (a file name that is not UTF-8): each is spelled as Go's %q does."""
    message = 'Invalid value: "a\x02\x1b[5m\tb" ]]> <&>\ufffe'
    findings = [Finding(FieldPath.root("spec"), message, hint="h\x00").stamped(
        "r", Action.DENY, Position("bytes \udcff.yaml", 1, 1))]
    root = ET.fromstring(render("junit", findings, Summary(problems=["x\x1b: bad"])).encode("utf-8"))
    (suite, inputs) = root.findall("testsuite")
    assert suite.get("name") == "bytes \\udcff.yaml"
    failure = suite.find("testcase/failure")
    assert failure is not None
    assert failure.get("message") == 'Invalid value: "a\\x02\\x1b[5m\tb" ]]> <&>\\ufffe'
    assert failure.text == 'spec: Invalid value: "a\\x02\\x1b[5m\tb" ]]> <&>\\ufffe\nhelp: h\\x00'
    assert inputs.findtext("testcase/error") == "x\\x1b: bad"
