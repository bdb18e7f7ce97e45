"""`draguard rules --readme FILE` rewrites the table between the rules markers, and refuses a file whose markers
cannot hold it (missing, or in the wrong order) without touching it."""

from __future__ import annotations

from pathlib import Path

import pytest

from webhook import cli
from webhook.rules.docs import BEGIN, END


def rules(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(["rules", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("text", [f"x\n{END}\n{BEGIN}\n", f"x\n{END}\n{BEGIN}\nold\n{END}\n"],
                         ids=["end-then-begin", "end-begin-end"])
def test_an_end_marker_before_the_begin_marker_is_an_error(text: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(text, encoding="utf-8")
    assert rules(capsys, "--readme", str(readme)) == (
        2, "", f"draguard: error: {readme}: {END} comes before {BEGIN}; the table goes between {BEGIN} and {END}\n")
    assert readme.read_text(encoding="utf-8") == text


@pytest.mark.parametrize("text", ["x\n", f"x\n{BEGIN}\n", f"x\n{END}\n"], ids=["none", "begin-only", "end-only"])
def test_missing_markers_are_still_an_error(text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(text, encoding="utf-8")
    assert rules(capsys, "--readme", str(readme)) == (2, "", f"draguard: error: {readme}: no {BEGIN} ... {END} "
                                                             "markers\n")
    assert readme.read_text(encoding="utf-8") == text


def test_markers_in_order_get_the_table_between_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"before\n{BEGIN}\nold table\n{END}\nafter\n", encoding="utf-8")
    assert rules(capsys, "--readme", str(readme)) == (0, "", "")
    table = rules(capsys, "--markdown")[1]
    assert readme.read_text(encoding="utf-8") == f"before\n{BEGIN}\n{table}{END}\nafter\n"


def test_markdown_and_readme_together_are_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"{BEGIN}\n{END}\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_:
        cli.main(["rules", "--markdown", "--readme", str(readme)])
    assert exit_.value.code == 2
    assert capsys.readouterr() == ("", "draguard rules: error: argument --readme: not allowed with argument "
                                       "--markdown\nTry 'draguard rules --help'.\n")
    assert readme.read_text(encoding="utf-8") == f"{BEGIN}\n{END}\n"


def test_a_second_pair_of_markers_is_an_error_not_a_stale_table(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    readme = tmp_path / "README.md"
    text = f"{BEGIN}\nold\n{END}\nmiddle\n{BEGIN}\nold2\n{END}\n"
    readme.write_text(text, encoding="utf-8")
    assert rules(capsys, "--readme", str(readme)) == (
        2, "", f"draguard: error: {readme}: {BEGIN} or {END} more than once; keep one pair of markers\n")
    assert readme.read_text(encoding="utf-8") == text


def test_the_files_line_breaks_are_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    readme = tmp_path / "README.md"
    readme.write_bytes(f"before\r\n{BEGIN}\r\nold table\r\n{END}\r\nafter\r\n".encode())
    assert rules(capsys, "--readme", str(readme)) == (0, "", "")
    table = rules(capsys, "--markdown")[1]
    assert readme.read_bytes() == f"before\n{BEGIN}\n{table}{END}\nafter\n".replace("\n", "\r\n").encode()


def test_an_unreadable_readme_is_one_line_not_an_internal_error(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    readme = tmp_path / "README.md"
    readme.write_bytes(f"{BEGIN}\ncaf\xe9\n{END}\n".encode("latin-1"))
    assert rules(capsys, "--readme", str(readme)) == (2, "", f"draguard: error: {readme}: cannot read: not UTF-8 "
                                                             "text\n")
    assert rules(capsys, "--readme", str(tmp_path)) == (
        2, "", f"draguard: error: {tmp_path}: cannot read: Is a directory\n")
