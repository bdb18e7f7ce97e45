"""A batch command run as the program (`draguard lint`, `draguard validate`) ends without the interpreter's teardown
(webhook.cli._finish): everything it printed arrives, its exit code is kept, and a caller of `main(argv)` in its own
process still gets the code back."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.builders import claim_with_selector

# The probe marks the interpreter's teardown on stderr (atexit runs in it); `main()` reads sys.argv as the program.
PROBE = ("import atexit, sys\n"
         "atexit.register(lambda: print('teardown ran', file=sys.stderr))\n"
         "from webhook.cli import main\n"
         "sys.argv = ['draguard', *sys.argv[2:]]\n"
         "code = main() if sys.argv_mode == 'program' else main(sys.argv[1:])\n"
         "print('main returned', code, file=sys.stderr)\n"
         "sys.exit(code)\n")


def _run(mode: str, argv: list[str]) -> subprocess.CompletedProcess[str]:
    code = PROBE.replace("sys.argv_mode", repr(mode))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # stdout block-buffered, as in a pipe
    return subprocess.run([sys.executable, "-c", code, mode, *argv], capture_output=True, text=True, timeout=120,
                          check=False, env=env)


@pytest.fixture
def claim(tmp_path: Path) -> Path:
    path = tmp_path / "claim.yaml"
    path.write_text(yaml.safe_dump(claim_with_selector('device.attributes["gpu.example.com"].model == "A100"')))
    return path


@pytest.mark.parametrize("command", ["lint", "validate"])
def test_a_batch_command_as_the_program_skips_the_teardown_and_keeps_its_output(claim: Path, command: str) -> None:
    done = _run("program", [command, str(claim), "--color", "never", "-v"])
    assert done.returncode == 1
    assert "warn list-fragile-compare:" in done.stdout
    assert done.stdout.endswith("1 object checked; 0 deny, 1 warning, 0 audit\n")
    assert "draguard: DEBUG: checked 1 file(s) in " in done.stderr  # log records flushed too
    assert "main returned" not in done.stderr
    assert "teardown ran" not in done.stderr


def test_a_clean_run_exits_0_and_a_usage_error_2_as_the_program(claim: Path, tmp_path: Path) -> None:
    clean = tmp_path / "clean.yaml"
    clean.write_text(yaml.safe_dump(claim_with_selector('device.driver == "gpu.example.com"')))
    done = _run("program", ["lint", str(clean), "--quiet"])
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    done = _run("program", ["lint", str(tmp_path / "missing.yaml")])
    assert done.returncode == 2
    assert "teardown ran" not in done.stderr


def test_main_with_argv_returns_to_its_caller(claim: Path) -> None:
    done = _run("caller", ["lint", str(claim), "--color", "never"])
    assert done.returncode == 1
    assert "warn list-fragile-compare:" in done.stdout
    assert "main returned 1" in done.stderr
    assert "teardown ran" in done.stderr


def test_other_commands_as_the_program_exit_normally() -> None:
    done = _run("program", ["rules"])
    assert done.returncode == 0
    assert "main returned 0" in done.stderr
    assert "teardown ran" in done.stderr


def test_a_diff_written_without_a_report_still_arrives(claim: Path) -> None:
    done = _run("program", ["lint", "--diff", str(claim)])
    assert done.returncode == 1
    assert done.stdout.startswith(f"--- a{claim}\n+++ b{claim}\n")  # `a/` + the path without its leading `/`
    assert '.model.includes("A100")' in done.stdout
    assert "teardown ran" not in done.stderr
