"""What the reader says about an input it could not read: one `Problem` per file, document or pattern."""

from __future__ import annotations

from typing import NamedTuple

from webhook.wire import json_kind


class Problem(NamedTuple):
    """An input the tool could not read; rendered as one line, it makes the command exit 2."""

    source: str
    message: str
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        where = self.source
        if self.line is not None:
            where += f":{self.line}:{self.column or 1}"
        return f"{where}: {self.message}"


_YAML_WORDS = {"array": "list", "object": "mapping", "null": "null value"}


def type_name(value: object) -> str:
    """A YAML/JSON value's kind in a message, in YAML's words: `document 2 is a list, not an object`."""
    kind = json_kind(value)
    return _YAML_WORDS.get(kind, kind)


def refused_character(err: Exception, text: str) -> Problem | None:
    """ruamel's refusal of a character YAML does not allow (a control character such as BEL or ESC), which names only
    its offset in `text`: the problem at its line and column, worded as the reader's NUL check words it
    (webhook.manifests.sources.read_text); None for any other error. Its `source` is left for the caller."""
    from ruamel.yaml.reader import ReaderError

    position = getattr(err, "position", None)
    if not isinstance(err, ReaderError) or not isinstance(err.character, int) or not isinstance(position, int):
        return None
    line_start = text.rfind("\n", 0, position) + 1
    return Problem("", f"invalid YAML: unacceptable character #x{err.character:04x}: {err.reason}",
                   text.count("\n", 0, position) + 1, position - line_start + 1)
