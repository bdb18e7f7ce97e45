"""A stand-in Kubernetes API server for the audit tests and bench: HTTPS on 127.0.0.1, lists in pages.

It serves the four DRA collections cluster-wide (`GET /apis/resource.k8s.io/v1/<plural>?limit=N&continue=T`)
in key order without `kind`/`apiVersion` on items, as kube-apiserver does (the byte order of the storage key
`<namespace>/<name>`: `team-a/...` sorts before `team/...`); it can expire continue tokens (410 Expired, with
a fresh token in the Status or without one; a list of expiries is used one per continue request), refuse a
collection (403 with the upstream RBAC message), answer a path with canned responses first (`canned`: status,
body, headers, used in order), and accept policy reports: server-side apply
(PATCH, `application/apply-patch+yaml`, `fieldManager`), label-selected lists and deletes. Every request is
recorded (verb, path, query, Content-Type, decoded body); the bearer token is checked (401 otherwise).

A path it does not serve (a resource.k8s.io version not in `dra_versions`, a report group whose CRDs are not
installed) is answered as kube-apiserver's last handler answers it, Go's `http.NotFound`: HTTP 404 with the text
`404 page not found`, not a JSON Status. `GET /apis/resource.k8s.io` is the group's discovery document.
"""

from __future__ import annotations

import base64
import copy
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tests.certs.apiserver import TOKEN, JSONHandler, Request, StandIn, StateServer, status

DRA_GROUP = "/apis/resource.k8s.io"
DRA = DRA_GROUP + "/v1/"
PLURALS = {"ResourceSlice": "resourceslices", "DeviceClass": "deviceclasses", "ResourceClaim": "resourceclaims",
           "ResourceClaimTemplate": "resourceclaimtemplates"}
REPORT_GROUPS = {"openreports.io/v1alpha1": ("reports", "clusterreports"),
                 "wgpolicyk8s.io/v1alpha2": ("policyreports", "clusterpolicyreports")}
EXPIRED = ("The provided continue parameter is too old to display a consistent list result. You can start a new "
           "list without the continue parameter, or use the continue token in this response to retrieve the "
           "remainder of the results. Continuing with the provided token results in an inconsistent list - objects "
           "that were created, modified, or deleted between the time the first chunk was returned and now may show "
           "up in the list.")
REPORT_KINDS = {"reports": "Report", "clusterreports": "ClusterReport", "policyreports": "PolicyReport",
                "clusterpolicyreports": "ClusterPolicyReport"}
USER = "system:serviceaccount:draguard:draguard-audit"
Expiry = Literal["token", "relist", "gone"]  # gone: a 410 whose reason is Gone, not Expired (no token to renew)


NOT_FOUND = b"404 page not found\n"  # Go's http.NotFound (text/plain): kube-apiserver's answer to an unserved path


@dataclass(frozen=True)
class Canned:
    status: int
    body: dict[str, Any] | bytes
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/json"


def _key(obj: dict[str, Any]) -> bytes:
    return f"{obj['metadata'].get('namespace', '')}/{obj['metadata']['name']}".encode()


def _token(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"offset": offset}).encode()).decode()


@dataclass
class State:
    collections: dict[str, list[bytes]] = field(default_factory=dict)  # plural -> items (JSON), in key order
    expire: dict[str, Expiry | list[Expiry]] = field(default_factory=dict)  # plural -> how its next continue
    # token(s) expire
    canned: dict[str, list[Canned]] = field(default_factory=dict)  # path -> answers given before the real one
    forbidden: set[str] = field(default_factory=set)
    reports_installed: set[str] = field(default_factory=lambda: set(REPORT_GROUPS))
    dra_versions: list[str] = field(default_factory=lambda: ["v1", "v1beta2"])  # served, preferred first
    reports: dict[tuple[str, str, str], dict[str, Any]] = field(default_factory=dict)  # (plural, ns, name) -> obj
    requests: list[Request] = field(default_factory=list)
    record_bodies: bool = True
    version: int = 1000


class _Handler(JSONHandler):
    server: _Server
    protocol_version = "HTTP/1.1"  # keep-alive, as a real API server

    def _handle(self) -> None:
        state = self.server.state
        path, query, body = self._incoming()
        answer: dict[str, Any] | bytes
        with self.server.lock:
            state.requests.append(Request(self.command, path, query, self.headers.get("Content-Type"),
                                          body if state.record_bodies else None))
            canned = state.canned.get(path)
            if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                code, answer = 401, status(401, "Unauthorized", "Unauthorized")
            elif canned:
                first = canned.pop(0)
                self._canned(first)
                return
            elif path.rstrip("/") == DRA_GROUP:
                code, answer = self._discovery()
            elif path.startswith(DRA) and "v1" in state.dra_versions:
                code, answer = self._list(path.removeprefix(DRA), query)
            else:
                code, answer = self._reports(path, query, body)
        if answer is NOT_FOUND:
            self._canned(Canned(404, NOT_FOUND, content_type="text/plain; charset=utf-8"))
            return
        self._answer(code, answer)

    def _discovery(self) -> tuple[int, dict[str, Any] | bytes]:
        versions = self.server.state.dra_versions
        if not versions:
            return 404, NOT_FOUND
        listed = [{"groupVersion": f"resource.k8s.io/{v}", "version": v} for v in versions]
        return 200, {"kind": "APIGroup", "apiVersion": "v1", "name": "resource.k8s.io", "versions": listed,
                     "preferredVersion": listed[0]}

    do_GET = do_PATCH = do_DELETE = do_POST = do_PUT = _handle

    def _canned(self, answer: Canned) -> None:
        data = answer.body if isinstance(answer.body, bytes) else json.dumps(answer.body).encode()
        self.send_response(answer.status)
        self.send_header("Content-Type", answer.content_type)
        for name, value in answer.headers.items():
            self.send_header(name, value)  # a Content-Length here (with Connection: close) cuts the answer short
        if "Content-Length" not in answer.headers:
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _list(self, plural: str, query: dict[str, list[str]]) -> tuple[int, dict[str, Any] | bytes]:
        state = self.server.state
        if self.command != "GET" or plural not in PLURALS.values():
            return 404, NOT_FOUND
        if plural in state.forbidden:
            return 403, status(403, "Forbidden", f'{plural}.resource.k8s.io is forbidden: User "{USER}" cannot list '
                                                 f'resource "{plural}" in API group "resource.k8s.io" at the cluster '
                                                 "scope")
        items = state.collections.get(plural, [])
        offset = 0
        if "continue" in query:
            offset = json.loads(base64.urlsafe_b64decode(query["continue"][0]))["offset"]
            how = state.expire.pop(plural, None)
            if isinstance(how, list):
                how, rest = (how[0], how[1:]) if how else (None, [])
                if rest:
                    state.expire[plural] = rest
            if how == "gone":
                return 410, status(410, "Gone", "too old resource version: 900 (1000)")
            if how is not None:
                expired = status(410, "Expired", EXPIRED)
                if how == "token":
                    expired["metadata"] = {"continue": _token(offset)}
                return 410, expired
        limit = int(query.get("limit", ["0"])[0])
        end = len(items) if limit <= 0 else min(len(items), offset + limit)
        meta: dict[str, Any] = {"resourceVersion": str(state.version)}
        if end < len(items):
            meta["continue"] = _token(end)
            meta["remainingItemCount"] = len(items) - end
        kind = next(k for k, p in PLURALS.items() if p == plural)
        head = json.dumps({"kind": f"{kind}List", "apiVersion": "resource.k8s.io/v1", "metadata": meta})
        return 200, (head[:-1] + ', "items": [' + ",".join(i.decode() for i in items[offset:end]) + "]}").encode()

    def _reports(self, path: str, query: dict[str, list[str]], body: Any) -> tuple[int, dict[str, Any] | bytes]:
        state = self.server.state
        parts = path.strip("/").split("/")
        group = "/".join(parts[1:3])
        if parts[:1] != ["apis"] or group not in state.reports_installed:
            return 404, NOT_FOUND
        rest = parts[3:]
        namespace = ""
        if rest[:1] == ["namespaces"] and len(rest) >= 3:
            namespace, rest = rest[1], rest[2:]
        plural = rest[0] if rest else ""
        namespaced, cluster = REPORT_GROUPS[group]
        if plural not in (namespaced, cluster) or (plural == cluster and namespace):
            return 404, NOT_FOUND
        if len(rest) == 1 and self.command == "GET":
            return 200, self._list_reports(group, plural, namespace, query)
        if len(rest) != 2:
            return 405, status(405, "MethodNotAllowed", "the server does not allow this method on the requested "
                                                        "resource")
        key = (plural, namespace, rest[1])
        if self.command == "PATCH":
            if self.headers.get("Content-Type") != "application/apply-patch+yaml":
                return 415, status(415, "UnsupportedMediaType", "the body of the request was in an unknown format")
            if query.get("fieldManager") != ["draguard"]:
                return 422, status(422, "Invalid", "fieldManager is required for apply requests")
            stored = copy.deepcopy(body)
            state.version += 1
            stored["metadata"]["resourceVersion"] = str(state.version)
            created = key not in state.reports
            state.reports[key] = stored
            return (201 if created else 200), stored
        if self.command == "DELETE":
            if state.reports.pop(key, None) is None:
                return 404, status(404, "NotFound", f'{plural}.{parts[1]} "{rest[1]}" not found')
            return 200, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"}
        return 405, status(405, "MethodNotAllowed", "the server does not allow this method on the requested resource")

    def _list_reports(self, group: str, plural: str, namespace: str, query: dict[str, list[str]]) -> dict[str, Any]:
        wanted = dict(pair.split("=", 1) for pair in query.get("labelSelector", [""])[0].split(",") if pair)
        items = [obj for (p, ns, _), obj in sorted(self.server.state.reports.items())
                 if p == plural and (not namespace or ns == namespace)
                 and all(obj["metadata"].get("labels", {}).get(k) == v for k, v in wanted.items())]
        offset = json.loads(base64.urlsafe_b64decode(query["continue"][0]))["offset"] if "continue" in query else 0
        limit = int(query.get("limit", ["0"])[0]) or len(items)
        meta = {"continue": _token(offset + limit)} if offset + limit < len(items) else {}
        kind = REPORT_KINDS[plural]
        return {"kind": f"{kind}List", "apiVersion": group, "metadata": meta, "items": items[offset:offset + limit]}


class _Server(StateServer):
    state: State


class AuditAPIServer(StandIn):
    """`with AuditAPIServer(tmp_path, objects) as api:`; `api.kubeconfig` points a client at it."""

    def __init__(self, directory: Path, objects: Iterable[dict[str, Any]] = ()) -> None:
        self.state = State()
        self.serve(objects)
        super().__init__(directory, _Server(self.state, _Handler))

    def serve(self, objects: Iterable[dict[str, Any]]) -> None:
        """Replace the served DRA objects (stored as the API server lists them: sorted, no kind/apiVersion)."""
        by_plural: dict[str, dict[tuple[str, str], dict[str, Any]]] = {p: {} for p in PLURALS.values()}
        for obj in objects:
            by_plural[PLURALS[obj["kind"]]][_key(obj)] = obj
        self.state.collections = {
            plural: [json.dumps({k: v for k, v in objs[key].items() if k not in ("kind", "apiVersion")}).encode()
                     for key in sorted(objs)]
            for plural, objs in by_plural.items()
        }

