"""The fail-closed overlays: failurePolicy Fail for ResourceSlices only, with replicas, PDB and anti-affinity."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.deploy.kustomize import CERT_MANAGER, DEPLOY, JOB_CERTS, Obj, one, render, schema_errors

FAIL_CLOSED = {
    DEPLOY / "overlays" / "job-certs-fail-closed": JOB_CERTS,
    DEPLOY / "overlays" / "cert-manager-fail-closed": CERT_MANAGER,
}


def policies(objects: list[Obj]) -> dict[str, str]:
    return {w["name"]: w["failurePolicy"] for w in one(objects, "ValidatingWebhookConfiguration")["webhooks"]}


@pytest.mark.parametrize("overlay", list(FAIL_CLOSED), ids=lambda p: p.name)
def test_only_resourceslices_fail_closed(overlay: Path) -> None:
    assert policies(render(FAIL_CLOSED[overlay])) == {"resourceslices.draguard.io": "Ignore",
                                                      "selectors.draguard.io": "Ignore"}
    assert policies(render(overlay)) == {"resourceslices.draguard.io": "Fail", "selectors.draguard.io": "Ignore"}


@pytest.mark.parametrize("overlay", list(FAIL_CLOSED), ids=lambda p: p.name)
def test_fail_closed_runs_three_replicas_one_per_node_and_keeps_two(overlay: Path) -> None:
    objects = render(overlay)
    deployment = one(objects, "Deployment", "draguard")
    spec = deployment["spec"]
    assert (spec["replicas"], spec["strategy"]["rollingUpdate"]) == (3, {"maxSurge": 0, "maxUnavailable": 1})
    (term,) = spec["template"]["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert term["topologyKey"] == "kubernetes.io/hostname"
    assert term["labelSelector"]["matchLabels"] == spec["selector"]["matchLabels"]
    assert "preferredDuringSchedulingIgnoredDuringExecution" not in spec["template"]["spec"]["affinity"][
        "podAntiAffinity"]
    assert one(objects, "PodDisruptionBudget")["spec"]["minAvailable"] == 2
    assert [e for e in map(schema_errors, (deployment, one(objects, "ValidatingWebhookConfiguration"))) if e] == []


@pytest.mark.parametrize("overlay", list(FAIL_CLOSED), ids=lambda p: p.name)
def test_fail_closed_changes_nothing_else(overlay: Path) -> None:
    def key(obj: Obj) -> tuple[str, str]:
        return obj["kind"], obj["metadata"]["name"]

    changed = {key(o) for o in render(overlay)} ^ {key(o) for o in render(FAIL_CLOSED[overlay])}
    assert changed == set()
    base = {key(o): o for o in render(FAIL_CLOSED[overlay])}
    differing = sorted(key(o) for o in render(overlay) if base[key(o)] != o)
    assert differing == [("Deployment", "draguard"), ("PodDisruptionBudget", "draguard"),
                         ("ValidatingWebhookConfiguration", "draguard")]
