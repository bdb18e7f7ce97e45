"""webhook.fix: value-relative edits land on the right characters of the file, whatever the scalar style."""

from __future__ import annotations

import pytest

from webhook.fieldpath import FieldPath
from webhook.findings import Edit
from webhook.fix import Target, apply_edits, apply_to_value, unified_diff
from webhook.manifests import libyaml as fastyaml

PATH = FieldPath.root("x")


def fix(text: str, edits: list[Edit]) -> tuple[str, int, list[str]]:
    (doc,) = fastyaml.load(text, "t.yaml") or []
    start = doc.scalar_start(PATH)
    assert start is not None
    target = Target(PATH, 0, start, doc.obj["x"])

    def read_back(new: str, t: Target) -> str | None:
        return fastyaml.value_at(new, t.document, t.path)

    result = apply_edits(text, [(target, edits)], read_back)
    return result.text, result.applied, [reason for _t, reason in result.skipped]


VALUE = 'a.b == "q"'
EQ = Edit(0, len(VALUE), 'a.b.includes("q")')


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('x: a.b == "q"  # c\n', 'x: a.b.includes("q")  # c\n'),
        ('x: "a.b == \\"q\\""\n', 'x: "a.b.includes(\\"q\\")"\n'),
        ("x: 'a.b == \"q\"'\n", "x: 'a.b.includes(\"q\")'\n"),
        ('x: |-\n  a.b == "q"\ny: 1\n', 'x: |-\n  a.b.includes("q")\ny: 1\n'),
        ('x: >-\n  a.b ==\n  "q"\n', 'x: >-\n  a.b.includes("q")\n'),
    ],
)
def test_each_style_is_rewritten_in_place(text: str, expected: str) -> None:
    assert fix(text, [EQ]) == (expected, 1, [])


def test_insertion_and_rename_in_one_expression() -> None:
    text = "x: 'd.rdma && d.l.include(''v'')'\n"
    edits = [Edit(6, 6, ".includes(true)"), Edit(14, 21, "includes")]
    assert fix(text, edits) == ("x: 'd.rdma.includes(true) && d.l.includes(''v'')'\n", 2, [])


def test_overlapping_edits_wait_for_the_next_run() -> None:
    assert apply_to_value("abcdef", [Edit(0, 3, "X"), Edit(4, 5, "Y")]) == "XdYf"
    text, applied, _ = fix("x: abcdef\n", [Edit(0, 3, "X"), Edit(2, 4, "Z")])
    assert (text, applied) == ("x: Xdef\n", 1)


def test_a_plain_scalar_that_would_need_quotes_is_left_alone() -> None:
    text = "x: a == 1\n"
    assert fix(text, [Edit(0, 6, "a: 1 ==")]) == (text, 0, ["its YAML spelling could not be mapped"])


def test_unified_diff_names_both_sides() -> None:
    assert unified_diff("a\n", "b\n", "f.yaml").splitlines()[:2] == ["--- a/f.yaml", "+++ b/f.yaml"]


@pytest.mark.parametrize(
    ("text", "replacement", "expected"),
    [
        ("x: a != 4 && b\n", "!a.includes(4)", "x: (!a.includes(4)) && b\n"),
        ("x: a in [1, 2]\n", "[1, 2].exists(v, a.includes(v))", "x: ([1, 2].exists(v, a.includes(v)))\n"),
        ("x: 'a != 4 && b'\n", "!a.includes(4)", "x: '!a.includes(4) && b'\n"),  # quoted: no need
        ("x: |\n  a != 4 && b\n", "!a.includes(4)", "x: |\n  !a.includes(4) && b\n"),
    ],
)
def test_a_plain_scalar_never_begins_with_an_indicator(text: str, replacement: str, expected: str) -> None:
    value = fastyaml.value_at(text, 0, PATH)
    assert isinstance(value, str)
    end = value.index(" &&") if "&&" in value else len(value.rstrip("\n"))
    assert fix(text, [Edit(0, end, replacement)]) == (expected, 1, [])
