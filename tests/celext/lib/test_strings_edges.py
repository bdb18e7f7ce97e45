"""cel-go strings extension at its edges: every index checked at -1, at the length and one past it."""

from __future__ import annotations

import pytest

from tests.celext.lib.engines import ENGINES, outcome_on


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('"abc".charAt(0) == "a"', True),
        ('"abc".charAt(-1) == ""', "eval: index out of range: -1"),
        ('"abc".indexOf("", 3) == 3 && "abc".indexOf("c", 3) == -1', True),  # offset at the length is allowed
        ('"abc".indexOf("a", -1) == 0', "eval: index out of range: -1"),
        ('"abc".lastIndexOf("c", 2) == 2 && "abc".lastIndexOf("c", 3) == -1', True),  # at the length: nothing
        ('"abc".indexOf("", 10) == 10 && "abc".indexOf("", -1) == -1 && "abc".lastIndexOf("", 99) == 99', True),
        ('"abcabc".lastIndexOf("bc", 4) == 4 && "abcabc".lastIndexOf("bc", 0) == -1', True),  # match starts at offset
        ('"abcabc".lastIndexOf("ab", 0) == 0 && "abcabc".lastIndexOf("bc") == 4', True),
        ('"abc".lastIndexOf("a", -1) == 0', "eval: index out of range: -1"),
        ('"abc".lastIndexOf("a", 4) == -1', True),  # cel-go v0.26 lastIndexOfOffset: past the end finds nothing
        ('"aaa".replace("a", "b", 0) == "aaa"', True),  # a count of 0 replaces nothing
        ('"aaa".replace("a", "b", 1) == "baa" && "aaa".replace("a", "b", -1) == "bbb"', True),
        ('"a,b,c".split(",", 0) == [] && "a,b,c".split(",", 1) == ["a,b,c"]', True),
        ('"a,b,c".split(",", -1) == ["a", "b", "c"]', True),
        ('"abc".split("") == ["a", "b", "c"] && "abc".split("", -1) == ["a", "b", "c"]', True),
        ('"abc".split("", 1) == ["abc"] && "abc".split("", 2) == ["a", "bc"]', True),
        ('"abc".split("", 3) == ["a", "b", "c"] && "abc".split("", 4) == ["a", "b", "c"]', True),
        ('"abc".substring(3) == "" && "abc".substring(1, 1) == "" && "abc".substring(0, 3) == "abc"', True),
        ('"abc".substring(-1) == ""', "eval: index out of range: -1"),
        ('"abc".substring(4) == ""', "eval: index out of range: 4"),
        ('"abc".substring(0, 4) == ""', "eval: index out of range: 4"),
        ('"abc".substring(-1, 2) == ""', "eval: index out of range: -1"),
        # cel-go substrRange refuses a reversed range before it checks either index
        ('"abc".substring(0, -1) == ""', "eval: invalid substring range. start: 0, end: -1"),
        ('"abc".substring(5, 1) == ""', "eval: invalid substring range. start: 5, end: 1"),
        ('"abc".substring(-1, -2) == ""', "eval: invalid substring range. start: -1, end: -2"),
        ('"abc".substring(4, 4) == ""', "eval: index out of range: 4"),
        ('dyn([1]).join() == ""', "eval: join: invalid input: 1"),  # cel-go joinValSeparator's %v
        ('dyn(["a", 1]).join("-") == ""', "compile: expected type 'string' but found 'int'"),
        ('strings.quote("\\a\\b\\f\\n\\r\\t\\v\\\\\\"x")'
         ' == "\\"\\\\a\\\\b\\\\f\\\\n\\\\r\\\\t\\\\v\\\\\\\\\\\\\\"x\\""', True),
        ('"AZaz@[`{".lowerAscii() == "azaz@[`{" && "AZaz@[`{".upperAscii() == "AZAZ@[`{"', True),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_strings_edges(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression) == expected
