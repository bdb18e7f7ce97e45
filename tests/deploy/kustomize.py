"""Rendering deploy/ with `kubectl kustomize` and checking objects against the Kubernetes OpenAPI schemas."""

from __future__ import annotations

import functools
import shutil
import subprocess
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from tests.conftest import REPO

DEPLOY = REPO / "deploy"
BASE = DEPLOY / "base"
JOB_CERTS = DEPLOY / "overlays" / "job-certs"
CERT_MANAGER = DEPLOY / "overlays" / "cert-manager"
MTLS = DEPLOY / "overlays" / "mtls"
VAP = DEPLOY / "vap"
AUDIT = DEPLOY / "overlays" / "audit"
JOB_CERTS_FAIL_CLOSED = DEPLOY / "overlays" / "job-certs-fail-closed"
CERT_MANAGER_FAIL_CLOSED = DEPLOY / "overlays" / "cert-manager-fail-closed"
# Every kustomization a user can apply (tests/deploy/test_render.py checks that none under deploy/ is missing);
# components (deploy/components) are not buildable alone and are checked through the overlays that use them.
KUSTOMIZATIONS = {"base": BASE, "job-certs": JOB_CERTS, "cert-manager": CERT_MANAGER, "mtls": MTLS, "vap": VAP,
                  "audit": AUDIT, "job-certs-fail-closed": JOB_CERTS_FAIL_CLOSED,
                  "cert-manager-fail-closed": CERT_MANAGER_FAIL_CLOSED}
KUBERNETES = "1.37.0"  # the release the manifests target; kubernetes-validate ships its schemas
CERT_MANAGER_GROUP = "cert-manager.io/v1"  # CRDs: not in the Kubernetes OpenAPI, checked field by field instead

Obj = dict[str, Any]


def kubectl() -> str:
    path = shutil.which("kubectl")
    if path is None:
        pytest.skip("kubectl is not installed, so `kubectl kustomize` cannot render the overlays")
    return path


@functools.cache
def _render(directory: Path) -> tuple[Obj, ...]:
    done = subprocess.run(
        [kubectl(), "kustomize", str(directory)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return tuple(doc for doc in yaml.safe_load_all(done.stdout) if doc)


def render(directory: Path) -> list[Obj]:
    """`kubectl kustomize DIR` as objects (skips the test when kubectl is absent)."""
    return list(_render(directory))


def load_files(paths: list[Path]) -> list[Obj]:
    return [doc for path in paths for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")) if doc]


def manifests(directory: Path) -> list[Obj]:
    """The objects of every manifest file in `directory`, as written (kustomization.yaml excluded)."""
    return load_files(sorted(p for p in directory.glob("*.yaml") if p.name != "kustomization.yaml"))


def kustomization_dirs() -> dict[Path, str]:
    """Every directory under deploy/ with a kustomization.yaml, and its kind (Kustomization or Component)."""
    return {path.parent: kustomization(path.parent).get("kind", "Kustomization")
            for path in sorted(DEPLOY.rglob("kustomization.yaml"))}


def kustomization(directory: Path) -> Obj:
    data: Obj = yaml.safe_load((directory / "kustomization.yaml").read_text(encoding="utf-8"))
    return data


def one(objects: list[Obj], kind: str, name: str | None = None) -> Obj:
    found = [o for o in objects if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]
    assert len(found) == 1, f"expected one {kind} {name or ''}, found {len(found)}"
    return found[0]


def schema_errors(obj: Obj) -> str | None:
    """None when `obj` is valid for Kubernetes 1.37 in strict mode (unknown fields are errors), else why not."""
    try:
        kubernetes_validate.validate(obj, KUBERNETES, strict=True)
    except kubernetes_validate.ValidationError as err:
        where = ".".join(str(p) for p in err.path)
        return f"{obj['kind']}/{obj['metadata'].get('name')}: {where}: {err.message}"
    return None


def pod_specs(objects: list[Obj]) -> dict[str, Obj]:
    """`Kind/name` -> pod spec, for every workload object."""
    specs = {}
    for obj in objects:
        spec = obj.get("spec", {})
        if obj["kind"] in ("Deployment", "Job"):
            specs[f"{obj['kind']}/{obj['metadata']['name']}"] = spec["template"]["spec"]
        elif obj["kind"] == "CronJob":
            specs[f"CronJob/{obj['metadata']['name']}"] = spec["jobTemplate"]["spec"]["template"]["spec"]
    return specs
