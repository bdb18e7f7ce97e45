"""Fixtures for the compiled engine's tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from celext.runtime import ops


@pytest.fixture
def reference_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """Every subtree the compiled engine hands to the reference engine (ops.subtree), recorded, then evaluated."""
    calls: list[Any] = []
    real = ops.subtree

    def subtree(tree: Any, *args: Any) -> Any:
        calls.append(tree)
        return real(tree, *args)

    monkeypatch.setattr(ops, "subtree", subtree)
    yield calls
