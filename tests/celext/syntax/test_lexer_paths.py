"""The lexer's two paths give the same tokens: `tokenize` (one `findall`, kinds told from the texts) and `scan`
(one match at a time, the path for a text with a character no token starts with)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from celext.syntax.lexer import scan, tokenize

# Pieces that meet at every boundary the two paths treat differently: signs after operands, number forms,
# string prefixes and quotes, escapes, comments, newlines.
PIECES = ["a", "b", "r", "R", "B", "x", "u", "U", "e", "_", "0", "1", "9", ".", "-", "+", " ", "\n", "\t", "'", '"',
          "'''", '"""', "\\", "\\n", "\\x4", "//", "/", "0x", "1e5", "1.5", "&&", "||", "==", "!", "<", ">", "(",
          ")", "[", "]", "{", "}", "?", ":", ",", "in", "true", "null", "é", "`", "#"]


@pytest.mark.parametrize("text", [
    "a-1", "a -1", "-1", "1-1", "1--1", "x[-1]", "(-1)", "-.5", "a-.5", "0x1e5", "1e5u", "1.5e-3u", "b'x\ny'",
    "r'a\\'", "'''a\nb''' + x", "b'''a\nb'''\n+x", "br'a'", "Rb\"x\"", "0xFFu", "-0x1", "x // c\n y", "true-1",
    "null-1", "}-1", "]-1", ")-1", "x-0x10u", "42.charAt(2)", "inx in y", "a\n\n  -1", "'unterminated", "a ` b",
    "\"\\q\"",
])
def test_tokenize_is_the_scan(text: str) -> None:
    assert tokenize(text) == scan(text)


def test_tokens_with_positions() -> None:
    assert tokenize("a-1 &&\n  -2u") == [
        ("IDENT", "a", 0, 1, 1), ("-", "-", 1, 1, 2), ("INT_LIT", "1", 2, 1, 3), ("&&", "&&", 4, 1, 5),
        ("-", "-", 9, 2, 3), ("UINT_LIT", "2u", 10, 2, 4)]  # a uint has no sign: `-` negates it


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=12).map("".join))
def test_tokenize_is_the_scan_on_generated_texts(text: str) -> None:
    assert tokenize(text) == scan(text)
