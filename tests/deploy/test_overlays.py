"""The certificate overlays: the cert Job's commands and least-privilege RBAC, and the cert-manager wiring."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from tests.deploy.kustomize import BASE, CERT_MANAGER, JOB_CERTS, Obj, manifests, one, pod_specs
from webhook import cli

JOB_OBJECTS = manifests(JOB_CERTS)
CERT_MANAGER_OBJECTS = manifests(CERT_MANAGER)
BASE_OBJECTS = manifests(BASE)
SECRET = one(BASE_OBJECTS, "Deployment")["spec"]["template"]["spec"]["volumes"][0]["secret"]["secretName"]
WEBHOOK_CONFIG = one(BASE_OBJECTS, "ValidatingWebhookConfiguration")["metadata"]["name"]
SERVICE = one(BASE_OBJECTS, "Service", "draguard")["metadata"]


def _parse(container: Obj) -> argparse.Namespace:
    """The container's command line through draguard's own parser: an unknown flag fails here, not in a cluster."""
    assert container["command"] == ["draguard"]
    args: argparse.Namespace = cli.build_parser().parse_args(container["args"])
    return args


def _cert_pods() -> dict[str, Obj]:
    return pod_specs(JOB_OBJECTS)


def test_job_generates_into_the_secret_the_deployment_mounts_then_injects() -> None:
    pod = _cert_pods()["Job/draguard-certs"]
    (generate,) = pod["initContainers"]
    (inject,) = pod["containers"]
    parsed = _parse(generate)
    assert generate["args"][:2] == ["certs", "generate"]
    assert parsed.secret == f"draguard/{SECRET}"
    assert (parsed.service, parsed.namespace) == (SERVICE["name"], SERVICE["namespace"])
    parsed = _parse(inject)
    assert inject["args"][:2] == ["certs", "inject"]
    assert (parsed.webhook, parsed.secret) == (WEBHOOK_CONFIG, f"draguard/{SECRET}")


def test_cronjob_renews_rotates_and_injects_with_the_same_settings() -> None:
    job, cron = _cert_pods()["Job/draguard-certs"], _cert_pods()["CronJob/draguard-certs-renew"]
    names = [c["name"] for c in cron["initContainers"]] + [c["name"] for c in cron["containers"]]
    assert names == ["generate", "rotate", "inject"]
    by_name = {c["name"]: c for c in cron["initContainers"] + cron["containers"]}
    assert by_name["generate"] == job["initContainers"][0]
    assert by_name["inject"] == job["containers"][0]
    rotate = _parse(by_name["rotate"])
    assert by_name["rotate"]["args"][:2] == ["certs", "rotate"]
    assert (rotate.secret, rotate.phase) == (f"draguard/{SECRET}", "auto")
    assert {k: v for k, v in cron.items() if k not in ("initContainers",)} == {
        k: v for k, v in job.items() if k not in ("initContainers",)
    }
    cronjob = one(JOB_OBJECTS, "CronJob")
    assert cronjob["spec"]["concurrencyPolicy"] == "Forbid"


def test_cert_pods_are_restricted() -> None:
    for where, pod in _cert_pods().items():
        assert pod["securityContext"]["runAsNonRoot"] is True, where
        assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}, where
        for container in pod["initContainers"] + pod["containers"]:
            security = container["securityContext"]
            assert security["allowPrivilegeEscalation"] is False, where
            assert security["readOnlyRootFilesystem"] is True, where
            assert security["capabilities"] == {"drop": ["ALL"]}, where
            assert set(container["resources"]) == {"requests", "limits"}, where
        assert pod["serviceAccountName"] == "draguard-certs", where


def _grants(objects: list[Obj]) -> set[tuple[Any, ...]]:
    """Every (role kind, api group, resource, resourceName or '*', verb) the overlay grants."""
    grants = set()
    for role in objects:
        if role["kind"] not in ("Role", "ClusterRole"):
            continue
        for rule in role["rules"]:
            for group in rule["apiGroups"]:
                for resource in rule["resources"]:
                    for name in rule.get("resourceNames", ["*"]):
                        for verb in rule["verbs"]:
                            grants.add((role["kind"], group, resource, name, verb))
    return grants


def test_cert_job_may_touch_only_its_secret_and_the_one_webhook_configuration() -> None:
    assert _grants(JOB_OBJECTS) == {
        ("Role", "", "secrets", SECRET, "get"),
        ("Role", "", "secrets", SECRET, "update"),
        # RBAC cannot restrict create by name (the name is not known at authorization time); the Role keeps it
        # to the draguard namespace.
        ("Role", "", "secrets", "*", "create"),
        ("ClusterRole", "admissionregistration.k8s.io", "validatingwebhookconfigurations", WEBHOOK_CONFIG, "get"),
        ("ClusterRole", "admissionregistration.k8s.io", "validatingwebhookconfigurations", WEBHOOK_CONFIG, "patch"),
    }
    assert one(JOB_OBJECTS, "Role")["metadata"]["namespace"] == "draguard"


@pytest.mark.parametrize("kind", ["RoleBinding", "ClusterRoleBinding"])
def test_bindings_grant_the_roles_to_the_cert_service_account_only(kind: str) -> None:
    binding = one(JOB_OBJECTS, kind)
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "draguard-certs", "namespace": "draguard"}]
    assert binding["roleRef"]["kind"] == kind.removesuffix("Binding")
    assert binding["roleRef"]["name"] == one(JOB_OBJECTS, kind.removesuffix("Binding"))["metadata"]["name"]


def test_base_grants_nothing() -> None:
    # The webhook reads files only; an RBAC object in the base would be a permission nobody needs.
    assert not [o for o in BASE_OBJECTS if o["kind"] in ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding")]


def test_deployment_args_parse_as_draguard_serve() -> None:
    container = one(BASE_OBJECTS, "Deployment")["spec"]["template"]["spec"]["containers"][0]
    parsed = cli.build_parser().parse_args(["serve", *container["args"]])
    assert (parsed.port, parsed.metrics_port) == (8443, 9090)
    assert str(parsed.cert_dir) == "/etc/draguard/tls"
    assert parsed.self_signed is False


def test_cert_manager_injects_the_ca_of_the_certificate_that_fills_the_mounted_secret() -> None:
    annotation = "cert-manager.io/inject-ca-from"
    certificates = {o["metadata"]["name"]: o for o in CERT_MANAGER_OBJECTS if o["kind"] == "Certificate"}
    serving = next(c for c in certificates.values() if c["spec"]["secretName"] == SECRET)
    kustomization_patch = (CERT_MANAGER / "kustomization.yaml").read_text(encoding="utf-8")
    assert f"{annotation}: {serving['metadata']['namespace']}/{serving['metadata']['name']}" in kustomization_patch
    service = f"{SERVICE['name']}.{SERVICE['namespace']}"
    assert serving["spec"]["dnsNames"] == [
        SERVICE["name"],
        service,
        f"{service}.svc",
        f"{service}.svc.cluster.local",
    ]
    assert serving["spec"]["privateKey"]["algorithm"] == "ECDSA"
    assert "server auth" in serving["spec"]["usages"]


def test_cert_manager_issuer_chain_is_self_contained() -> None:
    issuers = {o["metadata"]["name"]: o for o in CERT_MANAGER_OBJECTS if o["kind"] == "Issuer"}
    certificates = {o["metadata"]["name"]: o for o in CERT_MANAGER_OBJECTS if o["kind"] == "Certificate"}
    for certificate in certificates.values():
        assert certificate["spec"]["issuerRef"]["kind"] == "Issuer"
        assert certificate["spec"]["issuerRef"]["name"] in issuers
    ca_issuer = next(i for i in issuers.values() if "ca" in i["spec"])
    (ca,) = (c for c in certificates.values() if c["spec"].get("isCA"))
    assert ca_issuer["spec"]["ca"]["secretName"] == ca["spec"]["secretName"]
    assert "selfSigned" in issuers[ca["spec"]["issuerRef"]["name"]]["spec"]
    for obj in CERT_MANAGER_OBJECTS:
        assert obj["apiVersion"] == "cert-manager.io/v1"
        assert obj["metadata"]["namespace"] == "draguard"


def test_rendered_cert_manager_overlay_carries_the_annotation() -> None:
    from tests.deploy.kustomize import render

    config = one(render(CERT_MANAGER), "ValidatingWebhookConfiguration")
    assert config["metadata"]["annotations"] == {"cert-manager.io/inject-ca-from": "draguard/draguard-serving"}
    assert config["webhooks"] == one(BASE_OBJECTS, "ValidatingWebhookConfiguration")["webhooks"]


def _on_directory(args: list[str], directory: str) -> list[str]:
    """A cert step's arguments with the Secret swapped for a directory: the same code path without a cluster."""
    return [f"--dir={directory}" if arg.startswith("--secret=") else arg for arg in args]


def test_cronjob_steps_keep_a_certificate_the_service_name_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cron = _cert_pods()["CronJob/draguard-certs-renew"]
    for step in cron["initContainers"]:  # generate, then rotate --phase=auto (nothing due for a new CA)
        assert cli.main(_on_directory(step["args"], str(tmp_path))) == 0, step["name"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ca.crt", "ca.key", "tls.crt", "tls.key"]
    capsys.readouterr()
    check = [
        "certs",
        "check",
        f"--dir={tmp_path}",
        f"--service={SERVICE['name']}",
        f"--namespace={SERVICE['namespace']}",
    ]
    assert cli.main(check) == 0, capsys.readouterr().out
    # A second day's run changes nothing: the CA is reused and the certificate kept.
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    for step in cron["initContainers"]:
        assert cli.main(_on_directory(step["args"], str(tmp_path))) == 0, step["name"]
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


_VERBS = {"GET": "get", "POST": "create", "PUT": "update", "PATCH": "patch"}


def _authorized(method: str, path: str) -> bool:
    """Whether the shipped Role/ClusterRole of `draguard-certs` allow this request (RBAC as the API server reads it)."""
    parts = path.strip("/").split("/")
    if parts[:2] == ["api", "v1"] and parts[2] == "namespaces":
        group, namespace, resource, name = "", parts[3], parts[4], parts[5] if len(parts) > 5 else None
        role = one(JOB_OBJECTS, "Role", "draguard-certs")
        if namespace != role["metadata"]["namespace"]:
            return False
    else:
        group, namespace, resource, name = parts[1], None, parts[3], parts[4] if len(parts) > 4 else None
        role = one(JOB_OBJECTS, "ClusterRole", "draguard-certs")
    return any(
        group in rule["apiGroups"] and resource in rule["resources"] and _VERBS[method] in rule["verbs"]
        and ("resourceNames" not in rule or name in rule["resourceNames"])
        for rule in role["rules"]
    )


def test_the_job_and_cronjob_steps_as_written_work_against_an_api_server_within_their_rbac(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.certs.apiserver import VWC_PATH, FakeAPIServer

    pods = _cert_pods()
    with FakeAPIServer(tmp_path / "cluster") as api:
        cluster = [f"--kubeconfig={api.kubeconfig}"]
        api.put(VWC_PATH + WEBHOOK_CONFIG, one(BASE_OBJECTS, "ValidatingWebhookConfiguration"))
        for pod in (pods["Job/draguard-certs"], pods["CronJob/draguard-certs-renew"]):  # install, then a day later
            for step in pod["initContainers"] + pod["containers"]:
                assert cli.main([*step["args"], *cluster]) == 0, (step["name"], capsys.readouterr())
            if pod is pods["Job/draguard-certs"]:
                # Someone damages the Secret overnight: the CronJob's generate must re-issue, so it updates it.
                del api.get(f"/api/v1/namespaces/draguard/secrets/{SECRET}")["data"]["tls.crt"]
        assert [(r.method, r.path.rsplit("/", 1)[-1]) for r in api.requests] == [
            ("GET", SECRET), ("POST", "secrets"),  # Job: generate creates the Secret
            ("GET", SECRET), ("GET", WEBHOOK_CONFIG), ("PATCH", WEBHOOK_CONFIG), ("GET", WEBHOOK_CONFIG),  # inject
            ("GET", SECRET), ("PUT", SECRET),  # CronJob: generate re-issues the missing certificate
            ("GET", SECRET),  # rotate --phase=auto, nothing due
            ("GET", SECRET), ("GET", WEBHOOK_CONFIG), ("GET", WEBHOOK_CONFIG),  # inject: already current
        ]
        denied = [(r.method, r.path) for r in api.requests if not _authorized(r.method, r.path)]
        assert denied == []
        capsys.readouterr()
        check = ["certs", "check", f"--secret=draguard/{SECRET}", f"--service={SERVICE['name']}",
                 f"--namespace={SERVICE['namespace']}", f"--webhook={WEBHOOK_CONFIG}", *cluster]
        assert cli.main(check) == 0, capsys.readouterr().out
        assert "ok    bundle: validatingwebhookconfiguration/draguard: all 2 webhook(s) trust the issuing CA" in (
            capsys.readouterr().out)


def test_the_rbac_check_above_refuses_what_the_roles_do_not_grant() -> None:
    assert not _authorized("GET", "/api/v1/namespaces/draguard/secrets/other")
    assert not _authorized("GET", "/api/v1/namespaces/kube-system/secrets/draguard-tls")
    assert not _authorized("PATCH", "/api/v1/namespaces/draguard/secrets/draguard-tls")
    assert not _authorized("PATCH", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/other")
    assert _authorized("POST", "/api/v1/namespaces/draguard/secrets")
