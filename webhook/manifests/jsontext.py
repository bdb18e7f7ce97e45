"""The JSON backend: one JSON object (`kubectl get -o json`, a megabyte list of slices) read by the C json
module, its values first; the places of the few values a finding names are looked up in the text when asked
for (`webhook.manifests.jsonplaces`), at the line and column the YAML reading gives.

JSON is YAML 1.2, so the values are those the YAML backends give: only texts where the two could differ
are refused (None: the caller reads them as YAML): a duplicate key (YAML refuses it), `NaN`/`Infinity`
(strings in YAML), a top level that is not one object. An escaped lone surrogate comes as `\\ufffd`: the reader
reads a JSON text as Go's JSON decoder (kubectl's) does (`webhook.wire.go_json`). A text whose lines YAML
counts otherwise (a lone CR) is placed by reading it once more through the YAML backends, the
first time a place is asked for.

A stream of JSON documents (`jq -c`, `jq '.items[]'`; `kubectl apply -f` reads them) is no YAML: `stream`
cuts it into its documents for the reader to read one by one, and `StreamDoc` places each document's fields
back where they are written in the stream.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from msgspec import Struct

from webhook.fieldpath import FieldPath
from webhook.findings import Position
from webhook.manifests.jsonplaces import JsonPlaces, counts_lines_as_yaml
from webhook.manifests.objects import Locator, expand, is_scalar, value_at
from webhook.manifests.problems import type_name
from webhook.wire import Obj, reading_error


class NotJSON(Exception):
    """A text kubectl reads as JSON (it starts with `{`) and its JSON decoder refuses: `NaN` or `Infinity`, a number
    beyond float64, or one with more digits than Python converts. The message says which."""


class _Unusual(Exception):
    """A JSON text the YAML backends might read differently."""


def _refuse(text: str) -> Any:
    raise NotJSON(f"{text} is no JSON value (Go's decoder, kubectl's, refuses it)")


def _float(text: str) -> float:
    """A JSON number with a fraction or exponent, as Go decodes it into a float64: one beyond its range is refused."""
    value = float(text)
    if math.isinf(value):
        raise NotJSON(f"the number {text} does not fit a float64 (Go's decoder, kubectl's, refuses it)")
    return value


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _Unusual("duplicate key")
    return out


class _Reread(Struct):
    """The YAML reading of one text, made the first time one of its objects is asked for a place: for a text
    whose lines YAML counts otherwise than JSON scanning does."""

    text: str
    source: str
    reread: Callable[[str, str], Sequence[Locator]]
    located: Sequence[Locator] | None = None

    def at(self, index: int) -> Locator | None:
        if self.located is None:
            self.located = self.reread(self.text, self.source)
        return self.located[index] if index < len(self.located) else None


@dataclass(frozen=True, slots=True)
class JsonDoc:
    """One object of a JSON text; the places of its values are looked up in the text when asked for."""

    source: str
    document: int
    obj: Obj
    base: FieldPath
    index: int  # the object's place among the text's objects (the YAML reading has the same order)
    places: JsonPlaces | _Reread = field(repr=False)

    def position(self, path: FieldPath) -> Position | None:
        places = self.places
        if isinstance(places, JsonPlaces):
            return places.position(self.source, self.base.join(path))
        located = places.at(self.index)
        return None if located is None else located.position(path)

    def scalar_start(self, path: FieldPath) -> int | None:
        places = self.places
        if isinstance(places, JsonPlaces):
            return places.scalar_start(self.base.join(path)) if is_scalar(value_at(self.obj, path)) else None
        located = places.at(self.index)
        return None if located is None else located.scalar_start(path)


def load(text: str, source: str, reread: Callable[[str, str], Sequence[Locator]]) -> list[JsonDoc] | None:
    """Every object of a JSON object text, or None when a YAML backend must read it.

    `reread(text, source)` reads the text through the YAML backends, for places in a text whose lines YAML
    counts otherwise."""
    if not text.lstrip().startswith("{"):
        return None
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_refuse, parse_float=_float)
    except ValueError as err:
        if "integer string conversion" in str(err):  # the YAML readers would make a string of it, as go-yaml does
            raise NotJSON(reading_error(err)) from None
        return None
    except (_Unusual, RecursionError):
        return None
    if not isinstance(value, dict):
        return None
    places = JsonPlaces(text) if counts_lines_as_yaml(text) else _Reread(text, source, reread)
    docs: list[JsonDoc] = []
    for base, item in expand(value, FieldPath()):
        if not isinstance(item, dict):
            return None  # an item that is not an object: the YAML backend words the problem
        docs.append(JsonDoc(source, 0, item, base, len(docs), places))
    return docs


# JSON streams: `jq '.items[]'`, `jq -c` and `kubectl get -o json` pieces joined, as `kubectl apply -f` reads them.
_BLANK = re.compile(r"[ \t\r\n]*")  # JSON's whitespace, between the documents of a stream


class StreamError(NamedTuple):
    """Why a JSON stream stops being one (a document that is not JSON, or not an object), and where."""

    message: str
    line: int
    column: int


class Piece(NamedTuple):
    """One document of a JSON stream: its text and where it starts in the stream's text."""

    text: str
    line: int  # lines before the document's first (0-based line of its start)
    column: int  # characters before its start, on that line
    offset: int  # characters before its start


def stream(text: str) -> list[Piece] | StreamError | None:
    """The documents of a stream of JSON values (two or more, the first an object), or why its first document
    that is not a JSON object stops it; None when `text` is not such a stream (one value, or not JSON from the
    first character: the YAML readers word its problem). Splitting only: each piece is read as its own text."""
    start = _BLANK.match(text).end()  # type: ignore[union-attr]  # the pattern matches the empty string
    if not text.startswith("{", start):
        return None
    decoder = json.JSONDecoder()
    pieces: list[Piece] = []
    line = line_start = 0  # the line of `start`, counted as the scan moves on, and where that line starts
    while start < len(text):
        line += text.count("\n", line_start, start)
        line_start = text.rfind("\n", line_start, start) + 1 or line_start
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError as err:
            if not pieces:
                return None
            return StreamError(f"invalid JSON: {err.msg}", err.lineno, err.colno)
        except RecursionError:
            if not pieces:
                return None
            return StreamError("invalid JSON: nested too deeply for draguard's reader", line + 1,
                               start - line_start + 1)
        except ValueError as err:  # a number too long to read
            if not pieces:
                return None
            return StreamError(f"invalid JSON: {reading_error(err)}", line + 1, start - line_start + 1)
        if value is not None and not isinstance(value, dict):
            return StreamError(f"document {len(pieces) + 1} is a {type_name(value)}, not an object", line + 1,
                               start - line_start + 1)
        pieces.append(Piece(text[start:end], line, start - line_start, start))
        start = _BLANK.match(text, end).end()  # type: ignore[union-attr]
    return pieces if len(pieces) > 1 else None


@dataclass(frozen=True, slots=True)
class StreamDoc:
    """One object of a JSON stream's document, read as a text of its own: its places moved to the stream's."""

    inner: Locator
    document: int
    piece: Piece = field(repr=False)

    @property
    def source(self) -> str:
        return self.inner.source

    @property
    def obj(self) -> Obj:
        return self.inner.obj

    @property
    def base(self) -> FieldPath:
        return self.inner.base

    def position(self, path: FieldPath) -> Position | None:
        found = self.inner.position(path)
        return None if found is None else shift(found, self.piece)

    def scalar_start(self, path: FieldPath) -> int | None:
        start = self.inner.scalar_start(path)
        return None if start is None else start + self.piece.offset


def shift(position: Position, piece: Piece) -> Position:
    """A position inside a piece -> the same place in the stream's text."""
    line, column = _moved(position.line, position.column, piece)
    if position.end_line is None or position.end_column is None:
        return Position(position.file, line, column)
    return Position(position.file, line, column, *_moved(position.end_line, position.end_column, piece))


def _moved(line: int, column: int, piece: Piece) -> tuple[int, int]:
    return line + piece.line, column + piece.column if line == 1 else column
