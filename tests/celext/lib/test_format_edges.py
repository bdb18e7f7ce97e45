"""`<string>.format(<list>)` (cel-go's strings v2 formatter): every clause, its refusals and each value `%s`
prints, inside and outside lists and maps."""

from __future__ import annotations

import time

import pytest

from tests.celext.lib.engines import ENGINES, outcome_on

E = "eval: error during formatting: "


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('"%s|%s|%s".format([null, true, false]) == "null|true|false"', True),
        ('"%s".format([1.5]) == "1.5" && "%s".format([100.0]) == "100" && "%s".format([-0.0]) == "-0"', True),
        ('"%s".format([1e21]) == "1e+21" && "%s".format([-1e21]) == "-1e+21" && "%s".format([1e20]) == "1e+20"', True),
        ('"%s".format([1e-7]) == "1e-07" && "%s".format([1.5e300]) == "1.5e+300"', True),
        ('"%s".format([0.0001]) == "0.0001" && "%s".format([0.00001]) == "1e-05"', True),
        ('"%s".format([double("NaN")]) == "NaN" && "%s".format([[double("NaN")]]) == "[\\"NaN\\"]"', True),
        ('"%s".format([double("Infinity")]) == "+Inf" && "%s".format([double("-Infinity")]) == "-Inf"', True),
        ('"%s".format([[double("Infinity")]]) == "[\\"+Inf\\"]" && "%s".format([[-1.5]]) == "[-1.500000]"', True),
        ('"%s".format([b"hi"]) == "hi"', True),
        ('"%s".format([timestamp("2023-01-02T03:04:05.5Z")]) == "2023-01-02T03:04:05.5Z"', True),
        ('"%s".format([[timestamp("2023-01-02T03:04:05Z")]]) == "[timestamp(\\"2023-01-02T03:04:05Z\\")]"', True),
        ('"%s".format([duration("2h")]) == "7200s" && "%s".format([[duration("2h")]]) == "[duration(\\"7200s\\")]"',
         True),
        ('"%s".format([int]) == "int" && "%s".format([type(1)]) == "int"', True),
        ('"%s".format([[true]]) == "[true]" && "%s".format([{true: 1}]) == "{true:1}"', True),
        ('"%s".format([{"a": b"x"}]) == "{\\"a\\":b\\"x\\"}"', True),
        ('"%s".format([["\\u0001"]]) == "[\\"\\\\x01\\"]" && "%s".format([["\\u0085"]]) == "[\\"\\\\u0085\\"]"', True),
        ('"%s".format([["\\U000E0001"]]) == "[\\"\\\\U000e0001\\"]"', True),
        ('"%s".format([["a\\"b\\\\\\n"]]) == "[\\"a\\\\\\"b\\\\\\\\\\\\n\\"]"', True),
        ('"%s".format(["\\u0001\\u00ff\\U0001F600"]) == "\\u0001\\u00ff\\U0001F600"', True),  # %s never escapes
        ('"%s".format([{2: "b", 1: "a", 3: "c"}]) == "{1:\\"a\\", 2:\\"b\\", 3:\\"c\\"}"', True),  # sorted by key
        ('"%s".format([{"b": 1, "a": 2}]) == "{\\"a\\":2, \\"b\\":1}" && "%s".format([{2u: 1}]) == "{2:1}"', True),
        ('"%s".format(dyn([{1.5: 1}])) == ""', E + "no formatting function for map key of type double"),
        ('"%s".format(dyn([optional.none()])) == ""',
         E + "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, "
             "durations, and timestamps, was given optional_type"),
        ('"%d %d".format([-3, 4u]) == "-3 4"', True),
        ('"%d".format(dyn([true])) == ""', E + "decimal clause can only be used on integers, was given bool"),
        ('"%f".format([1.0]) == "1.000000" && "%.2f".format([1.005]) == "1.00" && "%.0f".format([2.5]) == "2"', True),
        # %f and %e through x/text's message printer for en-US (cel-go ext/formatting_test.go, StringsVersion(3))
        ('"%e".format([1234.5]) == "1.234500\u202f×\u202f10⁰³"', True),
        ('"%.3e".format([1234.5]) == "1.234500\u202f×\u202f10⁰³"', True),
        ('"%e".format([0.00001]) == "1.000000\u202f×\u202f10⁻⁰⁵"', True),
        ('"%e".format([2.71828]) == "2.718280\u202f×\u202f10⁰⁰"', True),
        ('"%f".format(["NaN"]) == "NaN" && "%f".format(["Infinity"]) == "∞"', True),
        ('"%f".format(["-Infinity"]) == "-∞" && "%f".format([double("NaN")]) == "NaN"', True),
        ('"%e".format([double("Infinity")]) == "∞" && "%e".format([double("-Infinity")]) == "-∞"', True),
        ('"%.2f".format([1234567.891]) == "1,234,567.89" && "%.1f".format([999.96]) == "1,000.0"', True),
        ('"%.3f".format([-1234.5]) == "-1,234.500" && "%f".format([999.5]) == "999.500000"', True),
        ('"%f".format(dyn([1])) == ""', E + "fixed-point clause can only be used on doubles, was given int"),
        ('"%e".format(dyn(["x"])) == ""', E + "scientific clause can only be used on doubles, was given string"),
        ('"%b".format([5]) == "101" && "%b".format([true]) == "1" && "%b".format([5u]) == "101"', True),
        ('"%b".format(dyn([1.0])) == ""', E + "only integers and bools can be formatted as binary, was given double"),
        ('"%o".format([8]) == "10" && "%o".format([8u]) == "10"', True),
        ('"%o".format(dyn([true])) == ""', E + "octal clause can only be used on integers, was given bool"),
        ('"%x".format([255]) == "ff" && "%X".format([255]) == "FF" && "%x".format(["hi"]) == "6869"', True),
        ('"%X".format([b"\\xff"]) == "FF"', True),
        ('"%x".format(dyn([1.5])) == ""',
         E + "only integers, byte buffers, and strings can be formatted as hex, was given double"),
        ('"%x".format(dyn([true])) == ""',
         E + "only integers, byte buffers, and strings can be formatted as hex, was given bool"),
        # cel-go v0.26 parseFormatString's own errors (not "error during formatting"), in its order: the argument
        # first, then the end of the string, then the clause
        ('"%q".format(dyn([1])) == ""', 'eval: could not parse formatting clause: unrecognized formatting clause "q"'),
        ('"%é".format(dyn([1])) == ""', 'eval: could not parse formatting clause: unrecognized formatting clause "Ã"'),
        ('"%s %s".format(dyn(["a"])) == ""', "eval: index 1 out of range"),
        ('"%".format(dyn([])) == ""', "eval: index 0 out of range"),
        ('"ab%".format(dyn([1])) == ""', "eval: unexpected end of string"),
        ('"%.3".format(dyn([1.0])) == ""',
         "eval: could not parse formatting clause: error while parsing precision: could not find end of precision "
         "specifier"),
        ('"%.f".format(dyn([1.0])) == ""',
         'eval: could not parse formatting clause: error while parsing precision: error while converting precision '
         'to integer: strconv.Atoi: parsing "": invalid syntax'),
        ('"%.99999999999999999999f".format(dyn([1.0])) == ""',
         'eval: could not parse formatting clause: error while parsing precision: error while converting precision '
         'to integer: strconv.Atoi: parsing "99999999999999999999": value out of range'),
        ('"%.0f|%.00f".format(dyn([2.5, 3.5])) == "2|4"', True),
        ('"%s".format(dyn([1, 2])) == "1"', True),  # the run time takes what it needs; only the validator counts
        ('"a%%b%s".format(["c"]) == "a%bc"', True),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_format_edges(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression) == expected


@pytest.mark.parametrize(("number", "text"), [
    ("999999.0", "999999"), ("999999.5", "999999.5"), ("1000000.0", "1e+06"), ("1234567.0", "1.234567e+06"),
    ("-1000000.0", "-1e+06"), ("0.0001", "0.0001"), ("0.00001", "1e-05"), ("100000.0", "100000"), ("-0.0", "-0"),
])
@pytest.mark.parametrize("engine", ENGINES)
def test_format_a_double_as_go_does(engine: str, number: str, text: str) -> None:
    """cel-go's %s of a double is strconv.FormatFloat(f, 'g', -1, 64): exponent form from 1e6 and below 1e-4."""
    assert outcome_on(engine, f'"%s".format([{number}]) == "{text}"') is True


@pytest.mark.parametrize("engine", ENGINES)
def test_timestamps_print_in_utc_whatever_the_servers_zone(engine: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "IST-5:30")  # a POSIX zone string: no tz database needed
    time.tzset()
    try:
        assert outcome_on(engine, '"%s".format([timestamp("2024-05-06T22:45:01.25Z")]) == "2024-05-06T22:45:01.25Z"')
    finally:
        monkeypatch.undo()
        time.tzset()


@pytest.mark.parametrize(("expression", "text"), [
    ("string(123456.0)", "123456"), ("string(1000000.0)", "1e+06"), ("string(123.456)", "123.456"),
    ("string(1.0)", "1"), ("string(-0.0)", "-0"), ("string(0.00001)", "1e-05"), ("string(true)", "true"),
    ("string(false)", "false"), ("string(1)", "1"), ("string(2u)", "2"), ('string("x")', "x"),
])
@pytest.mark.parametrize("engine", ENGINES)
def test_string_writes_values_as_cel_go_does(engine: str, expression: str, text: str) -> None:
    """cel-go's string(): a double through Go's %g (common/types/double.go), a bool as `true`/`false`."""
    assert outcome_on(engine, f'{expression} == "{text}"') is True
