"""Files, directories, globs and stdin -> Kubernetes objects with their places in the source text.

The one reader every command uses (validate, lint and its --slices inventory, eval, explain, topology):

    objects, problems = read(["slices/", "-"], kinds=frozenset({"ResourceSlice"}))
    objects[0].obj                 # plain values: dict, list, str, int, float, bool, None
    objects[0].position(path)      # file:line:column of a field (a `Locator`)

Modules: `sources` (paths -> texts), `reader` (texts -> objects, choosing a backend), the backends
`jsontext`, `libyaml` and `roundtrip` (ruamel, the reference), `objects` (the `Locator` protocol and
`kind: List` expansion), `shapes` (strict reading for eval/explain), `problems` (`Problem`).
"""

from typing import TYPE_CHECKING, Any

from webhook.manifests.objects import Locator, expand, value_at
from webhook.manifests.problems import Problem
from webhook.manifests.reader import load_paths, parse, read, read_values
from webhook.manifests.sources import STDIN, SUFFIXES, ignored, read_sources

if TYPE_CHECKING:
    from webhook.manifests.roundtrip import Loaded, Manifest, load_text, plain
_ROUNDTRIP = frozenset({"Loaded", "Manifest", "load_text", "plain"})

__all__ = [
    "STDIN", "SUFFIXES", "Loaded", "Locator", "Manifest", "Problem", "expand", "ignored", "load_paths", "load_text",
    "parse", "plain", "read", "read_sources", "read_values", "value_at",
]


def __getattr__(name: str) -> Any:
    """The ruamel backend's names, imported on first use: most runs never fall back to it (its module and
    dataclasses are part of every command's start-up otherwise)."""
    if name in _ROUNDTRIP:
        from webhook.manifests import roundtrip

        return getattr(roundtrip, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
