"""Regex: CEL's matches() and the Kubernetes find()/findAll()."""

from __future__ import annotations

import pytest

import celext
from celext.regexes import go_error
from tests.celext.outcome import outcome


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('device.driver.matches("^gpu\\\\.") && matches(device.driver, "example")', True),
        ('device.attributes["gpu.example.com"].model.find("[0-9]+") == "100"', True),
        ('"abc".find("[0-9]+") == ""', True),
        ('"123 456 789".findAll("[0-9]+") == ["123", "456", "789"]', True),
        ('"123 456 789".findAll("[0-9]+", 2) == ["123", "456"] && "1 2".findAll("[0-9]", 0) == []', True),
        # Go's FindAllString: no empty match where the previous match ended (re2's Python finditer yields one)
        ('"aaa".findAll("a*") == ["aaa"] && "abab".findAll("b*") == ["", "b", "b"]', True),
        ('"abc".findAll("$") == [""] && "a1b22".findAll("[0-9]*") == ["", "1", "22"]', True),
        ('"a1b22".findAll("[0-9]*", 2) == ["", "1"] && "xyz".findAll("").size() == 4', True),
        # A constant pattern is compiled with the program (the Kubernetes regex library's OptimizeRegex): refused
        # when the selector is compiled, in Go's words (the upstream library test's text).
        ('"abc".find(")") == ""', "compile: program instantiation failed: error parsing regexp: unexpected ): `)`"),
        ('"abc".findAll(")", 1) == []',
         "compile: program instantiation failed: error parsing regexp: unexpected ): `)`"),
        ('matches("abc", "(")', "compile: program instantiation failed: error parsing regexp: missing closing ): `(`"),
        # RE2 (C++) reads `\\C` as any byte; Go's regexp refuses it, outside a \\Q...\\E literal
        ('"abc".matches("a\\\\C")', "compile: invalid matches argument"),
        ('"a\\\\C".matches("\\\\QC\\\\E") && "C".matches("\\\\\\\\C") == false', True),
        # One that is only known when the device is: an evaluation error, in Go's words too, after the regex
        # library's own prefix (apiserver library/regex.go); matches() has none (cel-go's String.Match)
        ('"abc".find(device.driver + "(") == ""',
         "eval: Illegal regex: error parsing regexp: missing closing ): `gpu.example.com(`"),
        ('"abc".findAll(device.driver + "(") == []',
         "eval: Illegal regex: error parsing regexp: missing closing ): `gpu.example.com(`"),
        ('"abc".matches(device.driver + "(")', "eval: error parsing regexp: missing closing ): `gpu.example.com(`"),
        ("int('1'.find('[0-9]*')) < 100", True),
    ],
)
def test_regex(expression: str, expected: bool | str) -> None:
    assert outcome(expression) == expected


def test_find_answers_stay_right_when_repeated() -> None:
    """find() results are cached by (pattern, text): repeats, other texts and bad patterns keep their answers."""
    for _ in range(3):
        assert outcome('"a1b22".find("[0-9]+") == "1" && "xy".find("[0-9]+") == ""') is True
        assert outcome('"abc".find(device.driver + "(") == ""') == \
            "eval: Illegal regex: error parsing regexp: missing closing ): `gpu.example.com(`"


@pytest.mark.parametrize(("expression", "column"), [
    ('device.driver.matches("(")', 23),  # the upstream validator's message, at the literal
    ('device.driver.matches("x++")', 23),  # the upstream library test's case
    ('matches("[a-", device.driver)', 9),  # cel-go's validator reads the first argument of the global form
    ('device.driver.matches("(") && device.driver.find(")") == ""', 23),  # the checker's error comes first
])
def test_a_constant_pattern_matches_refuses_is_a_compile_error_at_it(expression: str, column: int) -> None:
    with pytest.raises(celext.CompileError) as err:
        celext.compile(expression)
    assert (err.value.message, err.value.line, err.value.column) == ("invalid matches argument", 1, column)
    with pytest.raises(celext.CompileError) as err:
        celext.compile(expression, engine="reference")
    assert err.value.message == "invalid matches argument"


@pytest.mark.parametrize("expression", [
    'device.driver.matches("^gpu[.]")',
    'device.driver.matches(device.driver)',  # not a constant: judged when evaluated
    '1 + "a" == 2 && device.driver.matches("(")',  # the validators run only on a clean check: the type error wins
])
def test_what_the_validator_leaves(expression: str) -> None:
    try:
        celext.compile(expression)
    except celext.CompileError as err:
        assert err.message.startswith("found no matching overload for '_+_'")


@pytest.mark.parametrize(("pattern", "go"), [
    ("(", "missing closing ): `(`"),
    (")", "unexpected ): `)`"),
    ("[a-", "missing closing ]: `[a-`"),
    ("x++", "invalid nested repetition operator: `++`"),
    ("x{2,1}", "invalid repeat count: `{2,1}`"),
    ("[z-a]", "invalid character class range: `z-a`"),
    ("\\8", "invalid escape sequence: `\\8`"),
    ("a\\Cb", "invalid escape sequence: `\\C`"),  # RE2 (C++) reads it as any byte; Go has no such escape
    ("[\\C]", "invalid escape sequence: `\\C`"),
    ("(?i", "invalid or unsupported Perl syntax: `(?i`"),
])
def test_refusals_are_worded_as_go_regexp_words_them(pattern: str, go: str) -> None:
    assert go_error(pattern) == f"error parsing regexp: {go}"
    assert go_error("^ok[0-9]+$") is None


def test_a_refused_pattern_leaves_nothing_on_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    go_error("(((unique-to-this-test")
    assert capfd.readouterr().err == ""  # RE2 logs refusals itself unless told not to


# A device whose attribute holds the pattern: known only when the device is, so judged at run time.
PATTERNED = {"name": "dev", "attributes": {"pattern": {"string": "("}, "plus": {"string": "a+"},
                                           "count": {"int": 3}}}


@pytest.mark.parametrize(("expression", "expected"), [
    # cel-go String.Match: regexp.MatchString's error as the value, in Go's words
    ('device.driver.matches(device.attributes["gpu.example.com"].pattern)',
     "eval: error parsing regexp: missing closing ): `(`"),
    ('matches(device.driver, device.attributes["gpu.example.com"].pattern)',
     "eval: error parsing regexp: missing closing ): `(`"),
    ('"aaa".matches(device.attributes["gpu.example.com"].plus + "(")',
     "eval: error parsing regexp: missing closing ): `a+(`"),
    ('"aaa".matches(device.attributes["gpu.example.com"].plus)', True),  # unanchored, as MatchString
    ('"bbb".matches(device.attributes["gpu.example.com"].plus)', False),
    ('device.attributes["gpu.example.com"].pattern.matches("\\\\(")', True),
    # a dyn operand of another type reaches no overload
    ('device.attributes["gpu.example.com"].count.matches("3")', "eval: no such overload: matches(int, string)"),
    ('device.driver.matches(dyn(1))', "eval: no such overload: matches(string, int)"),
])
@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_a_pattern_known_only_at_run_time(engine: str, expression: str, expected: bool | str,
                                          capfd: pytest.CaptureFixture[str]) -> None:
    assert outcome(expression, PATTERNED, engine=engine) == expected
    assert capfd.readouterr().err == ""  # RE2 is told not to log the refusal itself
