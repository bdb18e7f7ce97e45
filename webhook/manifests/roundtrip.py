"""The reference backend: one text -> objects with their positions, by ruamel.yaml's round-trip loader.

YAML is parsed as YAML 1.2, so an unquoted `0000:00:05.0` or `on` stays a string, as the API server's own
YAML decoder (sigs.k8s.io/yaml) would treat them. JSON is YAML 1.2 too. It is the slowest backend (~5 ms
per small object) and the one whose problem messages are the reference: the libyaml and JSON backends
hand every text they do not read exactly alike to it. Input problems never raise: each becomes one
`Problem` and loading carries on with the rest.
"""

from __future__ import annotations

import datetime
import io
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec
from msgspec import Struct

from webhook.fieldpath import FieldPath
from webhook.findings import Position
from webhook.manifests import aliases
from webhook.manifests.objects import expand, not_an_object, value_at
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
        """Character offset into `text` where the string scalar at `path` starts (None when it is not one)."""
        if not isinstance(value_at(self.obj, path), str):
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


def plain(node: Any) -> Any:
    """ruamel's round-trip values -> plain dict/list/str/int/float/bool/None."""
    if isinstance(node, Mapping):
        return {str(k): plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [plain(v) for v in node]
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
    yaml.allow_duplicate_keys = False
    return yaml


def _locate(node: Any, path: FieldPath, source: str, *, value: bool) -> Position:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    line, column = _start(node)
    for segment, _is_key in path.steps():
        if isinstance(node, CommentedMap) and isinstance(segment, str) and segment in node:
            try:
                key_line, key_col = node.lc.key(segment)
                val_line, val_col = node.lc.value(segment)
            except KeyError:  # merged in by `<<`: its position belongs to the anchored map; stay at the parent
                break
            child = node[segment]
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

