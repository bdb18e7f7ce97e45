"""SARIF 2.1.0 for code-scanning services (GitHub, GitLab, Azure DevOps): one run, every rule described.

Choices that matter to consumers:
- `results` is present even when empty (a clean run still uploads), and nothing but JSON is printed.
- Regions are exact: line and column of the offending token inside a YAML scalar, with its end when
  known; columns count Unicode code points (`columnKind`), as draguard's positions do.
- Artifact URIs are relative to the working directory when the file lies below it (what GitHub needs
  to annotate a pull request), `/`-separated, percent-encoded.
- Levels: deny -> error, warn -> warning, audit -> note. Rule metadata (summary, remediation, default
  level, origin) comes from the catalogue.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from webhook.findings import Action, Finding
from webhook.report import Summary

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVELS = {Action.DENY: "error", Action.WARN: "warning", Action.AUDIT: "note", Action.OFF: "none"}


def artifact_uri(file: str) -> str:
    path = Path(file)
    if path.is_absolute():
        try:
            path = path.relative_to(Path.cwd())
        except ValueError:
            return path.as_uri()
    return quote(path.as_posix().removeprefix("./"), safe="/")


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


def _result(finding: Finding, index: dict[str, int]) -> dict[str, Any]:
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
        region: dict[str, Any] = {"startLine": max(pos.line, 1), "startColumn": max(pos.column, 1)}
        if pos.end_line is not None and pos.end_column is not None:
            region["endLine"] = max(pos.end_line, region["startLine"])
            region["endColumn"] = max(pos.end_column, 1)
        location["physicalLocation"] = {"artifactLocation": {"uri": artifact_uri(pos.file)}, "region": region}
    result["locations"] = [location]
    return result


def render(findings: Sequence[Finding], summary: Summary) -> str:
    rules = _rules(findings)
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "draguard", "version": _version(), "rules": rules}},
        "columnKind": "unicodeCodePoints",
        "results": [_result(f, index) for f in findings],
        "invocations": [{
            "executionSuccessful": not summary.problems,
            "toolExecutionNotifications": [{"level": "error", "message": {"text": p}} for p in summary.problems],
            "workingDirectory": {"uri": Path(os.getcwd()).as_uri() + "/"},
        }],
        "properties": {"objects": summary.objects, "suppressed": summary.suppressed,
                       "skipped": dict(sorted(summary.skipped.items()))},
    }
    log = {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
