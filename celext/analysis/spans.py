"""Spans of the parse-tree nodes a walk asks about (in the full or the lean shape), computed on demand.

`celext.syntax.tree.Spans` fills a span for every node of the tree up front (a Python call per node), to restore
the positions the parser leaves out as cel-python's lexer does (`true`, `false`) in source order. Most nodes
carry both ends in their meta, and the analysis asks about a few nodes only: those are answered from their own
positions, and the full walk runs only when a node lacks one (the same answer `Spans` gives: it uses the meta
when present).
"""

from __future__ import annotations

from celext.syntax.nodes import Token
from celext.syntax.tree import AST, Node, Span, Spans


class LazySpans:
    """`Spans(expression, tree)` as a function of the node, without the up-front walk where it is not needed."""

    __slots__ = ("_expression", "_full", "_tree")

    def __init__(self, expression: str, tree: AST) -> None:
        self._expression = expression
        self._tree = tree
        self._full: Spans | None = None

    def __call__(self, node: Node) -> Span:
        if isinstance(node, Token):
            start, end = node.start_pos, node.end_pos
        else:
            meta = node.meta
            start, end = getattr(meta, "start_pos", None), getattr(meta, "end_pos", None)
        if start is not None and end is not None:
            return Span(start, end)
        if self._full is None:
            self._full = Spans(self._expression, self._tree)
        return self._full(node)
