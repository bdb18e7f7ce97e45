"""Ctrl-C at any point of a run, start-up included, ends `draguard` with exit 130 and nothing on stderr.

The SIGINT arrives at a known point, without timing: a module of that name on PYTHONPATH (ahead of the standard
library) sends it to its own process while it is imported, at that point of start-up."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

DRAGUARD = Path(sys.executable).with_name("draguard")
CLAIM = REPO / "examples" / "manifests" / "claim.yaml"
INTERRUPT = "import os, signal\nos.kill(os.getpid(), signal.SIGINT)\n"


@pytest.mark.parametrize(("module", "when"), [
    ("argparse", "while webhook.cli imports"),
    ("shutil", "while the command's parser is built (its module's imports)"),
    ("yaml", "while the command runs (the YAML reader's import)"),
])
@pytest.mark.parametrize("program", ["draguard", "kubectl-draguard"])
def test_sigint_during_start_up_exits_130_quietly(tmp_path: Path, module: str, when: str, program: str) -> None:
    (tmp_path / f"{module}.py").write_text(INTERRUPT, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run([str(DRAGUARD.with_name(program)), "validate", str(CLAIM)], env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert (done.returncode, done.stderr, done.stdout) == (130, "", ""), when
