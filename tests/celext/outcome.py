"""Shared by the celext tests: evaluate one expression on one device and say what a user sees."""

from __future__ import annotations

import re
from typing import Any

import celext

DRIVER = "gpu.example.com"

DEVICE: dict[str, Any] = {
    "name": "gpu-0",
    "attributes": {
        "resource.kubernetes.io/numaNode": {"int": 4},
        "model": {"string": "A100-80GB"},
        "driverVersion": {"version": "1.3.0+abc"},
        "healthy": {"bool": True},
        "long": {"ints": list(range(59))},
        "numas": {"ints": [6, 4, 5, 7]},
    },
    "capacity": {"memory": {"value": "40Gi"}},
}


def outcome(expression: str, device: dict[str, Any] | None = None, driver: str = DRIVER, *,
            engine: str = "compiled") -> bool | str:
    """True/False, or "compile: <message>" / "eval: <message>"."""
    try:
        selector = celext.compile(expression, engine=engine)
    except celext.CompileError as err:
        return f"compile: {err.message}"
    try:
        return selector.matches(DEVICE if device is None else device, driver)
    except celext.EvaluationError as err:
        return f"eval: {err.message}"


def evaluated(expression: str, device: Any, driver: str = DRIVER, *, engine: str = "compiled") -> Any:
    """What `evaluate()` answers, or "eval: <message>" (compile errors raise: the expression is meant to compile)."""
    try:
        return celext.compile(expression, engine=engine).evaluate(device, driver)
    except celext.EvaluationError as err:
        return f"eval: {err.message}"


def assert_source(expression: str, present: list[str], absent: list[str]) -> None:
    """The compiled engine's generated source for `expression` matches every `present` pattern and no `absent` one."""
    source = celext.compile(expression).source
    assert source is not None
    for pattern in present:
        assert re.search(pattern, source), (pattern, source)
    for pattern in absent:
        assert not re.search(pattern, source), (pattern, source)


def refusal(expression: str, *, engine: str = "compiled") -> tuple[str, int | None, int | None]:
    """The CompileError a user sees for an expression meant to be refused: (message, line, column)."""
    try:
        celext.compile(expression, engine=engine)
    except celext.CompileError as err:
        return err.message, err.line, err.column
    raise AssertionError(f"{expression!r} compiled")
