"""The audit overlay: a restricted CronJob running `draguard audit --report=openreports --apply`, and RBAC that
allows exactly the requests the audit makes (checked by replaying them against the stand-in API server)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.deploy.kustomize import AUDIT, Obj, manifests, one, pod_specs
from tests.webhook.audit.apiserver import AuditAPIServer
from tests.webhook.audit.conftest import synthetic
from webhook import cli, config

OBJECTS = manifests(AUDIT)
POD = pod_specs(OBJECTS)["CronJob/draguard-audit"]
FOUR = ("resourceslices", "deviceclasses", "resourceclaims", "resourceclaimtemplates")


def _grants() -> set[tuple[str, str, str]]:
    grants = set()
    for role in OBJECTS:
        if role["kind"] in ("Role", "ClusterRole"):
            assert role["kind"] == "ClusterRole"
            for rule in role["rules"]:
                assert "resourceNames" not in rule
                grants |= {(g, r, v) for g in rule["apiGroups"] for r in rule["resources"] for v in rule["verbs"]}
    return grants


def test_the_cluster_role_lists_the_four_kinds_and_writes_reports_only() -> None:
    assert _grants() == (
        {("resource.k8s.io", plural, "list") for plural in FOUR}  # no watch: the audit never watches
        | {("openreports.io", plural, verb) for plural in ("reports", "clusterreports")
           for verb in ("list", "create", "patch", "delete")})


def test_the_binding_grants_the_role_to_the_audit_service_account_only() -> None:
    binding = one(OBJECTS, "ClusterRoleBinding")
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "draguard-audit", "namespace": "draguard"}]
    assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                  "name": one(OBJECTS, "ClusterRole")["metadata"]["name"]}
    assert POD["serviceAccountName"] == "draguard-audit"


def test_the_pod_is_restricted_non_root_with_a_read_only_root() -> None:
    assert POD["securityContext"]["runAsNonRoot"] is True
    assert POD["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    (container,) = POD["containers"]
    security = container["securityContext"]
    assert (security["readOnlyRootFilesystem"], security["allowPrivilegeEscalation"]) == (True, False)
    assert security["capabilities"] == {"drop": ["ALL"]}
    assert set(container["resources"]) == {"requests", "limits"}
    assert "automountServiceAccountToken" not in POD  # the audit needs its token


def test_every_namespaced_object_lives_in_the_draguard_namespace() -> None:
    for obj in OBJECTS:
        if obj["kind"] not in ("ClusterRole", "ClusterRoleBinding"):
            assert obj["metadata"]["namespace"] == "draguard", obj["kind"]


def _args() -> Any:
    (container,) = POD["containers"]
    assert container["command"] == ["draguard"]
    return cli.build_parser().parse_args(container["args"])


def test_the_cronjob_runs_the_audit_with_reports_applied_and_findings_not_failing_the_job() -> None:
    args = _args()
    assert (args.command, args.report, args.apply, args.fail_on, args.page_size) == (
        "audit", "openreports", True, "none", 500)
    cronjob = one(OBJECTS, "CronJob")
    assert cronjob["spec"]["concurrencyPolicy"] == "Forbid"


def test_the_policy_configmap_is_found_from_the_working_directory(tmp_path: Path) -> None:
    (container,) = POD["containers"]
    (volume,) = [v for v in POD["volumes"] if v["name"] == "policy"]
    mount = next(m for m in container["volumeMounts"] if m["name"] == "policy")
    assert container["workingDir"] == mount["mountPath"]
    assert volume["configMap"] == {"name": "draguard-policy", "optional": True,
                                   "items": [{"key": "policy.yaml", "path": ".draguard.yaml"}]}
    (tmp_path / ".draguard.yaml").write_text("rules:\n  list-fragile-compare: deny\n", encoding="utf-8")
    assert config.load(None, cwd=tmp_path).path == tmp_path / ".draguard.yaml"


_VERBS = {"GET": "list", "PATCH": "patch", "DELETE": "delete"}


def test_the_role_allows_every_request_the_audit_makes(tmp_path: Path) -> None:
    stale: Obj = {"apiVersion": "openreports.io/v1alpha1", "kind": "Report",
                  "metadata": {"name": "draguard-audit", "namespace": "gone",
                               "labels": {"app.kubernetes.io/managed-by": "draguard",
                                          "app.kubernetes.io/component": "audit"}}}
    with AuditAPIServer(tmp_path, synthetic()) as api:
        api.state.reports[("reports", "gone", "draguard-audit")] = stale
        container_args = POD["containers"][0]["args"]
        assert cli.main([*container_args, "--kubeconfig", str(api.kubeconfig)]) == 0
        requests = [(r.method, r.path) for r in api.requests]
    assert ("DELETE", "/apis/openreports.io/v1alpha1/namespaces/gone/reports/draguard-audit") in requests
    needed = set()
    for method, path in requests:
        parts = path.strip("/").split("/")
        group = parts[1]
        resource = parts[5] if parts[3] == "namespaces" else parts[3]
        needed.add((group, resource, _VERBS[method]))
    assert needed <= _grants()
    assert {verb for _, _, verb in needed} == {"list", "patch", "delete"}
