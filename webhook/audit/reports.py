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
A report is also cut to MAX_REPORT_BYTES of JSON (draguard's own bound: etcd refuses an object over its
1.5 MiB request limit, and the API server then fails the apply); the findings cut are counted in the
summary like those beyond --max-results, and in `Scope.cut`.
Every report carries LABELS, by which `--apply` finds the reports it owns.
"""

from __future__ import annotations

from datetime import datetime
from itertools import accumulate
from typing import Any

import msgspec

from webhook.audit.kinds import OPENREPORTS, ReportKinds
from webhook.audit.scan import Audit, Result, Scope
from webhook.findings import Action
from webhook.wire import Obj

NAME = "draguard-audit"
SOURCE = POLICY = "draguard"
LABELS = {"app.kubernetes.io/managed-by": "draguard", "app.kubernetes.io/component": "audit"}
LABEL_SELECTOR = ",".join(f"{k}={v}" for k, v in LABELS.items())
# etcd's default --max-request-bytes is 1.5 MiB (1,572,864): the stored object adds managedFields (one entry,
# `results` is an atomic list) and the server's metadata; 1 MiB of JSON leaves that room.
MAX_REPORT_BYTES = 1024 * 1024
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
    results = [_result(r, now) for r in scope.results]
    report["results"] = []
    kept = _fitting(report, [len(msgspec.json.encode(r)) for r in results], kinds)
    scope.cut = len(results) - kept
    report["results"] = results[:kept]
    return report


def _fitting(report: dict[str, Any], sizes: list[int], kinds: ReportKinds) -> int:
    """How many results (of these JSON `sizes`) the report holds within MAX_REPORT_BYTES of JSON; when not all,
    OpenReports' `configuration.limits.maxResults` (set here) says how many it holds."""
    first = [0, *accumulate(sizes)]  # bytes of the first n results

    def size(n: int) -> int:  # the report's JSON with the first n results: `[]` plus each and the commas between
        return len(msgspec.json.encode(report)) + first[n] + max(n - 1, 0)

    if size(len(sizes)) <= MAX_REPORT_BYTES:
        return len(sizes)
    kept = len(sizes)
    while True:
        kept -= 1
        if kinds is OPENREPORTS:
            report["configuration"] = {"limits": {"maxResults": kept}}
        if kept == 0 or size(kept) <= MAX_REPORT_BYTES:
            return kept


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
