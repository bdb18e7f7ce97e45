"""cel-go strings extension (version 2)."""

from __future__ import annotations

import pytest

from tests.celext.outcome import outcome

MODEL = 'device.attributes["gpu.example.com"].model'


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        (f'{MODEL}.lowerAscii().startsWith("a100")', True),
        ('"ÄbC".lowerAscii() == "Äbc" && "abc".upperAscii() == "ABC"', True),   # ASCII only
        (f'{MODEL}.indexOf("100") == 1 && "abcabc".indexOf("c", 3) == 5 && "abc".indexOf("") == 0', True),
        ('"abcabc".lastIndexOf("b") == 4 && "abcabc".lastIndexOf("b", 3) == 1', True),
        ('"abc".indexOf("a", 4) == -1', True),  # cel-go v0.26 indexOfOffset: past the end finds nothing
        ('"héllo".charAt(1) == "é" && "abc".charAt(3) == ""', True),
        ('"abc".charAt(4) == ""', "eval: index out of range: 4"),
        ('"hello".substring(1, 3) == "el" && "hello".substring(3) == "lo"', True),
        ('"hello".substring(3, 1) == ""', "eval: invalid substring range. start: 3, end: 1"),
        ('"a,b,c".split(",") == ["a", "b", "c"] && "a,b,c".split(",", 2) == ["a", "b,c"]', True),
        ('dyn("a,b,c".split(",")).join("-") == "a-b-c" && dyn(["x", "y"]).join() == "xy"', True),
        ('"aXa".replace("a", "b") == "bXb" && "aaa".replace("a", "b", 2) == "bba"', True),
        ('"  x \\t".trim() == "x"', True),
        # Go's strings.TrimSpace: Unicode White_Space (U+3000, U+0085 go), not U+001C-U+001F (Python's strip() does)
        ('"\\u3000\\u0085x\\u2028".trim() == "x" && "\\x1fx\\x1c".trim() == "\\x1fx\\x1c"', True),
        ('"%s-%d-%.2f".format(["a", 3, 1.5]) == "a-3-1.50" && "100%%".format([]) == "100%"', True),
        ('"%d".format(dyn(["x"])) == ""',
         "eval: error during formatting: decimal clause can only be used on integers, was given string"),
        ('strings.quote("a\\"b") == "\\"a\\\\\\"b\\""', True),
        ('device.attributes["gpu.example.com"].services.split("example").size() >= 2',
         "eval: no such key: services"),
    ],
)
def test_strings(expression: str, expected: bool | str) -> None:
    assert outcome(expression) == expected
