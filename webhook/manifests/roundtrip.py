"""The reference backend: one text -> objects with their positions, by ruamel.yaml's round-trip loader.

ruamel parses; every plain (unquoted, untagged) scalar is kept as its text (`_Plain`) and resolved by
`webhook.manifests.goyaml`, as kubectl and the API server (sigs.k8s.io/yaml over go-yaml v2) read it: an
unquoted `on` is true, `010` is 8, `0000:00:05.0` stays a string. Keys become the JSON keys Kubernetes makes
of them, and two keys that make one JSON key (`on:` and `"true":`) are a duplicate. It is the slowest backend
(~5 ms per small object) and the one whose problem messages are the reference: the libyaml and JSON backends
hand every text they do not read exactly alike to it. Input problems never raise: each becomes one `Problem`
and loading carries on with the rest.
"""

from __future__ import annotations

import datetime
import functools
import io
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec
from msgspec import Struct

from webhook.fieldpath import FieldPath
from webhook.findings import Position
from webhook.manifests import aliases, goyaml
from webhook.manifests.objects import expand, is_scalar, not_an_object, value_at
from webhook.manifests.problems import Problem, refused_character, type_name
from webhook.wire import Obj, one_line, reading_error

if TYPE_CHECKING:  # ruamel is imported when a text takes this path: most runs never need it
    from ruamel.yaml import YAML


@dataclass(frozen=True, slots=True)
class Manifest:
    """One Kubernetes object from a file.

    `obj` holds plain Python values (dict, list, str, int, float, bool, None). `base` is where the
    object sits inside its document (`items[2]` for the third item of a `kind: List`), so a rule's
    field path, which is relative to the object, can be mapped back to a line and column.
    """

    source: str
    document: int  # 0-based index of the YAML document in the file
    obj: Obj
    text: str = field(repr=False, default="")
    node: Any = field(repr=False, default=None)  # ruamel node of the document, for positions
    base: FieldPath = field(default_factory=FieldPath)

    def position(self, path: FieldPath | None = None, *, value: bool = True) -> Position | None:
        """Line/column of `path` in the source: the value's start (or the key's, `value=False`).

        Walks as deep as the document goes and answers with the nearest existing ancestor, so a
        finding about a missing field points at its parent.
        """
        if self.node is None:
            return None
        full = self.base.join(path) if path is not None else self.base
        return _locate(self.node, full, self.source, value=value)

    def scalar_start(self, path: FieldPath) -> int | None:
        """Character offset into `text` where the scalar at `path` starts (None when there is none)."""
        if not is_scalar(value_at(self.obj, path)):
            return None
        pos = self.position(path)
        return None if pos is None else self.offset(pos.line, pos.column)

    def offset(self, line: int, column: int) -> int:
        """Character offset into `text` of a 1-based line and column."""
        return _line_starts(self.text)[line - 1] + column - 1


class Loaded(Struct):
    manifests: list[Manifest] = msgspec.field(default_factory=list)
    problems: list[Problem] = msgspec.field(default_factory=list)


def load_text(text: str, source: str = "<string>") -> Loaded:
    """Load every object from one YAML or JSON text (multi-document; `kind: List` expanded)."""
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    loaded = Loaded()
    try:
        if "*" in text and "&" in text:  # aliases: refused as go-yaml refuses them, before plain() expands them
            for root in _yaml().compose_all(text):
                if root is not None:
                    aliases.check(root)
        documents = list(_yaml().load_all(text))
    except MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        loaded.problems.append(
            Problem(
                source,
                f"invalid YAML: {one_line(err.problem or err.context or 'cannot parse')}",
                mark.line + 1 if mark else None,
                mark.column + 1 if mark else None,
            )
        )
        return loaded
    except (YAMLError, ValueError) as err:  # e.g. a duplicate key, a bad escape, a number too long to read
        refused = refused_character(err, text)
        loaded.problems.append(refused._replace(source=source) if refused is not None
                               else Problem(source, f"invalid YAML: {reading_error(err)}"))
        return loaded
    except aliases.Refused as refused:
        loaded.problems.append(Problem(source, f"invalid YAML: {refused.message}", refused.line, refused.column))
        return loaded
    except _KeyRefused as refused:
        loaded.problems.append(Problem(source, f"invalid YAML: {refused.args[0]}", refused.args[1], refused.args[2]))
        return loaded
    for node in documents:
        found = _no_json_form(node)
        if found is not None:  # kubectl's YAML-to-JSON step fails on it: the whole file is refused
            loaded.problems.append(Problem(source, *found))
            return loaded
    for index, node in enumerate(documents):
        if node is None:
            continue  # an empty document, e.g. a trailing `---`
        line = _node_line(node)
        if not isinstance(node, Mapping):
            loaded.problems.append(
                Problem(source, f"document {index + 1} is a {type_name(node)}, not an object", line, 1)
            )
            continue
        obj = plain(node)
        for base, item in expand(obj, FieldPath()):
            if not isinstance(item, Mapping):
                loaded.problems.append(
                    Problem(source, not_an_object(base, item), line, 1)
                )
                continue
            loaded.manifests.append(Manifest(source, index, item, text, node, base))
    return loaded


class _Plain(str):
    """A plain scalar's text, as ruamel read it: `plain` resolves it."""

    __slots__ = ()


_PLAIN_TAG = "tag:draguard,2026:plain"


class _KeyRefused(Exception):
    """A key Kubernetes cannot turn into a JSON key, or two keys that make one: (message, line, column)."""


def _json_key(key: Any) -> str | None:
    """The JSON key sigs.k8s.io/yaml makes of a constructed key (None: it refuses it)."""
    if isinstance(key, _Plain):
        return goyaml.json_key(str(key))
    return goyaml.key_of(key)


_GO_FLOAT = {1: "+Inf", -1: "-Inf", 0: "NaN"}


def _no_json_form(node: Any) -> tuple[str, int | None, int | None] | None:
    """The first value (not key) that is an infinity or NaN (`.inf`, `-.Inf`, `.nan`, `!!float .inf`), as (message,
    line, column): sigs.k8s.io/yaml turns YAML into JSON with Go's json.Marshal, which has no form for them
    (`json: unsupported value: +Inf`), so kubectl refuses the file. None when there is none."""
    if isinstance(node, Mapping):
        items: list[tuple[Any, Any]] = list(node.items())
    elif isinstance(node, list):
        items = list(enumerate(node))
    else:
        return None
    for key, value in items:
        # (plain() resolves every scalar later; only `.inf`, `-.Inf`, `.nan`, ... resolve to what is looked for here)
        number = goyaml.resolve_plain(value) if isinstance(value, _Plain) and value[:1] in ".+-" else value
        if isinstance(number, float) and not math.isfinite(number):
            go = _GO_FLOAT[0 if math.isnan(number) else (1 if number > 0 else -1)]
            shown = value if isinstance(value, _Plain) else go  # (a tagged value's text is gone: Go's spelling)
            line, column = _value_mark(node, key)
            return (f"invalid YAML: `{shown}` has no JSON form: kubectl's YAML-to-JSON step fails on it "
                    f"(json: unsupported value: {go}); quote it for a string", line, column)
        found = _no_json_form(value)
        if found is not None:
            return found
    return None


def _value_mark(node: Any, key: Any) -> tuple[int | None, int | None]:
    """Where ruamel read the value at `key` of a mapping or sequence (1-based; None for one a merge brought in)."""
    try:
        marks = node.lc  # ruamel's CommentedMap / CommentedSeq
        line, column = marks.value(key) if isinstance(node, Mapping) else marks.item(key)
    except (AttributeError, KeyError, IndexError, TypeError):
        return None, None
    return line + 1, column + 1


def plain(node: Any) -> Any:
    """ruamel's round-trip values -> plain dict/list/str/int/float/bool/None."""
    if isinstance(node, Mapping):
        return {_json_key(k): plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [plain(v) for v in node]
    if isinstance(node, _Plain):
        return goyaml.resolve_plain(str(node))
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    if isinstance(node, datetime.date):  # an unquoted timestamp: keep the text a user wrote
        return node.isoformat().replace("+00:00", "Z")
    return str(node)


def value_at_document(text: str, document: int, path: FieldPath) -> str | None:
    """The string at `path` (from the document root, `items[i]` included) of document number `document`."""
    for manifest in load_text(text, "<fix>").manifests:
        if manifest.document == document:
            found = value_at(plain(manifest.node), path)
            return found if isinstance(found, str) else None
    return None


def _yaml() -> YAML:
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")  # round-trip: the only ruamel mode that keeps line/column marks
    yaml.version = (1, 2)
    yaml.Resolver = _classes()[0]
    yaml.Constructor = _classes()[1]
    yaml.allow_duplicate_keys = False
    return yaml


@functools.cache
def _classes() -> tuple[type, type]:
    """ruamel's resolver and constructor, with plain scalars kept as `_Plain` text and keys compared as the JSON
    keys Kubernetes makes of them."""
    from ruamel.yaml.constructor import DuplicateKeyError, RoundTripConstructor
    from ruamel.yaml.nodes import ScalarNode
    from ruamel.yaml.resolver import VersionedResolver
    from ruamel.yaml.tag import Tag

    plain_tag = Tag(suffix=_PLAIN_TAG)

    class Resolver(VersionedResolver):
        def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
            if kind is ScalarNode and implicit[0] and value != "<<":  # a merge key stays ruamel's
                return plain_tag
            return super().resolve(kind, value, implicit)

    class Constructor(RoundTripConstructor):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.json_keys: dict[int, set[str]] = {}

        def check_mapping_key(self, node: Any, key_node: Any, mapping: Any, key: Any, value: Any) -> bool:
            mark = key_node.start_mark
            json = _json_key(key)
            if json is None:
                raise _KeyRefused(f"the key `{key_node.value}` has no JSON form (kubectl refuses a null key, or an "
                                  "integer key beyond int64): quote it", mark.line + 1, mark.column + 1)
            seen = self.json_keys.setdefault(id(mapping), set())  # the mappings live as long as the loader
            if json in seen:
                read_as = f" (kubectl reads the unquoted `{key}` as {json})" if json != key else ""
                raise DuplicateKeyError("while constructing a mapping", node.start_mark,
                                        f'found duplicate key "{json}"{read_as}', mark)
            seen.add(json)
            return True

    Constructor.add_constructor(_PLAIN_TAG, lambda constructor, node: _Plain(node.value))
    for name in _TAGGED:
        Constructor.add_constructor(f"tag:yaml.org,2002:{name}", functools.partial(_tagged, name))
    return Resolver, Constructor


_TAGGED = {"null": type(None), "bool": bool, "int": int, "float": float}
_TAG_OF = {value: name for name, value in _TAGGED.items()} | {str: "str"}


def _tagged(name: str, constructor: Any, node: Any) -> Any:
    """`!!int 010`, `!!bool yes`, `!!float 1` as go-yaml reads them (8, true, 1.0): the text resolved by the same
    rules, then held to the tag (an int64 may be a float); any other type is go-yaml's `cannot decode` error."""
    from ruamel.yaml.constructor import ConstructorError

    value = goyaml.resolve_plain(node.value)
    if name == "float" and type(value) is int and goyaml.INT64_MIN <= value <= goyaml.INT64_MAX:
        value = float(value)
    if type(value) is not _TAGGED[name]:
        raise ConstructorError(None, None, f"cannot decode !!{_TAG_OF[type(value)]} `{node.value}` as a !!{name}",
                               node.start_mark)
    return value


def _locate(node: Any, path: FieldPath, source: str, *, value: bool) -> Position:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    line, column = _start(node)
    for segment, _is_key in path.steps():
        key = _written_key(node, segment) if isinstance(node, CommentedMap) else None
        if key is not None:
            try:
                key_line, key_col = node.lc.key(key)
                val_line, val_col = node.lc.value(key)
            except KeyError:  # merged in by `<<`: its position belongs to the anchored map; stay at the parent
                break
            child = node[key]
            line, column = (val_line, val_col) if value else (key_line, key_col)
            if isinstance(child, CommentedMap | CommentedSeq) and value and child.lc.line is not None:
                line, column = child.lc.line, child.lc.col
            node = child
        elif isinstance(node, CommentedSeq) and isinstance(segment, int) and 0 <= segment < len(node):
            line, column = node.lc.item(segment)
            node = node[segment]
        else:
            break
    return Position(source, line + 1, column + 1)


def _written_key(node: Mapping[Any, Any], segment: str | int) -> Any:
    """The key of `node` as written (`on`) whose JSON key is `segment` (`true`); None when there is none."""
    if not isinstance(segment, str):
        return None
    return next((key for key in node if _json_key(key) == segment), None)


def _start(node: Any) -> tuple[int, int]:
    lc = getattr(node, "lc", None)
    if lc is not None and lc.line is not None:
        return lc.line, lc.col
    return 0, 0


def _node_line(node: Any) -> int | None:
    lc = getattr(node, "lc", None)
    return lc.line + 1 if lc is not None and lc.line is not None else None


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for line in io.StringIO(text):
        starts.append(starts[-1] + len(line))
    return starts

