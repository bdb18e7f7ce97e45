"""webhook.gctune: a batch command's collector settings, nested from the command down to the run."""

from __future__ import annotations

import gc

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
