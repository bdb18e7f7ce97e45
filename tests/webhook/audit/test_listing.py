"""Listing in pages against the stand-in: exact requests, an expired continue token, refused and missing kinds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.certs.apiserver import kubeconfig, status
from tests.webhook.audit.apiserver import NOT_FOUND, AuditAPIServer, Canned
from tests.webhook.audit.conftest import Run
from webhook.audit.client import Cluster
from webhook.audit.kinds import RESOURCE_SLICES
from webhook.audit.pager import MAX_RELISTS, Listing, pages
from webhook.errors import DraguardError

DRA = "/apis/resource.k8s.io/v1/"
LISTS = [DRA + p for p in ("resourceslices", "deviceclasses", "resourceclaims", "resourceclaimtemplates")]


def _gets(api: AuditAPIServer) -> list[tuple[str, str, dict[str, list[str]]]]:
    return [(r.method, r.path, r.query) for r in api.requests]


def _names(api: AuditAPIServer, page_size: int, **expire: Any) -> tuple[list[list[str]], Listing]:
    api.state.expire.update(expire)
    cluster = Cluster.connect(str(api.kubeconfig))
    listing = Listing()
    try:
        got = [[o["metadata"]["name"] for o in page] for page in pages(cluster, RESOURCE_SLICES, page_size, listing)]
    finally:
        cluster.close()
    return got, listing


def test_every_kind_is_listed_cluster_wide_in_pages_of_the_page_size(audit: Any, api: AuditAPIServer) -> None:
    run: Run = audit("--page-size", "2")
    assert run.code == 1
    calls = _gets(api)
    assert {method for method, _, _ in calls} == {"GET"}
    assert [path for _, path, _ in calls] == [LISTS[0], LISTS[0], LISTS[1], LISTS[2], LISTS[3]]
    second = {"limit": ["2"], "continue": ["eyJvZmZzZXQiOiAyfQ=="]}
    assert [query for _, _, query in calls][:2] == [{"limit": ["2"]}, second]
    assert all(query["limit"] == ["2"] for _, _, query in calls)
    assert "listed 3 resourceslices, 1 deviceclasses, 2 resourceclaims, 1 resourceclaimtemplates; 7 checked" in run.err


@pytest.mark.parametrize(("size", "pages_"), [(1, [["node-a-gpu"], ["node-b-gpu"], ["node-c-gpu"]]),
                                              (2, [["node-a-gpu", "node-b-gpu"], ["node-c-gpu"]]),
                                              (3, [["node-a-gpu", "node-b-gpu", "node-c-gpu"]])])
def test_page_size_is_the_limit_of_each_request(api: AuditAPIServer, size: int, pages_: list[list[str]]) -> None:
    got, listing = _names(api, size)
    assert got == pages_
    assert (listing.pages, listing.objects) == (len(pages_), 3)
    assert [r.query["limit"] for r in api.requests] == [[str(size)]] * len(pages_)


def test_an_expired_token_resumes_with_the_token_of_the_410_status(api: AuditAPIServer) -> None:
    got, listing = _names(api, 1, resourceslices="token")
    assert got == [["node-a-gpu"], ["node-b-gpu"], ["node-c-gpu"]]
    assert (listing.resumed, listing.relisted) == (1, 0)
    queries = [r.query.get("continue") for r in api.requests]
    assert queries == [None, ["eyJvZmZzZXQiOiAxfQ=="], ["eyJvZmZzZXQiOiAxfQ=="], ["eyJvZmZzZXQiOiAyfQ=="]]


def test_an_expired_token_without_a_fresh_one_lists_again_and_skips_what_was_checked(api: AuditAPIServer) -> None:
    got, listing = _names(api, 1, resourceslices="relist")
    assert got == [["node-a-gpu"], [], ["node-b-gpu"], ["node-c-gpu"]]  # the first page again, already checked
    assert (listing.resumed, listing.relisted, listing.objects) == (0, 1, 3)
    assert [r.query.get("continue") for r in api.requests] == [None, ["eyJvZmZzZXQiOiAxfQ=="], None,
                                                               ["eyJvZmZzZXQiOiAxfQ=="], ["eyJvZmZzZXQiOiAyfQ=="]]


def test_a_server_that_expires_every_token_fails_after_the_last_fresh_start(api: AuditAPIServer,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    class Always(dict[str, str]):
        def pop(self, key: str, default: Any = None) -> Any:
            return "relist"

    monkeypatch.setattr(api.state, "expire", Always())
    with pytest.raises(DraguardError) as caught:
        _names(api, 1)
    assert caught.value.message.startswith("cannot list resourceslices.resource.k8s.io: the API server answered 410 "
                                           "Expired: The provided continue parameter is too old")
    assert caught.value.message.endswith(f"(after {MAX_RELISTS} fresh starts)")
    assert sum(1 for r in api.requests if "continue" not in r.query) == MAX_RELISTS + 1


def test_expiry_is_reported_in_the_summary(audit: Any, api: AuditAPIServer) -> None:
    api.state.expire["resourceclaims"] = "token"
    run = audit("--page-size", "1")
    assert "  resourceclaims: continue token expired 1 time(s): 1 resumed from a newer snapshot, 0 listed again" in (
        run.err.splitlines())
    assert "7 checked" in run.err


def test_a_kind_that_cannot_be_listed_fails_the_run_in_one_line(audit: Any, api: AuditAPIServer) -> None:
    api.state.forbidden.add("resourceclaimtemplates")
    run = audit()
    assert run.code == 2
    assert run.out == ""
    assert run.err == (
        "draguard: error: cannot list resourceclaimtemplates.resource.k8s.io: the API server answered 403 Forbidden: "
        'resourceclaimtemplates.resource.k8s.io is forbidden: User "system:serviceaccount:draguard:draguard-audit" '
        'cannot list resource "resourceclaimtemplates" in API group "resource.k8s.io" at the cluster scope\n')


GROUP = "/apis/resource.k8s.io"
UNSERVED = ("draguard: error: cannot list resourceslices.resource.k8s.io: the API server answered 404 NotFound: the "
            "server could not find the requested resource ")


@pytest.mark.parametrize(("versions", "hint"), [
    ([], "(the cluster does not serve the resource.k8s.io API group; DRA is GA from Kubernetes 1.34)"),
    (["v1beta2", "v1beta1"], "(the cluster serves resource.k8s.io v1beta2, v1beta1, not v1: draguard reads "
                             "resource.k8s.io/v1, served from Kubernetes 1.34)"),
    (["v1beta1"], "(the cluster serves resource.k8s.io v1beta1, not v1: draguard reads resource.k8s.io/v1, served "
                  "from Kubernetes 1.34)"),
])
def test_a_cluster_without_the_dra_api_is_named(audit: Any, api: AuditAPIServer, versions: list[str],
                                                hint: str) -> None:
    # A real API server answers a version or group it does not serve with Go's http.NotFound: the text
    # `404 page not found`, no Status (it was read as "did not answer with JSON", without the hint).
    api.state.dra_versions = versions
    run = audit()
    assert (run.code, run.out, run.err) == (2, "", UNSERVED + hint + "\n")
    assert _gets(api) == [("GET", LISTS[0], {"limit": ["500"]}), ("GET", GROUP, {})]


def test_a_served_version_without_the_kind_says_so(audit: Any, api: AuditAPIServer) -> None:
    api.state.canned[LISTS[0]] = [Canned(404, NOT_FOUND, content_type="text/plain; charset=utf-8")]
    run = audit()
    assert (run.code, run.out) == (2, "")
    assert run.err == UNSERVED + ("(resource.k8s.io/v1 is served without resourceslices: is it turned off in the API "
                                  "server's --runtime-config?)\n")


def test_the_static_hint_when_discovery_fails(audit: Any, api: AuditAPIServer) -> None:
    api.state.dra_versions = []
    api.state.canned[GROUP] = [Canned(403, status(403, "Forbidden", "no discovery"))]
    run = audit()
    assert run.err == UNSERVED + "(is resource.k8s.io/v1 served? DRA is GA from Kubernetes 1.34)\n"


def test_a_wrong_token_is_a_one_line_401(audit: Any, api: AuditAPIServer) -> None:
    api.kubeconfig.write_text(kubeconfig(api.url, Path(api.kubeconfig.parent / "apiserver-tls" / "ca.crt"),
                                         token="wrong"), encoding="utf-8")
    run = audit()
    assert (run.code, run.out) == (2, "")
    assert run.err == ("draguard: error: cannot list resourceslices.resource.k8s.io: the API server answered 401 "
                       "Unauthorized: Unauthorized\n")


def test_no_kubeconfig_file_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from webhook import cli

    assert cli.main(["audit", "--kubeconfig", str(tmp_path / "absent")]) == 2
    assert capsys.readouterr().err == f"draguard: error: {tmp_path / 'absent'}: no such kubeconfig file\n"


def test_a_kubeconfig_that_is_not_one_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from webhook import cli

    bad = tmp_path / "kubeconfig"
    bad.write_text("apiVersion: v1\nkind: Config\nclusters: []\n", encoding="utf-8")
    assert cli.main(["audit", "--kubeconfig", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("draguard: error: cannot load the Kubernetes configuration: ")
    assert err.count("\n") == 1


def test_an_unreachable_server_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    from webhook import cli

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = tmp_path / "kubeconfig"
    config.write_text(kubeconfig(f"https://127.0.0.1:{port}", tmp_path / "ca.crt"), encoding="utf-8")
    (tmp_path / "ca.crt").write_text("", encoding="utf-8")
    assert cli.main(["audit", "--kubeconfig", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"draguard: error: cannot reach the Kubernetes API server at https://127.0.0.1:{port}: ")
    assert err.count("\n") == 1


def test_a_server_that_sends_back_a_token_it_was_given_fails_instead_of_paging_forever() -> None:
    """A broken proxy answering every page with the same continue token (and no items) spun the audit forever."""

    class Stuck:
        def __init__(self) -> None:
            self.requests: list[Any] = []

        def request(self, method: str, path: str, query: list[tuple[str, Any]]) -> dict[str, Any]:
            self.requests.append(query)
            return {"kind": "ResourceSliceList", "apiVersion": "resource.k8s.io/v1", "items": [],
                    "metadata": {"continue": "same"}}

    stuck = Stuck()
    with pytest.raises(DraguardError) as caught:
        list(pages(stuck, RESOURCE_SLICES, 10, Listing()))  # type: ignore[arg-type]
    assert caught.value.message == ("cannot list resourceslices.resource.k8s.io: the API server answered with a "
                                    "continue token it had been sent already (same): the listing would never end")
    assert [dict(q).get("continue") for q in stuck.requests] == [None, "same"]
