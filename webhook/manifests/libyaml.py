"""The fast backend: libyaml's C parser, with plain scalars resolved as Kubernetes resolves them.

ruamel's round-trip loader (`webhook.manifests.roundtrip`) costs ~5 ms per small object, which caps lint
near 200 objects/s. libyaml parses in C with line, column and character index on every event, so values
*and* positions come from one pass. Only plain scalars need resolving, by the rules of sigs.k8s.io/yaml over
go-yaml v2 (`webhook.manifests.goyaml`: YAML 1.1, so `on` and `yes` are true, `010` is 8, while
`0000:00:05.0` and timestamps stay strings), as kubectl and the API server read them.

Values are built from libyaml's events (`load`), and each container keeps the marks of its members in an
array of machine integers (`Marks`). libyaml's composer keeps a node object with two mark objects for every
value instead, some 500 bytes each: an 18 MB `kubectl get -o yaml` dump took 750 MB that way. A text with
aliases goes through the composer (`compose_load`), whose nodes the alias limits are checked on.

Anything unusual (a syntax error, an explicit tag, a merge key, a duplicate key, a null key, a `%YAML`
directive, a NEL, LS or PS character, no libyaml) returns None and the caller falls back to
`webhook.manifests.roundtrip`, whose messages are the reference.
"""

from __future__ import annotations

import functools
import importlib
import re
import sys
from array import array
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any, NamedTuple

from webhook.fieldpath import FieldPath
from webhook.findings import Position
from webhook.manifests import aliases, objects
from webhook.manifests.goyaml import json_key, key_of, resolve_plain
from webhook.wire import Obj, go_json

# A tag (`!!str 5`, `!custom`) changes a value's type: the composer leaves an explicit tag on its node
# (implicit ones are resolved to "" by `_loader`), and such a document goes the ruamel way. So does a
# merge key (`<<: *base`), which only ruamel expands.
MERGE_KEY = "<<"
_TOO_DEEP = "exceeded maximum nesting depth"  # libyaml's scanner, beyond 1,000 open levels
# A `\uD83D`-style escape of a surrogate (json.dumps' spelling of half an emoji): go-yaml (kubectl) refuses it in
# these words, as libyaml does, where ruamel keeps a lone surrogate no UTF-8 output can hold.
_BAD_ESCAPE = "found invalid Unicode character escape code"
# A text kubectl reads as JSON (its first character but JSON's whitespace is `{`): a lone surrogate's escape in it is
# read as Go's JSON decoder reads it (webhook.wire.go_json), not refused as in YAML.
JSON_START = re.compile(r"[ \t\r\n]*\{")
# NEL, LS and PS: libyaml (YAML 1.1) counts each as a line break in its marks, YAML 1.2 (ruamel, the reference, and
# every other line count of draguard's: findings' tokens, waivers) does not, so a text holding one goes the ruamel way.
_LINE_BREAKS_1_1 = re.compile("[\x85\u2028\u2029]")


# PyYAML (with libyaml) comes with the kubernetes client; it ships no type information.
yaml: Any = importlib.import_module("yaml")


class _Unusual(Exception):
    """Something the fast path does not handle; the caller re-reads the text with ruamel."""


class Doc(NamedTuple):
    """One object and the node tree of its document; `base` places the object inside a `kind: List`."""

    source: str
    document: int
    obj: Obj
    node: Any
    base: FieldPath

    def node_at(self, path: FieldPath) -> tuple[Any, bool]:
        """The node at `path` below this object, or the nearest existing ancestor (exact=False)."""
        node = self.node
        for segment, _is_key in self.base.join(path).steps():
            child = _child(node, segment)
            if child is None:
                return node, False
            node = child
        return node, True

    def scalar_start(self, path: FieldPath) -> int | None:
        """Character offset where the scalar at `path` starts (None when there is none)."""
        if not objects.is_scalar(objects.value_at(self.obj, path)):
            return None
        node, exact = self.node_at(path)
        return node.start_mark.index if exact and isinstance(node, yaml.ScalarNode) else None

    def position(self, path: FieldPath) -> Position:
        node, _exact = self.node_at(path)
        mark = node.start_mark
        return Position(self.source, mark.line + 1, mark.column + 1)


@functools.cache
def _loader() -> Any:
    """libyaml's loader without PyYAML's implicit resolvers (`goyaml` resolves plain scalars)."""
    return type("_Composer", (yaml.CSafeLoader,), {
        "yaml_implicit_resolvers": {},
        # PyYAML asks its Python resolver for every node's tag; this module never reads tags.
        "resolve": lambda self, kind, value, implicit: "",
        "descend_resolver": lambda self, parent, index: None,
        "ascend_resolver": lambda self: None,
    })


def _child(node: Any, segment: str | int) -> Any:
    if isinstance(node, yaml.MappingNode) and isinstance(segment, str):
        for key, value in node.value:
            if (key.value if key.style else json_key(key.value)) == segment:  # the key as `_value` made it
                return value
    elif isinstance(node, yaml.SequenceNode) and isinstance(segment, int) and 0 <= segment < len(node.value):
        return node.value[segment]
    return None


class Marks:
    """Where a text's values are written: for each container value (by identity), the (index, line, column) of
    each member's first character, in an array of machine integers; for each document, its root's."""

    __slots__ = ("roots", "shadows")

    def __init__(self) -> None:
        self.shadows: dict[int, array[int]] = {}
        self.roots: list[tuple[Any, int, int, int]] = []  # (value, index, line, column) per document read

    def mark(self, document: int, path: FieldPath) -> tuple[tuple[int, int, int], bool]:
        """The mark of the value at `path` from document `document`'s root, and True; or of its nearest
        existing ancestor, and False."""
        value, *root = self.roots[document]
        found = (root[0], root[1], root[2])
        for segment, _is_key in path.steps():
            shadow = self.shadows.get(id(value))
            if shadow is None:
                return found, False
            if value.__class__ is dict and isinstance(segment, str) and segment in value:
                at = list(value).index(segment)
            elif value.__class__ is list and isinstance(segment, int) and 0 <= segment < len(value):
                at = segment
            else:
                return found, False
            found = (shadow[3 * at], shadow[3 * at + 1], shadow[3 * at + 2])
            value = value[segment]
        return found, True


class EventDoc(NamedTuple):
    """One object read from libyaml's events; its places in the text's `Marks`."""

    source: str
    document: int
    obj: Obj
    marks: Marks
    base: FieldPath

    def scalar_start(self, path: FieldPath) -> int | None:
        """Character offset where the scalar at `path` starts (None when there is none)."""
        if not objects.is_scalar(objects.value_at(self.obj, path)):
            return None
        (index, _line, _column), exact = self.marks.mark(self.document, self.base.join(path))
        return index if exact else None

    def position(self, path: FieldPath) -> Position:
        (_index, line, column), _exact = self.marks.mark(self.document, self.base.join(path))
        return Position(self.source, line + 1, column + 1)


_Events = tuple(getattr(yaml, name) for name in ("ScalarEvent", "MappingStartEvent", "SequenceStartEvent",
                                                  "MappingEndEvent", "SequenceEndEvent", "AliasEvent"))


class _ToComposer(Exception):
    """What the event reader leaves to the composer."""


def _read_events(text: str, source: str, loader: type) -> list[EventDoc]:
    """`load` from libyaml's events; raises _ToComposer where the composer must decide (an alias, nesting deeper
    than half of Python's recursion limit: what the values' later walks need), _Unusual as `_value` does."""
    scalar_event, mapping_start, sequence_start, mapping_end, sequence_end, alias_event = _Events
    deepest = sys.getrecursionlimit() // 2
    marks = Marks()
    shadows = marks.shadows
    docs: list[EventDoc] = []
    # The open containers, innermost last, each [value, its members' marks, the key read and waiting for its
    # value (_NO_KEY: none; None in a list)]; `top` is the innermost (None: between documents).
    stack: list[list[Any]] = []
    top: list[Any] | None = None
    parser = loader(text)
    try:
        while (event := parser.get_event()) is not None:
            kind = event.__class__
            if kind is scalar_event:
                tag = event.tag
                if tag is not None and tag != "!":
                    raise _Unusual("explicit tag")
                style = event.style
                value = event.value if style else resolve_plain(event.value)
                if top is not None and top[2] is _NO_KEY:  # a mapping's key
                    if not style:
                        if event.value == MERGE_KEY:
                            raise _Unusual("merge key")
                        if value.__class__ is not str:
                            value = key_of(value)
                        if value is None:
                            raise _Unusual("a key Kubernetes refuses")
                    if value in top[0]:
                        raise _Unusual("duplicate key")
                    top[2] = value
                    continue
                if value.__class__ is float and value - value != 0:  # .inf, .nan: no JSON form (kubectl refuses)
                    raise _Unusual("an infinity or NaN")
            elif kind is mapping_end or kind is sequence_end:
                value = stack.pop()[0]
                if stack:
                    top = stack[-1]
                else:
                    top = None
                    _document_read(value, marks, source, docs)
                continue
            elif kind is mapping_start or kind is sequence_start:
                tag = event.tag
                if tag is not None and tag != "!":
                    raise _Unusual("explicit tag")
                if top is not None and top[2] is _NO_KEY:
                    raise _Unusual("complex key")
                if len(stack) >= deepest:
                    raise _ToComposer("deep")
                value = {} if kind is mapping_start else []
            elif kind is alias_event:
                raise _ToComposer("alias")
            else:  # stream and document boundaries
                continue
            start = event.start_mark
            if top is None:  # a document's root
                marks.roots.append((value, start.index, start.line, start.column))
                if kind is scalar_event:
                    _document_read(value, marks, source, docs)
            else:
                key = top[2]
                if key is None:
                    top[0].append(value)
                else:
                    top[0][key] = value
                    top[2] = _NO_KEY
                top[1].extend((start.index, start.line, start.column))
            if kind is not scalar_event:
                shadow = shadows[id(value)] = array("q")
                top = [value, shadow, _NO_KEY if kind is mapping_start else None]
                stack.append(top)
    finally:
        parser.dispose()
    return docs


_NO_KEY = object()


def _document_read(value: Any, marks: Marks, source: str, docs: list[EventDoc]) -> None:
    """A document's root value read: its objects."""
    document = len(marks.roots) - 1
    docs += [EventDoc(source, document, item, marks, base) for base, item in _objects(value)]


def _objects(root: Any) -> list[tuple[FieldPath, Obj]]:
    """The objects of a document's root value (none for an empty document, e.g. after a trailing `---`); raises
    _Unusual for a root or an item that is not an object (the slow path words the problem)."""
    if root is None:
        return []
    if not isinstance(root, dict):
        raise _Unusual("not an object")
    found = list(objects.expand(root, FieldPath()))
    if not all(isinstance(item, dict) for _base, item in found):
        raise _Unusual("an item that is not an object")
    return found


def load(text: str, source: str) -> list[Doc] | list[EventDoc] | None:
    """Every object in `text` with its places, or None when the ruamel path must decide. Raises
    aliases.Refused for a document whose aliases go-yaml would not expand, RecursionError for one nested beyond
    libyaml's limit or Python's recursion limit."""
    try:
        loader = _loader()
    except AttributeError:  # PyYAML without libyaml
        return None
    if "%YAML" in text or (not text.isascii() and _LINE_BREAKS_1_1.search(text)):
        return None
    try:  # (a text with an alias is read twice: the event reader stops at its first alias)
        return _guarded(lambda: _read_events(text, source, loader))
    except _ToComposer:
        return compose_load(text, source)


def compose_load(text: str, source: str) -> list[Doc] | None:
    """`load` through libyaml's composer: the node tree kept for positions (texts with aliases, whose limits are
    checked on the nodes; nesting too deep for the event reader)."""
    loader = _loader()
    return _guarded(lambda: _compose(text, source, loader))


def _guarded(read: Callable[[], list[Any]]) -> list[Any] | None:
    """`read()`; None for what libyaml or the reading refuses (the ruamel path words it), RecursionError for
    nesting beyond libyaml's scanner (ruamel would take seconds, its scanner slowing with every open level, to
    fail the same way) or Python's recursion."""
    try:
        return read()
    except yaml.MarkedYAMLError as err:
        if err.problem == _TOO_DEEP:
            raise RecursionError(err.problem, err.problem_mark) from None
        if err.problem == _BAD_ESCAPE:
            raise aliases.Refused(err.problem, SimpleNamespace(start_mark=err.problem_mark)) from None
        return None
    except (yaml.YAMLError, _Unusual, ValueError):
        return None


def _compose(text: str, source: str, loader: type) -> list[Doc]:
    docs: list[Doc] = []
    aliased = "*" in text and "&" in text
    for index, node in enumerate(yaml.compose_all(text, Loader=loader)):
        if node is None:
            continue
        if aliased:
            aliases.check(node)  # before _value, which expands every alias
        docs += [Doc(source, index, item, node, base) for base, item in _objects(_value(node))]
    return docs


_SCALAR, _SEQUENCE, _MAPPING = yaml.ScalarNode, yaml.SequenceNode, yaml.MappingNode


def _value(node: Any) -> Any:
    kind = node.__class__
    if node.tag:
        raise _Unusual("explicit tag")
    if kind is _SCALAR:
        value = node.value if node.style else resolve_plain(node.value)
        if value.__class__ is float and value - value != 0:  # .inf, .nan: no JSON form (kubectl refuses)
            raise _Unusual("an infinity or NaN")
        return value
    if kind is _SEQUENCE:
        return [_value(item) for item in node.value]
    if kind is _MAPPING:
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.__class__ is not _SCALAR:
                raise _Unusual("complex key")
            if key_node.tag:
                raise _Unusual("explicit tag")
            if key_node.style:
                key = key_node.value
            elif key_node.value == MERGE_KEY:
                raise _Unusual("merge key")
            else:
                key = json_key(key_node.value)
                if key is None:
                    raise _Unusual("a key Kubernetes refuses")
            if key in out:
                raise _Unusual("duplicate key")
            out[key] = _value(value_node)
        return out
    raise _Unusual("unknown node")


def documents(text: str) -> list[Any] | None:
    """The node trees of every document (None when libyaml cannot read the text). A stream of JSON documents
    (`jq -c`) has one per document, as the reader numbers them."""
    if JSON_START.match(text):
        text = go_json(text)
    try:
        return list(yaml.compose_all(text, Loader=_loader()))
    except (yaml.YAMLError, AttributeError):
        pass
    from webhook.manifests import jsontext

    pieces = jsontext.stream(text)
    if not isinstance(pieces, list):
        return None
    try:
        return [yaml.compose(piece.text, Loader=_loader()) for piece in pieces]
    except (yaml.YAMLError, AttributeError):
        return None


def value_in(nodes: list[Any], document: int, path: FieldPath) -> str | None:
    """The string scalar at `path` (from the document root) of document number `document`; None if absent."""
    if not 0 <= document < len(nodes):
        return None
    node = nodes[document]
    for segment, _is_key in path.steps():
        node = _child(node, segment)
        if node is None:
            return None
    if not isinstance(node, yaml.ScalarNode):
        return None
    return node.value if node.style or isinstance(resolve_plain(node.value), str) else None


def value_at(text: str, document: int, path: FieldPath) -> str | None:
    """`value_in` of a text."""
    nodes = documents(text)
    return None if nodes is None else value_in(nodes, document, path)
