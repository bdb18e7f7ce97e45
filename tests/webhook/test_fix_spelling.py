"""webhook.fix spells each replacement for its scalar's style and replaces exactly the source characters that
spell the edited value characters (escapes, doubled quotes), whatever the style."""

from __future__ import annotations

import pytest

from tests.webhook.test_fix import fix
from webhook.findings import Edit

UNMAPPED = "its YAML spelling could not be mapped"


@pytest.mark.parametrize(("text", "edit", "expected"), [
    # The last edited value character is an escape: all of its source characters are replaced.
    ('x: "a == \\x41"\n', Edit(5, 6, "B"), 'x: "a == B"\n'),
    ('x: "a == \\u0041"\n', Edit(5, 6, "B"), 'x: "a == B"\n'),
    ('x: "a == \\U00000041"\n', Edit(5, 6, "B"), 'x: "a == B"\n'),
    ('x: "a == \\n"\n', Edit(5, 6, "B"), 'x: "a == B"\n'),
    ('x: "\\x41 == b"\n', Edit(0, 1, "C"), 'x: "C == b"\n'),
    ('x: "a == \\x41"\n', Edit(2, 4, "!="), 'x: "a != \\x41"\n'),  # an escape after the edit stays as written
    ("x: 'a == ''q'''\n", Edit(5, 8, "'r'"), "x: 'a == ''r'''\n"),
    ("x: 'a == b'''\n", Edit(5, 7, "c"), "x: 'a == c'\n"),
])
def test_escapes_and_doubled_quotes_are_replaced_whole(text: str, edit: Edit, expected: str) -> None:
    assert fix(text, [edit]) == (expected, 1, [])


@pytest.mark.parametrize(("text", "replacement", "expected"), [
    # Flow styles: a line break in the replacement is a space (CEL reads it so), quotes and backslashes escaped.
    ("x: 'a == b'\n", "c\n  d", "x: 'a == c d'\n"),
    ("x: 'a == b'\n", "c\n\td", "x: 'a == c d'\n"),
    ("x: 'a == b'\n", "'c'", "x: 'a == ''c'''\n"),
    ('x: "a == b"\n', 'c\n  "d\\e"', 'x: "a == c \\"d\\\\e\\""\n'),
    ("x: a == b\n", "c\n   d", "x: a == c d\n"),
    ("x: a == b\n", "c:d", "x: a == c:d\n"),
    ("x: a == b\n", "c#d", "x: a == c#d\n"),
    # Block styles: later lines take the block's indentation.
    ("x: |-\n    a == b\n    && c\ny: 1\n", "d\n&& e", "x: |-\n    a == d\n    && e\n    && c\ny: 1\n"),
    ("x: >-\n  a == b\ny: 1\n", "d\n  && e", "x: >-\n  a == d\n    && e\ny: 1\n"),
    ("x: |\n      a == b\n", "d\ne", "x: |\n      a == d\n      e\n"),
])
def test_each_style_spells_the_replacement(text: str, replacement: str, expected: str) -> None:
    assert fix(text, [Edit(5, 6, replacement)]) == (expected, 1, [])


@pytest.mark.parametrize("replacement", ["c: d", "c #d", "c\n#d"])
def test_a_plain_scalar_is_not_ended_early_by_a_replacement(replacement: str) -> None:
    assert fix("x: a == b\n", [Edit(5, 6, replacement)]) == ("x: a == b\n", 0, [UNMAPPED])


def test_quoted_styles_may_hold_what_a_plain_scalar_cannot() -> None:
    assert fix("x: 'a == b'\n", [Edit(5, 6, "c: #d")]) == ("x: 'a == c: #d'\n", 1, [])
    assert fix('x: "a == b"\n', [Edit(5, 6, "c: #d")]) == ('x: "a == c: #d"\n', 1, [])
