"""`draguard lint --cluster`: ResourceSlices and DeviceClasses read with the kubernetes client from a
kube context, here a small fake API server on 127.0.0.1 (plain HTTP, paginated like the real one)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

from tests.builders import claim_with_selector, device, device_class_with_selector, slice_with
from webhook import cli
from webhook.inventory import from_cluster

SLICES = [slice_with(device("gpu-0", numa=[0, 1]), name="a"), slice_with(device("gpu-1", numa=2), name="b")]
CLASSES = [device_class_with_selector('device.driver == "gpu.example.com"')]


class _API(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        url = urlparse(self.path)
        items: list[dict[str, Any]] = {"/apis/resource.k8s.io/v1/resourceslices": SLICES,
                                        "/apis/resource.k8s.io/v1/deviceclasses": CLASSES}.get(url.path, [])
        page = int(parse_qs(url.query).get("continue", ["0"])[0])
        body: dict[str, Any] = {"items": [{k: v for k, v in i.items() if k != "kind"} for i in items[page:page + 1]],
                                "metadata": {"continue": str(page + 1) if page + 1 < len(items) else ""}}
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def kubeconfig(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _API)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    path = tmp_path / "kubeconfig"
    path.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": "fake",
        "clusters": [{"name": "fake", "cluster": {"server": f"http://127.0.0.1:{server.server_port}"}}],
        "users": [{"name": "u", "user": {"token": "t"}}],
        "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "u"}}],
    }), encoding="utf-8")
    monkeypatch.setenv("KUBECONFIG", str(path))
    yield path
    server.shutdown()
    server.server_close()


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
        "`==` on resource.kubernetes.io/numaNode: resource.kubernetes.io/numaNode is a list on 1 device(s) in the "
        "inventory (e.g. gpu.example.com/pool-0/gpu-0)")


def test_no_kube_context_is_a_one_line_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "absent"))
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    (tmp_path / "c.yaml").write_text(json.dumps(claim_with_selector("true")), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["lint", "c.yaml", "--cluster"]) == 2
    assert capsys.readouterr().err == (
        "draguard: error: --cluster: no kube context (set KUBECONFIG or run inside a cluster)\n")
