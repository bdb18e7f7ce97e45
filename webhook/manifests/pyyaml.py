"""PyYAML, imported without compiling the regular expressions draguard's C composer never runs.

`import yaml` executes PyYAML's pure-Python reader, resolver and constructor, whose class bodies compile a dozen
regular expressions: the reader's check for non-printable characters spans all of Unicode and alone costs
~57 million instructions (~15-20 ms), a tenth of a corpus `lint`'s start-up. `webhook.manifests.libyaml` only
uses libyaml's C composer with its own YAML 1.2 resolution, so none of them runs there. Here each regular
expression those three modules compile while PyYAML is imported is compiled on its first use instead, with the
same pattern and flags, so `yaml.safe_load` and the pure-Python loaders behave exactly as before.
"""

from __future__ import annotations

import builtins
import importlib
import re
import sys
import types
from typing import Any

_DEFERRED = frozenset({"yaml.reader", "yaml.resolver", "yaml.constructor"})  # the modules that compile at import


class LazyPattern:
    """`re.compile(pattern, flags)`, compiled on the first attribute asked for (`search`, `match`, ...)."""

    __slots__ = ("_args", "_compiled")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._args = (pattern, flags)
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(*self._args)
        return getattr(compiled, name)


# `re` as those modules see it: every name of `re`, with `compile` deferred.
_LAZY_RE = types.ModuleType(re.__name__, re.__doc__)
_LAZY_RE.__dict__.update({k: v for k, v in vars(re).items() if not k.startswith("__")})
_LAZY_RE.compile = LazyPattern  # type: ignore[attr-defined]


def load() -> Any:
    """The `yaml` module (imported with its pure-Python modules' regular expressions deferred, unless some
    other code imported it first)."""
    if "yaml" in sys.modules:
        return sys.modules["yaml"]
    real = builtins.__import__

    def importing(name: str, globals: dict[str, Any] | None = None, *args: Any, **kwargs: Any) -> Any:
        if name == "re" and globals is not None and globals.get("__name__") in _DEFERRED:
            return _LAZY_RE
        return real(name, globals, *args, **kwargs)

    builtins.__import__ = importing  # type: ignore[assignment]
    try:
        return importlib.import_module("yaml")
    finally:
        builtins.__import__ = real
