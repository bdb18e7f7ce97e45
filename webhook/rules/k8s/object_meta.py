"""ObjectMeta and an object's top level as the API server decodes them, for every resource.k8s.io kind, and
the metadata checks of every object the rules validate (`validate_object_meta`: ResourceSlices, claims, claim
templates and device classes).

Every field of ObjectMeta is described (what the server writes, such as times, owner references and managed
fields, is kept as RAW), so a misspelt `metadata.labelz` is an unknown field as the API server warns of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from celext.gostrconv import go_quote
from webhook.fieldpath import FieldPath
from webhook.rules.k8s import ids
from webhook.rules.k8s.decode import INTEGER, RAW, STRING, go_len
from webhook.rules.k8s.errors import forbidden, immutable, invalid, required, too_long
from webhook.rules.k8s.ids import Errors, tag
from webhook.rules.k8s.names import (
    is_dns1123_subdomain,
    is_qualified_name,
    validate_dns1123_subdomain,
    validate_label_name,
    validate_label_value,
)
from webhook.rules.k8s.schema import ListOf, MapOf, Strict, Struct, Wire, struct

OBJECT_META = struct(name=STRING, generateName=STRING, namespace=STRING, selfLink=STRING, uid=STRING,
                     resourceVersion=STRING, generation=INTEGER, creationTimestamp=RAW, deletionTimestamp=RAW,
                     deletionGracePeriodSeconds=INTEGER, labels=MapOf(STRING), annotations=MapOf(STRING),
                     ownerReferences=RAW, finalizers=ListOf(STRING), managedFields=RAW)
OBJECT_META_FIELDS = frozenset(OBJECT_META.fields)


def top_level(spec: Wire, **more: Wire) -> Strict:
    """An object of a kind whose `spec` is described by `spec` (and `more` top-level fields: a ResourceClaim's
    `status`), every key it lacks an unknown field."""
    return Strict(_top(spec, **more))


def _top(spec: Wire, **more: Wire) -> Struct:
    return struct(apiVersion=STRING, kind=STRING, metadata=OBJECT_META, spec=spec, **more)


TOP_FIELDS = frozenset(_top(RAW).fields)  # a ResourceSlice's (no status)


ANNOTATIONS_MAX_BYTES = 256 * 1024  # apimachinery TotalAnnotationSizeLimitB: keys and values together


def validate_object_meta(meta: Mapping[str, Any], path: FieldPath, errs: Errors, *,
                         old: Mapping[str, Any] | None = None, template: bool = False,
                         namespaced: bool = False) -> None:
    """ValidateObjectMeta with a DNS-subdomain name (a ResourceClaim, a DeviceClass), or with `template`
    ValidateTemplateObjectMeta (a ResourceClaimTemplate's `spec.metadata`: labels and annotations only). On an
    update (`old`: the stored object) the name is not required (the server keeps the stored one), and
    ValidateObjectMetaUpdate's checks follow (`namespaced`: the kind has a namespace to keep). Values of the wrong
    JSON type are the decoder's findings (`claim_types`), left out here."""
    if old is not None and not template:
        _validate_update(meta, _map(old.get("metadata")), path, errs, namespaced)
    if not template:
        generate = _text(meta.get("generateName"))
        name = _text(meta.get("name"))
        if generate:  # a prefix: the server appends random characters, so a trailing `-` is fine
            masked = generate[:-1] + "a" if generate.endswith("-") else generate
            errs += [(ids.OBJECT_META, invalid(path.child("generateName"), generate, m))
                     for m in is_dns1123_subdomain(masked)]
        if name:
            errs += tag(ids.OBJECT_META, validate_dns1123_subdomain(name, path.child("name")))
        elif not generate and old is None:
            errs.append((ids.OBJECT_META, required(path.child("name"), "name or generateName is required")))
    labels = meta.get("labels")
    for key, value in labels.items() if isinstance(labels, Mapping) else ():
        errs += tag(ids.OBJECT_META, validate_label_name(str(key), path.child("labels")))
        errs += tag(ids.OBJECT_META, validate_label_value(_text(value), path.child("labels")))
    annotations = meta.get("annotations")
    if isinstance(annotations, Mapping):
        for key in annotations:
            errs += [(ids.OBJECT_META, invalid(path.child("annotations"), key, m))
                     for m in is_qualified_name(str(key).lower())]
        if sum(go_len(str(k)) + go_len(_text(v)) for k, v in annotations.items()) > ANNOTATIONS_MAX_BYTES:
            errs.append((ids.OBJECT_META, too_long(path.child("annotations"), ANNOTATIONS_MAX_BYTES)))


def _validate_update(meta: Mapping[str, Any], old: Mapping[str, Any], path: FieldPath, errs: Errors,
                     namespaced: bool) -> None:
    """ValidateObjectMetaUpdate, the part a change in the request can trip. A name, namespace or uid that is set
    must be the stored one (`k8s-immutable`); an omitted one the server fills in (the name and namespace of the
    request's URL, the stored uid), and it clears a cluster-scoped object's namespace, before it validates. No
    finalizer may be added once the object is being deleted. The rest (`resourceVersion` set, `generation` not
    decremented, creation and deletion times and grace period unchanged) the server makes true itself before
    validating (rest.BeforeUpdate), so a request never fails on it."""
    for field in ("name", "namespace", "uid"):
        new_value = meta.get(field)
        if isinstance(new_value, str) and new_value and new_value != _text(old.get(field)) and (
                namespaced or field != "namespace"):
            errs.append((ids.IMMUTABLE, immutable(path.child(field), new_value)))
    if old.get("deletionTimestamp") is not None:
        before = {f for f in _list(old.get("finalizers")) if isinstance(f, str)}
        added = sorted({f for f in _list(meta.get("finalizers")) if isinstance(f, str)} - before)
        if added:
            found = "[]string{" + ", ".join(go_quote(f) for f in added) + "}"
            errs.append((ids.OBJECT_META, forbidden(path.child("finalizers"), NEW_FINALIZERS + found)))


NEW_FINALIZERS = "no new finalizers can be added if the object is being deleted, found new finalizers "


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _text(value: Any) -> str:
    """A string field as validation reads it: null and a wrong type (the decoder's finding) are ""."""
    return value if isinstance(value, str) else ""
