"""The parser tells the compile whether the refusals walk can find anything (`Parsed.refusable`): a refusal must
never be skipped, wherever the construct sits."""

from __future__ import annotations

import pytest

import celext
from celext.errors import CompileError
from celext.syntax import parser


@pytest.mark.parametrize(("expression", "message"), [
    (".b == 1", "leading-dot names ('.name') are not supported by celext"),
    ("1 in .b", "leading-dot names ('.name') are not supported by celext"),
    ("true && // a comment\n.b", "leading-dot names ('.name') are not supported by celext"),
    ("[.f(1)] == []", "leading-dot names ('.name') are not supported by celext"),
    ("x{a: 1} == 1", "message construction ('Type{...}') has no meaning for device selectors"),
    ("url('x') == 1", "'url' is not supported: the Kubernetes URL library is not provided by celext"),
    ("[1].all(1, x)", "all() macro: argument must be a simple name"),
])
def test_refusals_still_fire(expression: str, message: str) -> None:
    with pytest.raises(CompileError) as raised:
        celext.compile(expression)
    assert raised.value.message == message


@pytest.mark.parametrize(("expression", "refusable"), [
    ("device.driver == 'a' && {'k': 1}.size() > 0", False),  # a map literal, member selects
    ("device.attributes['d'].x.all(v, v > 0)", True),  # a macro: its form is checked
    ("'url' == device.driver", False),  # a string is not a name
    ("{'a': 1}.size() > 0 && [1, 2].size() == 2", False),  # a map literal first
    ("device.urls == 1", False),
])
def test_refusable(expression: str, refusable: bool) -> None:
    assert parser.parse_sized(expression, lean=True).refusable is refusable
