"""Warnings cut at the API server's 4096-rune total where the note's count gains a digit. Fast, so mutation testing
runs it first on `webhook.admission.response` (tests/mutation)."""

from __future__ import annotations

from webhook.admission.response import WARNING_ITEM_RUNES, WARNING_TOTAL_RUNES, fit_warnings


def more(count: int) -> str:
    return f"[draguard] {count} more warning(s) not shown; run `draguard validate` on this object for all of them"


def lines(*sizes: int) -> list[str]:
    return [f"{i:02}" + "y" * (size - 2) for i, size in enumerate(sizes)]


def test_a_warning_is_kept_when_it_and_the_note_for_the_rest_fill_the_total_exactly() -> None:
    """15 full warnings, one that leaves room for exactly the note on the 9 after it (a one-digit count)."""
    fits = WARNING_TOTAL_RUNES - 15 * WARNING_ITEM_RUNES - len(more(9))
    given = lines(*[WARNING_ITEM_RUNES] * 15, fits, *[WARNING_ITEM_RUNES] * 9)
    assert fit_warnings(given) == (*given[:16], more(9))
    assert sum(map(len, fit_warnings(given))) == WARNING_TOTAL_RUNES
    longer = lines(*[WARNING_ITEM_RUNES] * 15, fits + 1, *[WARNING_ITEM_RUNES] * 9)
    assert fit_warnings(longer) == (*longer[:15], more(10))
