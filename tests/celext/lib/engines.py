"""`outcome()` on a named engine: the library edge tests run on both, since the compiled engine inlines some
library functions (includes, sum, comparisons) that only the reference engine calls."""

from __future__ import annotations

from typing import Any

import celext
from tests.celext.outcome import DEVICE, DRIVER

ENGINES = ("compiled", "reference")


def outcome_on(engine: str, expression: str, device: dict[str, Any] | None = None) -> bool | str:
    """True/False, or "compile: <message>" / "eval: <message>", as `tests.celext.outcome.outcome` says."""
    try:
        selector = celext.compile(expression, engine=engine)
    except celext.CompileError as err:
        return f"compile: {err.message}"
    try:
        return selector.matches(DEVICE if device is None else device, DRIVER)
    except celext.EvaluationError as err:
        return f"eval: {err.message}"
