"""The parser's fast paths for long expressions: one-line texts lexed without a loop in Python, deep texts parsed
with headroom from the start, frames kept in one chunk (`headroom.roomy`), spans as tuples."""

from __future__ import annotations

import random
from typing import Any

import pytest

from celext.errors import CompileError
from celext.syntax import grammar, headroom, lexer, parser

_CASES = ["a - 1", "a -1", "-1", "1 - -1", "x[-1]", "f(-1.5e3)", "a-1", "'x' + \"y\"", "a ? b : c", "a.b.c(d)[e]",
          " ", "a $ b", "'unterminated", "a // c", "b'\\x41' r'x'", "1u + 0x1F - 2.5", "1.x", ".5", "a.?b", "[?x]",
          "'''a''' + \"\"\"b\"\"\"", "a\t&&\tb", "42.charAt(2)", "inx in y", "'\\q'", "a\nb", "'''a\nb''' + c"]


def _by_pairs(text: str) -> list[lexer.Lexeme]:
    return lexer._tokens(text, lexer._TEXTS.findall(text))


@pytest.mark.parametrize("text", _CASES)
def test_the_one_line_path_lexes_what_the_loop_lexes(text: str) -> None:
    assert lexer.tokenize(text) == _by_pairs(text)


def test_the_one_line_path_agrees_on_random_texts() -> None:
    alphabet = list("ab1 2-+.()[]{}'\"\\x!?:,<>=&|uU0eE_/\t$")
    rng = random.Random(14)
    fast = 0
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
        fast += lexer._one_line(text, lexer._TEXTS.findall(text)) is not None
        assert lexer.tokenize(text) == _by_pairs(text), text
    assert fast > 500  # (the fast path was taken, not only the fallback)


@pytest.mark.parametrize(("text", "path"), [("a - 1", True), ("a -1", False), ("a $ b", False), ("-1 + x", False)])
def test_the_one_line_path_leaves_signed_numbers_and_bad_characters_to_the_loop(text: str, path: bool) -> None:
    assert (lexer._one_line(text, lexer._TEXTS.findall(text)) is not None) is path


@pytest.mark.parametrize(("text", "depth"), [("a", 0), ("f(a)", 1), ("[(a)]", 2), ("{'a': [1]}", 2), ("((a)", 2)])
def test_nesting_counts_brackets(text: str, depth: int) -> None:
    assert parser.nesting(parser.lex(text)) == depth


@pytest.mark.parametrize(("levels", "deep"), [(parser.DEEP_NESTING, False), (parser.DEEP_NESTING + 1, True)])
def test_texts_nested_deeper_than_deep_nesting_are_parsed_with_headroom_from_the_start(
        monkeypatch: pytest.MonkeyPatch, levels: int, deep: bool) -> None:
    used: list[str] = []
    call, run_deep = headroom.call, headroom.deep

    def counting(name: str, run: Any) -> Any:
        def wrapped(fn: Any, *args: Any) -> Any:
            used.append(name)
            return run(fn, *args)
        return wrapped

    monkeypatch.setattr(headroom, "call", counting("call", call))
    monkeypatch.setattr(headroom, "deep", counting("deep", run_deep))
    text = "(" * levels + "1 == 1" + ")" * levels
    assert grammar._parse(text, lean=True).tree is not None
    assert used == (["deep"] if deep else ["call"])


def test_the_recursion_limit_error_is_unchanged_at_and_past_the_limit() -> None:
    assert grammar._parse("(" * 249 + "1" + ")" * 249, lean=True).tree is not None
    with pytest.raises(CompileError) as err:
        grammar._parse("(" * 250 + "1" + ")" * 250, lean=True)
    assert err.value.message == "expression recursion limit exceeded: 250"


def test_roomy_returns_the_result_and_raises_the_error() -> None:
    assert headroom.roomy(lambda a, b: a + b, 2, 3) == 5
    with pytest.raises(ZeroDivisionError):
        headroom.roomy(lambda: 1 // 0)


def test_spans_are_tuples_with_the_meta_attributes() -> None:
    tree = parser.parse_sized("device.driver == 'a'", lean=True).tree
    meta = tree.meta
    assert isinstance(meta, tuple) and meta.empty is False
    assert (meta.line, meta.column, meta.start_pos, meta.end_line, meta.end_column, meta.end_pos) == (1, 1, 0, 1, 21,
                                                                                                      20)
    assert parser._NO_POSITION.line is None and parser._NO_POSITION.empty is False
