"""A directory walk reports what it cannot read, one line each, and exits 2, as when the file is named directly: a
link to nothing, a loop of links, a folder without permission. Links to folders are followed, each folder once, so
a link back up the tree never makes the walk endless."""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.builders import claim_with_selector
from tests.conftest import traversable_tree
from webhook import cli

CLAIM = yaml.safe_dump(claim_with_selector('device.attributes["gpu.example.com"].model == "A100"'))
NOBODY = 65534


def lint(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(["lint", "--color", "never", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "claim.yaml").write_text(CLAIM, encoding="utf-8")
    return tmp_path


def test_a_link_to_nothing_in_a_tree_is_reported(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "dangling.yaml").symlink_to(tree / "missing-target.yaml")
    (tree / "not-yaml.txt").symlink_to(tree / "missing.txt")  # not an input: no word about it
    code, out, err = lint(capsys, str(tree))
    assert (code, err) == (2, f"draguard: {tree}/dangling.yaml: cannot read: a symbolic link to a missing file\n")
    assert out.endswith("1 object checked; 0 deny, 1 warning, 0 audit; 1 input problem\n")


def test_a_loop_of_links_in_a_tree_is_reported(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "loop-a.yaml").symlink_to(tree / "loop-b.yaml")
    (tree / "loop-b.yaml").symlink_to(tree / "loop-a.yaml")
    code, _out, err = lint(capsys, str(tree))
    assert (code, err) == (2, f"draguard: {tree}/loop-a.yaml: cannot read: Too many levels of symbolic links\n"
                              f"draguard: {tree}/loop-b.yaml: cannot read: Too many levels of symbolic links\n")


def test_the_same_links_named_directly_say_the_same(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "dangling.yaml").symlink_to(tree / "missing-target.yaml")
    (tree / "loop.yaml").symlink_to(tree / "loop.yaml")
    code, _out, err = lint(capsys, str(tree / "dangling.yaml"), str(tree / "loop.yaml"))
    assert (code, err) == (2, f"draguard: {tree}/dangling.yaml: cannot read: a symbolic link to a missing file\n"
                              f"draguard: {tree}/loop.yaml: cannot read: Too many levels of symbolic links\n")


def test_links_to_folders_are_walked_once_and_a_loop_ends(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inner = tree / "inner"
    inner.mkdir()
    (inner / "more.yaml").write_text(CLAIM, encoding="utf-8")
    (inner / "up").symlink_to("..")  # a loop back to the top
    (inner / "self").symlink_to(inner)
    outside = tree.parent / f"{tree.name}-outside"
    outside.mkdir()
    (outside / "shared.yaml").write_text(CLAIM, encoding="utf-8")
    (tree / "shared").symlink_to(outside)  # a folder linked in from elsewhere is checked too
    code, out, err = lint(capsys, str(tree), "--quiet")
    assert (code, err) == (1, "")
    assert [line.split(":")[0] for line in out.splitlines() if "warn" in line] == [
        f"{tree}/claim.yaml", f"{inner}/more.yaml", f"{tree}/shared/shared.yaml"]


def test_hidden_files_and_folders_are_still_left_out(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / ".hidden").mkdir()
    (tree / ".hidden" / "claim.yaml").write_text(CLAIM, encoding="utf-8")
    (tree / ".dangling.yaml").symlink_to(tree / "missing.yaml")
    code, out, err = lint(capsys, str(tree), "--quiet")
    assert (code, err) == (1, "")
    assert out.count("warn list-fragile-compare") == 1


def test_an_empty_directory_still_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = lint(capsys, str(tmp_path))
    assert (code, err) == (2, f"draguard: {tmp_path}: no .yaml, .yml or .json files in this directory\n")


# ---- permissions: root reads whatever the mode, so these run the command as nobody ----
@pytest.fixture
def open_tree(capsys: pytest.CaptureFixture[str]) -> Iterator[Path]:
    """A tree any user may traverse (pytest's tmp_path sits under a 0700 directory), linted once here so that
    the lint path is imported before a child drops its privileges (the interpreter's files are root's alone)."""
    with traversable_tree("draguard-walk-") as top:
        (top / "claim.yaml").write_text(CLAIM, encoding="utf-8")
        (top / "locked").mkdir()
        (top / "locked" / "claim.yaml").write_text(CLAIM, encoding="utf-8")
        assert lint(capsys, str(top))[0] == 1
        yield top


def lint_as_nobody(*argv: str) -> tuple[int, str, str]:
    """`draguard lint` in a forked child that runs as nobody when we are root (the euid is process-wide: changing
    it here would touch every thread of the test worker): its exit code, stdout and stderr."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop privileges, run, report, never return
        try:
            os.close(read_end)
            if os.geteuid() == 0:
                os.setgid(NOBODY)
                os.setuid(NOBODY)
            sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
            code = cli.main(["lint", "--quiet", "--color", "never", *argv])
            with os.fdopen(write_end, "w", encoding="utf-8") as pipe:
                json.dump([code, sys.stdout.getvalue(), sys.stderr.getvalue()], pipe)
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, encoding="utf-8") as pipe:
        answer = pipe.read()
    os.waitpid(pid, 0)
    code, out, err = json.loads(answer)
    return code, out, err


def test_an_unreadable_folder_in_a_tree_is_reported(open_tree: Path) -> None:
    (open_tree / "locked").chmod(0)
    code, out, err = lint_as_nobody(str(open_tree))
    assert (code, err) == (2, f"draguard: {open_tree}/locked: cannot read: Permission denied\n")
    assert out.count("warn list-fragile-compare") == 1  # the rest is still checked


def test_an_unreadable_folder_named_directly_says_permission_denied(open_tree: Path) -> None:
    locked = open_tree / "locked"
    locked.chmod(0)
    assert lint_as_nobody(str(locked)) == (2, "", f"draguard: {locked}: cannot read: Permission denied\n")
