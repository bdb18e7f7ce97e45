"""webhook.spans: every character of a YAML string value maps to where the file spells it, in every style."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML
from ruamel.yaml.scalarstring import (
    DoubleQuotedScalarString,
    FoldedScalarString,
    LiteralScalarString,
    SingleQuotedScalarString,
)

from webhook.fieldpath import FieldPath
from webhook.manifests import parse as _parse
from webhook.spans import LineIndex, value_offsets

STYLES = {
    "plain": str,
    "double": DoubleQuotedScalarString,
    "single": SingleQuotedScalarString,
    "literal": LiteralScalarString,
    "folded": FoldedScalarString,
}
PATH = FieldPath.root("spec", "expression")


def dump(value: str, style: str, width: int = 40) -> str:
    yaml = YAML()
    yaml.width = width
    out = io.StringIO()
    yaml.dump({"kind": "X", "spec": {"expression": STYLES[style](value)}}, out)
    return out.getvalue()


def offsets_for(text: str) -> tuple[str, list[int] | None]:
    problems: list[object] = []
    (doc,) = _parse(text, "t.yaml", problems)  # libyaml, or ruamel when the fast path declines
    assert problems == []
    value = doc.obj["spec"]["expression"]
    start = doc.scalar_start(PATH)
    assert start is not None
    return value, value_offsets(text, start, value)


def assert_consistent(text: str, value: str, offsets: list[int] | None) -> None:
    assert offsets is not None, text
    assert len(offsets) == len(value) + 1
    assert offsets == sorted(offsets)
    for char, at in zip(value, offsets, strict=False):
        spelled = text[at]
        # a character is spelled as itself, as an escape (\" \\ \n ...), or is a folded line break
        assert spelled in (char, "\\") or (char == " " and spelled == "\n"), (char, spelled, text)


CEL = st.text(
    alphabet=st.sampled_from([*list('abcXYZ019 ."\'\\[]()=!<>&|_-:#,é'), "\t"]), min_size=1, max_size=80
).filter(lambda s: s.strip() == s and "  " not in s)


@settings(deadline=None, max_examples=150)
@given(value=CEL, style=st.sampled_from(["double", "single", "literal"]), width=st.sampled_from([20, 40, 200]))
def test_every_character_maps_back(value: str, style: str, width: int) -> None:
    text = dump(value, style, width)
    loaded, offsets = offsets_for(text)
    if loaded != value:
        return  # the dumper changed the value (e.g. a block scalar cannot hold a tab at the start)
    assert_consistent(text, loaded, offsets)


@pytest.mark.parametrize("style", ["plain", "double", "single", "literal", "folded"])
def test_the_token_position_of_each_style(style: str) -> None:
    value = 'device.attributes["dra.net"].numaNode == 4 && device.driver == "dra.net"'
    text = dump(value, style, width=30)
    loaded, offsets = offsets_for(text)
    assert loaded == value
    assert_consistent(text, loaded, offsets)
    assert offsets is not None
    at = offsets[value.index("==")]
    assert text[at:at + 2] == "=="
    line, column = LineIndex(text).line_column(at)
    assert text.splitlines()[line - 1][column - 1:column + 1] == "=="


def test_crlf_and_escaped_line_break() -> None:
    text = 'kind: X\r\nspec:\r\n  expression: "a ==\\\r\n    4"\r\n'
    loaded, offsets = offsets_for(text)
    assert loaded == "a ==4"
    assert offsets is not None and text[offsets[4]] == "4"


def test_a_mismatch_answers_none() -> None:
    assert value_offsets("x: 'abc'\n", 3, "abd") is None


def counted_by_hand(text: str, offset: int) -> tuple[int, int]:
    return text.count("\n", 0, offset) + 1, offset - text.rfind("\n", 0, offset)


@settings(max_examples=200, deadline=None)
@given(st.text(st.sampled_from("ab\n\u00e9"), max_size=400), st.lists(st.integers(0, 400), max_size=40),
       st.sampled_from([1, 2, 64]))
def test_lines_and_columns_are_counted_from_the_places_counted_before(text: str, offsets: list[int], every: int,
                                                                     ) -> None:
    """Any order of offsets, checkpoints as close as every character or far apart: the line and column counted
    from the text's start."""
    index = LineIndex(text)
    index._CHECKPOINT = every  # type: ignore[misc]
    for wanted in offsets:
        offset = min(wanted, len(text))
        assert index.line_column(offset) == counted_by_hand(text, offset)


@pytest.mark.parametrize("distance", [LineIndex._CHECKPOINT - 1, LineIndex._CHECKPOINT, LineIndex._CHECKPOINT + 1])
def test_a_place_far_down_one_long_line_is_remembered_at_the_checkpoint_distance(distance: int) -> None:
    text = "x\n" + "a" * (2 * LineIndex._CHECKPOINT)  # one line as long as `jq -c` writes a list
    index = LineIndex(text)
    assert index.line_column(distance) == (2, distance - 1)
    assert len(index._offsets) == (2 if distance >= LineIndex._CHECKPOINT else 1)
    assert index.line_column(distance + 5) == (2, distance + 4)  # from the place remembered, if any


@pytest.mark.parametrize(("text", "value", "expected"), [
    ('"a\\ud83d\\ude00b"', "a\U0001f600b", [1, 2, 14, 15]),  # JSON's surrogate pair: one character, 12 long
    ('"a\\U0001F600b"', "a\U0001f600b", [1, 2, 12, 13]),
    ('"\\ud83dx"', "\ufffdx", [1, 7, 8]),  # a lone surrogate: U+FFFD, as Go's JSON decoder reads it
    ('"\\u00zz"', "\\u00zz", None),  # not an escape: never guessed
])
def test_hex_escapes_and_surrogate_pairs(text: str, value: str, expected: list[int] | None) -> None:
    assert value_offsets(text, 0, value) == expected
