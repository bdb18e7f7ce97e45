"""Constant regex patterns, judged when the selector is compiled, as Kubernetes judges them.

- `matches`: the base environment's AST validator (cel-go `ValidateRegexLiterals`) compiles a literal first
  argument of every `matches` call after type-checking (the pattern of `s.matches(re)`; of `matches(a, b)`, `a`,
  as cel-go's validator reads its argument list) and reports `invalid matches argument` at that literal.
- `find` / `findAll`: the Kubernetes regex library's program options (`cel.OptimizeRegex`) compile a constant
  pattern when the program is built, so the DRA compiler fails with `program instantiation failed: error parsing
  regexp: ...`, without a position; so does `matches(s, re)` (the base environment's OptOptimize adds cel-go's
  MatchesRegexOptimization; the validator above reads `s` there, not `re`).

Patterns are compiled by RE2 as Go's regexp compiles them (celext.regexes.go_error, in Go's words).
"""

from __future__ import annotations

from celext.check.ast import Call, Expr, Literal
from celext.regexes import go_error

VALIDATED = "matches"  # cel-go overloads.Matches: the validator's function
INSTANTIATED = frozenset({"find", "findAll"})  # the regex library's RegexOptimizations
FUNCTIONS = frozenset({VALIDATED, *INSTANTIATED})
INVALID_MATCHES = "invalid matches argument"
PROGRAM_FAILED = "program instantiation failed: "  # the DRA compiler's words for an error building the program

def _string(node: Expr | None) -> Literal | None:
    return node if isinstance(node, Literal) and node.kind == "string" else None


def validated_pattern(call: Call) -> Literal | None:
    """The literal cel-go's `matches` validator compiles: the call's first argument (not the receiver)."""
    return _string(call.args[0]) if call.function == VALIDATED and call.args else None


def instantiated_pattern(call: Call) -> Literal | None:
    """The constant pattern a RegexOptimization compiles when the program is built: the second operand of the
    interpretable call (receiver first), i.e. `re` in `s.find(re)`, `s.matches(re)` and `matches(s, re)`."""
    operands = call.args if call.target is None else [call.target, *call.args]
    return _string(operands[1]) if len(operands) > 1 else None


def refused_matches(calls: list[Call]) -> list[Literal]:
    """The `matches` literals the validator refuses: each is reported as INVALID_MATCHES at its offset."""
    return [p for c in calls if (p := validated_pattern(c)) and go_error(str(p.value))]


def instantiation_error(calls: list[Call]) -> str | None:
    """The DRA compiler's error for the first constant pattern that does not compile when the program is built
    (`find`, `findAll`, and `matches` under the base environment's OptOptimize)."""
    for call in calls:
        pattern = instantiated_pattern(call)
        error = go_error(str(pattern.value)) if pattern is not None else None
        if error is not None:
            return PROGRAM_FAILED + error
    return None
