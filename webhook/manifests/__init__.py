"""Files, directories, globs and stdin -> Kubernetes objects with their places in the source text.

The one reader every command uses (validate, lint and its --slices inventory, eval, explain, topology):

    objects, problems = read(["slices/", "-"], kinds=frozenset({"ResourceSlice"}))
    objects[0].obj                 # plain values: dict, list, str, int, float, bool, None
    objects[0].position(path)      # file:line:column of a field (a `Locator`)

Modules: `sources` (paths -> texts), `reader` (texts -> objects, choosing a backend), the backends
`jsontext`, `libyaml` and `roundtrip` (ruamel, the reference), `objects` (the `Locator` protocol and
`kind: List` expansion), `shapes` (strict reading for eval/explain), `problems` (`Problem`).
"""

from webhook.manifests.objects import Locator, expand, value_at
from webhook.manifests.problems import Problem
from webhook.manifests.reader import load_paths, parse, read, read_values
from webhook.manifests.roundtrip import Loaded, Manifest, load_text, plain
from webhook.manifests.sources import STDIN, SUFFIXES, ignored, read_sources

__all__ = [
    "STDIN", "SUFFIXES", "Loaded", "Locator", "Manifest", "Problem", "expand", "ignored", "load_paths", "load_text",
    "parse", "plain", "read", "read_sources", "read_values", "value_at",
]
