"""Audit results as policy-report objects: OpenReports (`openreports.io/v1alpha1` Report/ClusterReport) or
the wg-policy CRDs they replace (`wgpolicyk8s.io/v1alpha2` PolicyReport/ClusterPolicyReport); both share
one result shape.

One cluster-wide report holds ResourceSlice and DeviceClass results, one report per namespace its
ResourceClaims and ResourceClaimTemplates. Each result is one finding:

    policy: draguard   rule: <rule id>   result/severity: deny -> fail/high, warn -> warn/medium, audit -> warn/info
    message: the finding's message   resources: [the object's reference, fieldPath = the finding's field path]
    properties: action, fieldPath, driver, hint

`summary.pass` counts the objects without findings; fail and warn count findings (all of them, also those
beyond --max-results, which the report then omits: `configuration.limits.maxResults` says so in OpenReports).
Every report carries LABELS, by which `--apply` finds the reports it owns.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from webhook.audit.kinds import OPENREPORTS, ReportKinds
from webhook.audit.scan import Audit, Result, Scope
from webhook.findings import Action
from webhook.wire import Obj

NAME = "draguard-audit"
SOURCE = POLICY = "draguard"
LABELS = {"app.kubernetes.io/managed-by": "draguard", "app.kubernetes.io/component": "audit"}
LABEL_SELECTOR = ",".join(f"{k}={v}" for k, v in LABELS.items())
RESULT = {Action.DENY: "fail", Action.WARN: "warn", Action.AUDIT: "warn"}
SEVERITY = {Action.DENY: "high", Action.WARN: "medium", Action.AUDIT: "info"}


def build(audit: Audit, kinds: ReportKinds, now: datetime) -> list[Obj]:
    """The cluster report (always, so a clean cluster says so), then one report per namespace, by name."""
    scopes = dict(audit.scopes)
    scopes.setdefault(None, Scope())
    ordered = sorted(scopes.items(), key=lambda item: (item[0] is not None, item[0] or ""))
    return [_report(namespace, scope, kinds, audit.max_results, now) for namespace, scope in ordered]


def _report(namespace: str | None, scope: Scope, kinds: ReportKinds, max_results: int, now: datetime) -> Obj:
    resource = kinds.namespaced if namespace else kinds.cluster
    metadata: dict[str, Any] = {"name": NAME, "labels": dict(LABELS)}
    if namespace:
        metadata["namespace"] = namespace
    report: dict[str, Any] = {"apiVersion": resource.api_version, "kind": resource.kind, "metadata": metadata}
    if kinds is OPENREPORTS:
        report["source"] = SOURCE
        if scope.dropped:
            report["configuration"] = {"limits": {"maxResults": max_results}}
    report["summary"] = {
        "pass": scope.clean,
        "fail": scope.counts[Action.DENY],
        "warn": scope.counts[Action.WARN] + scope.counts[Action.AUDIT],
        "error": 0,
        "skip": 0,
    }
    report["results"] = [_result(r, now) for r in scope.results]
    return report


def _result(result: Result, now: datetime) -> Obj:
    finding, ref = result.finding, result.ref
    action = finding.action or Action.AUDIT
    reference = {"apiVersion": ref.api_version, "kind": ref.kind, "name": ref.name, "namespace": ref.namespace,
                 "uid": ref.uid, "resourceVersion": ref.resource_version, "fieldPath": str(finding.path)}
    properties = {"action": action.value, "fieldPath": str(finding.path), "driver": result.driver,
                  "hint": finding.hint}
    return {
        "source": SOURCE,
        "policy": POLICY,
        "rule": finding.rule,
        "category": "DRA",
        "result": RESULT[action],
        "severity": SEVERITY[action],
        "scored": True,
        "message": finding.message,
        "resources": [{k: v for k, v in reference.items() if v}],
        "properties": {k: v for k, v in properties.items() if v},
        "timestamp": {"seconds": int(now.timestamp()), "nanos": 0},
    }
