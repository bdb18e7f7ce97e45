"""Strict reading for commands that walk objects rather than judge them (eval, explain, topology --check).

The fields those commands walk must have the shape the API server would insist on when present; a wrong
one is a one-line usage error naming file, line and column (exit 2), not a crash or a guess. So is any
input problem: such commands have nothing sound to say about half an input.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

from webhook.errors import DraguardError
from webhook.fieldpath import FieldPath
from webhook.manifests.objects import Locator
from webhook.manifests.reader import read
from webhook.wire import Obj, kind_of, name_of

# The fields eval and explain walk, and the shape each must have when present.
SHAPES: Mapping[str, tuple[tuple[tuple[str, ...], type], ...]] = {
    "ResourceSlice": ((("spec",), dict), (("spec", "driver"), str), (("spec", "nodeName"), str),
                      (("spec", "pool"), dict), (("spec", "pool", "name"), str), (("spec", "devices"), list)),
    "ResourceClaim": ((("spec",), dict), (("spec", "devices"), dict), (("spec", "devices", "requests"), list),
                      (("spec", "devices", "constraints"), list)),
    "ResourceClaimTemplate": ((("spec",), dict), (("spec", "spec"), dict), (("spec", "spec", "devices"), dict),
                              (("spec", "spec", "devices", "requests"), list),
                              (("spec", "spec", "devices", "constraints"), list)),
    "DeviceClass": ((("spec",), dict), (("spec", "selectors"), list)),
}


# Lists whose items those commands name in their output: each item a mapping with a non-empty string `name`
# (the API server requires one; a device without it would be listed blank).
NAMED_ITEMS: Mapping[str, tuple[tuple[str, ...], ...]] = {"ResourceSlice": (("spec", "devices"),)}


def check_shape(located: Locator) -> None:
    """Raise DraguardError naming the first field of the wrong shape (a mapping where a list belongs, ...)."""
    kind = kind_of(located.obj)
    for path, shape in SHAPES.get(kind, ()):
        value = _at(located.obj, path)
        if value is not None and not isinstance(value, shape):
            _refuse(located, FieldPath.root(*path), f"must be {_A[shape]}, not {json_type(value)}")
    for path in NAMED_ITEMS.get(kind, ()):
        for index, item in enumerate(_at(located.obj, path) or ()):
            at = FieldPath.root(*path).index(index)
            if not isinstance(item, dict):
                _refuse(located, at, f"must be a mapping, not {json_type(item)}")
            name = item.get("name")
            if not isinstance(name, str) or not name:
                _refuse(located, at.child("name"), "is required (a string)" if name in (None, "") else
                        f"must be a string, not {json_type(name)}")


_A: dict[type, str] = {list: "a list", dict: "a mapping", str: "a string"}


def _at(obj: Any, path: tuple[str, ...]) -> Any:
    for step in path:
        obj = obj.get(step) if isinstance(obj, dict) else None
    return obj


def _refuse(located: Locator, path: FieldPath, problem: str) -> None:
    position = located.position(path)
    where = str(position) if position is not None else located.source
    raise DraguardError(f"{where}: {kind_of(located.obj)} {name_of(located.obj) or '<unnamed>'}: {path} {problem}")


def json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    names: dict[type, str] = {str: "a string", list: "a list", dict: "a mapping"}
    return names.get(type(value), type(value).__name__)


def read_strict(paths: Sequence[str], kinds: frozenset[str], *, stdin_text: str | None = None) -> list[Obj]:
    """Objects of `kinds`, values first (JSON and libyaml backends); any input problem or malformed object is
    a DraguardError (exit 2). `stdin_text`: what '-' reads, when the caller read stdin once for several
    option values."""
    objects, problems = read(paths, kinds=kinds, positions=False,
                             stdin=None if stdin_text is None else io.StringIO(stdin_text))
    if problems:
        more = len(problems) - 1
        raise DraguardError(str(problems[0]) + (f" (and {more} more problems)" if more else ""))
    for located in objects:
        check_shape(located)
    return [located.obj for located in objects]
