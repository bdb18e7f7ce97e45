"""The README's examples are what users copy first: replay them, so a stale one fails here."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from webhook.cli import _command_modules

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
DRAGUARD = Path(sys.executable).parent / "draguard"

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


@pytest.mark.parametrize(("command", "expected"), console_examples(), ids=lambda value: value[:60])
def test_console_example_prints_what_the_readme_shows(command: str, expected: str) -> None:
    argv = shlex.split(command)
    done = subprocess.run([str(DRAGUARD), *argv[1:]], cwd=ROOT, capture_output=True, text=True, check=False)
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
