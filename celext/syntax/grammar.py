"""`parse()`: the CEL parse tree (celext.syntax.parser, cel-python's tree shape at cel-go's limits), cached, with syntax
errors as CompileError with line/column and a hint naming constructs celext cannot parse (optional list elements
and map entries, quoted field names, unrendered `{{ }}` templates).

`lark_parse()` keeps the Lark LALR parser celext used before (cel-python's grammar plus optional selection
`a.?b`, `a[?k]`) as the reference the tests compare trees with and the benchmark times."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import lark
from lark import Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedToken

from celext.errors import CompileError
from celext.syntax import headroom, parser

MAX_LENGTH = 10 * 1024  # CELSelectorExpressionMaxLength
_PARSERS: list[lark.Lark] = []  # built on first use (the Lark grammar takes ~0.1 s)

# cel-python's grammar plus CEL's optional selection `a.?b` and `a[?k]` (cel-go's OptionalTypes syntax).
_MEMBER_RULE = "member         : member_dot | member_dot_arg | member_index | member_object | primary\n"
_OPTIONAL_RULES = ("member         : member_dot | member_dot_arg | member_index | member_object | member_dot_opt\n"
                   "               | member_index_opt | primary\n"
                   'member_dot_opt : member "." "?" IDENT\n'
                   'member_index_opt : member "[" "?" expr "]"\n')


def _parser() -> lark.Lark:
    if not _PARSERS:
        import celpy  # (cel-python: loaded only for this reference parser)
        from celpy.celparser import CELParser

        grammar = (Path(celpy.__file__).parent / "cel.lark").read_text()
        if _MEMBER_RULE not in grammar:  # a cel-python upgrade changed the grammar: fail loudly, not oddly
            raise RuntimeError("celext: cel-python's grammar no longer has the member rule celext extends")
        # The options cel-python's own CELParser uses, on the extended grammar.
        _PARSERS.append(lark.Lark(grammar.replace(_MEMBER_RULE, _OPTIONAL_RULES), parser="lalr", start="expr",
                                  g_regex_flags=re.M, lexer_callbacks={"IDENT": CELParser.ambiguous_literals},
                                  propagate_positions=True, maybe_placeholders=False, priority="invert",
                                  tree_class=lark.Tree))
    return _PARSERS[0]


def lark_parse(expression: str) -> Tree[Token]:
    """The parser celext used before `celext.syntax.parser`: cel-python's Lark LALR grammar with optional selection.
    Kept as the reference the hand-written parser is compared with (tests) and timed against (bench).
    Syntax errors as cel-python's CELParser reports them (CELParseError)."""
    from celpy.celparser import CELParseError

    try:
        return _parser().parse(expression)
    except (UnexpectedToken, UnexpectedCharacters) as err:
        raise CELParseError(err.get_context(expression), line=err.line, column=err.column) from err


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
