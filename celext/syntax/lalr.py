"""`lark_parse()`: the Lark LALR parser celext used before `celext.syntax.parser` (cel-python's grammar plus optional
selection `a.?b`, `a[?k]`), kept as the reference the tests compare trees with and the benchmark times.

Its trees are lark's own `Tree`s and `Token`s, not celext's (celext.syntax.nodes); nothing but tests and benchmarks
import this module (it loads lark's parser generator)."""

from __future__ import annotations

import re
from pathlib import Path

import celpy
import lark
from celpy.celparser import CELParseError, CELParser
from lark import Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedToken

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


def lark_parse(expression: str) -> Tree[Token]:
    """The parser celext used before `celext.syntax.parser`: cel-python's Lark LALR grammar with optional selection.
    Syntax errors as cel-python's CELParser reports them (CELParseError)."""
    try:
        return _parser().parse(expression)
    except (UnexpectedToken, UnexpectedCharacters) as err:
        raise CELParseError(err.get_context(expression), line=err.line, column=err.column) from err
