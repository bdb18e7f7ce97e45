"""deploy/overlays/mtls: the webhook requires the API server's client certificate, and probes still work."""

from __future__ import annotations

import argparse
from pathlib import PurePosixPath

from tests.deploy.kustomize import JOB_CERTS, MTLS, Obj, one, pod_specs, render
from webhook import cli


def _webhook(objects: list[Obj]) -> tuple[Obj, Obj]:
    pod = pod_specs(objects)["Deployment/draguard"]
    return pod, pod["containers"][0]


def _args(container: Obj) -> argparse.Namespace:
    parsed: argparse.Namespace = cli.build_parser().parse_args(["serve", *container["args"]])
    return parsed


def test_it_is_the_job_certs_overlay_plus_client_certificates_only() -> None:
    mtls, plain = render(MTLS), render(JOB_CERTS)
    assert {(o["kind"], o["metadata"]["name"]) for o in mtls} == {(o["kind"], o["metadata"]["name"]) for o in plain}
    assert [o for o in mtls if o["kind"] != "Deployment"] == [o for o in plain if o["kind"] != "Deployment"]
    _, before = _webhook(plain)
    _, after = _webhook(mtls)
    assert after["args"] == [*before["args"], "--client-ca=/etc/draguard/tls/ca.crt",
                             "--allowed-subject=kube-apiserver"]


def test_the_client_ca_is_the_webhook_ca_mounted_beside_the_serving_pair() -> None:
    objects = render(MTLS)
    pod, container = _webhook(objects)
    args = _args(container)
    mount = next(m for m in container["volumeMounts"] if PurePosixPath(args.client_ca).parent == PurePosixPath(
        m["mountPath"]))
    volume = next(v for v in pod["volumes"] if v["name"] == mount["name"])
    assert {"key": "ca.crt", "path": PurePosixPath(args.client_ca).name} in volume["secret"]["items"]
    assert "subPath" not in mount  # a whole-directory mount, so a rotated CA reaches the process
    assert args.allowed_subject == ["kube-apiserver"]
    assert args.cert_dir == PurePosixPath(args.client_ca).parent


def test_probes_use_the_plain_http_metrics_listener_the_kubelet_can_reach() -> None:
    _, container = _webhook(render(MTLS))
    args = _args(container)
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports["metrics"] == args.metrics_port != 0
    for probe, path in (("readinessProbe", "/readyz"), ("livenessProbe", "/healthz")):
        assert container[probe]["httpGet"] == {"path": path, "port": "metrics", "scheme": "HTTP"}


def test_the_service_still_routes_to_the_https_port() -> None:
    service = one(render(MTLS), "Service", "draguard")
    assert [p["targetPort"] for p in service["spec"]["ports"]] == ["https"]
