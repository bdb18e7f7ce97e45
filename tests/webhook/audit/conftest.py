"""Fixtures for the audit tests: a synthetic cluster (runs without the corpus) behind the HTTPS stand-in."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.builders import claim_with_selector, device, device_class_with_selector, slice_with
from tests.webhook.audit.apiserver import AuditAPIServer
from webhook import cli

PROXY_VARIABLES = [f"{name}{suffix}" for name in ("https", "http", "no", "all") for suffix in ("_proxy", "_PROXY")]
NUMA = 'device.attributes["resource.kubernetes.io"].numaNode'


def _in(namespace: str, obj: dict[str, Any]) -> dict[str, Any]:
    obj["metadata"]["namespace"] = namespace
    obj["metadata"]["uid"] = f"uid-{namespace}-{obj['metadata']['name']}"
    return obj


def synthetic() -> list[dict[str, Any]]:
    """Three slices (a list numaNode, a device without one, a bad device name), one class, two claims in
    team-a (one list-fragile, one clean) and a template in team-b whose selector misses on one device."""
    return [
        slice_with(device("gpu-0", numa=[0, 1]), device("gpu-1", numa=2), name="node-a-gpu", node_name="node-a"),
        slice_with(device("gpu-2"), name="node-b-gpu", node_name="node-b", pool="pool-b"),
        slice_with(device("GPU_3", numa=0), name="node-c-gpu", node_name="node-c", pool="pool-c"),
        device_class_with_selector('device.driver == "gpu.example.com"'),
        _in("team-a", claim_with_selector(f"{NUMA} == 2", name="fragile")),
        _in("team-a", claim_with_selector('device.driver == "gpu.example.com"', name="clean")),
        _in("team-b", claim_with_selector(f"{NUMA}.includes(0)", name="missing", kind="ResourceClaimTemplate")),
    ]


@dataclass
class Run:
    code: int
    out: str
    err: str


@pytest.fixture
def api(tmp_path: Path) -> Iterator[AuditAPIServer]:
    with AuditAPIServer(tmp_path, copy.deepcopy(synthetic())) as server:
        yield server


@pytest.fixture
def audit(api: AuditAPIServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
          tmp_path: Path) -> Any:
    """`audit("--format", "json")`: draguard audit against the stand-in, as the CLI runs it."""
    monkeypatch.chdir(tmp_path)  # no .draguard.yaml from the repository
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)

    def run(*args: str) -> Run:
        code = cli.main(["audit", "--kubeconfig", str(api.kubeconfig), *args])
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run


@pytest.fixture
def cli_run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    """`cli_run("audit", ...)`: any draguard command, in an empty directory and home, outside a Pod, without
    kubeconfig or proxy variables; `claim.yaml` holds a list-fragile claim for `lint`."""
    monkeypatch.chdir(tmp_path)
    for variable in PROXY_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "claim.yaml").write_text(json.dumps(claim_with_selector(f"{NUMA} == 2")), encoding="utf-8")

    def run(*args: str) -> Run:
        code = cli.main(list(args))
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run


def one_error(run: Run, text: str) -> None:
    """The run failed with exit 2 and said `text` in one line, nothing else."""
    assert (run.code, run.out, run.err) == (2, "", f"draguard: error: {text}\n")
