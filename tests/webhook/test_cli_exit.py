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


DRAGUARD = Path(sys.executable).with_name("draguard")
SLICES = Path(__file__).resolve().parents[2] / "examples" / "manifests" / "slices.yaml"


def _draguard(argv: list[str], **streams: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(DRAGUARD), *argv], text=True, timeout=120, check=False, **streams)  # type: ignore[call-overload]


@pytest.mark.parametrize("argv", [["lint", "{claim}"], ["validate", "{claim}"], ["validate", "{missing}"],
                                  ["rules"], ["eval", "true", "--slices", "{slices}"]],
                         ids=["lint", "validate", "validate-missing", "rules", "eval"])
def test_a_closed_pipe_ends_the_run_with_141_and_no_message(claim: Path, argv: list[str]) -> None:
    # The reader is gone before draguard writes (`draguard lint ... | head` once head has its lines): exit 141, as
    # a process SIGPIPE ends, so a pipeline under `pipefail` fails; nothing on stderr.
    read, write = os.pipe()
    os.close(read)
    try:
        args = [a.format(claim=claim, missing=claim.with_name("missing.yaml"), slices=SLICES) for a in argv]
        done = _draguard(args, stdout=write, stderr=subprocess.PIPE)
    finally:
        os.close(write)
    assert done.returncode == 141
    assert done.stderr.count("\n") <= 1 and "Traceback" not in done.stderr and "internal error" not in done.stderr


@pytest.mark.parametrize("command", ["lint", "validate", "rules"])
def test_a_closed_or_full_standard_output_is_one_error_line_and_exit_2(claim: Path, command: str) -> None:
    args = [command] if command == "rules" else [command, str(claim)]
    with open("/dev/full", "w", encoding="utf-8") as full:
        done = _draguard(args, stdout=full, stderr=subprocess.PIPE)
    assert (done.returncode, done.stderr) == (2, "draguard: error: cannot write the output: No space left on device\n")
    # `>&-`: started without a standard output at all
    done = _draguard(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, pass_fds=(), close_fds=True,
                     preexec_fn=lambda: os.close(1))
    assert done.returncode == 2
    assert done.stderr == "draguard: error: cannot write the output: standard output is closed: Bad file descriptor\n"


def test_a_closed_standard_error_keeps_diagnostics_off_standard_output(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("a: [\n", encoding="utf-8")
    done = _draguard(["validate", str(broken)], stdout=subprocess.PIPE, preexec_fn=lambda: os.close(2))
    assert done.returncode == 2
    assert done.stdout == "0 objects checked; 0 deny, 0 warnings, 0 audit; 1 input problem\n"
