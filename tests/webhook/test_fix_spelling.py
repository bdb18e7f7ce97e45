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
    # Flow styles: a line break of the value is an empty line (single quotes, plain) or `\n` (double quotes), so
    # one inside a CEL string literal stays one; quotes, backslashes and control characters are escaped.
    ("x: 'a == b'\n", "c\nd", "x: 'a == c\n\n  d'\n"),
    ("x: 'a == b'\n", "c\n\nd", "x: 'a == c\n\n\n  d'\n"),
    ("x: 'a == b'\n", "'c'", "x: 'a == ''c'''\n"),
    ('x: "a == b"\n', 'c\n  "d\\e"\t\x01', 'x: "a == c\\n  \\"d\\\\e\\"\\t\\u0001"\n'),
    ("x: a == b\n", "c\nd", "x: a == c\n\n  d\n"),
    ("x: a == b\n", "c:d", "x: a == c:d\n"),
    ("x: a == b\n", "c#d", "x: a == c#d\n"),
    # Block styles: later lines take the block's indentation; a folded block keeps a line break as an empty line
    # unless a more-indented line keeps it.
    ("x: |-\n    a == b\n    && c\ny: 1\n", "d\n&& e", "x: |-\n    a == d\n    && e\n    && c\ny: 1\n"),
    ("x: |-\n  a\n    bcd\n", "d\ne", "x: |-\n  a\n    bd\n  ed\n"),
    ("x: >-\n  a == b\ny: 1\n", "d\n  && e", "x: >-\n  a == d\n    && e\ny: 1\n"),
    ("x: >-\n  a == b\ny: 1\n", "d\n&& e", "x: >-\n  a == d\n\n  && e\ny: 1\n"),
    ("x: |\n      a == b\n", "d\ne", "x: |\n      a == d\n      e\n"),
])
def test_each_style_spells_the_replacement(text: str, replacement: str, expected: str) -> None:
    assert fix(text, [Edit(5, 6, replacement)]) == (expected, 1, [])


@pytest.mark.parametrize("replacement", ["c: d", "c #d", "c\n#d", "c\t#d"])
def test_a_plain_scalar_is_not_ended_early_by_a_replacement(replacement: str) -> None:
    assert fix("x: a == b\n", [Edit(5, 6, replacement)]) == ("x: a == b\n", 0, [UNMAPPED])


def test_quoted_styles_may_hold_what_a_plain_scalar_cannot() -> None:
    assert fix("x: 'a == b'\n", [Edit(5, 6, "c: #d")]) == ("x: 'a == c: #d'\n", 1, [])
    assert fix('x: "a == b"\n', [Edit(5, 6, "c: #d")]) == ('x: "a == c: #d"\n', 1, [])


@pytest.mark.parametrize("text", ["x: 'a == b'\n", "x: a == b\n"])
def test_what_a_flow_scalar_cannot_spell_exactly_is_left_alone(text: str) -> None:
    """Spaces after a line break: a single-quoted or plain scalar drops them when read (they were written as one
    space: a line break inside a CEL string literal became a space)."""
    assert fix(text, [Edit(5, 6, "c\n  d")]) == (text, 0, [
        "the rewritten YAML scalar would not read back as the fixed expression"])
