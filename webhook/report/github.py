"""GitHub Actions workflow commands: each finding becomes an annotation on the pull request diff.

    ::error file=claims/gpu.yaml,line=14,col=63,endColumn=65,title=list-fragile-compare::`==` on ...

deny -> error, warn -> warning, audit -> notice. Values are escaped as the runner expects (`%`, CR,
LF in messages; also `:` and `,` in properties). A summary line follows as a notice.
"""

from __future__ import annotations

from collections.abc import Sequence

from webhook.findings import Action, Finding
from webhook.report import Summary

COMMANDS = {Action.DENY: "error", Action.WARN: "warning", Action.AUDIT: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def line(finding: Finding) -> str:
    command = COMMANDS.get(finding.action or Action.WARN, "warning")
    props: list[str] = []
    pos = finding.position
    if pos is not None and pos.file:
        props += [f"file={escape_property(pos.file)}", f"line={pos.line}", f"col={pos.column}"]
        if pos.end_line is not None and pos.end_line == pos.line and pos.end_column is not None:
            props.append(f"endColumn={pos.end_column}")
    props.append(f"title={escape_property(finding.rule)}")
    text = f"{finding.path}: {finding.message}" + (f"\nhelp: {finding.hint}" if finding.hint else "")
    return f"::{command} {','.join(props)}::{escape_data(text)}"


def render(findings: Sequence[Finding], summary: Summary) -> str:
    from webhook.report.text import summary_line

    out = [line(f) for f in findings]
    out += [f"::error::{escape_data(p)}" for p in summary.problems]
    out.append(f"::notice title=draguard::{escape_data(summary_line(findings, summary))}")
    return "\n".join(out) + "\n"
