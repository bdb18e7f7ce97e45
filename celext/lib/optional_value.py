"""The CEL optional value (cel-go `types.Optional`): the type behind `celext.lib.optional`'s functions."""

from __future__ import annotations

from typing import Any

from celext.lib.operators import equal

__all__ = ["NONE", "OptionalValue", "of"]


class OptionalValue:
    """A CEL optional: `present` tells whether it holds `value` (cel-go `types.Optional`)."""

    __slots__ = ("present", "value")

    def __init__(self, value: Any = None, *, present: bool = True) -> None:
        self.value = value
        self.present = present

    def cel_equal(self, other: object) -> Any:
        """cel-go `Optional.Equal`: false for another type; two values' own `Equal` (an error stays an error)."""
        if not isinstance(other, OptionalValue):
            return False
        if not (self.present and other.present):
            return self.present is other.present
        return equal(self.value, other.value)

    def __eq__(self, other: object) -> bool:
        return self.cel_equal(other) is True

    def __hash__(self) -> int:
        return hash(self.present)

    def __repr__(self) -> str:
        return f"optional.of({self.value!r})" if self.present else "optional.none()"


NONE = OptionalValue(present=False)


def of(value: Any) -> OptionalValue:
    return OptionalValue(value)
