"""The type checker per operator and library family: what compiles, and cel-go's text and position when not."""

from __future__ import annotations

import pytest

import celext
from celext.check.ast import Call
from celext.check.checker import check
from celext.check.types import fmt
from celext.syntax.build import build
from celext.syntax.grammar import parse

A = 'device.attributes["d"]'
Q = 'device.capacity["d"].memory'


def _error(expression: str) -> tuple[str, int | None, int | None] | None:
    try:
        celext.compile(expression)
    except celext.CompileError as err:
        return err.message, err.line, err.column
    return None


@pytest.mark.parametrize(
    ("expression", "message", "column"),
    [
        # equality and ordering
        (f'{Q} == "1Gi"', "found no matching overload for '_==_' applied to '(kubernetes.Quantity, string)'", 29),
        ('device.driver != 1', "found no matching overload for '_!=_' applied to '(string, int)'", 15),
        ('device.driver < 1', "found no matching overload for '_<_' applied to '(string, int)'", 15),
        ("1 <= 1.5 && 1u > 0 && 2.0 >= 1u", None, None),  # cross-type numeric ordering is declared
        # logic and the conditional
        ("1 || true", "expected type 'bool' but found 'int'", 1),
        ("true ? 1 : 'a'", "found no matching overload for '_?_:_' applied to '(bool, int, string)'", 6),
        ("!device.driver", "found no matching overload for '!_' applied to '(string)'", 1),
        # arithmetic
        ('1 + "a" == "1a"', "found no matching overload for '_+_' applied to '(int, string)'", 3),
        ("-device.driver == ''", "found no matching overload for '-_' applied to '(string)'", 1),
        ("1 % 2.0 == 1.0", "found no matching overload for '_%_' applied to '(int, double)'", 3),
        # membership and indexing
        ('"a" in [1]', "found no matching overload for '@in' applied to '(string, list(int))'", 5),
        ("[1][true] == 1", "found no matching overload for '_[_]' applied to '(list(int), bool)'", 4),
        # device fields
        ("device.nosuch == 1", "undefined field 'nosuch'", 7),
        ("device.driver.x == 1", "type 'string' does not support field selection", 14),
        # quantity and semver libraries
        (f"{Q}.isGreaterThan(1)", "found no matching overload for 'isGreaterThan' applied to "
                                  "'kubernetes.Quantity.(int)'", 42),
        (f'{Q}.compareTo(semver("1.0.0")) == 0', "found no matching overload for 'compareTo' applied to "
                                                 "'kubernetes.Quantity.(kubernetes.Semver)'", 38),
        ('semver(1) == semver("1.0.0")', "found no matching overload for 'semver' applied to '(int)'", 7),
        ('quantity("1").add(1).isInteger()', None, None),
        # strings, regex, lists, sets
        ('"a".charAt("0") == "a"', "found no matching overload for 'charAt' applied to 'string.(string)'", 11),
        ('"a".split(",", "x").size() == 1', "found no matching overload for 'split' applied to "
                                           "'string.(string, string)'", 10),
        ('"a".find(1) == "a"', "found no matching overload for 'find' applied to 'string.(int)'", 9),
        ("[1, 2].sum() == 3.0", "found no matching overload for '_==_' applied to '(int, double)'", 14),
        ('sets.contains([1], ["a"])', "found no matching overload for 'sets.contains' applied to "
                                      "'(list(int), list(string))'", 14),
        ("[1, 'a'] == []", "expected type 'int' but found 'string'", 5),
        # macros, bind, optionals
        ("[1].all(x, x)", "expected type 'bool' but found 'int'", 12),
        ("device.driver.exists(x, true)", "expression of type 'string' cannot be range of a comprehension "
                                          "(must be list, map, or dynamic)", 7),
        ("cel.bind(x, 1, x + 'a') == 'b'", "found no matching overload for '_+_' applied to '(int, string)'", 18),
        (f"{A}.?x.orValue(1) == 1 && optional.none().hasValue() == false", None, None),
        ("optional.of(1).value() == 'a'", "found no matching overload for '_==_' applied to '(int, string)'", 24),
        # types and dyn
        ("type(1) == int && type('a') == string", "too complex, exceeds cost limit", None),  # types have no size
        ("dyn(1) == 'a'", None, None),
        ("int == 1", "found no matching overload for '_==_' applied to '(type(int), int)'", 5),
        # includes()
        (f"{A}.x.includes(1)", None, None),
        ('"a".includes()', "found no matching overload for 'includes' applied to 'string.()'", 13),
        # the DRA result rule
        (f"{A}.x", None, None),
        ("'a'", "must evaluate to bool or the unknown type, not string", None),  # no position upstream
        ("null", "must evaluate to bool or the unknown type, not null_type", None),
    ],
)
def test_type_errors_have_upstream_texts_and_positions(expression: str, message: str | None,
                                                       column: int | None) -> None:
    assert _error(expression) == (None if message is None else (message, None if column is None else 1, column))


def test_checked_types_and_overloads_are_kept_for_every_node() -> None:
    expression = f'{Q}.isGreaterThan(quantity("1")) && {A}.x == 1'
    checked = celext.compile(expression)._prepared.checked
    assert checked is not None
    calls = {node.function: checked.overloads[node.id] for node in _walk(checked.expr) if isinstance(node, Call)}
    assert calls == {"_&&_": ("logical_and",), "isGreaterThan": ("quantity_is_greater_than",),
                     "quantity": ("string_to_quantity",), "_==_": ("equals",), "_[_]": ("index_map",)}
    assert fmt(checked.output_type) == "bool"


def test_a_dyn_argument_keeps_every_overload_it_may_reach() -> None:
    expression = f"{A}.x < 1"
    checked = check(build(parse(expression), expression))
    ids = checked.overloads[checked.expr.id]
    assert set(ids) == {"less_int64", "less_double_int64", "less_uint64_int64"}


def _walk(node: object) -> list[object]:
    found = [node]
    for name in ("operand", "target", "iter_range", "accu_init", "loop_condition", "loop_step", "result"):
        child = getattr(node, name, None)
        if child is not None:
            found.extend(_walk(child))
    for child in getattr(node, "args", []) or []:
        found.extend(_walk(child))
    return found
