"""The JSON format: one document with every finding and the summary; keys are stable for scripts.

    {"findings": [{"rule": ..., "action": ..., "path": ..., "message": ..., "hint": ..., "file": ...,
                   "line": ..., "column": ...}],
     "summary": {"objects": 3, "skipped": {"ConfigMap": 1}, "suppressed": 0, "problems": [],
                 "deny": 1, "warn": 0, "audit": 0}}
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from webhook.findings import Finding
from webhook.report import Summary, counts


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


def render(findings: Sequence[Finding], summary: Summary) -> str:
    document = {
        "findings": [finding_dict(f) for f in findings],
        "summary": {
            "objects": summary.objects,
            "skipped": dict(sorted(summary.skipped.items())),
            "suppressed": summary.suppressed,
            "problems": list(summary.problems),
            **counts(findings),
        },
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
