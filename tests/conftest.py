"""Fixtures shared by every test package."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
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


@pytest.fixture(autouse=True)
def _generated_when_planned(monkeypatch: pytest.MonkeyPatch) -> None:
    """Selectors planned in a test take the generated form at once (`celext.plan.HOT_CALLS = 0`), so the many
    tests that evaluate a selector a few times check the Python hot selectors run, not only the compact form
    every selector starts in. The compact form has its own tests, and tests/celext/plan/test_tiers.py the
    default (tiered) plan; tests that run draguard as a process run it as users do."""
    import celext.plan

    monkeypatch.setattr(celext.plan, "HOT_CALLS", 0)


@contextlib.contextmanager
def traversable_tree(prefix: str) -> Iterator[Path]:
    """A temporary directory any user may traverse (pytest's tmp_path sits under a 0700 directory), for tests
    that drop privileges; removed afterwards whatever permissions the test left on what it holds."""
    top = Path(tempfile.mkdtemp(prefix=prefix))
    top.chmod(0o755)
    try:
        yield top
    finally:
        for path in [top, *top.rglob("*")]:
            path.chmod(0o755)
        shutil.rmtree(top)
