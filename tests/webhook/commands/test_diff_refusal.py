"""`lint --diff` previews exactly what `lint --fix` writes: a file `--fix` refuses (one that mixes LF and CRLF line
breaks) gets the same `not fixed` line and no diff, from the same decision."""

from __future__ import annotations

from pathlib import Path

import pytest

from webhook import cli

CLASS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel:
      expression: device.attributes["gpu.example.com"].family != "ampere"
"""
NOT_FIXED = "not fixed: the file mixes line break styles; fix it by hand or normalise its line breaks first"


def lint(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(["lint", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """mixed.yaml: one CRLF line among LF ones; crlf.yaml and lf.yaml: one style each."""
    monkeypatch.chdir(tmp_path)
    Path("mixed.yaml").write_bytes(CLASS.replace("\n", "\r\n", 1).encode())
    Path("crlf.yaml").write_bytes(CLASS.replace("\n", "\r\n").encode())
    Path("lf.yaml").write_bytes(CLASS.encode())
    return tmp_path


@pytest.mark.parametrize("flag", ["--diff", "--fix"])
def test_a_file_with_mixed_line_breaks_is_not_fixed_nor_diffed(flag: str, files: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = lint(capsys, flag, "mixed.yaml")
    assert code == 2
    assert err == f"draguard: mixed.yaml: {NOT_FIXED}\n"
    assert "--- a/mixed.yaml" not in out
    assert Path("mixed.yaml").read_bytes() == CLASS.replace("\n", "\r\n", 1).encode()


def test_diff_still_shows_the_files_fix_would_write(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = lint(capsys, "--diff", "crlf.yaml", "mixed.yaml", "lf.yaml")
    assert (code, err) == (2, f"draguard: mixed.yaml: {NOT_FIXED}\n")
    assert [line for line in out.splitlines() if line.startswith("--- ")] == ["--- a/crlf.yaml", "--- a/lf.yaml"]
    assert '.family.includes("ampere")' in out


def test_diff_of_files_with_one_line_break_style_exits_1(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = lint(capsys, "--diff", "crlf.yaml", "lf.yaml")
    assert (code, err) == (1, "")
    assert out.count("+++ b/") == 2
