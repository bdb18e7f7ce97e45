"""The README's examples are what users copy first: replay them, so a stale one fails here.

The walk-through is replayed as pasted: in a fresh `bash` with a bare PATH, after the README's own
`source .venv/bin/activate` line (the venv `make run`/`make install` builds in the checkout).
"""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from webhook.cli import _command_modules

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
ACTIVATE = "source .venv/bin/activate"
BARE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/nonexistent", "LANG": "C.UTF-8"}

CONSOLE = re.compile(r"^```console\n(.*?)^```", re.MULTILINE | re.DOTALL)
PYTHON = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def console_examples() -> list[tuple[str, str]]:
    """Each `$ draguard ...` line of a console block with the output printed under it."""
    examples = []
    for block in CONSOLE.findall(README):
        command, *output = block.splitlines()
        assert command.startswith("$ draguard "), f"a console block must start with a draguard command: {command}"
        examples.append((command[2:], "".join(line + "\n" for line in output)))
    return examples


def test_the_walk_through_puts_the_venv_on_path() -> None:
    walk = README[README.index("## A walk through"):README.index("## Commands")]
    assert re.search(rf"^{re.escape(ACTIVATE)}(\s|$)", walk, re.MULTILINE), "the walk-through must activate .venv"


@pytest.mark.parametrize(("command", "expected"), console_examples(), ids=lambda value: value[:60])
def test_console_example_prints_what_the_readme_shows(command: str, expected: str) -> None:
    if not (ROOT / ".venv" / "bin" / "activate").is_file():
        pytest.skip(f"no .venv in {ROOT}: the README's walk-through needs `make install` (or `make run`) first")
    shlex.split(command)  # the command is valid shell
    done = subprocess.run(["bash", "--noprofile", "--norc", "-c", f"{ACTIVATE} && {command}"], cwd=ROOT,
                          capture_output=True, text=True, env=BARE_ENV, check=False, timeout=120)
    assert done.returncode in (0, 1), done.stderr
    assert done.stdout == expected


def test_readme_has_console_examples() -> None:
    assert len(console_examples()) >= 5


def test_every_command_is_in_the_readme() -> None:
    listed = set(re.findall(r"^\| `(\w+)[ `]", README, re.MULTILINE))
    assert set(_command_modules()) <= listed


def test_celext_example_runs() -> None:
    (block,) = [b for b in PYTHON.findall(README) if "import celext" in b]
    scope: dict[str, Any] = {}
    exec(block, scope)
    selector, device = scope["selector"], scope["device"]
    assert selector.matches(device, driver="gpu.example.com") is True
    device["attributes"] = {"resource.kubernetes.io/numaNode": {"int": 4}}
    assert selector.matches(device, driver="gpu.example.com") is True
    device["attributes"] = {"resource.kubernetes.io/numaNode": {"ints": [5, 6]}}
    assert selector.matches(device, driver="gpu.example.com") is False
