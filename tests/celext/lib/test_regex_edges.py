"""The Kubernetes regex library at its edges: findAll's limit below, at and past the number of matches, and
a bad pattern in each function."""

from __future__ import annotations

import pytest

from tests.celext.lib.engines import ENGINES, outcome_on

# A constant pattern is compiled with the program, as the Kubernetes regex library's OptimizeRegex does.
_REFUSED = "program instantiation failed: error parsing regexp: "


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('"a1b2c3".findAll("[0-9]", 1) == ["1"] && "a1b2c3".findAll("[0-9]", 2) == ["1", "2"]', True),
        ('"a1b2c3".findAll("[0-9]", 3) == ["1", "2", "3"] && "a1b2c3".findAll("[0-9]", 4) == ["1", "2", "3"]', True),
        ('"a1b2c3".findAll("[0-9]", -1) == ["1", "2", "3"] && "a1b2c3".findAll("[0-9]", -2) == ["1", "2", "3"]', True),
        ('"abc".findAll("(") == []', f"compile: {_REFUSED}missing closing ): `(`"),
        ('"abc".findAll("(", 1) == []', f"compile: {_REFUSED}missing closing ): `(`"),
        ('"abc".findAll("(", 0) == []', f"compile: {_REFUSED}missing closing ): `(`"),  # the pattern is read first
        ('"abc".find("[") == ""', f"compile: {_REFUSED}missing closing ]: `[`"),
        ('"aXbX".find("X") == "X" && "ab".find("X") == ""', True),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_regex_edges(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression) == expected


# Go's regexp tries a match only where a character starts; RE2 tries every byte, and `\\B` holds between two
# bytes of one multi-byte character. Expected values are Go's (regexp.MatchString / FindString / FindAllString).
_WIDE = {"name": "x", "attributes": {"dra.example.com/s": {"string": "a日a"}}}


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('device.attributes["dra.example.com"].s.matches("\\\\B")', False),
        ('device.attributes["dra.example.com"].s.findAll("\\\\B") == []', True),
        ('device.attributes["dra.example.com"].s.find("\\\\B.") == ""', True),
        ('"\u65e5\u65e5".findAll("\\\\B").size() == 3', True),  # at 0, between the two, at the end: 3 not 7
        ('"Aς}".findAll("\\\\B").size() == 2', True),
        ('"\u65e5".findAll("") == ["", ""] && "h\u00e9llo".findAll("", 2) == ["", ""]', True),
        ('"baaa".findAll("a*") == ["", "aaa"] && "aaa".findAll("a*") == ["aaa"]', True),
        ('"ab cd".findAll("\\\\b") == ["", "", "", ""]', True),
        ('"h\u00e9llo".findAll(".") == ["h", "\u00e9", "l", "l", "o"]', True),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_empty_matches_at_character_starts(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression, _WIDE) == expected


# Patterns RE2 compiles and Go's regexp/syntax refuses, and RE2's texts in Go's words.
@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        # Go's parseInt gives up on a count of ten digits or more; RE2 reads the braces as literal text
        ('"a".find("a{9999999999}") == ""', f"compile: {_REFUSED}invalid repeat count: `{{9999999999}}`"),
        ('"a".find("a{1,99999999999}") == ""', f"compile: {_REFUSED}invalid repeat count: `{{1,99999999999}}`"),
        ('"a".find("a{99999999999,}") == ""', f"compile: {_REFUSED}invalid repeat count: `{{99999999999,}}`"),
        ('"a".find("a{999999999}") == ""', f"compile: {_REFUSED}invalid repeat count: `{{999999999}}`"),
        ('"a{0123456789}".find("a{0123456789}") == "a{0123456789}"', True),  # a leading zero: literal in both
        ('"a{1,}".find("\\\\Qa{1,99999999999}\\\\E") == ""', True),
        ('"a".find("[{99999999999}]") == ""', True),
        # capture names are ASCII letters, digits and _ in Go
        ('"a".find("(?P<\u00f1>a)") == ""', f"compile: {_REFUSED}invalid named capture: `(?P<\u00f1>`"),
        ('"a".find("(?P<n_1>a)") == "a"', True),
        ('"a".matches("(?P<\u00f1>a)")', "compile: invalid matches argument"),
        ('"a".find("a|*") == ""', f"compile: {_REFUSED}missing argument to repetition operator: `*`"),
        ('"a".find("**") == ""', f"compile: {_REFUSED}missing argument to repetition operator: `*`"),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_go_refusals(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression) == expected
