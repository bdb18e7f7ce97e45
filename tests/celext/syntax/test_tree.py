"""celext.syntax.tree: spans, literal values, operators and comments in CEL source and its parse tree."""

from __future__ import annotations

import pytest

from celext.compile import parse
from celext.syntax.literals import string_value
from celext.syntax.tree import Spans, has_comment, literal_value, operator_span, unwrap


@pytest.mark.parametrize(("text", "comment"), [
    ("a == 4", False), ("a // x", True), ('"http://x" == a', False), ("r'a\\' // x", True),
    ('"a\\"//" == b', False), ('"""a//""" == b', False), ("'//' == a // x", True),
])
def test_has_comment_skips_string_literals(text: str, comment: bool) -> None:
    assert has_comment(text) is comment


@pytest.mark.parametrize(
    ("literal", "value"),
    [('"a.b"', "a.b"), ("'a.b'", "a.b"), ('r"a\\b"', "a\\b"), ('"a\\"b"', 'a"b'), ('"""x"""', "x"),
     ("'\\?\\`\\X41'", "?`A"), ("'\\q'", None)],
)
def test_string_literals(literal: str, value: str | None) -> None:
    assert string_value(literal) == value


@pytest.mark.parametrize(("expression", "value"), [("4", 4), ("-4", -4), ("0x10", 16), ("'q'", "q"),
                                                ("true", True), ("(false)", False), ("4u", None), ("a", None)])
def test_literal_values(expression: str, value: object) -> None:
    assert literal_value(parse(expression)) == value


def test_operator_between_operands_past_comments() -> None:
    expression = "a // x == y\n  != b"
    span = operator_span(expression, 1, expression.index("b"))
    assert span is not None and span.text(expression) == "!="


def test_spans_restore_positions_the_lexer_drops() -> None:
    expression = "(true) == x"
    tree = parse(expression)
    literal = unwrap(tree.children[0].children[0].children[0].children[0].children[0])  # the left operand
    assert Spans(expression, tree)(literal).text(expression) == "true"
