"""celext.analysis.spans.LazySpans: the span of every node as `Spans` gives it, without its up-front walk
unless a node lacks a position of its own (`true`, `false`, `null` and the nodes they start or end)."""

from __future__ import annotations

from pathlib import Path

import pytest

from celext.analysis import parse
from celext.analysis import spans as lazy
from celext.syntax.nodes import Tree
from celext.syntax.tree import AST, Node, Spans
from tests.celext.analysis.corpus import check_each

EXPRESSIONS = [
    'device.attributes["dra.net"].numaNode == 4',
    "true",
    "!false && device.attributes['d'].x",
    'device.attributes["d"].?x.orValue(true) || null == device.attributes["d"].y',
    '(device.attributes["d"].x) == (4) // a comment',
    '[true, false].exists(b, b == device.attributes["d"].flag) ? true : false',
    'device.capacity["d"].mem.compareTo(quantity("1Gi")) >= 0 && r"raw" != "s"',
    'cel.bind(x, device.attributes["d"].ids, x.includes(0)) && -4 < device.attributes["d"].n',
]


def nodes(tree: AST) -> list[Node]:
    found: list[Node] = []
    pending: list[Node] = [tree]
    while pending:
        node = pending.pop()
        found.append(node)
        if isinstance(node, Tree):
            pending.extend(node.children)
    return found


def same_spans(expression: str) -> None:
    tree = parse(expression)
    full, on_demand = Spans(expression, tree), lazy.LazySpans(expression, tree)
    for node in nodes(tree):
        assert on_demand(node) == full(node), (expression, node)


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_every_node_has_the_span_spans_gives(expression: str) -> None:
    same_spans(expression)


def test_every_node_of_the_corpus_expressions_has_the_span_spans_gives(corpus: Path) -> None:
    assert check_each(corpus, same_spans) > 100


class CountingSpans(Spans):
    made = 0

    def __init__(self, expression: str, tree: AST) -> None:
        CountingSpans.made += 1
        super().__init__(expression, tree)


def test_the_full_walk_runs_only_for_a_node_without_positions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lazy, "Spans", CountingSpans)
    CountingSpans.made = 0
    expression = 'device.attributes["d"].x == 4 && device.driver == "d"'
    tree = parse(expression)
    on_demand = lazy.LazySpans(expression, tree)
    for node in nodes(tree):
        on_demand(node)
    assert CountingSpans.made == 0
    expression = 'device.attributes["d"].x == true'
    tree = parse(expression)
    on_demand = lazy.LazySpans(expression, tree)
    spans = [on_demand(node) for node in nodes(tree)]
    assert CountingSpans.made == 1  # once, for the first node lacking a position; kept for the others
    assert Spans(expression, tree)(tree) == spans[0]
