"""`outcome()` on a named engine: the library edge tests run on both, since the compiled engine inlines some
library functions (includes, sum, comparisons) that only the reference engine calls."""

from __future__ import annotations

from typing import Any

from tests.celext.outcome import outcome

ENGINES = ("compiled", "reference")


def outcome_on(engine: str, expression: str, device: dict[str, Any] | None = None) -> bool | str:
    """True/False, or "compile: <message>" / "eval: <message>", as `tests.celext.outcome.outcome` says."""
    return outcome(expression, device, engine=engine)


def folded(error: str) -> str:
    """What a user sees for a conversion of a constant that fails (`int("x")`): cel-go's planner evaluates it when
    the program is built (OptOptimize), so the DRA compiler refuses the selector with the run time's error."""
    return "compile: program instantiation failed: " + error.removeprefix("eval: ")
