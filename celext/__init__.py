"""celext: the Kubernetes DRA CEL environment on cel-python.

Public surface (see docs/celext.md): `compile(expression, engine="compiled") -> Selector`,
`Selector.matches(device, driver=...)`, `to_device(device, driver)`, `parse(expression) -> Tree` (celext's own parse
tree nodes, celext.syntax.nodes), and the errors `CELError`, `CompileError` (`UnsupportedError`: a construct
Kubernetes has and celext does not), `EvaluationError`.

    >>> import celext
    >>> selector = celext.compile('device.attributes["resource.kubernetes.io"].numaNode.includes(4)')
    >>> selector.matches({"name": "gpu-0", "attributes": {"resource.kubernetes.io/numaNode": {"ints": [6, 4]}}},
    ...                  driver="gpu.example.com")
    True
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
import threading
import types
from typing import TYPE_CHECKING, Any

from celext.errors import CELError, CompileError, EvaluationError, UnsupportedError

if TYPE_CHECKING:
    from celext.analysis import analyze
    from celext.compile import parse
    from celext.plan.cache import ByteBudgetCache
    from celext.reference.values import Device, to_device
    from celext.selector import Selector

__all__ = ["CELError", "CompileError", "Device", "EvaluationError", "Selector", "UnsupportedError", "analyze",
           "clear_caches", "compile", "parse", "to_device"]

# The engines, cel-python, lark and pendulum are imported on first use (module __getattr__ below), so a reader of
# `celext.vocabulary` or `celext.errors` (the webhook's rules, the CLI's start-up) does not pay for them.
_LAZY = {"analyze": "celext.analysis", "parse": "celext.compile", "Device": "celext.reference.values",
         "to_device": "celext.reference.values", "Selector": "celext.selector"}

# The engine `compile()` uses when none is named; DRAGUARD_CEL_ENGINE=reference switches every caller back to
# the tree-walking evaluator (a fallback, and the "before" of the benchmarks).
DEFAULT_ENGINE = os.environ.get("DRAGUARD_CEL_ENGINE", "compiled")
CACHE_BYTES = 64 * 1024 * 1024  # compiled selectors kept, by their approximate size
_STATE_LOCK = threading.Lock()


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    elif name in ("_CACHE", "_prepare"):
        _state()
        return globals()[name]
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def _state() -> tuple[ByteBudgetCache[tuple[str, str], Selector | CompileError], Any]:
    """The compile cache and the front end's cache, built on the first compile."""
    cache, front = globals().get("_CACHE"), globals().get("_prepare")
    if cache is not None and front is not None:
        return cache, front
    from celext.compile import prepare
    from celext.plan.cache import ByteBudgetCache
    from celext.selector import Selector

    with _STATE_LOCK:
        if "_CACHE" not in globals():
            # Refusals are cached too: a bad selector in a policy is compiled again for every object it is checked on.
            globals()["_CACHE"] = ByteBudgetCache(
                CACHE_BYTES, lambda s: s.size if isinstance(s, Selector) else 4 * len(s.message) + 256)
            # both engines of one expression share the front end
            globals()["_prepare"] = functools.lru_cache(maxsize=64)(prepare)
        return globals()["_CACHE"], globals()["_prepare"]


def _build(key: tuple[str, str]) -> Selector | CompileError:
    from celext.compile import gc_paused
    from celext.selector import Selector

    expression, engine = key
    try:
        return gc_paused(lambda: Selector(_state()[1](expression), engine=engine))
    except CompileError as err:
        return err


def _fresh(cached: CompileError) -> CompileError:
    """A new exception equal to a cached refusal (same class and fields; raising the cached instance itself would
    chain tracebacks across callers and threads)."""
    error = CompileError.__new__(type(cached))
    error.__dict__.update(cached.__dict__)
    error.args = cached.args
    return error


def compile(expression: str, engine: str | None = None) -> Selector:
    """Compile a DRA device selector (cached by text and engine, thread-safe). Raises CompileError.

    engine: "compiled" (generated Python) or "reference" (the tree-walking evaluator); DEFAULT_ENGINE if None."""
    from celext.selector import ENGINES

    if not isinstance(expression, str):
        raise CompileError(f"the expression must be a string, not {type(expression).__name__}")
    engine = engine or DEFAULT_ENGINE
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r} (one of: {', '.join(ENGINES)})")
    found = _state()[0].get((expression, engine), _build)
    if isinstance(found, CompileError):
        raise _fresh(found)
    return found


def clear_caches() -> None:
    """Empty every cache celext keeps by expression text or value (compiled selectors, parse trees, regexes,
    decoded values): for a long-running server whose selectors keep changing. Thread-safe; compiles again on use."""
    from celext.check.checker import RESOLVED
    from celext.runtime import verdict

    _state()[0].clear()
    RESOLVED.clear()
    verdict.forget()
    for name, module in list(sys.modules.items()):
        if name != "celext" and not name.startswith("celext."):
            continue
        for value in list(vars(module).values()):
            # only functools caches: a plain getattr() on arbitrary module objects may run their __getattr__
            if isinstance(value, functools._lru_cache_wrapper):
                value.cache_clear()


class _Package(types.ModuleType):
    """Importing the submodule `celext.compile` binds it on the package under its name; the package's `compile()`
    keeps that name (the eager package got the same by defining `compile` after importing the submodule)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "compile" and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
