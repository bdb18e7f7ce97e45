"""`"...".format([...])` judged at compile time: cel-go's stringFormatValidator (the strings extension at the version
Kubernetes declares adds it), with upstream's texts and positions: the element for a clause's type error, the call's
`(` for the rest."""

from __future__ import annotations

import pytest

from tests.celext.lib.engines import ENGINES, outcome_on
from tests.celext.outcome import refusal

A = 'device.attributes["gpu.example.com"]'
E = "error during formatting: "
STRING_CLAUSE = ("string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, "
                 "durations, and timestamps, was given ")


@pytest.mark.parametrize(("expression", "message", "column"), [
    ('"%d".format(["x"]) == ""', E + "decimal clause can only be used on integers, was given string", 14),
    ('"%d %d".format([1, true]) == ""', E + "decimal clause can only be used on integers, was given bool", 20),
    ('"%o".format([1.5]) == ""', E + "octal clause can only be used on integers, was given double", 14),
    ('"%f".format([1]) == ""', E + "fixed-point clause can only be used on doubles, was given int", 14),
    ('"%e".format([true]) == ""', E + "scientific clause can only be used on doubles, was given bool", 14),
    ('"%b".format(["x"]) == ""', E + "only integers and bools can be formatted as binary, was given string", 14),
    ('"%x".format([1.5]) == ""',
     E + "only integers, byte buffers, and strings can be formatted as hex, was given double", 14),
    ('"%X".format([[1]]) == ""',
     E + "only integers, byte buffers, and strings can be formatted as hex, was given list", 14),
    # %s looks into list and map literals: the element it refuses is where the error is
    ('"%s".format([quantity("1")]) == ""', E + STRING_CLAUSE + "kubernetes.Quantity", 22),
    ('"%s".format([[1, semver("1.0.0")]]) == ""', E + STRING_CLAUSE + "kubernetes.Semver", 24),
    ('"%s".format([{"a": optional.none()}]) == ""', E + STRING_CLAUSE + "optional_type", 33),
    ('"%s".format([ip("1.2.3.4")]) == ""', E + STRING_CLAUSE + "net.IP", 16),
    # parseFormatString's own errors, at the call
    ('"%s %s".format([1]) == ""', "index 1 out of range", 15),
    ('"%".format([]) == ""', "unexpected end of string", 11),  # the validator asks for no argument first
    ('"%q".format([1]) == ""', 'could not parse formatting clause: unrecognized formatting clause "q"', 12),
    ('"%.2".format([1.0]) == ""',
     "could not parse formatting clause: error while parsing precision: could not find end of precision specifier",
     13),
    # every clause fine, arguments left over
    ('"%s".format([1, 2]) == ""', "too many arguments supplied to string.format (expected 1, got 2)", 12),
    ('"100%%".format([1]) == ""', "too many arguments supplied to string.format (expected 0, got 1)", 15),
])
@pytest.mark.parametrize("engine", ENGINES)
def test_a_format_call_is_refused_where_upstream_says(engine: str, expression: str, message: str,
                                                       column: int) -> None:
    assert refusal(expression, engine=engine) == (message, 1, column)


@pytest.mark.parametrize(("expression", "expected"), [
    ('"%s-%d-%.2f-%x-%b-%o".format(["a", 3, 1.5, "hi", true, 8u]) == "a-3-1.50-6869-1-10"', True),
    ('"%f %e".format(["NaN", "Infinity"]) == "NaN ∞"', True),  # strings are doubles' special values
    ('"%s".format([[1, "a", 2.5, null, b"x", int, duration("1s"), timestamp("2024-01-01T00:00:00Z")]]) != ""', True),
    ('"%s".format([{"a": [1], 2: {"b": true}}]) != ""', True),
    (f'"%d".format([{A}.numa]) == ""', "eval: no such key: numa"),  # an attribute is dyn: the run time judges it
    ('"%d".format([dyn("x")]) == ""',
     "eval: error during formatting: decimal clause can only be used on integers, was given string"),
    # not what the validator reads: a format string that is not a literal, an argument that is not a list literal
    (f'{A}.model.format([1]) == "A100-80GB"', True),
    ('"%d".format(dyn(["x"])) == ""',
     "eval: error during formatting: decimal clause can only be used on integers, was given string"),
    ('"%s".format(["a"] + ["b"]) == "a"', True),
    # the validators run only on a clean check: the checker's own error is the one reported
    ('"%d".format(["x"]) == "" && 1 + "b" == 2',
     "compile: found no matching overload for '_+_' applied to '(int, string)'"),
])
@pytest.mark.parametrize("engine", ENGINES)
def test_what_the_validator_leaves_to_the_run_time(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression) == expected


@pytest.mark.parametrize(("expression", "first"), [
    ('"%d".format(["x"]) == "%s".format([1, 2])', (E + "decimal clause can only be used on integers, was given string",
                                                  14)),
    ('"%s".format([1, 2]) == "%d".format(["x"])', ("too many arguments supplied to string.format (expected 1, got 2)",
                                                  12)),
])
def test_several_refused_calls_report_the_first_by_position(expression: str, first: tuple[str, int]) -> None:
    assert refusal(expression)[::2] == first
