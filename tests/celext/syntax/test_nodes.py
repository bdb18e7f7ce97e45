"""celext's parse-tree classes (celext.syntax.nodes) behave as the part of lark's they replace: the walk order of
`iter_subtrees`/`find_data` (a subtree shared by `cel.bind` expansion once), equality, hashing, reprs."""

from __future__ import annotations

from typing import Any

import lark

from celext.syntax.grammar import parse, parse_lean
from celext.syntax.nodes import NO_POSITION, Meta, Token, Tree
from celext.syntax.rewrite import rewrite


def _as_lark(node: Any, made: dict[int, Any]) -> Any:
    """The same tree in lark's classes (a shared subtree stays shared)."""
    if not isinstance(node, Tree):
        return lark.Token(node.type, node.value) if isinstance(node, Token) else node
    if id(node) not in made:
        made[id(node)] = lark.Tree(node.data, [_as_lark(c, made) for c in node.children])
    return made[id(node)]


def test_subtrees_come_in_lark_s_order_shared_ones_once() -> None:
    shared = rewrite(parse_lean("cel.bind(x, [1, 2].map(y, y + 1), x.size() + x[0] + x[1]) > 2").tree)
    for tree in (parse("device.driver == 'a' && (x.exists(v, v > 0) || !b[1].c)"), shared):
        ours, theirs = list(tree.iter_subtrees()), list(_as_lark(tree, {}).iter_subtrees())
        assert [n.data for n in ours] == [n.data for n in theirs]
        assert len({id(n) for n in ours}) == len(ours)
        assert [n.data for n in tree.find_data("ident")] == [n.data for n in _as_lark(tree, {}).find_data("ident")]
    assert len(list(shared.iter_subtrees())) < sum(1 for _ in _walk(shared))  # (the binding is shared)


def _walk(node: Any) -> Any:
    yield node
    for child in node.children:
        if isinstance(child, Tree):
            yield from _walk(child)


def test_tokens_are_their_text_with_a_type_and_position() -> None:
    token = Token("IDENT", "driver", start_pos=7, line=1, column=8, end_line=1, end_column=14, end_pos=13)
    assert token == "driver" and hash(token) == hash("driver") and str(token) == "driver"
    assert (token.type, token.value, token.line, token.column, token.start_pos, token.end_pos) == \
        ("IDENT", "driver", 1, 8, 7, 13)
    assert repr(token) == repr(lark.Token("IDENT", "driver")) == "Token('IDENT', 'driver')"
    assert Token("IDENT", "x").line is None


def test_trees_equal_by_name_and_children_not_position() -> None:
    a = Tree("ident", [Token("IDENT", "x")], Meta(1, 1, 0, 1, 2, 1))
    b = Tree("ident", [Token("IDENT", "x")])
    assert a == b and hash(a) == hash(b) and b.meta is NO_POSITION
    assert a != Tree("ident", [Token("IDENT", "y")]) and a != "ident"
    assert repr(a) == "Tree('ident', [Token('IDENT', 'x')])"
    assert Tree("primary", [a]).pretty() == "primary\n  ident\n    x\n"
