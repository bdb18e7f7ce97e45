"""The parser tells the compile whether the refusals walk can find anything (`Parsed.refusable`): a refusal must
never be skipped, wherever the construct sits."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import celext
from celext.errors import CompileError
from celext.syntax import parser
from celext.syntax.refusals import check_macros, refuse


@pytest.mark.parametrize(("expression", "message"), [
    (".b == 1", "undeclared reference to '.b' (in container '')"),  # a leading-dot name nothing declares
    ("1 in .b", "undeclared reference to '.b' (in container '')"),
    ("true && // a comment\n.b", "undeclared reference to '.b' (in container '')"),
    ("[.f(1)] == []", "undeclared reference to '.f' (in container '')"),
    ("x{a: 1} == 1", "message construction ('Type{...}') has no meaning for device selectors"),
    ("format.named('x') == 1", "'format' is not supported: the Kubernetes format library (format.dns1123Label(), "
     "format.named(), ...) is not provided by celext"),
    ("[1].all(1, x)", "argument must be a simple name"),
])
def test_refusals_still_fire(expression: str, message: str) -> None:
    with pytest.raises(CompileError) as raised:
        celext.compile(expression)
    assert raised.value.message == message


@pytest.mark.parametrize(("expression", "refusable"), [
    ("device.driver == 'a' && {'k': 1}.size() > 0", False),  # a map literal, member selects
    ("device.attributes['d'].x.all(v, v > 0)", False),  # a macro: its form is checked apart (check_macros)
    ("'url' == device.driver", False),  # a string is not a name
    ("{'a': 1}.size() > 0 && [1, 2].size() == 2", False),  # a map literal first
    ("device.urls == 1", False),
])
def test_refusable(expression: str, refusable: bool) -> None:
    assert parser.parse_sized(expression, lean=True).refusable is refusable


def refusal(check: Callable[[], None]) -> tuple[str, int | None, int | None] | None:
    try:
        check()
    except CompileError as err:
        return err.message, err.line, err.column
    return None


@pytest.mark.parametrize("expression", [
    "[1].all(x, x > 0)",
    "[1].all(1, x)",
    "[1].exists(x.y, true)",
    "[1].all(x, [2].all(1, true))",  # the inner call is malformed
    "[1].all(1, [2].all(2, true))",  # both: the outer one first
    "[[1]].exists(1, true).all(2, true) == true",  # a chain: the outer call (same start, longer) first
    "[1].map(x, x).filter(1, true).size() == 0",
    "[1].all(a, true) && [2].all(b.c, true) && [3].exists(1, true)",  # the first malformed one in the text
    "{'a': 1}.all(k, v, true)",
    "[1].all(k, k, true)",  # two variables, one name
    "[1].exists_one(x, x > 0, 1)",  # not a macro form: not checked
    "true.all(1, x)",  # no start position: the walk decides
    "[true].all(x, x) && true.all(1, true)",
    "[1].sortBy(1, 2) == [1]",
    "[1].transformList(i, 2, v, true) == [1]",
])
def test_macro_forms_as_the_walk_finds_them(expression: str) -> None:
    """`check_macros` over the parser's macro calls refuses exactly what the refusals walk refuses, at the
    same place, whichever call comes first."""
    parsed = parser.parse_sized(expression, lean=True)
    assert not parsed.refusable
    assert parsed.macros
    walked = refusal(lambda: refuse(parsed.tree, shared=False))
    assert refusal(lambda: check_macros(parsed.macros, parsed.tree)) == walked


def test_macro_form_refused_once_per_first_call() -> None:
    with pytest.raises(CompileError) as raised:
        celext.compile("[1].all(x, true) && [1].all(y.z, true) && [1].all(1, true)")
    assert (raised.value.message, raised.value.line, raised.value.column) == (
        "argument must be a simple name", 1, 29)


def test_macro_form_inside_a_binding_is_refused_on_the_rewritten_tree() -> None:
    with pytest.raises(CompileError) as raised:
        celext.compile("cel.bind(v, [1], v.all(1, true))")
    assert raised.value.message == "argument must be a simple name"
