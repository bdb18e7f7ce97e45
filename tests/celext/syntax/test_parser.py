"""celext.syntax.parser: the same trees as the Lark grammar it replaced (celext's own node classes against lark's),
cel-go's lexing and its recursion limits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import lark
import pytest
from lark.tree import Meta as LarkMeta
from ruamel.yaml import YAML

import celext
from celext.compile import prepare
from celext.errors import CompileError
from celext.syntax import parser
from celext.syntax.lalr import lark_parse
from celext.syntax.literals import decode_bytes, decode_string
from celext.syntax.nodes import Token, Tree

_POSITIONS = ("line", "column", "start_pos", "end_line", "end_column", "end_pos")
# Where the Lark grammar lexed `42.` as a double (cel-go: an int, then a member call), so the trees differ.
_LARK_FLOAT_DOT = ("24.indexOf('2') == 0", "42.indexOf('4', 0) == 0")
DEVICE = {"name": "d", "attributes": {"a": {"int": 1}}}


def cel_go_unary(tree: Any) -> Any:
    """Lark's grammar nests `!!x` as two unary levels; cel-go's parser, and celext's, read a run of one operator
    as one unary: none for an even run, one (spanning from the run's first operator) for an odd run."""
    if not isinstance(tree, lark.Tree):
        return tree
    children = [cel_go_unary(child) for child in tree.children]
    if tree.data == "unary" and len(children) == 2:
        sign, inner = children
        if isinstance(inner, lark.Tree) and inner.data == "unary" and len(inner.children) == 2 \
                and inner.children[0].data == sign.data:
            return inner.children[1]  # `!!x` is `x`; an odd run was already reduced to one below
    if all(new is old for new, old in zip(children, tree.children, strict=True)):
        return tree  # nothing dropped below: the node as Lark built it
    meta = tree.meta
    if children[0] is not tree.children[0] and isinstance(children[0], lark.Tree):
        meta = LarkMeta()  # a node starts where its first child now starts (the dropped operators are no part of it)
        for name in _POSITIONS:
            source = children[0].meta if name in ("line", "column", "start_pos") else tree.meta
            setattr(meta, name, getattr(source, name))
        meta.empty = False
    return lark.Tree(tree.data, children, meta=meta)


_TREES = (lark.Tree, Tree)  # (a tree from the Lark grammar, or one of celext's)
_TOKENS = (lark.Token, Token)


def difference(expected: Any, ours: Any, path: str = "") -> str | None:
    """The first place two parse trees differ (Lark's against celext's, or two of celext's): node names, tokens
    (type, text, position), node positions. `ours` is made of celext's node classes."""
    if isinstance(expected, _TREES) != isinstance(ours, Tree):
        return f"{path}: {expected!r} vs {ours!r}"
    if isinstance(expected, _TREES):
        if str(expected.data) != str(ours.data) or len(expected.children) != len(ours.children):
            return f"{path}: {expected.data}/{len(expected.children)} vs {ours.data}/{len(ours.children)}"
        for name in _POSITIONS:
            if getattr(expected.meta, name, None) != getattr(ours.meta, name, None):
                return f"{path}/{expected.data}: meta.{name}"
        for i, (a, b) in enumerate(zip(expected.children, ours.children, strict=True)):
            found = difference(a, b, f"{path}/{expected.data}[{i}]")
            if found:
                return found
        return None
    assert isinstance(expected, _TOKENS) and isinstance(ours, Token)
    if (expected.type, str(expected)) != (ours.type, str(ours)):
        return f"{path}: {expected.type} {expected!r} vs {ours.type} {ours!r}"
    for name in _POSITIONS:
        if getattr(expected, name) != getattr(ours, name):
            return f"{path}: token {expected!r} {name}"
    return None


def _expressions(corpus: Path) -> list[str]:
    found = [e["expression"] for e in YAML(typ="safe").load((corpus / "cel-expressions.yaml").read_text())
             ["expressions"]]
    spec = corpus.parent / "conformance" / "cel-spec" / "simple-tests.json"
    if spec.exists():
        for test in json.loads(spec.read_text())["tests"]:
            found += [test["expr"], *test.get("bindings", {}).values()]
            found += [test["expected"]] if "expected" in test else []
    return found


def test_same_trees_as_the_lark_grammar_on_corpus_and_cel_spec(corpus: Path) -> None:
    compared = 0
    for expression in _expressions(corpus):
        try:
            reference = lark_parse(expression)
        except Exception:
            continue  # Lark refuses it (optional elements, backticks, ...): nothing to compare with
        if expression in _LARK_FLOAT_DOT:
            continue
        found = difference(cel_go_unary(reference), parser.parse(expression))
        assert found is None, (expression, found)
        compared += 1
    assert compared > 2000


@pytest.mark.parametrize("expression", [
    "device.driver == 'a' && (true || !false) ? [1, 2u, 3.5e3, -4] : {'k': b'v', 1: null}",
    "a.?b.c[?'d'].e(f, g)[0] in [\"\"\"x\ny\"\"\"] // comment\n || .top(1) || -x - -1 >= 0x1F % 2",
    "m{a: 1, b: 2}.x", "r'raw\\' == R\"\"\"z\"\"\"", "!!-(-1) * 2 / 3 <= 4 != true",
])
def test_same_trees_on_every_construct(expression: str) -> None:
    assert difference(cel_go_unary(lark_parse(expression)), parser.parse(expression)) is None


@pytest.mark.parametrize(("depth", "error"), [(249, None), (250, parser.RECURSION_LIMIT_EXCEEDED),
                                              (251, parser.RECURSION_LIMIT_EXCEEDED)])
def test_nesting_limit_is_cel_gos(depth: int, error: str | None) -> None:
    # cel-go counts the whole expression as one level: 249 parentheses are 250 levels, the most it accepts.
    expression = "(" * depth + "device.driver == 'd'" + ")" * depth
    if error is None:
        assert celext.compile(expression).evaluate(DEVICE, driver="d") is True
    else:
        with pytest.raises(CompileError) as raised:
            celext.compile(expression)
        assert (str(raised.value), raised.value.line, raised.value.column) == (error, None, None)


@pytest.mark.parametrize(("link", "template"), [
    ("['a']", "dyn({'a': 1})%s == 1"),  # indexes (dyn: the chain must also type-check)
    (" + 1", "1%s > 0"),                # arithmetic
    (" == true", "(true%s) == true"),   # relations
])
@pytest.mark.parametrize(("count", "fits"), [(248, True), (249, True), (250, False)])
def test_chain_limit_is_cel_gos(link: str, template: str, count: int, fits: bool) -> None:
    # The operator around the chain is one level more: 249 links make 250 levels, the most cel-go accepts.
    expression = template % (link * count)
    if fits:
        prepare(expression)
    else:
        with pytest.raises(CompileError, match=r"^max recursion depth exceeded$"):
            prepare(expression)


def test_select_chain_limit() -> None:
    base = "device.attributes['d']"  # one select and one index: two levels
    for count, fits in ((247, True), (248, True), (249, False)):
        expression = base + ".a" * count
        if fits:
            prepare(expression)
        else:
            with pytest.raises(CompileError, match=r"^max recursion depth exceeded$"):
                prepare(expression)


@pytest.mark.parametrize("expression", [
    "!" * 1000 + "true", "-" * 1001 + "1 == -1", "[" * 250 + "]" * 250 + " != []",
    " && ".join(["device.driver == 'd'"] * 400), "false ? false : " * 248 + "true",
])
def test_deep_but_legal_expressions_compile_and_evaluate(expression: str) -> None:
    assert isinstance(celext.compile(expression).evaluate(DEVICE, driver="d"), bool)


@pytest.mark.parametrize(("expression", "value"), [
    # an int and a member call, as cel-go lexes it (and its checker refuses)
    ("42.charAt(2) == ''", "found no matching overload for 'charAt' applied to 'int.(int)'"),
    ("'\\?\\`\\X41\\x4a\\101\\u00e9\\U0001F600' == '?`AJAé😀'", True),
    ("'''a\nb''' == 'a\\nb'", True),
    ("b'\\X41\\xff\\101' == b'A\\377A'", True),
    ("r'a\\' == 'a\\\\'", True),  # a raw string ends at its first closing quote
    ("[1, 2,] == [1, 2] && {'a': 1,} == {'a': 1}", True),
    ("[?optional.of(1), ?optional.none()] == [1]", True),
    ("{?'a': optional.none(), ?'b': optional.of(2)} == {'b': 2}", True),
    ("'\\q' == 'q'", "Syntax error: token recognition error at: ''\\q'"),  # refused, as cel-go's lexer does
    ("9223372036854775808 > 0", "invalid int literal"),  # refused by the parser, as cel-go's VisitInt does
    ("18446744073709551616u > 0u", "invalid uint literal"),
])
def test_lexing_as_cel_go(expression: str, value: object) -> None:
    try:
        result: object = celext.compile(expression).evaluate(DEVICE, driver="d")
    except (celext.EvaluationError, celext.CompileError) as err:
        result = err.message
    assert result == value


@pytest.mark.parametrize(("expression", "message", "line", "column"), [
    ("a inx", "Syntax error: unexpected 'inx'", 1, 3),  # one identifier, not `in x`
    ("1.", "Syntax error: unexpected end of input", 1, 3),  # cel-go's doubles need digits after the point
    ("'abc", "Syntax error: unexpected \"'abc\"", 1, 1),
    ("a.b +", "Syntax error: unexpected end of input", 1, 6),
    ("a == 1 # x", "Syntax error: unexpected '#'", 1, 8),
])
def test_syntax_errors(expression: str, message: str, line: int, column: int) -> None:
    with pytest.raises(CompileError) as raised:
        parser.parse(expression)
    assert (raised.value.message, raised.value.line, raised.value.column) == (message, line, column)


def test_string_and_bytes_decoding() -> None:
    assert decode_string("'\\a\\b\\f\\n\\r\\t\\v\\\\\\'\\\"'") == "\a\b\f\n\r\t\v\\'\""
    assert decode_bytes("b'\\xc3\\251'") == "é".encode()
    for bad in ("'\\uD800'", "'\\x4'", "'a\\'"):
        with pytest.raises(ValueError):
            decode_string(bad)
