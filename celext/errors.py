"""celext's error types. Messages carry the upstream (cel-go / Kubernetes) wording where one exists."""

from __future__ import annotations


class CELError(Exception):
    """Base of every error celext raises; nothing else escapes the public API."""


class CompileError(CELError):
    """The expression cannot be compiled (syntax, undeclared reference, unsupported construct, type, length).

    `line` and `column` are 1-based positions inside the expression text, or None when unknown.
    """

    def __init__(self, message: str, *, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column

    def __str__(self) -> str:
        if self.line is None:
            return self.message
        return f"{self.message} (line {self.line}, column {self.column})"


class UnsupportedError(CompileError):
    """A construct Kubernetes accepts that celext does not evaluate (draguard's own refusal, docs/celext.md): the
    Kubernetes format library, and bindings nested past the reference engine's expansion limit. The
    selector is not checked; the API server may well accept it."""


class CostLimitError(CompileError):
    """The estimated worst-case cost exceeds the limit: the API server refuses the selector when it is created.

    `message` is the API server's text; `cost` is the estimate (min, max) in cel-go's cost units.
    """

    def __init__(self, message: str, *, cost: tuple[int, int]) -> None:
        super().__init__(message)
        self.cost = cost


class EvaluationError(CELError):
    """Evaluating a compiled selector on one device failed (Kubernetes aborts allocation in this case)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
