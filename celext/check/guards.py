"""What an expression's top-level conjuncts decide before any other part runs: `device.driver == "<name>"` (or
`"<name>" == device.driver`) as one of the operands of its outermost `&&` chain.

On a device of another driver such a conjunct is false, and CEL's `&&` is false when any operand is false, errors in
the other operands included (cel-go's commutative logic): the whole selector is false there, whatever else it reads.
The selector rules use this to skip evaluating a selector on devices it cannot select (a device whose conversion
fails is another matter: that error comes before the selector runs).
"""

from __future__ import annotations

from celext.check.ast import Call, Expr, Ident, Literal, Select


def required_driver(expr: Expr) -> str | None:
    """The driver a top-level conjunct requires, None when there is none (the first one, if several)."""
    if isinstance(expr, Call) and expr.target is None and len(expr.args) == 2:
        if expr.function == "_&&_":
            return required_driver(expr.args[0]) or required_driver(expr.args[1])
        if expr.function == "_==_":
            left, right = expr.args
            for read, literal in ((left, right), (right, left)):
                if _is_driver(read) and isinstance(literal, Literal) and literal.kind == "string":
                    return str(literal.value)
    return None


def _is_driver(expr: Expr) -> bool:
    return (isinstance(expr, Select) and not expr.test_only and expr.field == "driver"
            and isinstance(expr.operand, Ident) and expr.operand.name == "device")
