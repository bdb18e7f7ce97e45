"""The GitHub Actions reporter: workflow commands with escaped values."""

from __future__ import annotations

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
