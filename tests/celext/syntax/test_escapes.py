"""String and bytes escapes as cel-go reads them: an escape outside ESC_SEQ stops the lexer (`token recognition
error at: '<text through the offending character>'` at the token start), a lexed escape that does not decode is
the parser's unescape error at the literal (parser/unescape.go). Refused at compile, never at evaluation."""

from __future__ import annotations

import pytest

import celext
from celext.errors import CompileError
from celext.syntax import literals

DEVICE = {"name": "x"}


def _refusal(expression: str) -> tuple[str, int | None, int | None]:
    with pytest.raises(CompileError) as raised:
        celext.compile(expression)
    return raised.value.message, raised.value.line, raised.value.column


@pytest.mark.parametrize(("expression", "expected"), [
    ("'\\a\\b\\f\\n\\r\\t\\v\\\\\\'\\\"\\`\\?' == "
     "'\\x07\\x08\\x0c\\x0a\\x0d\\x09\\x0b\\x5c\\x27\\x22\\x60\\x3f'", True),
    ("'\\x41\\X4a\\101\\u00e9\\U0001F600' == 'AJAé😀'", True),
    ("'\\000\\377' == '\\u0000\\u00ff'", True),  # octal in a string names a code point; \377 is the largest
    ("b'\\000\\377\\xff\\X41' == bytes('\\u0000') + b'\\xff\\xffA'", True),  # in bytes, octal and \x are bytes
    ("size(b'\\377') == 1 && size('\\377') == 1 && size(bytes('\\377')) == 2", True),
    ("r'\\q\\u' == '\\\\q\\\\u' && R\"\\xZ\" == '\\\\xZ'", True),  # raw strings: no escapes
    ("br'\\u00e9' == b'\\\\u00e9' && Br'\\q' == b'\\\\q'", True),
    ("'''a\\nb\\tc''' == \"\"\"a\nb\\x09c\"\"\"", True),
    ("'\\uD7FF\\uE000\\U0010FFFF' != ''", True),  # just outside the surrogates, the last code point
])
def test_valid_escapes(expression: str, expected: bool) -> None:
    assert celext.compile(expression).evaluate(DEVICE, driver="d") is expected


@pytest.mark.parametrize(("expression", "message", "column"), [
    # not an escape cel-go's lexer knows: the text through the offending character, at the quote
    ("'\\q' == 'q'", "Syntax error: token recognition error at: ''\\q'", 1),
    ("device.driver == \"\\xFh\"", "Syntax error: token recognition error at: '\"\\xFh'", 18),
    ("'ab\\4x' == ''", "Syntax error: token recognition error at: ''ab\\4'", 1),  # octal starts with 0-3
    ("'\\08' == ''", "Syntax error: token recognition error at: ''\\08'", 1),  # three octal digits
    ("'\\01' == ''", "Syntax error: token recognition error at: ''\\01''", 1),
    ("'\\u12' == ''", "Syntax error: token recognition error at: ''\\u12''", 1),  # four hex digits
    ("'\\U0001F60' == ''", "Syntax error: token recognition error at: ''\\U0001F60''", 1),  # eight
    ("'\\x4' == ''", "Syntax error: token recognition error at: ''\\x4''", 1),  # two
    ("'\\N{DIGIT ONE}' == ''", "Syntax error: token recognition error at: ''\\N'", 1),  # not Python's escapes
    ("'a\tb\\c' == ''", "Syntax error: token recognition error at: ''a\\tb\\c'", 1),  # a tab shown as ANTLR does
    # `b` lexes as an identifier and `''` as an empty string before the bad token, as ANTLR backs up
    ("b'\\q' == b''", "Syntax error: token recognition error at: ''\\q'", 2),
    ("'''\\q''' == ''", "Syntax error: token recognition error at: ''\\q'", 3),
    # lexed, but no code point or byte: cel-go's unescape texts, at the literal
    ("'\\udead' == ''", "invalid unicode code point", 1),
    ("'\\uD800' == ''", "invalid unicode code point", 1),
    ("'ok' == '\\U00110000'", "invalid unicode code point", 9),
    ("b'\\u00e9' == b''", "unable to unescape string", 1),  # \u and \U are not bytes
    ("b'\\U0001F600' == b''", "unable to unescape string", 1),
    ("[" + "'a', " * 20 + "'\\udead'] == []", "invalid unicode code point", 102),  # inside a long constant list
])
def test_invalid_escapes_are_refused_at_compile(expression: str, message: str, column: int) -> None:
    assert _refusal(expression) == (message, 1, column)


def test_the_first_error_by_position_wins() -> None:
    assert _refusal("1 + + '\\q'")[0] == "Syntax error: unexpected '+'"
    assert _refusal("'\\q' + + 1")[0] == "Syntax error: token recognition error at: ''\\q'"


def test_an_unterminated_string_is_not_an_escape_error() -> None:
    assert _refusal("'abc") == ("Syntax error: unexpected \"'abc\"", 1, 1)
    assert _refusal("'\\\"") == ("Syntax error: unexpected " + repr("'\\\""), 1, 1)


def test_the_reference_engine_refuses_the_same() -> None:
    with pytest.raises(CompileError, match=r"^unable to unescape string \(line 1, column 1\)$"):
        celext.compile("b'\\u0041' == b'A'", engine="reference")


@pytest.mark.parametrize(("text", "message"), [
    ("'\\q'", literals.UNESCAPE), ("'\\0'", literals.BAD_OCTAL), ("'\\08'", literals.BAD_OCTAL),
    ("'\\uDFFF'", literals.BAD_CODE_POINT), ("b'\\u0041'", literals.UNESCAPE), ("b'\\q'", literals.UNESCAPE),
])
def test_decoders_use_cel_go_texts(text: str, message: str) -> None:
    decode = literals.decode_bytes if text.startswith("b") else literals.decode_string
    with pytest.raises(ValueError, match=f"^{message}$"):
        decode(text)
