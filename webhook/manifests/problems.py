"""What the reader says about an input it could not read: one `Problem` per file, document or pattern."""

from __future__ import annotations

from typing import NamedTuple


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


def type_name(value: object) -> str:
    """A YAML/JSON value's kind in a message: `document 2 is a list, not an object`."""
    if isinstance(value, list):
        return "list"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if value is None:
        return "null value"
    if isinstance(value, dict):
        return "mapping"
    return type(value).__name__


def one_line(text: object) -> str:
    return " ".join(str(text).split())
