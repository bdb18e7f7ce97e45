"""The JSON backend: one JSON object (`kubectl get -o json`, a megabyte list of slices) read by the C json
module, for readers that need values first and positions rarely (`lint --slices`, eval, explain,
topology --check).

JSON is YAML 1.2, so the values are those the YAML backends give: only texts where the two could differ
are refused (None: the caller reads them as YAML): a duplicate key (YAML refuses it), `NaN`/`Infinity`
(strings in YAML), an escaped lone surrogate, a top level that is not one object. Positions are not kept:
the first `position()` asked of any object of a text reads that text once more through the YAML
backends, so a finding or a shape error points at the same line and column as it would from YAML.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from webhook.fieldpath import FieldPath
from webhook.findings import Position
from webhook.manifests.objects import Locator, expand
from webhook.wire import Obj

_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


class _Unusual(Exception):
    """A JSON text the YAML backends might read differently."""


def _refuse(_text: str) -> Any:
    raise _Unusual("NaN or Infinity")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _Unusual("duplicate key")
    return out


@dataclass(slots=True)
class _Positions:
    """The YAML reading of one text, made the first time one of its objects is asked for a position."""

    text: str
    source: str
    reread: Callable[[str, str], Sequence[Locator]]
    located: Sequence[Locator] | None = field(default=None)

    def at(self, index: int) -> Locator | None:
        if self.located is None:
            self.located = self.reread(self.text, self.source)
        return self.located[index] if index < len(self.located) else None


@dataclass(frozen=True, slots=True)
class JsonDoc:
    """One object of a JSON text; its positions come from the YAML reading of the same text, on demand."""

    source: str
    document: int
    obj: Obj
    base: FieldPath
    index: int  # the object's place among the text's objects (the YAML reading has the same order)
    positions: _Positions = field(repr=False)

    def position(self, path: FieldPath) -> Position | None:
        located = self.positions.at(self.index)
        return None if located is None else located.position(path)

    def scalar_start(self, path: FieldPath) -> int | None:
        located = self.positions.at(self.index)
        return None if located is None else located.scalar_start(path)


def load(text: str, source: str, reread: Callable[[str, str], Sequence[Locator]]) -> list[JsonDoc] | None:
    """Every object of a JSON object text, or None when a YAML backend must read it.

    `reread(text, source)` reads the text with positions when one is first asked for."""
    if not text.lstrip().startswith("{") or _SURROGATE.search(text):
        return None
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_refuse)
    except (ValueError, _Unusual, RecursionError):
        return None
    if not isinstance(value, dict):
        return None
    positions = _Positions(text, source, reread)
    docs: list[JsonDoc] = []
    for base, item in expand(value, FieldPath()):
        if not isinstance(item, dict):
            return None  # an item that is not an object: the YAML backend words the problem
        docs.append(JsonDoc(source, 0, item, base, len(docs), positions))
    return docs
