"""Positions and literal values in a cel-python parse tree (`celext.parse`), for `celext.analysis`.

`Spans` gives every node its character span in the expression text (restoring positions the lexer
drops), `literal_value` reads int, string and bool literals, `operator_span` finds a binary operator
between its operands and `has_comment` tells whether source text holds a `//` comment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypeAlias

from lark import Token, Tree

from celext.syntax.literals import string_value

AST: TypeAlias = "Tree[Token]"
Node: TypeAlias = "Tree[Token] | Token"

# Nodes that only wrap their single child; looking through them finds the operand's real shape.
PASSTHROUGH = frozenset({
    "expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication", "unary", "member", "primary",
})


@dataclass(frozen=True, slots=True)
class Span:
    """Characters `start:end` of the expression text."""

    start: int
    end: int

    def text(self, expression: str) -> str:
        return expression[self.start:self.end]


def span_of(node: Node) -> Span:
    """The span lark recorded; prefer `Spans` (cel-python's lexer drops the position of `true`, `false`
    and `null` tokens, and with it the start or end of every node that begins or ends with one)."""
    if isinstance(node, Token):
        return Span(node.start_pos or 0, node.end_pos or 0)
    return Span(node.meta.start_pos, node.meta.end_pos)


class Spans:
    """Spans of every node of one parse tree, with positions the lexer dropped restored.

    Tokens come in source order; a token without a position is found in the text after the previous
    token (only operators, punctuation, blanks and comments can lie between them). A node's start and
    end come from lark's meta when it has them (they include parentheses the tree leaves out), else from
    its children.
    """

    def __init__(self, expression: str, tree: AST) -> None:
        self._expression = expression
        self._cursor = 0
        self._spans: dict[int, Span] = {}
        self._fill(tree)

    def __call__(self, node: Node) -> Span:
        return self._spans.get(id(node)) or span_of(node)

    def _fill(self, node: Node) -> Span:
        if isinstance(node, Token):
            if node.start_pos is not None and node.end_pos is not None:
                span = Span(node.start_pos, node.end_pos)
            else:
                at = self._expression.find(str(node), self._cursor)
                at = self._cursor if at < 0 else at
                span = Span(at, at + len(str(node)))
            self._cursor = span.end
            self._spans[id(node)] = span
            return span
        children = [self._fill(child) for child in node.children]
        meta = node.meta
        start = getattr(meta, "start_pos", None)
        end = getattr(meta, "end_pos", None)
        span = Span(start if start is not None else min((c.start for c in children), default=self._cursor),
                    end if end is not None else max((c.end for c in children), default=self._cursor))
        self._spans[id(node)] = span
        return span


def unwrap(node: Node) -> Node:
    """Look through single-child wrappers (and parentheses) to the node that gives the value its shape."""
    while isinstance(node, Tree):
        if (node.data in PASSTHROUGH and len(node.children) == 1) or node.data == "paren_expr":
            node = node.children[0]
        else:
            break
    return node


def literal_value(node: Node) -> int | str | bool | None:
    """The value of an int, string or bool literal (`-4` included); None for anything else."""
    node = unwrap(node)
    negate = False
    if isinstance(node, Tree) and node.data == "unary" and len(node.children) == 2:
        op = node.children[0]
        if isinstance(op, Tree) and op.data == "unary_neg":
            negate, node = True, unwrap(node.children[1])
    if not (isinstance(node, Tree) and node.data == "literal" and node.children):
        return None
    token = node.children[0]
    if not isinstance(token, Token):
        return None
    value: int | str | bool | None = None
    if token.type == "INT_LIT":
        value = int(token.value, 0) if not token.value.lstrip("-").startswith("0x") else int(token.value, 16)
    elif token.type in ("STRING_LIT", "MLSTRING_LIT"):
        value = string_value(token.value)
    elif token.type == "BOOL_LIT":
        value = token.value == "true"
    if negate:
        return -value if isinstance(value, int) and not isinstance(value, bool) else None
    return value


def args_of(exprlist: Node) -> list[Node]:
    return list(exprlist.children) if isinstance(exprlist, Tree) else []


def is_list_literal(node: Node) -> bool:
    inner = unwrap(node)
    return isinstance(inner, Tree) and inner.data == "list_lit"


def list_literals(node: Node) -> tuple[int | str | bool, ...] | None:
    inner = unwrap(node)
    if not (isinstance(inner, Tree) and inner.data == "list_lit"):
        return None
    items = [literal_value(a) for a in (args_of(inner.children[0]) if inner.children else [])]
    return None if any(i is None for i in items) else tuple(i for i in items if i is not None)


def operator_span(expression: str, start: int, end: int,
                   operators: tuple[str, ...] = ("==", "!=", "<=", ">=", "<", ">", "in")) -> Span | None:
    # Only blanks, comments and the operator lie between two operands; blank the comments out first.
    text = re.sub(r"//[^\n]*", lambda m: " " * len(m.group()), expression[start:end])
    for op in operators:
        at = text.find(op)
        if at >= 0:
            return Span(start + at, start + at + len(op))
    return None


def has_comment(text: str) -> bool:
    """Whether CEL source text holds a `//` comment (outside string literals, raw and triple-quoted ones
    included): a rewrite must not move code behind one."""
    i = 0
    while i < len(text):
        if text[i] in "\"'":
            quote = text[i:i + 3] if text[i:i + 3] in ('"""', "'''") else text[i]
            raw = i > 0 and text[i - 1] in "rR"
            i += len(quote)
            while i < len(text) and not text.startswith(quote, i):
                i += 2 if text[i] == "\\" and not raw else 1
            i += len(quote)
        elif text.startswith("//", i):
            return True
        else:
            i += 1
    return False


def simple_ident(node: Node) -> str | None:
    """The identifier when `node` is nothing but one identifier (through the grammar's pass-through levels)."""
    while isinstance(node, Tree):
        if node.data == "ident":
            token = node.children[0]
            return str(token) if isinstance(token, Token) else None
        if len(node.children) != 1 or not isinstance(node.children[0], Tree):
            return None
        node = node.children[0]
    return None


def call_args(node: AST) -> list[AST]:
    """The argument trees of a call node (its exprlist is the last child, when present)."""
    last = node.children[-1]
    if isinstance(last, Tree) and last.data == "exprlist":
        return [c for c in last.children if isinstance(c, Tree)]
    return []
