"""The CEL parser: cel-python's Lark grammar plus optional selection (`a.?b`, `a[?k]`), cached parses, and
syntax errors as CompileError with line/column and a hint naming constructs celext cannot parse (optional list
elements and map entries, quoted field names, unrendered `{{ }}` templates)."""

from __future__ import annotations

import functools
import re
import threading
from pathlib import Path

import celpy
import lark
from celpy.celparser import CELParseError, CELParser
from lark import Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedToken

from celext.errors import CompileError

MAX_LENGTH = 10 * 1024  # CELSelectorExpressionMaxLength
_PARSER_LOCK = threading.Lock()
_PARSERS: list[lark.Lark] = []  # built on first use (the Lark grammar takes ~0.1 s)

# cel-python's grammar plus CEL's optional selection `a.?b` and `a[?k]` (cel-go's OptionalTypes syntax).
_MEMBER_RULE = "member         : member_dot | member_dot_arg | member_index | member_object | primary\n"
_OPTIONAL_RULES = ("member         : member_dot | member_dot_arg | member_index | member_object | member_dot_opt\n"
                   "               | member_index_opt | primary\n"
                   'member_dot_opt : member "." "?" IDENT\n'
                   'member_index_opt : member "[" "?" expr "]"\n')


def _parser() -> lark.Lark:
    if not _PARSERS:
        grammar = (Path(celpy.__file__).parent / "cel.lark").read_text()
        if _MEMBER_RULE not in grammar:  # a cel-python upgrade changed the grammar: fail loudly, not oddly
            raise RuntimeError("celext: cel-python's grammar no longer has the member rule celext extends")
        # The options cel-python's own CELParser uses, on the extended grammar.
        _PARSERS.append(lark.Lark(grammar.replace(_MEMBER_RULE, _OPTIONAL_RULES), parser="lalr", start="expr",
                                  g_regex_flags=re.M, lexer_callbacks={"IDENT": CELParser.ambiguous_literals},
                                  propagate_positions=True, maybe_placeholders=False, priority="invert",
                                  tree_class=lark.Tree))
    return _PARSERS[0]


def _lark_parse(expression: str) -> Tree[Token]:
    """Parse; syntax errors as cel-python's CELParser reports them (CELParseError from the lark error)."""
    try:
        return _parser().parse(expression)
    except (UnexpectedToken, UnexpectedCharacters) as err:
        raise CELParseError(err.get_context(expression), line=err.line, column=err.column) from err


def _syntax_hint(expression: str) -> str:
    if "{?" in expression or "[?" in expression:
        return ("; optional list elements and map entries ('[?x]', '{?k: v}') are not supported by celext "
                "(optional selection 'a.?b' and 'a[?k]' is)")
    if "`" in expression:
        return "; quoted field names (`a.`b-c``) are not supported by celext"
    if "{{" in expression:
        return "; the expression looks like an unrendered template ('{{ }}')"
    return ""


def _unexpected(expression: str, line: int | None, column: int | None) -> str:
    lines = expression.splitlines() or [""]
    if line is None or column is None or line > len(lines):
        return "invalid syntax"
    text = lines[line - 1]
    if column > len(text):
        return "unexpected end of input"
    return f"unexpected {text[column - 1:column + 9].split()[0]!r}" if text[column - 1:].strip() else "invalid syntax"


@functools.lru_cache(maxsize=2048)
def parse(expression: str) -> Tree[Token]:
    """The cel-python parse tree (shared and cached: never mutate it). Raises CompileError."""
    if len(expression) > MAX_LENGTH:
        raise CompileError(f"Too long: may not be more than {MAX_LENGTH} bytes")
    if not expression.strip():
        raise CompileError("Syntax error: the expression is empty", line=1, column=1)
    try:
        with _PARSER_LOCK:  # one shared LALR parser
            return _lark_parse(expression)
    except CELParseError as err:
        cause = err.__cause__
        if getattr(getattr(cause, "token", None), "type", None) == "$END":
            lines = expression.splitlines() or [""]
            raise CompileError(f"Syntax error: unexpected end of input{_syntax_hint(expression)}",
                               line=len(lines), column=len(lines[-1]) + 1) from None
        raise CompileError(f"Syntax error: {_unexpected(expression, err.line, err.column)}"
                           f"{_syntax_hint(expression)}", line=err.line, column=err.column) from None
    except RecursionError:
        raise CompileError("Syntax error: the expression is nested too deeply") from None
    except Exception as err:  # lark raises a few other exception types on odd input
        raise CompileError(f"Syntax error: {err}".splitlines()[0]) from None
