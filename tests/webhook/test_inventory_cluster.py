"""`draguard lint --cluster`: ResourceSlices and DeviceClasses read with the kubernetes client from a
kube context, here the audit's HTTPS stand-in (tests.webhook.audit.apiserver): the same connection and pager."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.builders import claim_with_selector, device, device_class_with_selector, slice_with
from tests.webhook.audit.apiserver import AuditAPIServer
from webhook import cli
from webhook.inventory import from_cluster

SLICES = [slice_with(device("gpu-0", numa=[0, 1]), name="a"), slice_with(device("gpu-1", numa=2), name="b")]
CLASSES = [device_class_with_selector('device.driver == "gpu.example.com"')]


@pytest.fixture
def kubeconfig(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    with AuditAPIServer(tmp_path, copy.deepcopy(SLICES + CLASSES)) as api:
        monkeypatch.setenv("KUBECONFIG", str(api.kubeconfig))
        yield api.kubeconfig


def test_reads_every_page_of_slices_and_classes(kubeconfig: Path) -> None:
    objects = from_cluster()
    assert [(o["kind"], o["metadata"]["name"]) for o in objects] == [
        ("ResourceSlice", "a"), ("ResourceSlice", "b"), ("DeviceClass", "gpu.example.com")]


def test_lint_cluster_uses_the_inventory(kubeconfig: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.yaml").write_text(json.dumps(claim_with_selector(
        'device.attributes["resource.kubernetes.io"].numaNode == 2')), encoding="utf-8")
    code = cli.main(["lint", "c.yaml", "--cluster", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    fragile = [f for f in report["findings"] if f["rule"] == "list-fragile-compare"]
    assert code == 1
    assert fragile[0]["message"].startswith(
        "`==` on resource.kubernetes.io/numaNode: resource.kubernetes.io/numaNode is a list on 1 candidate "
        "device(s) (e.g. gpu.example.com/pool-0/gpu-0)")


def test_no_kube_context_is_a_one_line_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "absent"))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    (tmp_path / "c.yaml").write_text(json.dumps(claim_with_selector("true")), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["lint", "c.yaml", "--cluster"]) == 2
    assert capsys.readouterr().err == (
        "draguard: error: --cluster: cannot load the Kubernetes configuration: no kubeconfig ($KUBECONFIG or "
        "~/.kube/config) and not inside a cluster\n")
