"""A read-only device held in another Mapping than dict (as an inventory keeps them), for the verdict tests."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


class View(Mapping[str, Any]):
    def __init__(self, fields: dict[str, Any]) -> None:
        self._fields = fields

    def __getitem__(self, key: str) -> Any:
        return self._fields[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._fields)

    def __len__(self) -> int:
        return len(self._fields)
