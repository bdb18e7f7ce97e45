"""The metrics port's WSGI app (`metrics.wsgi_app`, which `webhook.front` serves there): the metrics at
`GET /metrics`, `ok` at the probe paths the mTLS overlay points the kubelet to, 404 everywhere else
(prometheus_client's own app answers every path with the metrics)."""

from __future__ import annotations

import pytest
from werkzeug.test import Client

from webhook import metrics


@pytest.fixture
def client() -> Client:
    return Client(metrics.wsgi_app())


def test_get_metrics_serves_the_metrics(client: Client) -> None:
    response = client.get("/metrics")
    assert response.status_code == 200
    assert "controller_runtime_webhook_panics_total" in response.get_data(as_text=True)


def test_a_query_string_does_not_change_the_path(client: Client) -> None:
    response = client.get("/metrics?name[]=controller_runtime_webhook_panics_total")
    assert response.status_code == 200
    assert "controller_runtime_webhook_panics_total" in response.get_data(as_text=True)


@pytest.mark.parametrize("path", ["/", "/anything/else", "/metrics/", "/metricsx", "/Metrics", "/healthz/",
                                  "/readyz/x", "/favicon.ico", "/validate/resourceslices"])
def test_any_other_path_is_not_found(client: Client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert response.get_data(as_text=True) == (
        "404 Not Found: this port serves GET /metrics (and the probes /healthz, /readyz)\n")
    assert response.headers["Content-Type"] == "text/plain; charset=utf-8"


@pytest.mark.parametrize("path", ["/healthz", "/readyz"])
def test_the_probe_paths_the_mtls_overlay_uses_answer_ok_not_the_metrics(client: Client, path: str) -> None:
    """deploy/overlays/mtls points the kubelet's probes at this port (docs/deploy.md: "the process is up")."""
    response = client.get(path)
    assert (response.status_code, response.get_data(as_text=True)) == (200, "ok\n")


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE"])
def test_another_method_on_another_path_is_not_found(client: Client, method: str) -> None:
    assert client.open("/anything", method=method).status_code == 404


def test_another_method_on_metrics_is_not_allowed(client: Client) -> None:
    response = client.post("/metrics")
    assert response.status_code == 405
    assert response.headers["Allow"] == "OPTIONS,GET"
