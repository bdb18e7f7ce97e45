"""Kubernetes field paths, rendered the way apimachinery's `field.Path` renders them.

    FieldPath.root("spec").child("devices").index(3).child("attributes").key("resource.kubernetes.io/numaNode")
    -> spec.devices[3].attributes[resource.kubernetes.io/numaNode]
"""

from __future__ import annotations

from collections.abc import Iterator

from msgspec import Struct

Segment = str | int  # a str is a field name or a map key (see `_keys`), an int a list index


class FieldPath(Struct, frozen=True):
    """An immutable path; every step returns a new path so rules can share prefixes freely."""

    segments: tuple[Segment, ...] = ()
    # Positions in `segments` that are map keys (rendered `[key]`) rather than field names (`.name`).
    _keys: frozenset[int] = frozenset()

    @classmethod
    def root(cls, *names: str) -> FieldPath:
        path = cls()
        for name in names:
            path = path.child(name)
        return path

    def child(self, name: str) -> FieldPath:
        return FieldPath((*self.segments, name), self._keys)

    def index(self, i: int) -> FieldPath:
        return FieldPath((*self.segments, i), self._keys)

    def key(self, key: str) -> FieldPath:
        return FieldPath((*self.segments, key), self._keys | {len(self.segments)})

    def join(self, other: FieldPath) -> FieldPath:
        """`other` appended below this path (used to place an item of a `kind: List`)."""
        offset = len(self.segments)
        return FieldPath(
            (*self.segments, *other.segments), self._keys | {i + offset for i in other._keys}
        )

    def steps(self) -> Iterator[tuple[Segment, bool]]:
        """Each segment with whether it is a map key; what a position lookup walks."""
        for i, segment in enumerate(self.segments):
            yield segment, i in self._keys

    def __str__(self) -> str:
        out: list[str] = []
        for i, segment in enumerate(self.segments):
            if isinstance(segment, int) or i in self._keys:
                out.append(f"[{segment}]")
            else:
                out.append(f".{segment}" if out else segment)
        return "".join(out) or "<root>"

    def __repr__(self) -> str:
        return f"FieldPath({str(self)!r})"
