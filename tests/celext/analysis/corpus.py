"""The corpus expressions the analysis tests check one by one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ruamel.yaml import YAML

from celext.errors import CompileError


def check_each(corpus: Path, check: Callable[[str], None]) -> int:
    """Run `check` on every corpus expression that parses; how many it ran on."""
    index = YAML(typ="safe", pure=True).load((corpus / "cel-expressions.yaml").read_text(encoding="utf-8"))
    checked = 0
    for expression in (entry["expression"] for entry in index["expressions"]):
        try:
            check(expression)
        except CompileError:
            continue
        checked += 1
    return checked
