"""`--report openreports|wgpolicy`: the objects, valid for the vendored CRDs, and `--apply` (server-side apply,
stale reports deleted) recorded by the stand-in."""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

import jsonschema
import msgspec
import pytest
import yaml

from tests.certs.apiserver import status
from tests.webhook.audit.apiserver import AuditAPIServer, Canned
from tests.webhook.audit.conftest import NUMA, synthetic
from webhook.audit import reports
from webhook.audit.reports import NAME

CRDS = Path(__file__).parent / "crds"
LABELS = {"app.kubernetes.io/managed-by": "draguard", "app.kubernetes.io/component": "audit"}
SELECTOR = "app.kubernetes.io/managed-by=draguard,app.kubernetes.io/component=audit"
FILES = {("openreports.io/v1alpha1", "Report"): "openreports.io_reports.yaml",
         ("openreports.io/v1alpha1", "ClusterReport"): "openreports.io_clusterreports.yaml",
         ("wgpolicyk8s.io/v1alpha2", "PolicyReport"): "wgpolicyk8s.io_policyreports.yaml",
         ("wgpolicyk8s.io/v1alpha2", "ClusterPolicyReport"): "wgpolicyk8s.io_clusterpolicyreports.yaml"}


def _strict(node: Any) -> Any:
    """The API server prunes fields a structural schema does not name; here they are errors instead."""
    if isinstance(node, dict):
        node = {k: _strict(v) for k, v in node.items()}
        if "properties" in node and "additionalProperties" not in node:
            node["additionalProperties"] = False
    elif isinstance(node, list):
        node = [_strict(v) for v in node]
    return node


@functools.cache
def _validator(api_version: str, kind: str) -> jsonschema.Draft7Validator:
    crd = next(d for d in yaml.safe_load_all((CRDS / FILES[(api_version, kind)]).read_text(encoding="utf-8")) if d)
    assert crd["spec"]["names"]["kind"] == kind
    version = next(v for v in crd["spec"]["versions"] if v["name"] == api_version.split("/")[1])
    return jsonschema.Draft7Validator(_strict(version["schema"]["openAPIV3Schema"]))


def schema_errors(report: dict[str, Any]) -> list[str]:
    validator = _validator(report["apiVersion"], report["kind"])
    return [f"{'.'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(report)]


def test_the_strict_schema_catches_an_unknown_field_and_a_bad_enum() -> None:
    report = {"apiVersion": "openreports.io/v1alpha1", "kind": "Report", "metadata": {"name": "r"},
              "results": [{"policy": "p", "result": "denied", "sevrity": "high"}]}
    assert sorted(schema_errors(report)) == [
        "results.0.result: 'denied' is not one of ['pass', 'fail', 'warn', 'error', 'skip']",
        "results.0: Additional properties are not allowed ('sevrity' was unexpected)"]


def _printed(audit: Any, *args: str) -> list[dict[str, Any]]:
    run = audit(*args)
    assert run.code == 1, run.err
    return [d for d in yaml.safe_load_all(run.out) if d]


FRAGILE = {
    "source": "draguard",
    "policy": "draguard",
    "rule": "list-fragile-compare",
    "category": "DRA",
    "result": "warn",
    "severity": "medium",
    "scored": True,
    "message": "`==` on resource.kubernetes.io/numaNode: resource.kubernetes.io/numaNode is a list on 1 candidate "
               "device(s) (e.g. gpu.example.com/pool-0/gpu-0), where this is silently false",
    "resources": [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "name": "fragile",
                   "namespace": "team-a", "uid": "uid-team-a-fragile",
                   "fieldPath": "spec.devices.requests[0].exactly.selectors[0].cel.expression"}],
    "properties": {"action": "warn", "fieldPath": "spec.devices.requests[0].exactly.selectors[0].cel.expression",
                   "driver": "gpu.example.com",
                   "hint": f"{NUMA}.includes(2)   (safe fix: draguard lint --fix; includes() needs Kubernetes with "
                           "the DRAListTypeAttributes feature gate)"},
}


@pytest.mark.parametrize(("report", "cluster_kind", "kind"), [("openreports", "ClusterReport", "Report"),
                                                             ("wgpolicy", "ClusterPolicyReport", "PolicyReport")])
def test_one_cluster_report_and_one_per_namespace_valid_for_the_crds(audit: Any, report: str, cluster_kind: str,
                                                                     kind: str) -> None:
    reports = _printed(audit, "--report", report)
    assert [(r["kind"], r["metadata"].get("namespace"), r["metadata"]["name"]) for r in reports] == [
        (cluster_kind, None, "draguard-audit"), (kind, "team-a", "draguard-audit"), (kind, "team-b", "draguard-audit")]
    assert [schema_errors(r) for r in reports] == [[], [], []]
    assert all(r["metadata"]["labels"] == LABELS for r in reports)
    cluster, team_a, team_b = reports
    assert cluster["summary"] == {"pass": 2, "fail": 1, "warn": 1, "error": 0, "skip": 0}
    assert team_a["summary"] == {"pass": 1, "fail": 0, "warn": 3, "error": 0, "skip": 0}
    assert team_b["summary"] == {"pass": 0, "fail": 0, "warn": 2, "error": 0, "skip": 0}
    assert [(r["rule"], r["result"], r["severity"]) for r in cluster["results"]] == [
        ("numa-node-mixed-form", "warn", "medium"), ("k8s-device-name", "fail", "high")]
    assert [(r["rule"], r["result"], r["severity"]) for r in team_b["results"]] == [
        ("selector-attribute-missing", "warn", "medium"), ("selector-numa-pinned", "warn", "info")]
    fragile = {k: v for k, v in team_a["results"][0].items() if k != "timestamp"}
    assert fragile == FRAGILE
    assert set(team_a["results"][0]["timestamp"]) == {"seconds", "nanos"}
    assert ("source" in cluster) is (report == "openreports")


def test_a_slice_result_names_the_slice_and_its_field(audit: Any) -> None:
    cluster = _printed(audit, "--report", "openreports")[0]
    denied = cluster["results"][1]
    assert denied["resources"] == [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "name": "node-c-gpu",
                                    "fieldPath": "spec.devices[0].name"}]
    assert denied["properties"]["action"] == "deny"
    assert denied["message"].startswith('Invalid value: "GPU_3": a lowercase RFC 1123 label')


@pytest.mark.parametrize(("limit", "kept", "configuration"), [(2, 2, {"limits": {"maxResults": 2}}), (3, 3, None),
                                                              (4, 3, None)])
def test_max_results_per_report_at_the_limit(audit: Any, limit: int, kept: int, configuration: Any) -> None:
    run = audit("--report", "openreports", "--max-results", str(limit))
    team_a = [d for d in yaml.safe_load_all(run.out) if d][1]
    assert len(team_a["results"]) == kept  # team-a has 3 findings
    assert team_a["summary"]["warn"] == 3  # counted whether kept or not
    assert team_a.get("configuration") == configuration
    assert schema_errors(team_a) == []
    note = f"  1 finding not shown: over --max-results {limit} per report (counted above and in the report summaries)"
    assert (note in run.err.splitlines()) is (limit == 2)


def _applies(api: AuditAPIServer) -> list[tuple[str, str, dict[str, list[str]], str | None]]:
    return [(r.method, r.path, r.query, r.content_type) for r in api.requests
            if not r.path.startswith("/apis/resource")]


def test_apply_writes_each_report_with_server_side_apply(audit: Any, api: AuditAPIServer) -> None:
    printed = _printed(audit, "--report", "openreports")
    api.requests.clear()
    run = audit("--report", "openreports", "--apply", "--format", "json=out.json")
    assert (run.code, run.out) == (1, "")
    apply = {"fieldManager": ["draguard"], "force": ["true"]}
    patch = "application/apply-patch+yaml"
    listing = {"labelSelector": [SELECTOR], "limit": ["20"]}
    assert _applies(api) == [
        ("PATCH", "/apis/openreports.io/v1alpha1/clusterreports/draguard-audit", apply, patch),
        ("PATCH", "/apis/openreports.io/v1alpha1/namespaces/team-a/reports/draguard-audit", apply, patch),
        ("PATCH", "/apis/openreports.io/v1alpha1/namespaces/team-b/reports/draguard-audit", apply, patch),
        ("GET", "/apis/openreports.io/v1alpha1/clusterreports", listing, None),
        ("GET", "/apis/openreports.io/v1alpha1/reports", listing, None),
    ]
    stored = api.state.reports
    assert sorted(stored) == [("clusterreports", "", "draguard-audit"), ("reports", "team-a", "draguard-audit"),
                              ("reports", "team-b", "draguard-audit")]
    for sent, written in zip(printed, (r.body for r in api.requests if r.method == "PATCH"), strict=True):
        assert _untimed(written) == _untimed(sent)
        assert schema_errors(written) == []
    assert run.err.splitlines()[-1] == "draguard audit: openreports: 3 report(s) applied, 0 stale report(s) deleted"


def _untimed(report: dict[str, Any]) -> dict[str, Any]:
    report = copy.deepcopy(report)
    for result in report["results"]:
        result.pop("timestamp")
    return report


def test_apply_deletes_stale_reports_it_owns_and_keeps_the_others(audit: Any, api: AuditAPIServer) -> None:
    assert audit("--report", "wgpolicy", "--apply").code == 1
    foreign = {"apiVersion": "wgpolicyk8s.io/v1alpha2", "kind": "PolicyReport",
               "metadata": {"name": "kyverno", "namespace": "team-b", "labels": {"app.kubernetes.io/managed-by": "k"}}}
    api.state.reports[("policyreports", "team-b", "kyverno")] = foreign
    api.serve([o for o in synthetic() if o["metadata"].get("namespace") != "team-b"])  # team-b's template is gone
    api.requests.clear()
    run = audit("--report", "wgpolicy", "--apply")
    deletes = [(r.method, r.path) for r in api.requests if r.method == "DELETE"]
    assert deletes == [("DELETE", "/apis/wgpolicyk8s.io/v1alpha2/namespaces/team-b/policyreports/draguard-audit")]
    assert sorted(api.state.reports) == [("clusterpolicyreports", "", "draguard-audit"),
                                         ("policyreports", "team-a", "draguard-audit"),
                                         ("policyreports", "team-b", "kyverno")]
    assert run.err.splitlines()[-1] == "draguard audit: wgpolicy: 2 report(s) applied, 1 stale report(s) deleted"


def test_apply_without_the_crds_fails_in_one_line(audit: Any, api: AuditAPIServer) -> None:
    api.state.reports_installed.clear()
    run = audit("--report", "openreports", "--apply")
    assert run.code == 2
    assert run.err.splitlines()[-1] == (
        "draguard: error: cannot apply ClusterReport draguard-audit: the API server answered 404 NotFound: the server "
        "could not find the requested resource (is the clusterreports.openreports.io CRD installed? kubectl get crd "
        "clusterreports.openreports.io) (0 of 3 report(s) applied, 0 stale report(s) deleted before this)")


@pytest.mark.parametrize(("args", "message"), [
    (["--apply"], "--apply needs --report openreports or --report wgpolicy"),
    (["--report", "openreports", "--format", "text"],
     "--report without --apply prints the reports on stdout; write --format to a file (--format FMT=FILE)"),
    (["--format", "xml"], "--format xml: unknown format 'xml'; use one of github, json, junit, sarif, text"),
])
def test_conflicting_flags_are_usage_errors(audit: Any, api: AuditAPIServer, args: list[str], message: str) -> None:
    run = audit(*args)
    assert (run.code, run.out, run.err) == (2, "", f"draguard: error: {message}\n")
    assert api.requests == []  # refused before anything is listed


def test_apply_into_a_namespace_deleted_meanwhile_names_it_without_the_crd_hint(audit: Any,
                                                                                api: AuditAPIServer) -> None:
    gone = status(404, "NotFound", 'namespaces "team-a" not found')
    gone["details"] = {"name": "team-a", "kind": "namespaces"}  # as the NamespaceLifecycle admission answers
    api.state.canned["/apis/openreports.io/v1alpha1/namespaces/team-a/reports/draguard-audit"] = [Canned(404, gone)]
    run = audit("--report", "openreports", "--apply")
    assert run.code == 2
    assert run.err.splitlines()[-1] == (
        "draguard: error: cannot apply Report draguard-audit in namespace team-a: the API server answered 404 "
        'NotFound: namespaces "team-a" not found (1 of 3 report(s) applied, 0 stale report(s) deleted before this)')


STALE = ("reports", "gone", NAME)
REPORTS = "/apis/openreports.io/v1alpha1/"


def _with_stale(api: AuditAPIServer) -> None:
    """A report draguard wrote in an earlier run, for a namespace that has no claims any more."""
    api.state.reports[STALE] = {"apiVersion": "openreports.io/v1alpha1", "kind": "Report",
                                "metadata": {"name": NAME, "namespace": "gone", "labels": dict(reports.LABELS)}}


@pytest.mark.parametrize(("path", "answer", "said", "applied"), [
    # RBAC without patch on reports: the cluster report was written, team-a's not
    (f"{REPORTS}namespaces/team-a/reports/{NAME}", Canned(403, status(
        403, "Forbidden", f'reports.openreports.io "{NAME}" is forbidden: User "u" cannot patch resource "reports" in '
                          'API group "openreports.io" in the namespace "team-a"')),
     f"cannot apply Report {NAME} in namespace team-a: the API server answered 403 Forbidden: reports.openreports.io "
     f'"{NAME}" is forbidden: User "u" cannot patch resource "reports" in API group "openreports.io" in the namespace '
     '"team-a"', 1),
    # a report etcd will not store (over --max-request-bytes), refused by the API server
    (f"{REPORTS}clusterreports/{NAME}", Canned(422, status(422, "Invalid", "etcdserver: request is too large")),
     f"cannot apply ClusterReport {NAME}: the API server answered 422 Invalid: etcdserver: request is too large", 0),
    (f"{REPORTS}namespaces/team-b/reports/{NAME}", Canned(409, status(
        409, "Conflict", f'Operation cannot be fulfilled on reports.openreports.io "{NAME}": the object has been '
                         "modified; please apply your changes to the latest version and try again")),
     f"cannot apply Report {NAME} in namespace team-b: the API server answered 409 Conflict: Operation cannot be "
     f'fulfilled on reports.openreports.io "{NAME}": the object has been modified; please apply your changes to the '
     "latest version and try again", 2),
])
def test_a_report_that_cannot_be_written_stops_before_any_stale_report_is_deleted(
        audit: Any, api: AuditAPIServer, *, path: str, answer: Canned, said: str, applied: int) -> None:
    _with_stale(api)
    api.state.canned[path] = [answer]
    run = audit("--report", "openreports", "--apply", "-q", "--fail-on", "none")
    assert (run.code, run.err) == (2, f"draguard: error: {said} ({applied} of 3 report(s) applied, 0 stale report(s) "
                                      "deleted before this)\n")
    assert STALE in api.state.reports  # not deleted: the run is not complete
    assert [r.method for r in api.requests].count("DELETE") == 0
    assert sum(1 for k in api.state.reports if k != STALE) == applied


def test_a_stale_report_that_cannot_be_deleted_fails_the_run(audit: Any, api: AuditAPIServer) -> None:
    _with_stale(api)
    api.state.canned[f"{REPORTS}namespaces/gone/reports/{NAME}"] = [Canned(403, status(
        403, "Forbidden", f'reports.openreports.io "{NAME}" is forbidden: User "u" cannot delete resource "reports"'))]
    run = audit("--report", "openreports", "--apply", "-q", "--fail-on", "none")
    assert (run.code, run.err) == (2, f"draguard: error: cannot delete stale Report {NAME} in namespace gone: the API "
                                      f'server answered 403 Forbidden: reports.openreports.io "{NAME}" is forbidden: '
                                      'User "u" cannot delete resource "reports" (3 of 3 report(s) applied, 0 stale '
                                      "report(s) deleted before this)\n")
    assert STALE in api.state.reports


def test_reports_that_cannot_be_listed_fail_the_run_after_writing(audit: Any, api: AuditAPIServer) -> None:
    api.state.canned[f"{REPORTS}reports"] = [Canned(403, status(
        403, "Forbidden", 'reports.openreports.io is forbidden: User "u" cannot list resource "reports"'))]
    run = audit("--report", "openreports", "--apply", "-q", "--fail-on", "none")
    assert (run.code, run.err) == (2, "draguard: error: cannot list reports.openreports.io: the API server answered "
                                      '403 Forbidden: reports.openreports.io is forbidden: User "u" cannot list '
                                      'resource "reports" (3 of 3 report(s) applied, 0 stale report(s) deleted before '
                                      "this)\n")


@pytest.mark.parametrize(("extra", "kept"), [(-1, 2), (0, 3), (1, 3)])
def test_a_report_is_cut_to_the_byte_limit_etcd_can_store(audit: Any, monkeypatch: pytest.MonkeyPatch, extra: int,
                                                          kept: int) -> None:
    team_a = _printed(audit, "--report", "openreports")[1]
    size = len(msgspec.json.encode(team_a))  # compact JSON, as etcd stores it; three results
    monkeypatch.setattr(reports, "MAX_REPORT_BYTES", size + extra)
    run = audit("--report", "openreports", "--format", "json=out.json")
    cut = [d for d in yaml.safe_load_all(run.out) if d][1]
    assert len(msgspec.json.encode(cut)) <= size + extra
    assert [r["rule"] for r in cut["results"]] == [r["rule"] for r in team_a["results"]][:kept]
    assert cut["summary"] == team_a["summary"]  # every finding still counted
    assert cut.get("configuration") == ({"limits": {"maxResults": 2}} if kept == 2 else None)
    assert schema_errors(cut) == []
    note = (f"  1 finding not in the reports: over {size + extra:,} bytes of JSON per report, which etcd must store "
            "(counted above and in the report summaries)")
    assert (note in run.err.splitlines()) is (kept == 2)
    assert len(json.loads((Path("out.json")).read_text(encoding="utf-8"))["findings"]) == 7  # outputs keep them all


def test_a_result_over_the_limit_leaves_an_empty_report_that_still_counts(audit: Any,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reports, "MAX_REPORT_BYTES", 600)
    run = audit("--report", "wgpolicy", "--format", "json=out.json")
    printed = [d for d in yaml.safe_load_all(run.out) if d]
    assert [len(r["results"]) for r in printed] == [0, 0, 0]
    assert [r["summary"]["warn"] + r["summary"]["fail"] for r in printed] == [2, 3, 2]
    assert "  7 findings not in the reports: over 600 bytes of JSON per report, which etcd must store (counted above " \
           "and in the report summaries)" in run.err.splitlines()
