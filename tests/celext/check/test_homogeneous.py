"""Mixed list and map literals: cel-go's ValidateHomogeneousAggregateLiterals (the AST validator Kubernetes' base
environment sets with cel.HomogeneousAggregateLiterals), run after a clean type check: every element (key, value)
type equivalent to the first one's, `dyn` included; literals anywhere inside format() exempt."""

from __future__ import annotations

import pytest

import celext
from celext.check import homogeneous
from tests.celext.lib.engines import ENGINES, outcome_on

A = 'device.attributes["gpu.example.com"]'


@pytest.mark.parametrize(("expression", "message", "column"), [
    ('[1, "a"] == []', "expected type 'int' but found 'string'", 5),
    ('[1, dyn(2)] == []', "expected type 'int' but found 'dyn'", 8),  # at the `(` of the call
    ('[dyn(1), 2] == []', "expected type 'dyn' but found 'int'", 10),
    (f'[{A}.model, "x"].exists(s, s == "x")', "expected type 'dyn' but found 'string'", 46),  # an attribute is dyn
    ('[1, 2, "a", 3.0] == []', "expected type 'int' but found 'string'", 8),  # the first mismatch of a list
    ('[[1], [dyn(1)]] == []', "expected type 'list(int)' but found 'list(dyn)'", 7),
    ('[1, 1u] == []', "expected type 'int' but found 'uint'", 5),
    ('[1, null] == []', "expected type 'int' but found 'null'", 5),
    ('[?optional.of(1), "a"] == []', "expected type 'int' but found 'string'", 19),  # an optional entry adds its value
    ('{1: "a", "b": 2} == {}', "expected type 'int' but found 'string'", 10),  # key first (the value too, after)
    ('{"a": 1, "b": dyn(2)} == {}', "expected type 'int' but found 'dyn'", 18),
    ('[1].exists(x, [x, "a"].size() == 2)', "expected type 'int' but found 'string'", 19),  # inside a macro
])
@pytest.mark.parametrize("engine", ENGINES)
def test_a_mixed_literal_is_refused_at_its_element(engine: str, expression: str, message: str, column: int) -> None:
    with pytest.raises(celext.CompileError) as refused:
        celext.compile(expression, engine=engine)
    assert (refused.value.message, refused.value.line, refused.value.column) == (message, 1, column)


@pytest.mark.parametrize(("expression", "expected"), [
    ('[dyn(1), dyn("a")].size() == 2', True),  # every element dyn: equivalent
    (f'[{A}.model, {A}.model].size() == 2', True),
    ('[?optional.of(1), 2] == [1, 2]', True),
    ('"%s %d".format(["a", 1]) == "a 1"', True),  # format()'s arguments may mix, at any depth
    ('"%s".format([[1, "a"]]) != ""', True),
    ('{"a": dyn(1), "b": dyn("x")}.size() == 2', True),
    # the validators run only on a clean check: the checker's own error is the one reported
    ('[1, "a"] == [] && 1 + "b" == 2', "compile: found no matching overload for '_+_' applied to '(int, string)'"),
])
@pytest.mark.parametrize("engine", ENGINES)
def test_what_the_validator_accepts(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression) == expected


@pytest.mark.parametrize(("expression", "column"), [
    ("[?dyn(1)] == []", 6),
    ('{?"a": dyn(1)} == {}', 11),
    (f"[?{A}.model].size() == 0", 39),  # an attribute is dyn, so an optional entry of one is too
    ("[1, ?dyn(2)].size() == 1", 9),
    ('[1].exists(x, [?dyn(x)].size() == 1)', 20),
])
@pytest.mark.parametrize("engine", ENGINES)
def test_an_optional_dyn_entry_is_refused_as_the_api_server_fails_on_it(engine: str, expression: str,
                                                                         column: int) -> None:
    """cel-go's checker lets a dyn be an optional entry; its validator then takes the entry's type parameter,
    which dyn lacks, and panics (the API server answers 500): refused at compile time, in draguard's words."""
    with pytest.raises(celext.CompileError) as refused:
        celext.compile(expression, engine=engine)
    assert (refused.value.message, refused.value.column) == (homogeneous.OPTIONAL_DYN, column)


@pytest.mark.parametrize("expression", [
    f"[?{A}.?model].size() <= 1",  # an optional select: optional_type(dyn), whose parameter is there
    "[?optional.none(), ?optional.of(dyn(1))].size() == 1",
    '"%s".format([[?dyn(1)]]) == "[]"',  # format()'s arguments are exempt from the validator
])
def test_optional_entries_that_hold_a_type_parameter_pass(expression: str) -> None:
    assert celext.compile(expression) is not None


@pytest.mark.parametrize(("expression", "message"), [
    ("[?1] == []", "expected type 'optional_type(int)' but found 'int'"),
    ('{?"a": 1} == {}', "expected type 'optional_type(int)' but found 'int'"),
    ("[?[1]] == []", "expected type 'optional_type(list(int))' but found 'list(int)'"),
])
def test_a_plain_value_as_an_optional_entry_names_the_optional_of_its_type(expression: str, message: str) -> None:
    """cel-go's checkCreateList/checkCreateMap: typeMismatch(NewOptionalType(found), found)."""
    with pytest.raises(celext.CompileError) as refused:
        celext.compile(expression)
    assert refused.value.message == message
