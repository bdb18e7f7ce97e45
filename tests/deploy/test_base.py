"""What the base promises an operator: HA, locked-down Pods, a narrowly scoped webhook configuration."""

from __future__ import annotations

import pytest

from tests.deploy.kustomize import BASE, Obj, manifests, one
from webhook.budget import Budget

BASE_OBJECTS = manifests(BASE)
WEBHOOK_LABELS = {"app.kubernetes.io/name": "draguard", "app.kubernetes.io/component": "webhook"}


def _deployment() -> Obj:
    return one(BASE_OBJECTS, "Deployment", "draguard")


def _pod() -> Obj:
    pod: Obj = _deployment()["spec"]["template"]["spec"]
    return pod


def _container() -> Obj:
    (container,) = _pod()["containers"]
    container_: Obj = container
    return container_


def _webhooks() -> dict[str, Obj]:
    return {w["name"]: w for w in one(BASE_OBJECTS, "ValidatingWebhookConfiguration", "draguard")["webhooks"]}


def test_deployment_is_highly_available() -> None:
    deployment = _deployment()
    assert deployment["spec"]["replicas"] >= 2
    assert deployment["spec"]["strategy"]["rollingUpdate"] == {"maxUnavailable": 0, "maxSurge": 1}
    anti = _pod()["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]
    assert anti[0]["podAffinityTerm"]["topologyKey"] == "kubernetes.io/hostname"
    assert anti[0]["podAffinityTerm"]["labelSelector"]["matchLabels"] == WEBHOOK_LABELS
    assert _pod()["priorityClassName"] == one(BASE_OBJECTS, "PriorityClass")["metadata"]["name"]


def test_disruption_budget_keeps_one_replica_of_the_deployment() -> None:
    pdb = one(BASE_OBJECTS, "PodDisruptionBudget", "draguard")
    assert pdb["spec"]["minAvailable"] == 1
    assert pdb["spec"]["selector"]["matchLabels"] == _deployment()["spec"]["selector"]["matchLabels"]
    assert (
        pdb["spec"]["selector"]["matchLabels"].items()
        <= _deployment()["spec"]["template"]["metadata"]["labels"].items()
    )


def test_pod_runs_non_root_read_only_without_privileges() -> None:
    pod, container = _pod(), _container()
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] != 0
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    assert pod["automountServiceAccountToken"] is False
    security = container["securityContext"]
    assert security["allowPrivilegeEscalation"] is False
    assert security["readOnlyRootFilesystem"] is True
    assert security["privileged"] is False
    assert security["capabilities"] == {"drop": ["ALL"]}
    assert "add" not in security["capabilities"]


def test_container_has_requests_limits_and_probes_on_the_tls_port() -> None:
    container = _container()
    assert set(container["resources"]["requests"]) == {"cpu", "memory"}
    assert set(container["resources"]["limits"]) == {"cpu", "memory"}
    probes = {name: container[name]["httpGet"] for name in ("livenessProbe", "readinessProbe")}
    assert probes == {
        "livenessProbe": {"path": "/healthz", "port": "https", "scheme": "HTTPS"},
        "readinessProbe": {"path": "/readyz", "port": "https", "scheme": "HTTPS"},
    }
    assert {p["name"]: p["containerPort"] for p in container["ports"]} == {"https": 8443, "metrics": 9090}


def test_probes_outlast_a_review_and_each_worker_has_a_cpu() -> None:
    """A gevent worker answers a probe between reviews, so a probe may wait one review's whole wall budget: a probe
    timeout at or under it marks a Pod whose workers are busy unready, then restarts it. Fewer CPUs than workers
    halve each review's CPU inside the same wall budget (docs/webhook.md: workers equal to the CPU limit)."""
    container = _container()
    for name in ("livenessProbe", "readinessProbe"):
        assert container[name]["timeoutSeconds"] > Budget().wall_seconds, name
    workers = int(next(a for a in container["args"] if a.startswith("--workers=")).split("=", 1)[1])
    assert float(container["resources"]["limits"]["cpu"]) >= workers


def test_policy_and_certificates_are_mounted_as_whole_directories() -> None:
    # subPath mounts never see updates; the webhook relies on the kubelet swapping files in place.
    container, pod = _container(), _pod()
    mounts = {m["name"]: m for m in container["volumeMounts"]}
    assert all("subPath" not in m for m in mounts.values())
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert volumes["policy"]["configMap"]["name"] == one(BASE_OBJECTS, "ConfigMap")["metadata"]["name"]
    assert volumes["tls"]["secret"]["secretName"] == "draguard-tls"
    assert [i["key"] for i in volumes["tls"]["secret"]["items"]] == ["tls.crt", "tls.key"]
    args = _args()
    assert args["--cert-dir"] == mounts["tls"]["mountPath"]
    assert args["--policy"] == mounts["policy"]["mountPath"] + "/policy.yaml"
    assert mounts["tmp"]["mountPath"] == "/tmp"


def _args() -> dict[str, str]:
    return dict(arg.split("=", 1) for arg in _container()["args"])


def test_services_route_443_to_the_tls_port_and_metrics_separately() -> None:
    service = one(BASE_OBJECTS, "Service", "draguard")
    assert service["spec"]["selector"] == WEBHOOK_LABELS
    assert service["spec"]["ports"] == [{"name": "https", "port": 443, "targetPort": "https", "protocol": "TCP"}]
    metrics = one(BASE_OBJECTS, "Service", "draguard-metrics")
    assert metrics["spec"]["selector"] == WEBHOOK_LABELS
    assert [(p["port"], p["targetPort"]) for p in metrics["spec"]["ports"]] == [(9090, "metrics")]
    assert _args()["--port"] == "8443"
    assert _args()["--metrics-port"] == "9090"


def test_network_policy_admits_only_the_two_ports_and_no_egress() -> None:
    policy = one(BASE_OBJECTS, "NetworkPolicy", "draguard")
    assert policy["spec"]["podSelector"]["matchLabels"] == WEBHOOK_LABELS
    assert policy["spec"]["policyTypes"] == ["Ingress", "Egress"]
    assert policy["spec"]["egress"] == []
    ports = sorted(p["port"] for rule in policy["spec"]["ingress"] for p in rule["ports"])
    assert ports == ["https", "metrics"]


def test_webhook_service_account_has_no_token() -> None:
    account = one(BASE_OBJECTS, "ServiceAccount", "draguard")
    assert account["automountServiceAccountToken"] is False
    assert _pod()["serviceAccountName"] == "draguard"


@pytest.mark.parametrize("name", ["resourceslices.draguard.io", "selectors.draguard.io"])
def test_webhook_follows_the_good_practices(name: str) -> None:
    webhook = _webhooks()[name]
    assert webhook["sideEffects"] == "None"
    assert 1 <= webhook["timeoutSeconds"] <= 5
    assert webhook["matchPolicy"] == "Equivalent"
    assert webhook["admissionReviewVersions"] == ["v1"]
    assert webhook["failurePolicy"] in ("Ignore", "Fail")
    assert "caBundle" not in webhook["clientConfig"]  # injected by the overlays; re-applying must not erase it
    service = webhook["clientConfig"]["service"]
    assert (service["name"], service["namespace"], service["port"]) == ("draguard", "draguard", 443)


def _rules(webhook: Obj) -> set[tuple[str, str, str]]:
    return {
        (group, version, resource)
        for rule in webhook["rules"]
        for group in rule["apiGroups"]
        for version in rule["apiVersions"]
        for resource in rule["resources"]
    }


def test_resourceslices_webhook_matches_v1_and_v1beta2_slices_and_fails_open() -> None:
    webhook = _webhooks()["resourceslices.draguard.io"]
    assert webhook["clientConfig"]["service"]["path"] == "/validate/resourceslices"
    assert _rules(webhook) == {("resource.k8s.io", v, "resourceslices") for v in ("v1", "v1beta2")}
    assert [r["operations"] for r in webhook["rules"]] == [["CREATE", "UPDATE"]]
    # Cluster-scoped: a namespaceSelector would exempt nothing, so none is pretended.
    assert [r["scope"] for r in webhook["rules"]] == ["Cluster"]
    assert "namespaceSelector" not in webhook
    assert webhook["failurePolicy"] == "Ignore"


def test_selectors_webhook_matches_the_selector_kinds_outside_its_own_and_the_system_namespace() -> None:
    webhook = _webhooks()["selectors.draguard.io"]
    assert webhook["clientConfig"]["service"]["path"] == "/validate/selectors"
    kinds = ("resourceclaims", "resourceclaimtemplates", "deviceclasses")
    assert _rules(webhook) == {("resource.k8s.io", v, k) for v in ("v1", "v1beta2") for k in kinds}
    assert webhook["namespaceSelector"] == {
        "matchExpressions": [
            {"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": ["draguard", "kube-system"]}
        ]
    }
    assert webhook["failurePolicy"] == "Ignore"


def test_policy_configmap_holds_the_default_policy(capsys: pytest.CaptureFixture[str]) -> None:
    # Byte for byte what `draguard policy default` prints (every rule, its default action and summary), so a rule
    # added to the catalogue shows up in the shipped ConfigMap; tests/webhook/commands/test_policy.py proves that
    # text loads as the defaults.
    from webhook import cli

    assert cli.main(["policy", "default"]) == 0
    shipped = one(BASE_OBJECTS, "ConfigMap", "draguard-policy")["data"]["policy.yaml"]
    assert shipped == capsys.readouterr().out, (
        "deploy/base/policy-configmap.yaml is stale: paste `draguard policy default` under `policy.yaml: |`"
    )


def test_the_webhook_app_serves_every_path_the_manifests_name() -> None:
    from webhook.app import Settings, create_app

    routes = {(rule.rule, method) for rule in create_app(Settings()).url_map.iter_rules() for method in rule.methods}
    for webhook in _webhooks().values():
        assert (webhook["clientConfig"]["service"]["path"], "POST") in routes
    for probe in ("livenessProbe", "readinessProbe"):
        assert (_container()[probe]["httpGet"]["path"], "GET") in routes


def _match(webhook: str, condition: str, request: Obj) -> bool:
    import celpy

    (expression,) = [c["expression"] for c in _webhooks()[webhook]["matchConditions"] if c["name"] == condition]
    env = celpy.Environment()
    activation = {"object": celpy.json_to_cel(request.get("object")), "request": celpy.json_to_cel(request)}
    return bool(env.program(env.compile(expression)).evaluate(activation))


@pytest.mark.parametrize(
    ("spec", "called"),
    [
        ({"devices": [{"name": "gpu-0"}]}, True),
        ({"devices": []}, False),
        ({"sharedCounters": [{"name": "gpu-0-counters", "counters": {"memory": {"value": "40Gi"}}}]}, False),
    ],
)
def test_slices_without_devices_do_not_reach_the_webhook(spec: Obj, called: bool) -> None:
    request = {"object": {"kind": "ResourceSlice", "spec": {"driver": "gpu.example.com", **spec}}}
    assert _match("resourceslices.draguard.io", "has-devices", request) is called


@pytest.mark.parametrize(
    ("user", "called"),
    [
        ("system:serviceaccount:kube-system:resource-claim-controller", False),
        ("system:kube-controller-manager", False),
        ("system:kube-scheduler", False),  # its claims for extended resources (DRAExtendedResource)
        ("system:serviceaccount:kube-system:kube-scheduler", True),  # not the scheduler's own identity
        ("alice@example.com", True),
        ("system:serviceaccount:team-a:deployer", True),
    ],
)
def test_claims_kubernetes_makes_skip_the_webhook(user: str, called: bool) -> None:
    request = {"object": {"kind": "ResourceClaim"}, "userInfo": {"username": user}}
    assert _match("selectors.draguard.io", "not-made-by-kubernetes", request) is called


def test_shutdown_fits_in_the_grace_period() -> None:
    # Pre-stop sleep, then SIGTERM and gunicorn's drain: both must finish before the kubelet's SIGKILL.
    sleep = _container()["lifecycle"]["preStop"]["sleep"]["seconds"]
    drain = int(_args()["--graceful-timeout"])
    assert sleep + drain < _pod()["terminationGracePeriodSeconds"]
    assert drain >= max(w["timeoutSeconds"] for w in _webhooks().values())


def test_image_tag_is_the_package_version() -> None:
    import tomllib

    from tests.conftest import REPO

    version = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert _container()["image"] == f"ghcr.io/draguard/draguard:{version}"
