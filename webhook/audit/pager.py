"""List one resource in pages (`limit`/`continue`), recovering from an expired continue token.

An API server keeps a list snapshot for a few minutes (etcd compaction); a slow reader's next page then fails
with 410 Expired. client-go's pager (tools/pager) falls back to one unpaged list, which would hold the whole
collection in memory. The audit instead:

- continues with the token the 410 `Status` carries (`metadata.continue`), when the server sent one: the
  remainder comes from a newer snapshot, as the server's message says, and is counted as `resumed`;
- else lists again from the start, in pages, and checks only the objects it has not checked yet, counted as
  `relisted`. What was checked is remembered by namespace and name for the kind being listed (a set of
  strings, freed when the kind is done); list order is not relied on (the API server's order is the byte
  order of its storage keys, `<namespace>/<name>`, which is not the order of (namespace, name) pairs).

Either way every object is checked once. After a relist nothing is missed; after a resume, objects created
during the gap with keys before the token's are not seen until the next run. A server that expires every
token ends the run: after `MAX_RELISTS` fresh starts, or `MAX_RESUMES` resumes, of one kind.

A page must be a `<Kind>List` whose `items` are objects of that kind and version (an item may leave `kind` and
`apiVersion` out, as kube-apiserver does): anything else (a `Status` sent with HTTP 200, `{}` from a proxy, items
that are not objects or name another kind) fails the run rather than being read as fewer or other objects.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from msgspec import Struct

from webhook.audit.client import Cluster, Failure, describe, printable
from webhook.audit.kinds import AUDITED, DRA, Resource
from webhook.audit.prefetch import Prefetched
from webhook.errors import DraguardError
from webhook.wire import Obj

MAX_RELISTS = 3  # a server that expires every snapshot before the first page is read is not worth fighting
MAX_RESUMES = 10  # nor one that answers every continue with 410 and a fresh token


class Listing(Struct):
    """What listing one resource took."""

    pages: int = 0
    objects: int = 0
    resumed: int = 0  # 410s recovered with the server's fresh continue token
    relisted: int = 0  # 410s recovered by listing again from the start


def _key(item: dict[str, Any]) -> str:
    meta = item.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    return f"{meta.get('namespace') or ''}/{meta.get('name') or ''}"


def _not_a_list(body: Any, resource: Resource) -> str | None:
    """Why `body` is not a page of `resource` (None: it is one)."""
    if not isinstance(body, dict):
        return f"a JSON {type(body).__name__}" if body is not None else "an empty body"
    kind = body.get("kind")
    if kind != f"{resource.kind}List":
        if kind == "Status":
            from webhook.audit.client import printable

            return f"a Status: {printable(str(body.get('reason') or ''))} {printable(str(body.get('message') or ''))}"
        return f"no kind, not a {resource.kind}List" if kind is None else (
            f"kind {printable_kind(kind)}, not {resource.kind}List")
    items = body.get("items")
    if not isinstance(items, list):
        return "no items" if items is None else "items that are not a list"
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            return f"items[{i}] is not an object"
        # kube-apiserver leaves kind and apiVersion out of a built-in list's items (a CRD's carry them): one that
        # names another kind or version is not what was asked for, and would be checked as what it names
        for field, wanted in (("kind", resource.kind), ("apiVersion", resource.api_version)):
            if item.get(field) not in (None, wanted):
                return f"items[{i}] has {field} {printable_kind(item.get(field))}, not {wanted}"
    return None


def printable_kind(kind: Any) -> str:
    from webhook.audit.client import printable

    return printable(str(kind))[:64]


def hint_404(cluster: Cluster, resource: Resource, failure: Failure) -> str:
    """Why `resource` may not be served, for a 404 on its path. A real API server answers a path it does not serve
    (a group, version or CRD that is not installed) with the text `404 page not found`; a 404 `Status` naming an
    object (`namespaces "team-a" not found`: deleted meanwhile) says enough itself."""
    details = failure.body.get("details")
    if isinstance(details, dict) and details.get("name"):
        return ""
    if resource.group != DRA:
        crd = f"{resource.plural}.{resource.group}"
        return f" (is the {crd} CRD installed? kubectl get crd {crd})"
    fallback = f" (is {resource.api_version} served? DRA is GA from Kubernetes 1.34)"
    try:  # discovery: every authenticated user may read it (ClusterRole system:discovery)
        group = cluster.request("GET", f"/apis/{resource.group}")
    except Failure as failed:
        if failed.status == 404:
            return f" (the cluster does not serve the {resource.group} API group; DRA is GA from Kubernetes 1.34)"
        return fallback
    except DraguardError:
        return fallback
    listed = group.get("versions") if isinstance(group, dict) else None
    if not isinstance(listed, list):
        return fallback
    versions = [str(v.get("version")) for v in listed if isinstance(v, dict) and v.get("version")]
    if resource.version in versions:
        return (f" ({resource.api_version} is served without {resource.plural}: is it turned off in the API "
                f"server's --runtime-config?)")
    served = ", ".join(printable(v)[:20] for v in versions[:8]) or "in no version"
    return (f" (the cluster serves {resource.group} {served}, not {resource.version}: draguard reads "
            f"{resource.api_version}, served from Kubernetes 1.34)")


def pages(cluster: Cluster, resource: Resource, page_size: int, listing: Listing, *,
          label_selector: str | None = None) -> Iterator[list[Obj]]:
    """Every object of `resource` in the cluster (all namespaces), one page at a time, `kind` filled in."""
    what = f"cannot list {resource.plural}.{resource.group}"
    token: str | None = None
    checked: set[str] = set()  # namespace/name of every object handed out: a relist skips these
    asked: set[str] = set()  # the continue tokens requested: one sent back again would page forever
    while True:
        query: list[tuple[str, str | int | bool]] = [("limit", page_size)]
        if label_selector:
            query.insert(0, ("labelSelector", label_selector))
        if token:
            query.append(("continue", token))
        try:
            body = cluster.request("GET", resource.path(), query)
        except Failure as failure:
            if failure.status != 410 or failure.reason != "Expired" or not token:  # client-go: IsResourceExpired
                hint = hint_404(cluster, resource, failure) if failure.status == 404 else ""
                raise DraguardError(describe(failure, what) + hint) from None
            meta = failure.body.get("metadata")
            fresh = meta.get("continue") if isinstance(meta, dict) else None
            if isinstance(fresh, str) and fresh:
                if listing.resumed >= MAX_RESUMES:
                    raise DraguardError(describe(failure, what) + f" (after {MAX_RESUMES} resumes)") from None
                token = fresh
                listing.resumed += 1
                continue
            if listing.relisted >= MAX_RELISTS:
                raise DraguardError(describe(failure, what) + f" (after {MAX_RELISTS} fresh starts)") from None
            token = None
            listing.relisted += 1
            continue
        problem = _not_a_list(body, resource)
        if problem is not None:
            raise DraguardError(f"{what}: the API server did not answer with a list ({problem})")
        objects: list[Obj] = []
        for item in body["items"]:
            key = _key(item)
            if key in checked:
                continue
            checked.add(key)
            objects.append({"apiVersion": resource.api_version, "kind": resource.kind, **item})
        meta = body.get("metadata")
        if token:
            asked.add(token)
        token = meta.get("continue") if isinstance(meta, dict) else None
        if token and token in asked:
            raise DraguardError(f"{what}: the API server answered with a continue token it had been sent already "
                                f"({printable(token[:40])}): the listing would never end")
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
