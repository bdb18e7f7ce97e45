"""Strict reading for commands that walk objects rather than judge them (eval, explain, topology --check).

Each field they read must have the shape the API server insists on (`SHAPES`), else the input is refused with
one line naming file, line, column, object and field path (exit 2): never misread or skipped. So is any input
problem: such commands have nothing sound to say about half an input.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from msgspec import Struct

from webhook.errors import DraguardError
from webhook.fieldpath import FieldPath
from webhook.manifests.objects import Locator, read_as
from webhook.manifests.problems import type_name
from webhook.manifests.reader import read_texts
from webhook.wire import Obj, kind_of, name_of


class Fields(Struct, frozen=True):
    """A mapping whose fields `shapes` are read (others are not); `required` ones must be present, not null and,
    for strings, not empty (the API server requires them, and the output names them)."""

    shapes: Mapping[str, Shape]
    required: frozenset[str] = frozenset()


class Items(Struct, frozen=True):
    """A list of `item`s; `unique`: a field no two items may share a value of (request names, as the API
    server refuses duplicates: the allocator would mix the two requests up)."""

    item: Shape
    unique: str = ""


Shape = type | Fields | Items  # a type: str, int, bool, dict (any mapping) or list (any list)

_META = Fields({"name": str, "namespace": str})
_SELECTORS = Items(Fields({"cel": Fields({"expression": str}, frozenset({"expression"}))}, frozenset({"cel"})))
_REQUEST: Mapping[str, Shape] = {"deviceClassName": str, "selectors": _SELECTORS, "allocationMode": str,
                                 "count": int, "capacity": Fields({"requests": dict})}
_CLAIM_DEVICES = Fields({
    # v1 nests a request's fields under `exactly`; v1beta1 has them on the request itself
    "requests": Items(Fields({"name": str, "exactly": Fields(_REQUEST), **_REQUEST,
                              "firstAvailable": Items(Fields({"name": str, **_REQUEST}, frozenset({"name"})),
                                                      unique="name")}, frozenset({"name"})), unique="name"),
    "constraints": Items(Fields({"requests": Items(str), "matchAttribute": str, "distinctAttribute": str})),
})
_SELECTOR_REQUIREMENTS = Items(Fields({"key": str, "operator": str, "values": Items(str)}))
_NODE_SELECTOR = Fields({"nodeSelectorTerms": Items(Fields({"matchExpressions": _SELECTOR_REQUIREMENTS,
                                                           "matchFields": _SELECTOR_REQUIREMENTS}))})
# Attribute and capacity values are left to the CEL conversion: it reports each as the scheduler does.
_DEVICE: Mapping[str, Shape] = {"attributes": dict, "capacity": dict, "nodeName": str, "allNodes": bool,
                                "nodeSelector": _NODE_SELECTOR, "allowMultipleAllocations": bool}
SHAPES: Mapping[str, Fields] = {
    "ResourceClaim": Fields({"metadata": _META, "spec": Fields({"devices": _CLAIM_DEVICES})}),
    "ResourceClaimTemplate": Fields({"metadata": _META,
                                     "spec": Fields({"spec": Fields({"devices": _CLAIM_DEVICES})})}),
    "DeviceClass": Fields({"metadata": Fields({"name": str}, frozenset({"name"})),  # claims name classes by it
                           "spec": Fields({"selectors": _SELECTORS})}),
    "ResourceSlice": Fields({"metadata": _META, "spec": Fields({
        "driver": str, "nodeName": str, "allNodes": bool, "perDeviceNodeSelection": bool,
        "nodeSelector": _NODE_SELECTOR, "pool": Fields({"name": str, "generation": int, "resourceSliceCount": int}),
        # v1beta1 nests a device's fields under `basic`
        "devices": Items(Fields({"name": str, "basic": Fields(_DEVICE), **_DEVICE}, frozenset({"name"}))),
    })}, frozenset({"spec"})),
    "Node": Fields({"metadata": Fields({"name": str, "labels": dict})}),
}
_A: Mapping[type, str] = {str: "a string", int: "an integer", bool: "a boolean", dict: "a mapping", list: "a list"}


def misshapen(value: Any, shape: Shape, path: FieldPath) -> Iterator[tuple[FieldPath, str]]:
    """Each field of `value` (at `path`) that does not have `shape`, with what is wrong, in the shape's order.
    A null field is an absent one, as the API server reads it."""
    if isinstance(shape, Fields):
        if not isinstance(value, Mapping):
            yield path, f"must be a mapping, not a {type_name(value)}"
            return
        for name, inner in shape.shapes.items():
            found = value.get(name)
            if found is None or (found == "" and inner is str):
                if name in shape.required:
                    yield path.child(name), f"is required ({_word_of(inner)})"
                continue
            yield from misshapen(found, inner, path.child(name))
    elif isinstance(shape, Items):
        if not isinstance(value, list):
            yield path, f"must be a list, not a {type_name(value)}"
            return
        seen: dict[str, int] = {}
        for i, item in enumerate(value):
            yield from misshapen(item, shape.item, path.index(i))
            key = item.get(shape.unique) if shape.unique and isinstance(item, Mapping) else None
            if isinstance(key, str) and key in seen:
                earlier = path.index(seen[key])
                yield path.index(i).child(shape.unique), f"must be unique: {earlier} is also named {key!r}"
            elif isinstance(key, str):
                seen[key] = i
    elif shape is int and isinstance(value, float):
        yield path, f"must be an integer, not {value!r}"
    elif not isinstance(value, Mapping if shape is dict else shape) or (shape is int and isinstance(value, bool)):
        yield path, f"must be {_A[shape]}, not a {type_name(value)}"


def _word_of(shape: Shape) -> str:
    return "a mapping" if isinstance(shape, Fields) else "a list" if isinstance(shape, Items) else _A[shape]


def malformed(located: Locator, text: str = "") -> Iterator[str]:
    """One line per misshapen field of an object of `SHAPES`: `FILE:LINE:COL: Kind name: path problem`; with the
    object's `text`, what kubectl makes of an unquoted YAML 1.1 word or number there (`n` is false)."""
    obj = located.obj
    shape = SHAPES.get(kind_of(obj))
    if shape is None:
        return
    for path, problem in misshapen(obj, shape, FieldPath()):
        position = located.position(path)
        where = str(position) if position is not None else located.source
        note = read_as(located, path, text) if text else None
        yield f"{where}: {kind_of(obj)} {name_of(obj) or '<unnamed>'}: {path} {problem}{f' ({note})' if note else ''}"


def read_strict(paths: Sequence[str], kinds: frozenset[str], *, stdin_text: str | None = None) -> list[Obj]:
    """Objects of `kinds`, values first (JSON and libyaml backends); any input problem or misshapen object is
    a DraguardError (exit 2). `stdin_text`: what '-' reads, when the caller read stdin once for several
    option values."""
    objects, problems = read_texts(paths, kinds=kinds, stdin=None if stdin_text is None else io.StringIO(stdin_text))
    if problems:
        more = len(problems) - 1
        raise DraguardError(str(problems[0]) + (f" (and {more} more problems)" if more else ""))
    for located, text in objects:
        problem = next(malformed(located, text), None)
        if problem is not None:
            raise DraguardError(problem)
    return [located.obj for located, _text in objects]
