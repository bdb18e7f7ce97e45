"""GitHub Actions workflow commands: each finding becomes an annotation on the pull request diff.

    ::error file=claims/gpu.yaml,line=14,col=63,endColumn=65,title=list-fragile-compare::`==` on ...

deny -> error, warn -> warning, audit -> notice. Values are escaped as the runner expects (`%`, CR,
LF in messages; also `:` and `,` in properties); other control characters are spelled as the text format spells
them (`\\x1b`), so no escape sequence from an input reaches the log. A summary line follows as a notice.

`file` is relative to `GITHUB_WORKSPACE` (the repository) when the file lies below it: the runner reads a relative
path as the repository's, so one relative to a step's `working-directory` would annotate another file. A file name
that is not UTF-8 has no spelling the runner could match; its bytes are written as `\\udcXX` escapes.

The runner, not draguard, keeps at most 10 annotations of each kind (error, warning, notice) per step and cuts a
message at 4096 characters; every line still shows in the log.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from webhook.findings import Action, Finding
from webhook.report import Summary, below
from webhook.wire import printable

COMMANDS = {Action.DENY: "error", Action.WARN: "warning", Action.AUDIT: "notice"}


def escape_data(text: str) -> str:
    """%, CR and LF as the runner decodes them; any other character a terminal or the log viewer would act on (an
    escape sequence, a NUL, a bidi override) spelled as the text format spells it (`\\x1b`)."""
    return printable(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workspace_path(file: str, workspace: str | None) -> str:
    """`file` relative to `workspace` when it lies below it, `/`-separated; else as it is."""
    return (below(file, workspace) if workspace else None) or file


def line(finding: Finding, workspace: str | None = None) -> str:
    command = COMMANDS.get(finding.action or Action.WARN, "warning")
    props: list[str] = []
    pos = finding.position
    if pos is not None and pos.file:
        file = escape_property(workspace_path(pos.file, workspace))
        props += [f"file={file}", f"line={pos.line}", f"col={pos.column}"]
        if pos.end_line is not None and pos.end_line == pos.line and pos.end_column is not None:
            props.append(f"endColumn={pos.end_column}")
    props.append(f"title={escape_property(finding.rule)}")
    text = f"{finding.path}: {finding.message}" + (f"\nhelp: {finding.hint}" if finding.hint else "")
    return f"::{command} {','.join(props)}::{escape_data(text)}"


def render(findings: Sequence[Finding], summary: Summary) -> str:
    from webhook.report.text import summary_line

    workspace = os.environ.get("GITHUB_WORKSPACE")
    out = [line(f, workspace) for f in findings]
    out += [f"::error::{escape_data(p)}" for p in summary.problems]
    out.append(f"::notice title=draguard::{escape_data(summary_line(findings, summary))}")
    return "\n".join(out) + "\n"
