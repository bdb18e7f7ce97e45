"""A namespaced global (`ip.isCanonical`, `sets.contains`, `lists.range`, `strings.quote`, `optional.none`)
is resolved as the function even when a comprehension or `cel.bind` variable has the name of its namespace: cel-go's
checkCall looks the qualified name up as a function before it checks the target, without asking about
variables."""

from __future__ import annotations

import pytest

import celext
from tests.celext.lib.engines import ENGINES


@pytest.mark.parametrize("expression", [
    '["1.2.3.4"].all(ip, ip.isCanonical(ip))',
    "cel.bind(sets, [1], sets.contains(sets, [1]))",
    "[1].all(lists, lists.range(2).size() == 2)",
    '["a"].all(strings, strings.quote(strings) == "\\"a\\"")',
    "cel.bind(optional, 1, optional.none().orValue(optional) == 1)",
])
@pytest.mark.parametrize("engine", ENGINES)
def test_a_variable_named_like_a_namespace_does_not_hide_its_functions(engine: str, expression: str) -> None:
    assert celext.compile(expression, engine=engine).evaluate({"name": "d"}, "x.example.com") is True


def test_a_variable_named_like_a_namespace_is_still_a_variable_elsewhere() -> None:
    assert celext.compile('["10.0.0.1"].all(ip, ip.size() == 8)').evaluate({"name": "d"}, "x.example.com") is True
