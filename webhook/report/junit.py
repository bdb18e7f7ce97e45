"""JUnit XML for GitLab, Jenkins and other CI test reports: one test case per finding, grouped by file.

A deny or warn finding is a `<failure>` (type = the action), an audit finding a passing test case with
its message in `<system-out>`, so it is visible without failing the report. A clean run is one passing
test case, so CI shows that the lint ran. Input problems become `<error>` test cases.

Every text is XML 1.0: a character XML cannot hold even as a reference (a control character but tab and line
breaks, U+FFFE/U+FFFF, a file name's byte that is not UTF-8) is written as Go's %q spells it (`\\x02`); ElementTree
escapes the rest (`&`, `<`, `>`, quotes), so `]]>` in a message is harmless.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from xml.etree import ElementTree as ET

from webhook.findings import Action, Finding
from webhook.report import Summary, spell

# Not XML 1.0 `Char`s (https://www.w3.org/TR/xml/#charsets).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _name(finding: Finding) -> str:
    pos = finding.position
    where = f"{pos.line}:{pos.column}" if pos is not None else str(finding.path)
    return f"{finding.rule} {where}"


def render(findings: Sequence[Finding], summary: Summary) -> str:
    suites = ET.Element("testsuites", name="draguard")  # lint's and validate's report alike
    by_file: dict[str, list[Finding]] = {}
    for finding in findings:
        key = finding.position.file if finding.position is not None else "<objects>"
        by_file.setdefault(key, []).append(finding)
    failures_total = 0
    for file, items in by_file.items():
        failures = sum(1 for f in items if f.action in (Action.DENY, Action.WARN))
        failures_total += failures
        suite = ET.SubElement(suites, "testsuite", name=file, tests=str(len(items)), failures=str(failures),
                              errors="0", skipped="0")
        for finding in items:
            case = ET.SubElement(suite, "testcase", name=_name(finding), classname=file, file=file)
            text = f"{finding.path}: {finding.message}" + (f"\nhelp: {finding.hint}" if finding.hint else "")
            action = finding.action.value if finding.action is not None else "warn"
            if finding.action in (Action.DENY, Action.WARN):
                failure = ET.SubElement(case, "failure", message=finding.message, type=action)
                failure.text = text
            else:
                ET.SubElement(case, "system-out").text = f"{action}: {text}"
    if summary.problems:
        suite = ET.SubElement(suites, "testsuite", name="inputs", tests=str(len(summary.problems)), failures="0",
                              errors=str(len(summary.problems)), skipped="0")
        for problem in summary.problems:
            case = ET.SubElement(suite, "testcase", name=problem.split(": ", 1)[0], classname="inputs")
            ET.SubElement(case, "error", message=problem, type="input").text = problem
    if not by_file and not summary.problems:
        suite = ET.SubElement(suites, "testsuite", name="draguard", tests="1", failures="0", errors="0",
                              skipped="0")
        ET.SubElement(suite, "testcase", name=f"{summary.objects} objects checked", classname="draguard")
    suites.set("tests", str(max(1, len(findings) + len(summary.problems))))
    suites.set("failures", str(failures_total))
    suites.set("errors", str(len(summary.problems)))
    for element in suites.iter():
        element.text = spell(element.text, _NOT_XML) if element.text else element.text
        for key, value in list(element.attrib.items()):
            element.set(key, spell(value, _NOT_XML))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
