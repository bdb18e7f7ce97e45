"""webhook.fix at its edges: touching and overlapping edits, writing the fixed file back, diff headers."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.webhook.test_fix import fix
from webhook.findings import Edit
from webhook.fix import unified_diff, write_file


def test_edits_that_touch_both_apply() -> None:
    assert fix("x: abcdef\n", [Edit(0, 3, "X"), Edit(3, 4, "Y")]) == ("x: XYef\n", 2, [])


def test_an_overlapping_edit_waits_but_later_ones_still_apply() -> None:
    assert fix("x: abcdef\n", [Edit(0, 3, "X"), Edit(2, 4, "Z"), Edit(5, 6, "W")]) == ("x: XdeW\n", 2, [])


def test_write_file_keeps_lf_line_breaks(tmp_path: Path) -> None:
    path = tmp_path / "f.yaml"
    path.write_bytes(b"a: 1\nb: 2\n")
    assert write_file(str(path), "a: 1\nb: 3 # \u00e9\n") is None
    assert path.read_bytes() == "a: 1\nb: 3 # \u00e9\n".encode()


def test_write_file_keeps_crlf_line_breaks(tmp_path: Path) -> None:
    path = tmp_path / "f.yaml"
    path.write_bytes(b"a: 1\r\nb: 2\r\n")
    assert write_file(str(path), "a: 1\nb: 3\n") is None
    assert path.read_bytes() == b"a: 1\r\nb: 3\r\n"


def test_write_file_refuses_mixed_line_breaks(tmp_path: Path) -> None:
    path = tmp_path / "f.yaml"
    path.write_bytes(b"a: 1\r\nb: 2\n")
    assert write_file(str(path), "a: 1\nb: 3\n") == (
        "the file mixes line break styles; fix it by hand or normalise its line breaks first")
    assert path.read_bytes() == b"a: 1\r\nb: 2\n"


def test_write_file_keeps_cr_line_breaks(tmp_path: Path) -> None:
    """Old Mac files break lines with a lone CR, which the reader reads as `\n` (it was written back as LF)."""
    path = tmp_path / "f.yaml"
    path.write_bytes(b"a: 1\rb: 2\r")
    assert write_file(str(path), "a: 1\nb: 3\n") is None
    assert path.read_bytes() == b"a: 1\rb: 3\r"


@pytest.mark.parametrize("raw", [b"a: 1\n# c\rb: 2\n", b"a: 1\r\n# c\rb: 2\r\n"])
def test_write_file_refuses_a_lone_cr_among_other_line_breaks(raw: bytes, tmp_path: Path) -> None:
    path = tmp_path / "f.yaml"
    path.write_bytes(raw)
    assert write_file(str(path), "a: 1\n# c\nb: 3\n") == (
        "the file mixes line break styles; fix it by hand or normalise its line breaks first")
    assert path.read_bytes() == raw


def test_write_file_reports_an_unwritable_path_in_one_line(tmp_path: Path) -> None:
    assert write_file(str(tmp_path / "gone" / "f.yaml"), "a: 1\n") == "cannot write: No such file or directory"


def test_diff_headers_drop_a_leading_slash_only() -> None:
    lines = unified_diff("a\n", "b\n", "/XX/f.yaml/").splitlines()
    assert lines[:2] == ["--- a/XX/f.yaml/", "+++ b/XX/f.yaml/"]


def test_an_insertion_at_the_start_of_the_value_replaces_nothing() -> None:
    assert fix("x: abc\n", [Edit(0, 0, "Z")]) == ("x: Zabc\n", 1, [])
    assert fix('x: "\\x41bc"\n', [Edit(0, 0, "Z")]) == ('x: "Z\\x41bc"\n', 1, [])


def test_a_block_scalar_further_down_the_file_takes_its_own_indentation() -> None:
    text = "w: 1\nx: |-\n      a == b\n"
    assert fix(text, [Edit(5, 6, "d\n&& e")]) == ("w: 1\nx: |-\n      a == d\n      && e\n", 1, [])


def test_diff_marks_a_last_line_without_a_line_break() -> None:
    """As diff does, so `patch` and `git apply` take it (the two versions of the line ran into one diff line)."""
    assert unified_diff("a: 1\nb: 2", "a: 1\nb: 3", "f.yaml") == (
        "--- a/f.yaml\n+++ b/f.yaml\n@@ -1,2 +1,2 @@\n a: 1\n-b: 2\n\\ No newline at end of file\n+b: 3\n"
        "\\ No newline at end of file\n")


def test_diff_breaks_lines_at_line_feeds_only() -> None:
    """A raw U+2028 or NEL in a comment is no line break to `patch` (str.splitlines split there: the hunk was
    miscounted and marked the line as the file's last)."""
    old, new = "a: 1  # x\u2028\nb: 2  # \x85y\n", "a: 1  # x\u2028\nb: 3  # \x85y\n"
    assert unified_diff(old, new, "f.yaml") == (
        "--- a/f.yaml\n+++ b/f.yaml\n@@ -1,2 +1,2 @@\n a: 1  # x\u2028\n-b: 2  # \x85y\n+b: 3  # \x85y\n")
