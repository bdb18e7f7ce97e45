"""Positions and literal values in a parse tree, for `celext.analysis`: cel-python's full shape (`celext.parse`)
or the lean one (`celext.syntax.grammar.parse_lean`: no single-child levels, literals as `const` nodes holding
their CEL value, long literal-only lists and maps one `const` each); both read alike here.

`Spans` gives every node its character span in the expression text (restoring positions the lexer
drops), `literal_value` reads int, string and bool literals, `operator_span` finds a binary operator
between its operands and `has_comment` tells whether source text holds a `//` comment.
"""

from __future__ import annotations

import re
from typing import TypeAlias

from msgspec import Struct

from celext import values as celvalues
from celext.syntax.literals import string_value
from celext.syntax.nodes import Token, Tree

AST: TypeAlias = "Tree[Token]"
Node: TypeAlias = "Tree[Token] | Token"

# Nodes that only wrap their single child; looking through them finds the operand's real shape.
PASSTHROUGH = frozenset({
    "expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication", "unary", "member", "primary",
})


class Span(Struct, frozen=True):
    """Characters `start:end` of the expression text."""

    start: int
    end: int

    def text(self, expression: str) -> str:
        return expression[self.start:self.end]


def span_of(node: Node) -> Span:
    """The span the parser recorded; prefer `Spans` (cel-python's lexer drops the position of `true`, `false`
    and `null` tokens, and with it the start or end of every node that begins or ends with one)."""
    if isinstance(node, Token):
        return Span(node.start_pos or 0, node.end_pos or 0)
    return Span(node.meta.start_pos, node.meta.end_pos)


class Spans:
    """Spans of every node of one parse tree, with positions the lexer dropped restored.

    Tokens (and a lean tree's `const` leaves) come in source order; one without a position is found in
    the text after the previous token (only operators, punctuation, blanks and comments can lie between them).
    A node's start and end come from its meta when it has them (they include parentheses the tree leaves
    out), else from its children.
    """

    def __init__(self, expression: str, tree: AST) -> None:
        self._expression = expression
        self._cursor = 0
        self._spans: dict[int, Span] = {}
        self._fill(tree)

    def __call__(self, node: Node) -> Span:
        return self._spans.get(id(node)) or span_of(node)

    def _fill(self, node: Node) -> Span:
        if isinstance(node, Token) or node.data == "const":
            known = span_of(node) if _positioned(node) else self._find(_leaf_text(node))
            self._cursor = known.end  # (after a lean tree's constant list or map: after its closing bracket)
            self._spans[id(node)] = known
            return known
        children = [self._fill(child) for child in node.children]
        meta = node.meta
        start = getattr(meta, "start_pos", None)
        end = getattr(meta, "end_pos", None)
        span = Span(start if start is not None else min((c.start for c in children), default=self._cursor),
                    end if end is not None else max((c.end for c in children), default=self._cursor))
        self._spans[id(node)] = span
        return span

    def _find(self, text: str) -> Span:
        """A token without a position: its text's next occurrence after the previous token."""
        at = self._expression.find(text, self._cursor)
        at = self._cursor if at < 0 else at
        return Span(at, at + len(text))


def _positioned(node: Node) -> bool:
    if isinstance(node, Token):
        return node.start_pos is not None and node.end_pos is not None
    return getattr(node.meta, "start_pos", None) is not None and getattr(node.meta, "end_pos", None) is not None


def _leaf_text(node: Node) -> str:
    """A leaf's source text: a token's, or a lean tree's `const` (only a bool lacks a position: `true`/`false`)."""
    if isinstance(node, Token):
        return str(node)
    return "true" if node.children[0] else "false"


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
    value = _leaf_value(node)
    if negate:
        return -value if isinstance(value, int) and not isinstance(value, bool) else None
    return value


def _leaf_value(node: Node) -> int | str | bool | None:
    """An int, string or bool literal's value: a parse tree's `literal` token, or a lean tree's `const`."""
    if not (isinstance(node, Tree) and node.children):
        return None
    if node.data == "const":
        return plain_value(node.children[0])
    token = node.children[0]
    if node.data != "literal" or not isinstance(token, Token):
        return None
    if token.type == "INT_LIT":
        return int(token.value, 0) if not token.value.lstrip("-").startswith("0x") else int(token.value, 16)
    if token.type in ("STRING_LIT", "MLSTRING_LIT"):
        return string_value(token.value)
    if token.type == "BOOL_LIT":
        return str(token) == "true"
    return None


def plain_value(value: object) -> int | str | bool | None:
    """A decoded CEL value as the Python int, str or bool a `literal` token reads as (None for other types:
    uint, double, bytes, null, lists and maps are no such literal)."""
    if isinstance(value, celvalues.BoolType):
        return bool(value)
    if isinstance(value, celvalues.IntType):
        return int(value)
    if isinstance(value, celvalues.StringType):
        return str(value)
    return None


def args_of(exprlist: Node) -> list[Node]:
    return list(exprlist.children) if isinstance(exprlist, Tree) else []


def _list_items(node: Node) -> list[Node] | celvalues.ListType | None:
    """A list literal's element nodes, or a lean tree's constant list (`const`: its values); None otherwise."""
    inner = unwrap(node)
    if not isinstance(inner, Tree):
        return None
    if inner.data == "list_lit":
        return args_of(inner.children[0]) if inner.children else []
    if inner.data == "const" and isinstance(inner.children[0], celvalues.ListType):
        return inner.children[0]
    return None


def list_length(node: Node) -> int | None:
    """How many elements a list literal has; None when `node` is no list literal."""
    items = _list_items(node)
    return None if items is None else len(items)


def is_list_literal(node: Node) -> bool:
    return _list_items(node) is not None


def list_literals(node: Node) -> tuple[int | str | bool, ...] | None:
    items = _list_items(node)
    if items is None:
        return None
    if isinstance(items, celvalues.ListType):
        values = [plain_value(item) for item in items]
    else:
        values = [literal_value(item) for item in items]
    return None if any(v is None for v in values) else tuple(v for v in values if v is not None)


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
