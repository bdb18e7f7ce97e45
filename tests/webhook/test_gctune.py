"""webhook.gctune: a batch command's collector settings, nested from the command down to the run."""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from webhook.gctune import YOUNG_THRESHOLD, tuned_gc


def test_nested_uses_keep_the_tuning_until_the_outermost_ends() -> None:
    before = gc.get_threshold()
    assert gc.get_freeze_count() == 0
    with tuned_gc():
        kept = [object() for _ in range(3)]
        with tuned_gc():
            assert gc.get_threshold()[0] == YOUNG_THRESHOLD
        assert gc.get_threshold()[0] == YOUNG_THRESHOLD  # the inner one did not restore the thresholds
        # nothing frozen: every selector compile asks gc.get_freeze_count(), which walks what is frozen
        assert gc.get_freeze_count() == 0
    assert (gc.get_threshold(), gc.get_freeze_count()) == (before, 0)
    assert len(kept) == 3


def test_the_settings_come_back_when_the_run_raises() -> None:
    before = gc.get_threshold()
    try:
        with tuned_gc(), tuned_gc():
            raise KeyError("x")
    except KeyError:
        pass
    assert (gc.get_threshold(), gc.get_freeze_count()) == (before, 0)


def test_frozen_hides_what_exists_while_the_files_are_linted_and_thaws_it_after() -> None:
    from webhook.gctune import frozen

    with frozen():
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0


def test_frozen_leaves_someone_elses_freeze_alone() -> None:
    from webhook.gctune import frozen

    sentinel: list[object] = []  # a tracked container, frozen by its owner below
    gc.freeze()
    try:
        assert gc.get_freeze_count() > 0 and not any(o is sentinel for o in gc.get_objects())
        with frozen():
            pass
        # Not thawed: its owner does that. (The freeze count itself may drop meanwhile: a frozen object that
        # another thread frees leaves the permanent generation.)
        assert not any(o is sentinel for o in gc.get_objects())
    finally:
        gc.unfreeze()
    assert any(o is sentinel for o in gc.get_objects())


def test_linting_runs_with_the_existing_objects_frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    import webhook.lint
    from webhook.policy import Policy

    seen: list[int] = []
    real = webhook.lint.lint_text

    def recording(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.get_freeze_count())
        return real(*args, **kwargs)

    monkeypatch.setattr(webhook.lint, "lint_text", recording)
    webhook.lint.lint_sources([("a.yaml", "kind: ConfigMap\n")], Policy(), jobs=1)
    assert seen and seen[0] > 0
    assert gc.get_freeze_count() == 0


def test_until_exit_tunes_now_and_keeps_the_tuning_past_the_outermost_use(monkeypatch: pytest.MonkeyPatch) -> None:
    import webhook.gctune

    before = gc.get_threshold()
    monkeypatch.setattr(webhook.gctune, "_exiting", [])
    monkeypatch.setattr(webhook.gctune, "_held", [])
    try:
        webhook.gctune.until_exit()
        assert gc.get_threshold() == (YOUNG_THRESHOLD, 20, 20)  # tuned at once: the parser and imports come next
        assert not gc.isenabled()  # off until the files are linted
        with tuned_gc():
            assert not gc.isenabled()
            with webhook.gctune.frozen():
                assert gc.isenabled() and gc.get_freeze_count() > 0
            assert gc.isenabled()
        # the process ends with os._exit: restoring would only make the next allocation collect
        assert gc.get_threshold()[0] == YOUNG_THRESHOLD
    finally:
        gc.set_threshold(*before)
        gc.enable()


PROBE = """
import gc, sys
import webhook.cli
real = webhook.cli._finish
def finish(code):
    print("threshold at exit", gc.get_threshold()[0], "enabled", gc.isenabled(), flush=True)
    real(code)
webhook.cli._finish = finish
sys.argv = ["draguard", *sys.argv[1:]]
webhook.cli.main()
"""


def test_lint_as_the_program_keeps_the_batch_tuning_to_its_exit(tmp_path: Path) -> None:
    claim = tmp_path / "claim.yaml"
    claim.write_text("kind: ConfigMap\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", PROBE, "lint", str(claim)], capture_output=True, text=True,
                          check=False, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"threshold at exit {YOUNG_THRESHOLD} enabled True" in done.stdout  # on again since the linting


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The collector as `draguard lint` run as the program holds it at start-up (`until_exit`), undone after."""
    import webhook.gctune

    monkeypatch.setattr(webhook.gctune, "_exiting", [])
    monkeypatch.setattr(webhook.gctune, "_held", [])
    before = gc.get_threshold()
    try:
        webhook.gctune.until_exit()
        assert not gc.isenabled()
        yield
    finally:
        gc.set_threshold(*before)
        gc.enable()


def test_inputs_are_read_with_the_collector_on(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, held: None) -> None:
    """A held collector (the program's start-up) runs again before the run reads anything: a large input's
    cyclic garbage is collected, never left to pile up."""
    import webhook.check_run

    claim = tmp_path / "claim.yaml"
    claim.write_text("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\n", encoding="utf-8")
    seen: list[bool] = []
    real = webhook.check_run.read_inventory

    def reading(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(webhook.check_run, "read_inventory", reading)
    webhook.check_run.check(webhook.check_run.Inputs(paths=[str(claim)]))
    assert seen == [True]


def test_the_inventory_is_read_with_the_collector_on(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                     held: None) -> None:
    """The same in the process that reads --slices ahead (it is forked while the collector is still held)."""
    import webhook.check_run
    import webhook.manifests

    seen: list[bool] = []

    def reading(*args: object, **kwargs: object) -> tuple[list[Any], list[Any]]:
        seen.append(gc.isenabled())
        return [], []

    monkeypatch.setattr(webhook.manifests, "read_values", reading)
    webhook.check_run.read_listed([str(tmp_path / "slices.yaml")], [])
    assert seen and all(seen)
