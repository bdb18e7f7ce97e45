"""What every backend hands out: an object and a `Locator` that says where its fields are written.

Three backends (ruamel round-trip, libyaml, JSON) read a text into the same objects in the same order:
`kind: List` and typed lists (`ResourceSliceList`) are expanded here, once, for all of them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple, Protocol

from webhook.fieldpath import FieldPath
from webhook.findings import Position
from webhook.manifests import goyaml
from webhook.manifests.problems import type_name
from webhook.wire import Obj


class Locator(Protocol):
    """One object read from a file, and where its fields are written in that file."""

    @property
    def source(self) -> str: ...  # the file name as the user gave it, or `<stdin>`

    @property
    def document(self) -> int: ...  # 0-based index of the YAML document in the file

    @property
    def obj(self) -> Obj: ...  # plain dict/list/str/int/float/bool/None values

    @property
    def base(self) -> FieldPath: ...  # where `obj` sits in its document: `items[2]` inside a `kind: List`

    def position(self, path: FieldPath) -> Position | None:
        """Line/column of `path` (relative to `obj`), or of its nearest existing ancestor."""
        ...

    def scalar_start(self, path: FieldPath) -> int | None:
        """Character offset into the text where the scalar at `path` (a string, number or boolean) starts; None if
        there is none."""
        ...


class NotAList(NamedTuple):
    """The `items` of a list kind that is not a list (`items: {first: ...}`): never an object, always a problem
    (its objects would go unchecked)."""

    value: Any


def expand(obj: Obj, base: FieldPath) -> Iterator[tuple[FieldPath, Any]]:
    """`kind: List` and typed lists (`ResourceSliceList`) as `kubectl get -o yaml` prints them. What is not an
    object comes out as it is (a `NotAList` for `items` itself) for the reader to report (`not_an_object`).

    The items of a typed list as the API server sends it (`kubectl get --raw`, client-go dumps) carry no `kind`
    or `apiVersion`: the list's kind names them, so an item without them gets `ResourceSlice` and the list's
    apiVersion (as `draguard audit` reads the API's pages), rather than being skipped as a kindless object."""
    kind = obj.get("kind")
    items = obj.get("items")
    if not (isinstance(kind, str) and kind.endswith("List")) or items is None:  # `items: null` is an empty list
        yield base, obj
    elif not isinstance(items, list):
        yield base.child("items"), NotAList(items)
    else:
        implied = {"kind": kind.removesuffix("List"), "apiVersion": obj.get("apiVersion")} if kind != "List" else {}
        for i, item in enumerate(items):
            if isinstance(item, Mapping):
                missing = {k: v for k, v in implied.items() if k not in item and isinstance(v, str)}
                yield from expand({**missing, **item} if missing else item, base.child("items").index(i))
            else:
                yield base.child("items").index(i), item


def not_an_object(path: FieldPath, item: Any) -> str:
    """The problem with a value `expand` gave that is not an object."""
    if isinstance(item, NotAList):
        return f"{path} must be a list, not a {type_name(item.value)}"
    return f"{path} is a {type_name(item)}, not an object"


def read_as(located: Locator, path: FieldPath, text: str) -> str | None:
    """What kubectl makes of the unquoted YAML 1.1 word or number at `path` (`n` is false, `010` is 8), read from
    the object's `text` where the value is written (`goyaml.read_as`); None for any other value."""
    value = value_at(located.obj, path)
    start = located.scalar_start(path) if value.__class__ in (bool, int, float) else None
    return goyaml.read_as(text, start, value) if start is not None else None


def is_scalar(value: Any) -> bool:
    """A string, number or boolean (`scalar_start` places them)."""
    return isinstance(value, str | int | float)


def value_at(obj: Any, path: FieldPath) -> Any:
    """The plain value at `path` below `obj`; None when any step is missing."""
    node = obj
    for segment, _is_key in path.steps():
        if isinstance(segment, int):
            node = node[segment] if isinstance(node, list) and 0 <= segment < len(node) else None
        else:
            node = node.get(segment) if isinstance(node, dict) else None
        if node is None:
            return None
    return node
