"""`draguard --help`, `--version` and a command's `--help` into standard output that cannot take them (`>&-`,
`> /dev/full`, a pipe whose reader is gone) end as any command's output does (README, exit codes): 2 with one line
on stderr, or 141 for the closed pipe; never 0 with nothing written, nor Python's "Exception ignored" lines."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

DRAGUARD = Path(sys.executable).with_name("draguard")
ARGVS = [["--help"], ["--version"], ["lint", "--help"], ["certs", "generate", "--help"]]


def _run(argv: list[str], stdout: int | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    return subprocess.run([str(DRAGUARD), *argv], stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=60,
                          check=False, env=env)


@pytest.mark.parametrize("argv", ARGVS)
def test_help_into_a_full_device_is_a_write_error(argv: list[str]) -> None:
    with open("/dev/full", "wb") as full:
        done = _run(argv, full.fileno())
    assert (done.returncode, done.stderr) == (2, "draguard: error: cannot write the output: No space left on device\n")


@pytest.mark.parametrize("argv", ARGVS)
def test_help_into_a_closed_stdout_is_a_write_error(argv: list[str]) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    done = subprocess.run(["/bin/sh", "-c", 'exec "$0" "$@" >&-', str(DRAGUARD), *argv],
                          stderr=subprocess.PIPE, text=True, timeout=60, check=False, env=env)
    assert done.returncode == 2
    assert done.stderr == "draguard: error: cannot write the output: standard output is closed: Bad file descriptor\n"


@pytest.mark.parametrize("argv", ARGVS)
def test_help_into_a_pipe_nobody_reads_exits_141(argv: list[str]) -> None:
    read, write = os.pipe()
    os.close(read)  # the reader left before the first byte
    try:
        done = _run(argv, write)
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (141, "")


def test_help_and_version_still_print_and_exit_0() -> None:
    done = _run(["--version"], subprocess.PIPE)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("draguard ")
    done = _run(["lint", "--help"], subprocess.PIPE)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("usage: draguard lint")
