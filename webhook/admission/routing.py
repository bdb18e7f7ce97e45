"""Which reviews a webhook path hands to the rules, and what it answers the others. No Flask, no JSON.

Objects are routed by what the API server says the request is (`request.kind`), never by the object's own
`kind`. The API server sets `request.kind`, `request.resource` and the objects' `kind` and `apiVersion` from one
type, so a review in which they disagree is forged or broken; it is denied, whatever kinds it names (a crafted
`request.kind: ConfigMap` or `object.kind: Foo` must not skip the ResourceSlice rules). Names are compared
exactly, as the API server writes them: `Resourceslice` is not `ResourceSlice`.

A consistent review of a kind no path handles (a ConfigMap, sent by a webhook configuration that matches too
much) is let through with a note that the request log line carries, so such a configuration degrades to a no-op
and a log line rather than to rejected writes. A DRA kind this webhook checks on its other path (a ResourceClaim
sent to /validate/resourceslices) is denied instead, naming that path: it would otherwise pass unchecked.
DELETE and CONNECT are let through (a validating webhook on them would only block clean-up), and so are
subresource writes (`resourceclaims/status` is the scheduler's,
and carries no selectors a user wrote; a subresource's kind may differ from its resource's, `deployments/scale`
holds a `Scale`).
"""

from __future__ import annotations

from webhook.admission.response import Response, allowed, clip, denied
from webhook.admission.review import GroupVersionResource, Request
from webhook.wire import json_type

DRA_GROUP = "resource.k8s.io"
SLICE_KINDS = frozenset({"ResourceSlice"})
SELECTOR_KINDS = frozenset({"ResourceClaim", "ResourceClaimTemplate", "DeviceClass"})
DRA_KINDS = SLICE_KINDS | SELECTOR_KINDS
# The DRA resources and the kind each holds: a review's resource and kind must agree, both ways.
RESOURCES = {"resourceslices": "ResourceSlice", "resourceclaims": "ResourceClaim",
             "resourceclaimtemplates": "ResourceClaimTemplate", "deviceclasses": "DeviceClass"}
HOMES = {kind: resource for resource, kind in RESOURCES.items()}
NAME_CHARS = 128  # of a kind or resource the request names (a crafted one may be long)
OBJECT_KIND_CHARS = 64  # of the kind or apiVersion an object names
_NO_RESOURCE = GroupVersionResource("", "", "")


def route(req: Request, kinds: frozenset[str]) -> Response | None:
    """The answer for a review the path's rules do not see, or None when they must check its object."""
    if req.operation not in ("CREATE", "UPDATE"):
        return allowed()
    if req.sub_resource:
        return allowed().noted(f"subresource {req.resource}/{req.sub_resource} not checked")
    mismatch = route_mismatch(req)
    if mismatch:
        return denied(mismatch)
    if req.kind.group == DRA_GROUP and req.kind.kind in DRA_KINDS - kinds:
        path = "/validate/resourceslices" if req.kind.kind in SLICE_KINDS else "/validate/selectors"
        return denied(f"{req.kind.kind} is checked on {path}, not on this path: fix the webhook configuration's "
                      "rules so each path gets its kinds")
    if req.kind.group != DRA_GROUP or req.kind.kind not in kinds:
        kind = clip(str(req.kind), NAME_CHARS)
        return allowed().noted(f"{kind} is not handled by this webhook; allowed without checks")
    return None


def route_mismatch(req: Request) -> str:
    """Why the review's kind, resource and objects disagree (empty when they agree), for any kind."""
    kind = clip(req.kind.kind, NAME_CHARS)
    resource = clip(str(req.resource), NAME_CHARS)
    held = RESOURCES.get(req.resource.resource) if req.resource.group == DRA_GROUP else None
    if held is not None and held != req.kind.kind:
        return f"request.kind {kind} does not match request.resource {resource} (which holds {held})"
    # A hand-written review may leave `resource` out: `request.kind` alone routes it, and the objects must agree.
    given = req.resource != _NO_RESOURCE
    if given and (req.resource.group, req.resource.version) != (req.kind.group, req.kind.version):
        return f"request.kind {clip(str(req.kind), NAME_CHARS)} does not match request.resource {resource}"
    home = HOMES.get(req.kind.kind) if req.kind.group == DRA_GROUP else None
    if home is not None and given and home != req.resource.resource:
        return f"request.kind {kind} does not match request.resource {resource} (a {kind} is in {home})"
    api_version = f"{req.kind.group}/{req.kind.version}" if req.kind.group else req.kind.version
    for field, obj in (("object", req.object), ("oldObject", req.old_object)):
        if obj is None:
            continue
        for member, expected, named in (("kind", req.kind.kind, f"kind {kind}"),
                                        ("apiVersion", api_version, f"apiVersion {clip(api_version, NAME_CHARS)}")):
            value = obj.get(member)
            if value is not None and value != expected:  # a missing one is filled in from the request
                shown = repr(clip(value, OBJECT_KIND_CHARS)) if isinstance(value, str) else json_type(value)
                return f"{field}.{member} {shown} does not match the request's {named}"
    return ""
