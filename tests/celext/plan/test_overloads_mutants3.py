"""Member calls with constant arguments (celext.plan.overloads): the generated source calls the overload the
dispatcher would pick behind a guard on the receiver's class, and every receiver, error and answer is CEL's, in
both compiled forms and the reference engine (answers derived by hand). Fast, for the mutation budget."""

from __future__ import annotations

import re
from typing import Any

import pytest

import celext
from celext import values as celvalues
from celext.plan.overloads import resolve
from celext.values import CELEvalError
from tests.celext.outcome import evaluated

DRIVER = "d.io"
DEVICE: dict[str, Any] = {"attributes": {"d.io/model": {"string": "abc"}, "d.io/n": {"int": 3},
                                         "d.io/l": {"strings": ["a", "b"]}, "d.io/li": {"ints": [1, 2]}}}
PAD = "(" + " + ".join(["1"] * 100) + ") == 100"  # above COMPACT_NODES: the compact form
_M, _N = "device.attributes['d.io'].model", "device.attributes['d.io'].n"

# (expression, the member called with constant arguments, the answer on DEVICE)
CALLS: list[tuple[str, str, bool | str]] = [
    (f"{_M}.indexOf('c') == 2", "indexOf", True),
    (f"{_M}.indexOf('c', 1) == 2", "indexOf", True),
    (f"{_M}.indexOf('c', -1) == 2", "indexOf", "eval: index out of range: -1"),
    (f"{_M}.indexOf('c', -1) == 2", "indexOf", "eval: index out of range: -1"),
    (f"{_N}.indexOf('c') == 2", "indexOf", "eval: no such overload: indexOf(int, string)"),
    (f"{_N}.indexOf('c', 1) == 2", "indexOf", "eval: no such overload: indexOf(int, string, int)"),
    (f"{_M}.lastIndexOf('c') == 2", "lastIndexOf", True),
    (f"{_M}.replace('b', 'x') == 'axc'", "replace", True),
    (f"{_M}.replace('b', 'x', 1) == 'axc'", "replace", True),
    (f"{_M}.substring(1) == 'bc'", "substring", True),
    (f"{_M}.substring(5) == 'bc'", "substring", "eval: index out of range: 5"),
    (f"{_M}.substring(2, 1) == 'bc'", "substring", "eval: invalid substring range. start: 2, end: 1"),
    (f"{_M}.split('b') == ['a', 'c']", "split", True),
    (f"{_M}.charAt(1) == 'b'", "charAt", True),
    (f"{_M}.charAt(9) == 'b'", "charAt", "eval: index out of range: 9"),
    ("device.attributes['d.io'].l.join('-') == 'a-b'", "join", True),
    # the implementation raises: the dispatcher's text, prefixed with the function's name
    ("device.attributes['d.io'].li.join('-') == 'a'", "join", "eval: join: invalid input: 1"),
]


def _answer(expression: str, engine: str) -> bool | str:
    answer: bool | str = evaluated(expression, DEVICE, DRIVER, engine=engine)
    return answer


@pytest.mark.parametrize(("expression", "member", "expected"), CALLS)
def test_a_member_call_on_constants_calls_its_overload_behind_a_class_guard(expression: str, member: str,
                                                                          expected: bool | str) -> None:
    source = celext.compile(expression).source
    assert source is not None
    assert re.search(r"\n +if t\d+\.__class__ is K\d+:\n +try:\n", source), source
    assert f"rt_impl_error({member!r}, err)" in source, source
    answers = [_answer(expression, "compiled"), _answer(f"({expression}) && {PAD}", "compiled"),
               _answer(expression, "reference")]
    assert answers == [expected] * 3


@pytest.mark.parametrize(("name", "constants", "receiver"), [
    # the lists library's `indexOf(list, dyn)` comes first in dispatch order and takes any needle
    ("indexOf", [celvalues.StringType("c")], celvalues.ListType),
    ("indexOf", [celvalues.IntType(1)], celvalues.ListType),
    ("indexOf", [celvalues.StringType("c"), celvalues.IntType(1)], celvalues.StringType),
    ("join", [celvalues.StringType("-")], celvalues.ListType),
    ("charAt", [celvalues.StringType("1")], None),  # charAt takes an int
    ("nosuch", [], None),
    ("indexOf", [CELEvalError("boom")], None),  # an argument that is an error: left to the dispatcher
])
def test_resolve_names_the_receiver_class_of_the_only_overload(name: str, constants: list[Any],
                                                               receiver: type | None) -> None:
    resolved = resolve(name, constants)
    assert (None if resolved is None else resolved[0]) is receiver
    if resolved is not None:
        assert resolved[1].name == name and resolved[1].member
