"""List one resource in pages (`limit`/`continue`), recovering from an expired continue token.

An API server keeps a list snapshot for a few minutes (etcd compaction); a slow reader's next page then fails
with 410 Expired. client-go's pager (tools/pager) falls back to one unpaged list, which would hold the whole
collection in memory. The audit instead:

- continues with the token the 410 `Status` carries (`metadata.continue`), when the server sent one: the
  remainder comes from a newer snapshot, as the server's message says, and is counted as `resumed`;
- else lists again from the start, in pages, skipping objects up to the last key it already checked (lists
  come in key order, namespace then name), counted as `relisted`.

Either way no object is checked twice; objects created behind the last key during the gap are missed, which
the summary states by counting the recoveries.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from webhook.audit.client import Cluster, Failure, describe
from webhook.audit.kinds import AUDITED, DRA, Resource
from webhook.audit.prefetch import Prefetched
from webhook.errors import DraguardError
from webhook.wire import Obj

MAX_RELISTS = 3  # a server that expires every snapshot before the first page is read is not worth fighting


@dataclass(slots=True)
class Listing:
    """What listing one resource took."""

    pages: int = 0
    objects: int = 0
    resumed: int = 0  # 410s recovered with the server's fresh continue token
    relisted: int = 0  # 410s recovered by listing again from the start


def _key(item: Any) -> tuple[str, str]:
    meta = item.get("metadata") if isinstance(item, dict) else None
    meta = meta if isinstance(meta, dict) else {}
    return str(meta.get("namespace") or ""), str(meta.get("name") or "")


def hint_404(resource: Resource) -> str:
    if resource.group == DRA:
        return f" (is {resource.api_version} served? DRA is GA from Kubernetes 1.34)"
    crd = f"{resource.plural}.{resource.group}"
    return f" (is the {crd} CRD installed? kubectl get crd {crd})"


def pages(cluster: Cluster, resource: Resource, page_size: int, listing: Listing, *,
          label_selector: str | None = None) -> Iterator[list[Obj]]:
    """Every object of `resource` in the cluster (all namespaces), one page at a time, `kind` filled in."""
    what = f"cannot list {resource.plural}.{resource.group}"
    token: str | None = None
    after: tuple[str, str] | None = None  # after a relist: skip keys up to this one
    last: tuple[str, str] | None = None
    while True:
        query: list[tuple[str, str | int | bool]] = [("limit", page_size)]
        if label_selector:
            query.insert(0, ("labelSelector", label_selector))
        if token:
            query.append(("continue", token))
        try:
            body = cluster.request("GET", resource.path(), query)
        except Failure as failure:
            if failure.status != 410 or not token:
                hint = hint_404(resource) if failure.status == 404 else ""
                raise DraguardError(describe(failure, what) + hint) from None
            meta = failure.body.get("metadata")
            fresh = meta.get("continue") if isinstance(meta, dict) else None
            if isinstance(fresh, str) and fresh:
                token = fresh
                listing.resumed += 1
                continue
            if listing.relisted >= MAX_RELISTS:
                raise DraguardError(describe(failure, what) + f" (after {MAX_RELISTS} fresh starts)") from None
            token, after = None, last
            listing.relisted += 1
            continue
        if not isinstance(body, dict) or not isinstance(body.get("items", []), list):
            raise DraguardError(f"{what}: the API server did not answer with a list")
        objects: list[Obj] = []
        for item in body.get("items") or []:
            if not isinstance(item, dict):
                continue
            key = _key(item)
            if after is not None and key <= after:
                continue
            objects.append({"apiVersion": resource.api_version, "kind": resource.kind, **item})
            last = key
        meta = body.get("metadata")
        token = meta.get("continue") if isinstance(meta, dict) else None
        del body
        listing.pages += 1
        listing.objects += len(objects)
        yield objects
        if not token:
            return


Pages = Prefetched[tuple[Resource, list[Obj]]]


def start(cluster: Cluster, page_size: int) -> tuple[Pages, dict[str, Listing]]:
    """Every page of every audited kind, in order (slices first: they are the inventory), read one page ahead in
    a thread that requests the first page now; and how listing each kind went (filled in as pages arrive).
    Nothing here loads the rules: a caller starts the listing, then imports them while the first page is on
    its way."""
    listings: dict[str, Listing] = {}

    def listed() -> Iterator[tuple[Resource, list[Obj]]]:
        for resource in AUDITED:
            listing = listings[resource.plural] = Listing()
            for page in pages(cluster, resource, page_size, listing):
                yield resource, page

    return Prefetched(listed(), name="draguard-audit-pages"), listings
