"""The lean parse (precedence climbing over `Tree`s with `Span`s): every mix of the five binary precedence
levels, unary operators and postfix forms parses to what collapse() makes of the level-by-level full tree, with
the same AST as build() walks from it, the same errors, and the chain-depth limit at 250."""

from __future__ import annotations

import copy
import itertools

import pytest

from celext.errors import CompileError
from celext.syntax import parser
from celext.syntax.nodes import Meta, Tree
from celext.syntax.parser import MAX_DEPTH_EXCEEDED, Span

from .test_build import _both
from .test_lean import _same_as_collapsed

_OPERATORS = ["||", "&&", "==", "<", "in", "+", "-", "*", "%"]
_OPERANDS = ["a", "1", "-b", "!c", "d.e", "f[0]", "g(h)", "(i || j)", "true", "[k]"]


def _mixes() -> list[str]:
    """Three operands joined by every pair of operators, operand kinds rotating."""
    out = []
    for n, (first, second) in enumerate(itertools.product(_OPERATORS, repeat=2)):
        x, y, z = (_OPERANDS[(n + k) % len(_OPERANDS)] for k in range(3))
        out.append(f"{x} {first} {y} {second} {z}")
    return out


@pytest.mark.parametrize("expression", _mixes())
def test_operator_mixes_parse_as_the_grammar_levels_do(expression: str) -> None:
    assert _same_as_collapsed(expression) is None
    found = _both(expression)
    assert found is not None and found[0] == found[1]


@pytest.mark.parametrize("expression", ["a ? b || c && d : e == f ? g + h * i : -j", "x * (y + z) - -w % v",
                                        "a || b ? c : d", "1 + 2 + 3 < 4 == true != false"])
def test_ternaries_and_parentheses_parse_as_the_grammar_levels_do(expression: str) -> None:
    assert _same_as_collapsed(expression) is None


@pytest.mark.parametrize(("expression", "column"), [("a +", 4), ("a || && b", 6), ("a * / b", 5), ("a < b <", 8),
                                                     ("(a + b", 7), ("a + b)", 6)])
def test_syntax_errors_are_those_of_the_grammar_levels(expression: str, column: int) -> None:
    with pytest.raises(CompileError) as err:
        parser.parse_sized(expression, lean=True)
    assert (err.value.line, err.value.column) == (1, column)
    assert _same_as_collapsed(expression) is None  # (the same message and position as the full shape)


@pytest.mark.parametrize(("links", "refused"), [(248, False), (249, False), (250, True)])
def test_the_chain_depth_limit_counts_climbed_operators(links: int, refused: bool) -> None:
    expression = "1" + " + 1" * links + " > 0"  # chain depth: `links` additions and the relation over them
    if refused:
        with pytest.raises(CompileError) as err:
            parser.parse_sized(expression, lean=True)
        assert (err.value.message, err.value.line, err.value.column) == (MAX_DEPTH_EXCEEDED, None, None)
    else:
        assert parser.parse_sized(expression, lean=True).tree.data == "relation"


def test_nodes_and_spans_are_celext_s_slotted_trees() -> None:
    tree = parser.parse_sized("device.driver == 'a' && x", lean=True).tree
    assert isinstance(tree, Tree) and isinstance(tree.meta, Meta) and Span is Meta
    assert not hasattr(tree, "__dict__")  # (no per-node dict)
    assert (tree.meta.start_pos, tree.meta.end_pos, tree.meta.line, tree.meta.column) == (0, 25, 1, 1)
    assert copy.deepcopy(tree) == tree and copy.copy(tree) == tree
