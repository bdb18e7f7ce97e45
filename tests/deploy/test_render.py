"""Every kustomization renders, and every object it renders is valid for Kubernetes 1.37 in strict mode."""

from __future__ import annotations

import copy
import os
from pathlib import Path

import pytest

from tests.deploy.kustomize import (
    CERT_MANAGER_GROUP,
    DEPLOY,
    KUSTOMIZATIONS,
    Obj,
    kustomization,
    kustomization_dirs,
    load_files,
    pod_specs,
    render,
    schema_errors,
)

ALL = sorted(KUSTOMIZATIONS)
# The overlays that install the webhook: the base and what they add to it.
WEBHOOK_OVERLAYS = ["job-certs", "cert-manager", "mtls", "job-certs-fail-closed", "cert-manager-fail-closed"]


def test_every_kustomization_under_deploy_is_rendered_and_checked() -> None:
    # A new overlay that is not in KUSTOMIZATIONS would escape every check below (the fail-closed overlays did).
    found = kustomization_dirs()
    assert sorted(d for d, kind in found.items() if kind == "Kustomization") == sorted(KUSTOMIZATIONS.values())
    assert set(found.values()) == {"Kustomization", "Component"}
    used = {
        (directory / entry).resolve()
        for directory in KUSTOMIZATIONS.values()
        for entry in kustomization(directory).get("components", [])
    }
    assert {d.resolve() for d, kind in found.items() if kind == "Component"} <= used


@pytest.mark.parametrize("name", ALL)
def test_kustomization_lists_every_manifest_beside_it_and_nothing_missing(name: str) -> None:
    # Pure Python, so it runs without kubectl too: a file added but not listed is never applied.
    directory = KUSTOMIZATIONS[name]
    listed = [entry for entry in kustomization(directory)["resources"] if not entry.startswith("..")]
    beside = sorted(p.name for p in directory.glob("*.yaml") if p.name != "kustomization.yaml")
    assert sorted(listed) == beside
    for entry in kustomization(directory)["resources"] + kustomization(directory).get("components", []):
        assert (directory / entry).exists(), f"{name}: {entry} does not exist"


@pytest.mark.parametrize("name", ALL)
def test_every_rendered_object_is_schema_valid_for_kubernetes_1_37(name: str) -> None:
    objects = render(KUSTOMIZATIONS[name])
    assert objects
    errors = [schema_errors(o) for o in objects if o["apiVersion"] != CERT_MANAGER_GROUP]
    assert [e for e in errors if e] == []


@pytest.mark.parametrize("name", ALL)
def test_every_manifest_file_is_schema_valid_as_written(name: str) -> None:
    # The same check on the files themselves: it still runs where kubectl is not installed.
    paths = sorted(p for p in KUSTOMIZATIONS[name].glob("*.yaml") if p.name != "kustomization.yaml")
    objects = [o for o in load_files(paths) if o["apiVersion"] != CERT_MANAGER_GROUP]
    assert [e for e in map(schema_errors, objects) if e] == []


@pytest.mark.parametrize("name", ALL)
def test_no_object_is_rendered_twice(name: str) -> None:
    keys = [(o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"]) for o in render(KUSTOMIZATIONS[name])]
    assert len(keys) == len(set(keys))


def test_strict_validation_rejects_an_unknown_field() -> None:
    # Guards the checks above: a misspelt field must not pass as valid.
    deployment = next(o for o in load_files([DEPLOY / "base" / "deployment.yaml"]))
    broken: Obj = copy.deepcopy(deployment)
    broken["spec"]["template"]["spec"]["containers"][0]["readinesProbe"] = {}
    assert "readinesProbe" in (schema_errors(broken) or "")


def test_overlays_contain_the_whole_base() -> None:
    base = {(o["kind"], o["metadata"]["name"]) for o in render(KUSTOMIZATIONS["base"])}
    for overlay in WEBHOOK_OVERLAYS:
        rendered = {(o["kind"], o["metadata"]["name"]) for o in render(KUSTOMIZATIONS[overlay])}
        assert base <= rendered, overlay


def test_every_namespaced_object_lives_in_the_draguard_namespace() -> None:
    for name in ALL:
        for obj in render(KUSTOMIZATIONS[name]):
            if obj["kind"] not in CLUSTER_SCOPED:
                assert obj["metadata"].get("namespace") == "draguard", (name, obj["kind"], obj["metadata"]["name"])


def test_every_container_runs_the_one_draguard_image() -> None:
    for name in ["base", "audit", *WEBHOOK_OVERLAYS]:
        images = {
            c["image"]
            for o in render(KUSTOMIZATIONS[name])
            for spec in pod_specs([o]).values()
            for c in spec.get("initContainers", []) + spec["containers"]
        }
        assert images == {"ghcr.io/draguard/draguard:0.1.0"}, name


CLUSTER_SCOPED = {
    "Namespace",
    "PriorityClass",
    "ClusterRole",
    "ClusterRoleBinding",
    "ValidatingWebhookConfiguration",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
}


@pytest.mark.parametrize("overlay", WEBHOOK_OVERLAYS)
def test_one_image_setting_in_a_user_overlay_repoints_every_container(overlay: str, tmp_path: Path) -> None:
    # What docs/deploy.md tells users to do: an overlay of their own with one `images` entry.
    source = os.path.relpath(KUSTOMIZATIONS[overlay], tmp_path)
    (tmp_path / "kustomization.yaml").write_text(
        f"resources:\n  - {source}\n"
        "images:\n  - name: ghcr.io/draguard/draguard\n    newName: registry.example.com/draguard\n"
        "    newTag: 9.9.9\n",
        encoding="utf-8",
    )
    images = {
        c["image"]
        for o in render(tmp_path)
        for spec in pod_specs([o]).values()
        for c in spec.get("initContainers", []) + spec["containers"]
    }
    assert images == {"registry.example.com/draguard:9.9.9"}


def test_a_user_overlay_replaces_the_policy_file_in_place(tmp_path: Path) -> None:
    # The configMapGenerator recipe of docs/deploy.md: same ConfigMap name, so the Deployment mounts the new file.
    source = os.path.relpath(KUSTOMIZATIONS["job-certs"], tmp_path)
    (tmp_path / "policy.yaml").write_text("rules:\n  numa-node-order: deny\n", encoding="utf-8")
    (tmp_path / "kustomization.yaml").write_text(
        f"resources:\n  - {source}\nconfigMapGenerator:\n  - name: draguard-policy\n    namespace: draguard\n"
        "    behavior: replace\n    files:\n      - policy.yaml\n",
        encoding="utf-8",
    )
    objects = render(tmp_path)
    (config,) = [o for o in objects if o["kind"] == "ConfigMap"]
    assert config["metadata"]["name"] == "draguard-policy"
    assert config["data"] == {"policy.yaml": "rules:\n  numa-node-order: deny\n"}
    (deployment,) = [o for o in objects if o["kind"] == "Deployment"]
    volumes = {v["name"]: v for v in deployment["spec"]["template"]["spec"]["volumes"]}
    assert volumes["policy"]["configMap"]["name"] == "draguard-policy"
