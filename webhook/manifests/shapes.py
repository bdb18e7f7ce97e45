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
    "ResourceSlice": ((("spec",), dict), (("spec", "devices"), list)),
    "ResourceClaim": ((("spec",), dict), (("spec", "devices"), dict), (("spec", "devices", "requests"), list),
                      (("spec", "devices", "constraints"), list)),
    "ResourceClaimTemplate": ((("spec",), dict), (("spec", "spec"), dict), (("spec", "spec", "devices"), dict),
                              (("spec", "spec", "devices", "requests"), list),
                              (("spec", "spec", "devices", "constraints"), list)),
    "DeviceClass": ((("spec",), dict), (("spec", "selectors"), list)),
}


def check_shape(located: Locator) -> None:
    """Raise DraguardError naming the first field of the wrong shape (a mapping where a list belongs, ...)."""
    kind = kind_of(located.obj)
    for path, shape in SHAPES.get(kind, ()):
        value: Any = located.obj
        for step in path:
            value = value.get(step) if isinstance(value, dict) else None
        if value is None or isinstance(value, shape):
            continue
        position = located.position(FieldPath.root(*path))
        where = str(position) if position is not None else located.source
        wanted = "a list" if shape is list else "a mapping"
        raise DraguardError(f"{where}: {kind} {name_of(located.obj) or '<unnamed>'}: {'.'.join(path)} must be "
                            f"{wanted}, not {json_type(value)}")


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
