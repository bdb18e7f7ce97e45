"""Admission warnings at the API server's limits, at limit - 1, the limit and limit + 1.

Upstream (k8s.io/apiserver/pkg/warning, the recorder behind admission warnings): truncateItemRunes = 256 runes
per warning, truncateAtTotalRunes = 4 * 1024 runes over all of them. Runes, not bytes: "é" counts once.
"""

from __future__ import annotations

import pytest

from webhook.admission.response import fit_warnings

ITEM, TOTAL = 256, 4096


def more(count: int) -> str:
    return f"[draguard] {count} more warning(s) not shown; run `draguard validate` on this object for all of them"


@pytest.mark.parametrize("char", ["x", "é"])
@pytest.mark.parametrize("runes", [ITEM - 1, ITEM])
def test_a_warning_up_to_256_runes_is_kept_whole(runes: int, char: str) -> None:
    assert fit_warnings([char * runes]) == (char * runes,)


@pytest.mark.parametrize("char", ["x", "é"])
def test_a_warning_of_257_runes_is_cut_to_256_with_an_ellipsis(char: str) -> None:
    assert fit_warnings([char * (ITEM + 1)]) == (char * (ITEM - 1) + "…",)


def lines(*sizes: int) -> list[str]:
    """Distinct warnings of the given lengths (a two-digit index, then padding)."""
    return [f"{i:02}" + "y" * (size - 2) for i, size in enumerate(sizes)]


@pytest.mark.parametrize("last", [ITEM - 1, ITEM])
def test_warnings_totalling_up_to_4096_runes_are_all_kept(last: int) -> None:
    given = lines(*[ITEM] * 15, last)
    assert sum(map(len, given)) == TOTAL - ITEM + last
    assert fit_warnings(given) == tuple(given)


def test_one_rune_past_4096_drops_warnings_for_a_count_that_still_fits() -> None:
    given = lines(*[ITEM] * 16, 1 + 2)  # 4096 + 3 runes
    kept = fit_warnings(given)
    assert kept == (*given[:15], more(2))
    assert sum(map(len, kept)) <= TOTAL


@pytest.mark.parametrize(("extra", "shown"), [(0, 16), (1, 15)])
def test_a_warning_is_kept_when_it_and_the_note_fit_exactly(extra: int, shown: int) -> None:
    """Fifteen full warnings, then one sized so that it plus the note for the two after it end at exactly
    4096 runes (extra 0) or one past (extra 1)."""
    sixteenth = ITEM - len(more(2)) + extra
    given = lines(*[ITEM] * 15, sixteenth, ITEM, ITEM)
    assert fit_warnings(given) == (*given[:shown], more(len(given) - shown))
