"""celext: the Kubernetes DRA CEL environment on cel-python.

Public surface (see docs/celext.md): `compile(expression) -> Selector`, `Selector.matches(device, driver=...)`,
`to_device(device, driver)`, `parse(expression) -> lark.Tree`, and the errors `CELError`, `CompileError`,
`EvaluationError`.

    >>> import celext
    >>> selector = celext.compile('device.attributes["resource.kubernetes.io"].numaNode.includes(4)')
    >>> selector.matches({"name": "gpu-0", "attributes": {"resource.kubernetes.io/numaNode": {"ints": [6, 4]}}},
    ...                  driver="gpu.example.com")
    True
"""

from __future__ import annotations

import functools
import threading

from celext.compile import parse, prepare
from celext.errors import CELError, CompileError, EvaluationError
from celext.selector import Selector
from celext.values import Device, to_device

__all__ = ["CELError", "CompileError", "Device", "EvaluationError", "Selector", "compile", "parse", "to_device"]

_LOCK = threading.Lock()


@functools.lru_cache(maxsize=1024)
def _compile(expression: str) -> Selector:
    return Selector(prepare(expression))


def compile(expression: str) -> Selector:
    """Compile a DRA device selector (cached by text, thread-safe). Raises CompileError."""
    if not isinstance(expression, str):
        raise CompileError(f"the expression must be a string, not {type(expression).__name__}")
    with _LOCK:
        return _compile(expression)
