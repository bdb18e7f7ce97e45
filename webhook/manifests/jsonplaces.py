"""Where the values of one JSON text are written, found in the text itself: no node tree.

libyaml's composer (`webhook.manifests.libyaml`) keeps a node with its marks for every value of a text. On a
12 MB `kubectl get -o json` list of slices that reading took about 770 MB and 6 s, where `json.loads` takes
about 120 MB and half a second; and a lint run asks for the places of a few values, those of its findings.

`JsonPlaces` finds a value by scanning down its path from the top of the text. Each container on the way is
scanned once, the first time a path goes through it: the start of each member is kept, and each member's
value is stepped over by the C decoder. So a lookup costs the containers it passes through, once, and a text
nobody asks about costs nothing.

The places are libyaml's, so a finding points where it would from the YAML reading of the same text (tests
hold the two equal): line and column of a value's first character (a string's opening quote), or of its
nearest existing ancestor when the path goes further than the text. Lines are counted at `\\n`: a text with a
line break YAML counts and JSON scanning would not (a lone CR) is placed by the YAML reading
(`counts_lines_as_yaml`).
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring  # type: ignore[attr-defined]  # (the C scanner; not in typeshed)

from webhook.fieldpath import FieldPath
from webhook.findings import Position
from webhook.spans import LineIndex

_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
_YAML_ONLY_BREAKS = re.compile("\r(?!\n)")  # (NEL, LS and PS break no YAML 1.2 line: webhook.manifests.libyaml)

Members = dict[str, int] | list[int]


def counts_lines_as_yaml(text: str) -> bool:
    """Are this text's lines those YAML counts (every line break a `\\n`, or CR LF)?"""
    return _YAML_ONLY_BREAKS.search(text) is None


class JsonPlaces:
    """The places of one JSON text's values (the text read by `json.loads` without error)."""

    __slots__ = ("_lines", "_members", "_root", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._root = _WS.match(text).end()  # type: ignore[union-attr]  # the pattern matches the empty string
        self._members: dict[int, Members] = {}  # a container's start -> the starts of its members' values
        self._lines: LineIndex | None = None

    def offset(self, path: FieldPath) -> tuple[int, bool]:
        """The character offset where the value at `path` (from the top of the text) starts, and True; or
        where its nearest existing ancestor starts, and False."""
        at = self._root
        for segment, _is_key in path.steps():
            members = self._members.get(at)
            if members is None:
                try:
                    members = self._scan(at)
                except RecursionError:  # a member nested deeper than the decoder reaches from here: placed no
                    members = []  # deeper than this container (json.loads read it from a shallower stack)
                self._members[at] = members
            if members.__class__ is dict and isinstance(segment, str):
                found = members.get(segment)
            elif members.__class__ is list and isinstance(segment, int) and 0 <= segment < len(members):
                found = members[segment]
            else:
                found = None
            if found is None:
                return at, False
            at = found
        return at, True

    def position(self, source: str, path: FieldPath) -> Position:
        """Line and column (1-based) where the value at `path`, or its nearest existing ancestor, starts."""
        if self._lines is None:
            self._lines = LineIndex(self.text)
        line, column = self._lines.line_column(self.offset(path)[0])
        return Position(source, line, column)

    def scalar_start(self, path: FieldPath) -> int | None:
        """The offset where the string (its opening quote), number or boolean at `path` starts; None when none is
        there."""
        at, exact = self.offset(path)
        return at if exact and self.text[at] not in "{[n" else None

    def _scan(self, at: int) -> Members:
        """The starts of the values of the container that starts at `at` (nothing for a scalar)."""
        text = self.text
        opener = text[at]
        if opener == "{":
            fields: dict[str, int] = {}
            pos = _WS.match(text, at + 1).end()  # type: ignore[union-attr]
            while text[pos] == '"':
                key, pos = scanstring(text, pos + 1)
                pos = _WS.match(text, pos).end() + 1  # type: ignore[union-attr]  # past the colon
                start = _WS.match(text, pos).end()  # type: ignore[union-attr]
                fields.setdefault(key, start)  # (a text with a duplicate key is read by the YAML backends)
                pos = self._after(start)
            return fields
        if opener == "[":
            items: list[int] = []
            pos = _WS.match(text, at + 1).end()  # type: ignore[union-attr]
            while text[pos] != "]":
                items.append(pos)
                pos = self._after(pos)
            return items
        return []

    def _after(self, start: int) -> int:
        """Where the next member starts (or the closing bracket), after the value at `start` and its comma."""
        text = self.text
        pos = _WS.match(text, _DECODER.raw_decode(text, start)[1]).end()  # type: ignore[union-attr]
        if text[pos] == ",":
            pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
        return pos


__all__ = ["JsonPlaces", "counts_lines_as_yaml"]
