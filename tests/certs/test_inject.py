"""certs.inject against the fake API server: the exact requests, the read-back, and the refusals."""

from __future__ import annotations

import base64
import copy
import socket
from pathlib import Path
from typing import Any

import pytest

from certs import CertsError
from certs.inject import inject
from certs.issue import generate
from certs.kube import connect
from tests.certs import apiserver as fake
from tests.certs.apiserver import JSON_PATCH, VWC_PATH, FakeAPIServer, Request, State, webhook_configuration

NAME = "draguard"
PATH = VWC_PATH + NAME


def _bundle(tmp_path: Path) -> bytes:
    return generate(tmp_path / "tls", "draguard", "draguard-system").ca_file.read_bytes()


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_every_webhook_gets_the_bundle_in_one_json_patch_then_it_is_read_back(
    tmp_path: Path, apiserver: FakeAPIServer
) -> None:
    bundle = _bundle(tmp_path)
    apiserver.put(PATH, webhook_configuration(NAME, "slices.draguard.io", "claims.draguard.io"))
    done = inject(connect(str(apiserver.kubeconfig)), NAME, bundle)
    assert (done.webhooks, done.patched) == (("slices.draguard.io", "claims.draguard.io"),) * 2
    encoded = _b64(bundle)
    assert apiserver.requests == [
        Request("GET", PATH, {}, None, None),
        Request("PATCH", PATH, {"fieldManager": ["draguard-certs"]}, JSON_PATCH, [
            {"op": "test", "path": "/webhooks/0/name", "value": "slices.draguard.io"},
            {"op": "add", "path": "/webhooks/0/clientConfig/caBundle", "value": encoded},
            {"op": "test", "path": "/webhooks/1/name", "value": "claims.draguard.io"},
            {"op": "add", "path": "/webhooks/1/clientConfig/caBundle", "value": encoded},
        ]),
        Request("GET", PATH, {}, None, None),
    ]
    assert [w["clientConfig"]["caBundle"] for w in apiserver.get(PATH)["webhooks"]] == [encoded, encoded]


def test_only_entries_with_a_different_bundle_are_patched_and_a_current_one_is_left_alone(
    tmp_path: Path, apiserver: FakeAPIServer
) -> None:
    bundle = _bundle(tmp_path)
    config = webhook_configuration(NAME, "a.draguard.io", "b.draguard.io", ca_bundle=_b64(bundle))
    config["webhooks"][1]["clientConfig"]["caBundle"] = "Cg=="  # what a chart's empty placeholder leaves
    apiserver.put(PATH, config)
    kube = connect(str(apiserver.kubeconfig))
    assert inject(kube, NAME, bundle).patched == ("b.draguard.io",)
    assert apiserver.requests[1].body == [
        {"op": "test", "path": "/webhooks/1/name", "value": "b.draguard.io"},
        {"op": "add", "path": "/webhooks/1/clientConfig/caBundle", "value": _b64(bundle)},
    ]
    apiserver.requests.clear()
    assert inject(kube, NAME, bundle).patched == ()
    assert [r.method for r in apiserver.requests] == ["GET", "GET"]  # no write when nothing changes


def test_a_reorder_between_read_and_patch_fails_the_test_op_and_is_retried(
    tmp_path: Path, apiserver: FakeAPIServer
) -> None:
    bundle = _bundle(tmp_path)
    apiserver.put(PATH, webhook_configuration(NAME, "a.draguard.io", "b.draguard.io"))

    def reorder(state: State) -> None:
        state.objects[PATH]["webhooks"].reverse()

    apiserver.state.on_patch.append(reorder)
    done = inject(connect(str(apiserver.kubeconfig)), NAME, bundle)
    assert done.webhooks == ("b.draguard.io", "a.draguard.io")
    assert [r.method for r in apiserver.requests] == ["GET", "PATCH", "GET", "PATCH", "GET"]


def test_a_configuration_owned_by_cainjector_is_left_alone_unless_forced(
    tmp_path: Path, apiserver: FakeAPIServer
) -> None:
    bundle = _bundle(tmp_path)
    annotations = {"cert-manager.io/inject-ca-from": "draguard-system/draguard"}
    apiserver.put(PATH, webhook_configuration(NAME, "a.draguard.io", annotations=annotations))
    kube = connect(str(apiserver.kubeconfig))
    with pytest.raises(CertsError) as err:
        inject(kube, NAME, bundle)
    assert err.value.message == (
        "validatingwebhookconfiguration/draguard is annotated cert-manager.io/inject-ca-from: cert-manager's "
        "cainjector owns its caBundle; drop the annotation or pass --force")
    assert [r.method for r in apiserver.requests] == ["GET"]
    assert inject(kube, NAME, bundle, force=True).patched == ("a.draguard.io",)


@pytest.mark.parametrize(
    ("config", "bundle", "message"),
    [
        (None, None, "validatingwebhookconfiguration/draguard not found"),
        (webhook_configuration(NAME), None, "validatingwebhookconfiguration/draguard has no webhooks to inject the CA "
                                            "bundle into"),
        ({**webhook_configuration(NAME), "webhooks": {"a": 1}}, None,
         "validatingwebhookconfiguration/draguard: webhooks is not a list"),
        ({**webhook_configuration(NAME), "webhooks": ["a"]}, None,
         "validatingwebhookconfiguration/draguard: webhooks[0] is not an object"),
        (webhook_configuration(NAME, "a.draguard.io"), "leaf",
         "the CA bundle: 'draguard.draguard-system.svc' (serial "),
        (webhook_configuration(NAME, "a.draguard.io"), b"nothing", "the CA bundle: no PEM certificate found"),
    ],
)
def test_refusals_are_one_line(
    tmp_path: Path, apiserver: FakeAPIServer, config: dict[str, Any] | None, bundle: bytes | str | None, message: str
) -> None:
    if config is not None:
        apiserver.put(PATH, config)
    if bundle is None:
        bundle = _bundle(tmp_path)
    elif bundle == "leaf":
        bundle = generate(tmp_path / "x", "draguard", "draguard-system").cert_file.read_bytes()
    with pytest.raises(CertsError) as err:
        inject(connect(str(apiserver.kubeconfig)), NAME, bundle)  # type: ignore[arg-type]
    assert err.value.message.startswith(message)
    assert all(r.method == "GET" for r in apiserver.requests)


def test_another_writer_undoing_the_patch_is_caught_by_the_read_back(
    tmp_path: Path, apiserver: FakeAPIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundle = _bundle(tmp_path)
    apiserver.put(PATH, webhook_configuration(NAME, "a.draguard.io"))
    # A second controller (a Helm upgrade, another injector) restores the old object right after our patch.
    monkeypatch.setattr(fake, "apply_patch", lambda doc, ops: copy.deepcopy(doc))
    with pytest.raises(CertsError) as err:
        inject(connect(str(apiserver.kubeconfig)), NAME, bundle)
    assert err.value.message == (
        "validatingwebhookconfiguration/draguard: read back after the patch, webhook(s) a.draguard.io still hold a "
        "different caBundle; another controller may be writing it")


def test_a_wrong_token_is_reported_with_the_servers_answer(tmp_path: Path, apiserver: FakeAPIServer) -> None:
    config = apiserver.kubeconfig.read_text().replace("draguard-test-token", "wrong")
    apiserver.kubeconfig.write_text(config)
    with pytest.raises(CertsError) as err:
        inject(connect(str(apiserver.kubeconfig)), NAME, _bundle(tmp_path))
    assert err.value.message == "validatingwebhookconfiguration/draguard: the API server answered 401 Unauthorized: " \
                                "Unauthorized"


def test_an_unreachable_cluster_is_one_line(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]  # closed again below: nothing listens there
    generate(tmp_path / "ca", "kubernetes", "default")
    path = tmp_path / "kubeconfig"
    path.write_text(fake.kubeconfig(f"https://127.0.0.1:{port}", tmp_path / "ca" / "ca.crt"))
    with pytest.raises(CertsError) as err:
        inject(connect(str(path)), NAME, _bundle(tmp_path))
    assert err.value.message == (
        f"cannot reach the Kubernetes API server at https://127.0.0.1:{port}: Connection refused")


def test_an_api_server_certificate_from_another_ca_is_one_line(tmp_path: Path, apiserver: FakeAPIServer) -> None:
    other = generate(tmp_path / "other", "kubernetes", "default")
    path = tmp_path / "kubeconfig"
    path.write_text(fake.kubeconfig(apiserver.url, other.ca_file))
    with pytest.raises(CertsError) as err:
        inject(connect(str(path)), NAME, _bundle(tmp_path))
    assert err.value.message == (
        f"cannot reach the Kubernetes API server at {apiserver.url}: TLS: certificate verify failed: unable to get "
        "local issuer certificate")


def test_kubeconfig_from_the_environment(
    tmp_path: Path, apiserver: FakeAPIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KUBECONFIG", str(apiserver.kubeconfig))
    apiserver.put(PATH, webhook_configuration(NAME, "a.draguard.io"))
    assert inject(connect(), NAME, _bundle(tmp_path)).patched == ("a.draguard.io",)
