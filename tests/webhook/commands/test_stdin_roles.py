"""`-` named as an input and as the inventory at once (`kubectl get ... -o yaml | draguard lint - --slices -`):
standard input is read once and each role reads that same text, as `explain - --slices -` does (docs/explain.md).
Checked against the same text given as files."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tests.conftest import REPO
from webhook import cli

EXAMPLES = REPO / "examples" / "manifests"


def _run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, stdin: bytes | None,
         *argv: str) -> tuple[int, str, str]:
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    code = cli.main([*argv, "--color", "never"])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def both(tmp_path: Path) -> Path:
    """A claim and the slices it is checked against, in one multi-document file."""
    path = tmp_path / "both.yaml"
    path.write_text((EXAMPLES / "claim.yaml").read_text(encoding="utf-8") + "---\n"
                    + (EXAMPLES / "slices.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    return path


@pytest.mark.parametrize("command", ["lint", "validate"])
def test_stdin_as_input_and_inventory_reads_the_same_text_for_both(
        command: str, both: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    files = _run(capsys, monkeypatch, None, command, str(both), "--slices", str(both))
    piped = _run(capsys, monkeypatch, both.read_bytes(), command, "-", "--slices", "-")
    assert "selector-attribute-missing" in files[1]  # the inventory was used
    assert piped == (files[0], files[1].replace(str(both), "<stdin>"), files[2])
    assert piped[0] == 1


def test_stdin_as_input_slices_and_classes(both: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    files = _run(capsys, monkeypatch, None, "lint", str(both), "--slices", str(both), "--classes", str(both))
    piped = _run(capsys, monkeypatch, both.read_bytes(), "lint", "-", "--slices", "-", "--classes", "-")
    assert piped == (files[0], files[1].replace(str(both), "<stdin>"), files[2])


def test_stdin_as_the_inventory_alone_still_reads_it(both: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    files = _run(capsys, monkeypatch, None, "lint", str(both), "--slices", str(both))
    piped = _run(capsys, monkeypatch, both.read_bytes(), "lint", str(both), "--slices", "-")
    assert piped == files


def test_stdin_that_is_not_utf8_is_one_problem_for_every_role(capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = _run(capsys, monkeypatch, b"kind: \xff\n", "lint", "-", "--slices", "-")
    assert (code, err) == (2, "draguard: <stdin>:1:7: not UTF-8 text\n")
    assert out == "0 objects checked; 0 deny, 0 warnings, 0 audit; 1 input problem\n"
