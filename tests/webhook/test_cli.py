"""The CLI shell: discovery, usage errors and exit codes, run in-process as a user would."""

from __future__ import annotations

import subprocess
import sys

import pytest

from webhook import cli


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: draguard")
    for name in cli._command_modules():
        assert f"    {name} " in out


def test_unknown_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(["no-such-command"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("draguard: error: argument COMMAND: invalid choice: 'no-such-command'")
    assert err[1] == "Try 'draguard --help'."


def test_missing_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main([])
    assert exit_.value.code == 2
    assert "the following arguments are required: COMMAND" in capsys.readouterr().err


def test_version_runs_as_a_module() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "webhook", "version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0
    assert done.stdout.strip() == "0.1.0"
    assert done.stderr == ""
