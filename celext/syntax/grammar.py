"""`parse()`: the CEL parse tree (celext.syntax.parser, cel-python's tree shape at cel-go's limits), cached, with syntax
errors as CompileError with line/column and a hint naming constructs celext cannot parse (optional list elements
and map entries, quoted field names, unrendered `{{ }}` templates).

The Lark LALR parser celext used before is `celext.syntax.lalr.lark_parse` (tests and benchmarks only)."""

from __future__ import annotations

import functools

from celext.errors import CompileError
from celext.syntax import headroom, parser
from celext.syntax.nodes import Token, Tree

MAX_LENGTH = 10 * 1024  # CELSelectorExpressionMaxLength


def _syntax_hint(expression: str) -> str:
    if "`" in expression:
        return "; quoted field names (`a.`b-c``) are not supported by celext"
    if "{{" in expression:
        return "; the expression looks like an unrendered template ('{{ }}')"
    return ""


@functools.lru_cache(maxsize=2048)
def parse(expression: str) -> Tree[Token]:
    """The parse tree (shared and cached: never mutate it). Raises CompileError, never anything else."""
    return _parse(expression, lean=False).tree


@functools.lru_cache(maxsize=64)
def parse_lean(expression: str) -> parser.Parsed:
    """The parse tree in the collapsed shape the compile stages walk (`parser.parse_sized(lean=True)`), a bound
    on its height and whether a refusal may apply; shared and cached: never mutate it. Raises CompileError,
    never anything else."""
    return _parse(expression, lean=True)


def _parse(expression: str, *, lean: bool) -> parser.Parsed:
    if len(expression) > MAX_LENGTH:
        raise CompileError(f"Too long: may not be more than {MAX_LENGTH} bytes")
    if not expression.strip():
        raise CompileError("Syntax error: the expression is empty", line=1, column=1)
    try:
        tokens = parser.lex(expression)
        # (a text nested deeper than a walk of the default recursion limit reaches: headroom from the start)
        run = headroom.deep if parser.nesting(tokens) > parser.DEEP_NESTING else headroom.call
        return run(parser.parse_tokens, expression, tokens, lean)
    except CompileError as err:
        if err.message.startswith("Syntax error:"):
            raise CompileError(err.message + _syntax_hint(expression), line=err.line, column=err.column) from None
        raise
    except RecursionError:
        raise CompileError(parser.RECURSION_LIMIT_EXCEEDED) from None
    except Exception as err:  # a parser bug must not escape as anything but CompileError
        raise CompileError(f"Syntax error: {type(err).__name__}: {err}".splitlines()[0]) from None
