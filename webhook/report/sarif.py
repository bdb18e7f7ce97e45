"""SARIF 2.1.0 for code-scanning services (GitHub, GitLab, Azure DevOps): one run, every rule described.

Choices that matter to consumers:
- `results` is present even when empty (a clean run still uploads), and nothing but JSON is printed.
- Regions are exact: line and column of the offending token inside a YAML scalar, with its end when
  known. Columns count UTF-16 code units, SARIF's default `columnKind` and the only one GitHub reads (it ignores
  `columnKind`): draguard's positions count code points, so a column after an emoji is moved by the text of its
  line (`texts`; without it, as in `audit`, whose positions are 1:1, columns are left as they are).
- Artifact URIs are relative to the working directory (`uriBaseId` %SRCROOT%, declared in `originalUriBaseIds`)
  when the file lies below it, as GitHub reads them against the repository root; else absolute `file:` URIs, which
  GitHub makes relative to the checkout (a `../` path would name a file outside it). `/`-separated, percent-encoded
  as UTF-8, a file name that is not UTF-8 by its own bytes.
- At most MAX_RESULTS results, the most severe: GitHub rejects a larger run whole; a notification counts the rest.
- Each result carries `partialFingerprints.primaryLocationLineHash` (the one partial fingerprint GitHub reads), made
  from what `--baseline` matches a finding by (rule, field path, message; not its line, nor the file's name, which
  GitHub adds itself) and a count among the same in its file: `<hash>:<n>`, as GitHub spells its own. So lines
  added or removed elsewhere in a file keep an alert, and two findings on one line are two alerts.
- Levels: deny -> error, warn -> warning, audit -> note. Rule metadata (summary, remediation, default
  level, origin) comes from the catalogue.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from webhook.findings import Action, Finding, Position
from webhook.report import Summary, below, json_text

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVELS = {Action.DENY: "error", Action.WARN: "warning", Action.AUDIT: "note", Action.OFF: "none"}
SRCROOT = "%SRCROOT%"
MAX_RESULTS = 25_000  # per run: GitHub code scanning rejects a file with more (docs: "SARIF support", limits)
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")  # two UTF-16 code units each


def artifact_location(file: str) -> dict[str, str]:
    """`uri` (and `uriBaseId` when relative) of a file named as the command line named it."""
    relative = below(file, os.getcwd())
    if relative is None:
        return {"uri": "file://" + _quoted(os.path.abspath(file))}
    return {"uri": _quoted(relative), "uriBaseId": SRCROOT}


def _quoted(path: str) -> str:
    return quote(Path(path).as_posix(), safe="/", errors="surrogateescape")  # surrogates: the name's own bytes


def utf16_column(line: str, column: int) -> int:
    """The 1-based UTF-16 column of the character at 1-based code point `column` of `line`."""
    return column + len(_ASTRAL.findall(line, 0, column - 1))


def _region(pos: Position, lines: Sequence[str] | None) -> dict[str, int]:
    def column(line: int, col: int) -> int:
        return utf16_column(lines[line - 1], col) if lines is not None and 0 < line <= len(lines) else col

    region = {"startLine": max(pos.line, 1), "startColumn": max(column(pos.line, pos.column), 1)}
    if pos.end_line is not None and pos.end_column is not None:
        region["endLine"] = max(pos.end_line, region["startLine"])
        region["endColumn"] = max(column(pos.end_line, pos.end_column), 1)
    return region


def kept(findings: Sequence[Finding]) -> list[int]:
    """The indices of the findings a run may carry, in their order: GitHub rejects a whole file with a run of more
    than MAX_RESULTS results (draguard's choice: keep the most severe rather than upload nothing)."""
    if len(findings) <= MAX_RESULTS:
        return list(range(len(findings)))
    return sorted(sorted(range(len(findings)), key=lambda i: -(findings[i].action or Action.WARN).rank)[:MAX_RESULTS])


def fingerprints(findings: Sequence[Finding]) -> list[str]:
    """Each finding's `primaryLocationLineHash`: a hash of its baseline identity without the file (webhook.waivers.key)
    and, after a colon, which of the findings in its file with that identity it is (1, 2, ... in report order)."""
    from webhook.waivers import key

    seen: Counter[tuple[str, str]] = Counter()
    out: list[str] = []
    for finding in findings:
        file, *identity = key(finding)
        digest = hashlib.sha256(json.dumps(identity).encode()).hexdigest()[:16]  # ASCII JSON: any string encodes
        seen[file, digest] += 1
        out.append(f"{digest}:{seen[file, digest]}")
    return out


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("draguard")
    except PackageNotFoundError:
        return "0.0.0"


def _rules(findings: Sequence[Finding]) -> list[dict[str, Any]]:
    from webhook.rules import CATALOGUE

    out: list[dict[str, Any]] = []
    for rule_id in sorted({f.rule for f in findings if f.rule}):
        rule = CATALOGUE.get(rule_id)
        entry: dict[str, Any] = {"id": rule_id, "name": "".join(p.title() for p in rule_id.split("-"))}
        if rule is not None:
            entry.update({
                "shortDescription": {"text": rule.summary},
                "fullDescription": {"text": rule.summary},
                "help": {"text": rule.remediation},
                "defaultConfiguration": {"level": LEVELS[rule.default]},
                "properties": {"tags": [rule.origin, *sorted(rule.kinds)]},
            })
        out.append(entry)
    return out


def _result(finding: Finding, fingerprint: str, index: dict[str, int], lines: Mapping[str, Sequence[str]]
            ) -> dict[str, Any]:
    text = finding.message if not finding.hint else f"{finding.message}\nhelp: {finding.hint}"
    result: dict[str, Any] = {
        "ruleId": finding.rule,
        "level": LEVELS.get(finding.action or Action.WARN, "warning"),
        "message": {"text": text},
    }
    if finding.rule in index:
        result["ruleIndex"] = index[finding.rule]
    location: dict[str, Any] = {"logicalLocations": [{"fullyQualifiedName": str(finding.path), "kind": "member"}]}
    pos = finding.position
    if pos is not None and pos.file:
        location["physicalLocation"] = {"artifactLocation": artifact_location(pos.file),
                                        "region": _region(pos, lines.get(pos.file))}
    result["locations"] = [location]
    result["partialFingerprints"] = {"primaryLocationLineHash": fingerprint}
    return result


def render(findings: Sequence[Finding], summary: Summary, *, texts: Mapping[str, str] | None = None) -> str:
    """`texts`: file -> the text its findings' positions count in, for UTF-16 columns."""
    prints = fingerprints(findings)  # before any is left out, so that leaving one out renames no other
    chosen = kept(findings)
    left_out = len(findings) - len(chosen)
    findings = [findings[i] for i in chosen]
    rules = _rules(findings)
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    lines = {file: text.split("\n") for file, text in (texts or {}).items() if _ASTRAL.search(text)}
    cwd = Path(os.getcwd()).as_uri() + "/"
    notes = [{"level": "error", "message": {"text": p}} for p in summary.problems]
    if left_out:
        notes.append({"level": "warning", "message": {"text": (
            f"{left_out} result(s) left out, the least severe: GitHub code scanning rejects a run with more than "
            f"{MAX_RESULTS} results (--format json lists them all)")}})
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "draguard", "version": _version(), "rules": rules}},
        "originalUriBaseIds": {SRCROOT: {"uri": cwd}},
        "results": [_result(f, prints[i], index, lines) for f, i in zip(findings, chosen, strict=True)],
        "invocations": [{
            "executionSuccessful": not summary.problems,
            "toolExecutionNotifications": notes,
            "workingDirectory": {"uri": cwd},
        }],
        "properties": {"objects": summary.objects, "suppressed": summary.suppressed,
                       "skipped": dict(sorted(summary.skipped.items()))},
    }
    log = {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
    return json_text(log)
