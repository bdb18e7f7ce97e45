"""Fixtures shared by every test package."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "corpus"


@pytest.fixture(scope="session")
def corpus() -> Path:
    """../shared/corpus, the real objects from public drivers; read in place, never copied."""
    if not CORPUS.is_dir():
        pytest.skip(f"the acceptance corpus is not beside this checkout ({CORPUS} is absent)")
    return CORPUS
