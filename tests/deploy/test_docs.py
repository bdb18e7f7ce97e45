"""docs/deploy.md stays true: every draguard command it shows parses, every file it names exists."""

from __future__ import annotations

import re
import shlex

import pytest

from tests.conftest import REPO
from webhook import cli

DOC = (REPO / "docs" / "deploy.md").read_text(encoding="utf-8")
SHELL_BLOCKS = re.findall(r"```sh\n(.*?)```", DOC, flags=re.S)


def _draguard_commands() -> list[str]:
    commands = []
    for block in SHELL_BLOCKS:
        for line in block.splitlines():
            for part in re.split(r"\s*(?:\||&&|>)\s*", line.split("  #")[0]):
                if part.startswith("draguard "):
                    commands.append(part.strip())
    return commands


def test_the_doc_shows_draguard_commands() -> None:
    assert len(_draguard_commands()) >= 4


@pytest.mark.parametrize("command", _draguard_commands())
def test_every_draguard_command_in_the_doc_parses(command: str) -> None:
    cli.build_parser().parse_args(shlex.split(command)[1:])


@pytest.mark.parametrize("path", sorted(set(re.findall(r"\bdeploy/(?:base|overlays|vap)[\w./-]*\w", DOC))))
def test_every_deploy_path_in_the_doc_exists(path: str) -> None:
    assert (REPO / path).exists(), path
