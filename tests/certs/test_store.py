"""certs.store.SecretStore against the fake API server: create, optimistic update, conflicts, wrong types."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from certs import CertsError
from certs.issue import plan_generate, service_names
from certs.kube import connect
from certs.store import SecretStore, parse_ref
from tests.certs.apiserver import FakeAPIServer, Request

SECRETS = "/api/v1/namespaces/draguard-system/secrets"
SECRET = f"{SECRETS}/draguard-tls"
NAMES = service_names("draguard", "draguard-system")


def _store(apiserver: FakeAPIServer) -> SecretStore:
    return SecretStore(connect(str(apiserver.kubeconfig)), "draguard-system", "draguard-tls")


def _generate(store: SecretStore, **kw: object) -> bool:
    current = store.load()
    plan = plan_generate(current, str(store), NAMES, **kw)  # type: ignore[arg-type]
    if plan.changes:
        store.save(plan.changes, current)
    return bool(plan.changes)


def test_an_absent_secret_is_created_as_kubernetes_io_tls(apiserver: FakeAPIServer) -> None:
    assert _generate(_store(apiserver))
    get, post = apiserver.requests
    assert get == Request("GET", SECRET, {}, None, None)
    assert (post.method, post.path, post.content_type) == ("POST", SECRETS, "application/json")
    assert post.body["type"] == "kubernetes.io/tls"
    assert post.body["metadata"] == {"name": "draguard-tls", "namespace": "draguard-system",
                                     "labels": {"app.kubernetes.io/managed-by": "draguard"}}
    assert sorted(post.body["data"]) == ["ca.crt", "ca.key", "tls.crt", "tls.key"]
    assert base64.b64decode(post.body["data"]["tls.crt"]).startswith(b"-----BEGIN CERTIFICATE-----")


def test_a_current_secret_is_not_written_again(apiserver: FakeAPIServer) -> None:
    _generate(_store(apiserver))
    apiserver.requests.clear()
    assert not _generate(_store(apiserver))
    assert [r.method for r in apiserver.requests] == ["GET"]


def test_an_update_carries_the_resource_version_and_keeps_labels_and_annotations(apiserver: FakeAPIServer) -> None:
    _generate(_store(apiserver))
    stored = apiserver.get(SECRET)
    stored["metadata"]["labels"]["team"] = "gpu"
    stored["metadata"]["annotations"] = {"meta.helm.sh/release-name": "draguard"}
    version = stored["metadata"]["resourceVersion"]
    apiserver.requests.clear()
    assert _generate(_store(apiserver), key_type="rsa")
    put = apiserver.requests[1]
    assert (put.method, put.path) == ("PUT", SECRET)
    assert put.body["metadata"] == {
        "name": "draguard-tls", "namespace": "draguard-system", "resourceVersion": version,
        "labels": {"team": "gpu", "app.kubernetes.io/managed-by": "draguard"},
        "annotations": {"meta.helm.sh/release-name": "draguard"},
    }
    assert put.body["data"]["ca.crt"] == apiserver.get(SECRET)["data"]["ca.crt"]  # the CA was reused


def test_a_concurrent_writer_makes_the_update_fail_instead_of_losing_it(apiserver: FakeAPIServer) -> None:
    _generate(_store(apiserver))
    store = _store(apiserver)
    current = store.load()
    apiserver.put(SECRET, apiserver.get(SECRET))  # someone else wrote in between: a new resourceVersion
    plan = plan_generate(current, str(store), NAMES, key_type="rsa")
    with pytest.raises(CertsError) as err:
        store.save(plan.changes, current)
    assert err.value.message == (
        "secret/draguard-tls (namespace draguard-system) changed while draguard was updating it; run the command again")


def test_a_secret_of_another_type_is_refused(apiserver: FakeAPIServer) -> None:
    apiserver.put(SECRET, {"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
                           "metadata": {"name": "draguard-tls", "namespace": "draguard-system"}})
    with pytest.raises(CertsError) as err:
        _store(apiserver).load()
    assert err.value.message == ("secret/draguard-tls (namespace draguard-system) has type 'Opaque', not "
                                 "'kubernetes.io/tls'; draguard keeps its material in a TLS Secret")


@pytest.mark.parametrize("ref", ["draguard-tls", "/x", "ns/", "a/b/c"])
def test_a_bad_secret_reference_is_refused(ref: str) -> None:
    with pytest.raises(CertsError, match=f"invalid Secret reference '{ref}': expected NAMESPACE/NAME"):
        parse_ref(ref)


def test_a_missing_kubeconfig_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(CertsError) as err:
        connect(str(tmp_path / "nope"))
    assert err.value.message == f"{tmp_path / 'nope'}: no such kubeconfig file"


def test_a_kubeconfig_without_the_named_context_is_one_line(apiserver: FakeAPIServer) -> None:
    with pytest.raises(CertsError) as err:
        connect(str(apiserver.kubeconfig), "prod")
    assert err.value.message.startswith("cannot load the Kubernetes configuration: ")
    assert "prod" in err.value.message


def test_inside_a_pod_without_a_service_account_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.kube/config: it would win over the service account
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "443")
    with pytest.raises(CertsError) as err:
        connect()
    assert err.value.message.startswith("cannot load the Kubernetes configuration: ")
    assert "\n" not in err.value.message
