"""Constant duration and timestamp arguments, judged when the selector is compiled, as Kubernetes judges them.

The base environment's AST validators (cel-go `ValidateDurationLiterals`, `ValidateTimestampLiterals`,
cel/validator.go) evaluate every `duration(<literal>)` and `timestamp(<literal>)` call after a clean type check
and report `invalid duration argument` / `invalid timestamp argument` at the literal: a selector with
`duration("1d")` or `timestamp("2024-01-01")` is refused when it is created, not when a device is evaluated.
The conversions are the ones the run time uses (celext.gotime).
"""

from __future__ import annotations

from celext.check.ast import Call, Literal
from celext.gotime import parse_go_duration, parse_rfc3339, unix_in_range

FUNCTIONS = frozenset({"duration", "timestamp"})


def _valid(function: str, literal: Literal) -> bool:
    """Does the conversion of this constant succeed? (after type-checking: a string or an int)"""
    if literal.kind == "string":
        if function == "duration":
            return parse_go_duration(str(literal.value)) is not None
        parsed = parse_rfc3339(str(literal.value))
        return parsed is not None and unix_in_range(parsed[0])
    if literal.kind == "int":  # duration(int) always fails (celext.lib.operators.to_duration)
        return function == "timestamp" and unix_in_range(int(literal.value))
    return True


def refused(calls: list[Call]) -> list[tuple[Literal, str]]:
    """The constant arguments the validators refuse, each with its message (reported at the literal's offset)."""
    found = []
    for call in calls:
        argument = call.args[0] if call.target is None and len(call.args) == 1 else None
        if isinstance(argument, Literal) and not _valid(call.function, argument):
            found.append((argument, f"invalid {call.function} argument"))
    return found
