"""ObjectMeta and an object's top level as the API server decodes them, for every resource.k8s.io kind.

Every field of ObjectMeta is described (what the server writes, such as times, owner references and managed
fields, is kept as RAW), so a misspelt `metadata.labelz` is an unknown field as the API server warns of it.
"""

from __future__ import annotations

from webhook.rules.k8s.decode import INTEGER, RAW, STRING
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
