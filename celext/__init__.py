"""celext: the Kubernetes DRA CEL environment on cel-python.

Public surface (see docs/celext.md): `compile(expression, engine="compiled") -> Selector`,
`Selector.matches(device, driver=...)`, `to_device(device, driver)`, `parse(expression) -> lark.Tree`, and the
errors `CELError`, `CompileError`, `EvaluationError`.

    >>> import celext
    >>> selector = celext.compile('device.attributes["resource.kubernetes.io"].numaNode.includes(4)')
    >>> selector.matches({"name": "gpu-0", "attributes": {"resource.kubernetes.io/numaNode": {"ints": [6, 4]}}},
    ...                  driver="gpu.example.com")
    True
"""

from __future__ import annotations

from celext.compile import parse, prepare
from celext.errors import CELError, CompileError, EvaluationError
from celext.plan.cache import ByteBudgetCache
from celext.selector import ENGINES, Selector
from celext.values import Device, to_device

__all__ = ["CELError", "CompileError", "Device", "EvaluationError", "Selector", "compile", "parse", "to_device"]

CACHE_BYTES = 64 * 1024 * 1024  # compiled selectors kept, by their approximate size
_CACHE: ByteBudgetCache[tuple[str, str], Selector] = ByteBudgetCache(CACHE_BYTES, lambda s: s.size)


def _build(key: tuple[str, str]) -> Selector:
    expression, engine = key
    return Selector(prepare(expression), engine=engine)


def compile(expression: str, engine: str = "compiled") -> Selector:
    """Compile a DRA device selector (cached by text and engine, thread-safe). Raises CompileError.

    engine: "compiled" (generated Python, the default) or "reference" (the tree-walking evaluator)."""
    if not isinstance(expression, str):
        raise CompileError(f"the expression must be a string, not {type(expression).__name__}")
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r} (one of: {', '.join(ENGINES)})")
    return _CACHE.get((expression, engine), _build)
