"""The JSON format: one document with every finding and the summary; keys are stable for scripts.

    {"findings": [{"rule": ..., "action": ..., "path": ..., "message": ..., "hint": ..., "file": ...,
                   "line": ..., "column": ...}],
     "summary": {"objects": 3, "skipped": {"ConfigMap": 1}, "suppressed": 0, "problems": [],
                 "deny": 1, "warn": 0, "audit": 0}}
    (`baselined` when a --baseline left findings out; `rules` with --summary: [{rule, action, count}])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from webhook.findings import Finding
from webhook.report import Summary, counts, json_text
from webhook.report import per_rule as rule_counts


def finding_dict(finding: Finding) -> dict[str, Any]:
    pos = finding.position
    return {
        "rule": finding.rule,
        "action": finding.action.value if finding.action is not None else None,
        "path": str(finding.path),
        "message": finding.message,
        "hint": finding.hint,
        "file": pos.file if pos else None,
        "line": pos.line if pos else None,
        "column": pos.column if pos else None,
    }


def render(findings: Sequence[Finding], summary: Summary, *, per_rule: bool = False) -> str:
    document: dict[str, Any] = {
        "findings": [finding_dict(f) for f in findings],
        "summary": {
            "objects": summary.objects,
            "skipped": dict(sorted(summary.skipped.items())),
            "suppressed": summary.suppressed,
            "problems": list(summary.problems),
            **counts(findings),
        },
    }
    if summary.baselined:
        document["summary"]["baselined"] = summary.baselined
    if per_rule:
        document["summary"]["rules"] = [{"rule": r, "action": a, "count": n} for r, a, n in rule_counts(findings)]
    return json_text(document)
