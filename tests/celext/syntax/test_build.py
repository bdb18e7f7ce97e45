"""The checker's AST the parser builds as it parses (`Parsed.claim()`): node for node what `build()` makes of the
finished tree (kinds, names, values, offsets, parse-tree nodes), on the corpus, cel-spec and the shapes below;
handed out once; and left to `build()` where a malformed macro call must be reported in cel-go's order."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from celext.check.ast import Call, Comprehension, CreateList, CreateMap, Expr, Ident, Literal, Select
from celext.compile import prepare
from celext.errors import CompileError
from celext.syntax import headroom, parser
from celext.syntax.build import build

from .test_parser import _expressions


def shape(e: Expr | None) -> Any:
    """Everything of a node but its id (the parser numbers the variable names of macro calls too)."""
    if e is None:
        return None
    common = (type(e).__name__, e.offset, id(e.tree) if e.tree is not None else None)
    if isinstance(e, Literal):
        value = "nan" if isinstance(e.value, float) and math.isnan(e.value) else e.value
        return (*common, e.kind, type(e.value).__name__, value)
    if isinstance(e, Ident):
        return (*common, e.name)
    if isinstance(e, Select):
        return (*common, e.field, e.test_only, shape(e.operand))
    if isinstance(e, Call):
        return (*common, e.function, shape(e.target), [shape(a) for a in e.args])
    if isinstance(e, CreateList):
        return (*common, e.optional, e.constant, [shape(x) for x in e.elements])
    if isinstance(e, CreateMap):
        return (*common, e.optional, e.constant, [(shape(k), shape(v)) for k, v in e.entries])
    assert isinstance(e, Comprehension)
    return (*common, e.iter_var, e.iter_var2, e.accu_var, shape(e.iter_range), shape(e.accu_init),
            shape(e.loop_condition), shape(e.loop_step), shape(e.result))


def _both(expression: str) -> tuple[Any, Any] | None:
    """(the parser's AST, build()'s AST of the same tree) as shapes; None when neither has one."""
    def run() -> tuple[Any, Any] | None:
        parsed = parser.parse_sized(expression, lean=True)
        built = parsed.claim()
        try:
            walked = build(parsed.tree, expression)
        except Exception:
            assert built is None, expression
            return None
        assert built is not None, expression
        return shape(built), shape(walked)
    try:
        return headroom.call(run)
    except CompileError:
        return None


SHAPES = [
    "device.driver == 'a' && (true || !false) ? [1, 2u, 3.5e3, -4] : {'k': b'v', 1: null}",
    "a.?b.c[?'d'].e(f, g)[0] in [\"\"\"x\ny\"\"\"] // comment\n || -x - -1 >= 0x1F % 2",
    "!!-(-1) * 2 / 3 <= 4 != true", "--1 == 1 && -(1.5) < 0.0 && -x.y > 1",
    "has(device.attributes['d'].x) && has(a.b.c)",
    "cel.bind(x, device.attributes['d'], x.a == 1 || cel.bind(y, x.b, y > 2))",
    "[1, 2].all(i, i > 0) && [1].exists(i, i == 1) && [1].exists_one(i, true) && [1].existsOne(i, v, true)",
    "[1].map(i, i * 2) == [2] && [1].map(i, i > 0, i) == [1] && [1].filter(i, i > 0).size() == 1",
    "{'a': 1}.all(k, v, v > 0) && [1].transformList(i, v, v) == [1] && [1].transformList(i, v, i > 0, v) == [1]",
    "{'a': 1}.transformMap(k, v, v + 1) != {} && {'a': 1}.transformMapEntry(k, v, {k: v}) != {}",
    "[3, 1].sortBy(x, -x) == [3, 1] && optional.of(1).optMap(x, x + 1) == optional.of(2)",
    "optional.none().optFlatMap(x, optional.of(x)).hasValue() == false",
    "sets.contains([1], [1]) && strings.quote('a') != '' && lists.range(3).size() == 3",
    "[?optional.of(1), 2,] == [1, 2] && {?'k': optional.none(), 'j': 2,}.size() == 1",
    "device.capacity['d'].memory.compareTo(quantity('1Gi')) >= 0 && [1, 2, 3, 4][0] == 1",
    "{'a': 1, 'b': 2}['a'] == 1 && ['x', 'y'] == ['x', 'y'] && b'\\xff' != b'' && -9223372036854775808 < 0",
    "(device).driver == ((('a'))) && (x) in [(1)] && ((y)).all(z, ((z)))",
    "type(1) == int && dyn(1) == 1 && null == null && 1.0 / 0.0 > 0.0",
    "[1].all(x, [2].all(y, x < y)) && [[1]].exists(l, l.exists(e, e == 1))",
]


@pytest.mark.parametrize("expression", SHAPES)
def test_the_parser_builds_the_ast_the_walk_builds(expression: str) -> None:
    found = _both(expression)
    assert found is not None
    assert found[0] == found[1]
    assert parser.parse_sized(expression, lean=False).claim() is None  # cel-python's shape (lint) builds none


def test_the_same_ast_on_corpus_and_cel_spec(corpus: Path) -> None:
    compared = 0
    for expression in _expressions(corpus):
        found = _both(expression)
        if found is not None:
            assert found[0] == found[1], expression
            compared += 1
    assert compared > 2000


def test_deep_and_long_expressions_build_the_same_ast() -> None:
    for expression in ["(" * 240 + "1" + ")" * 240 + " == 1", "false ? false : " * 240 + "true",
                       " && ".join(["device.attributes['d'].l.all(x, x > 0)"] * 240),
                       "[" + ",".join(["1"] * 5000) + "].size() > 0", "1" + " + 1" * 240 + " > 0"]:
        found = _both(expression)
        assert found is not None and found[0] == found[1]


def test_the_ast_is_handed_out_once() -> None:
    parsed = parser.parse_sized("device.driver == 'a'", lean=True)
    first = parsed.claim()
    assert isinstance(first, Call) and first.function == "_==_"
    assert parsed.claim() is None  # a second check of a shared Parsed builds its own from the tree


@pytest.mark.parametrize(("expression", "message"), [
    ("has(a) && has(1)", "invalid argument to has() macro (line 1, column 5)"),
    ("[1].all(x, has(x)) || has(1)", "invalid argument to has() macro (line 1, column 16)"),
    ("has(has(a)) == 1", "invalid argument to has() macro (line 1, column 9)"),
    # malformed cel.bind and macro calls are refused before the AST is needed (celext.syntax.rewrite, refusals)
    ("cel.bind(a.b, 1, a) == 1", "cel.bind() variable names must be simple identifiers (line 1, column 10)"),
    ("[1].all(x.y, true)", "argument must be a simple name (line 1, column 9)"),
])
def test_a_malformed_macro_call_leaves_the_ast_to_the_walk(expression: str, message: str) -> None:
    assert parser.parse_sized(expression, lean=True).claim() is None
    with pytest.raises(CompileError) as raised:
        prepare(expression)
    assert str(raised.value) == message


def test_a_shared_parse_compiles_twice_to_the_same_checked_types() -> None:
    from celext.syntax.grammar import parse_lean

    expression = "sets.contains([1], [1]) && [1].all(x, x > 0)"
    parse_lean.cache_clear()
    first = prepare(expression)  # takes the parser's AST
    second = prepare(expression)  # the same cached parse: builds its own
    assert first.checked is not None and second.checked is not None
    assert first.checked.expr is not second.checked.expr
    assert sorted(map(str, first.checked.types.values())) == sorted(map(str, second.checked.types.values()))
    assert first.cost == second.cost
