"""celext.plan.cache.ByteBudgetCache: the compiled-selector cache, bounded by the bytes its entries weigh.

Weights are the entries' lengths here. The budget is tested one below, at and one past the total weight; the least
recently used entry goes first; an entry heavier than the whole budget is still kept (alone).
"""

from __future__ import annotations

import pytest

from celext.plan.cache import ByteBudgetCache


class _Built(list[str]):
    """The build function: a key's value is the key in capitals; every key built is noted."""

    def __call__(self, key: str) -> str:
        self.append(key)
        return key.upper()


def _cache(budget: int) -> tuple[ByteBudgetCache[str, str], _Built]:
    return ByteBudgetCache(budget, len), _Built()


def test_a_hit_gives_the_built_value_without_building_again() -> None:
    cache, built = _cache(100)
    assert cache.get("ab", built) == "AB"
    assert cache.get("ab", built) == "AB"
    assert built == ["ab"]
    assert (len(cache), cache.held) == (1, 2)


@pytest.mark.parametrize(("budget", "kept", "held"), [
    (10, ["aaa", "bb", "cccc"], 9),
    (9, ["aaa", "bb", "cccc"], 9),  # exactly the total weight (3 + 2 + 4)
    (8, ["bb", "cccc"], 6),
    (5, ["cccc"], 4),  # the oldest entries go until the rest fits
])
def test_entries_are_dropped_oldest_first_once_past_the_budget(budget: int, kept: list[str], held: int) -> None:
    cache, built = _cache(budget)
    for key in ("aaa", "bb", "cccc"):
        cache.get(key, built)
    assert (len(cache), cache.held) == (len(kept), held)
    for key in kept:
        assert cache.get(key, built) == key.upper()
    assert built == ["aaa", "bb", "cccc"]  # the kept ones were hits
    assert cache.held == held


@pytest.mark.parametrize(("budget", "count"), [(8, 2), (9, 3), (10, 3)])
def test_the_budget_at_its_limit(budget: int, count: int) -> None:
    """Three entries weighing 3 each: at a budget of 9 all three fit, at 8 the oldest goes."""
    cache, built = _cache(budget)
    for key in ("aaa", "bbb", "ccc"):
        cache.get(key, built)
    assert (len(cache), cache.held) == (count, 3 * count)


def test_a_hit_makes_an_entry_the_most_recently_used() -> None:
    cache, built = _cache(6)
    cache.get("aaa", built)
    cache.get("bbb", built)
    cache.get("aaa", built)  # now "bbb" is the least recently used
    cache.get("ccc", built)
    assert (len(cache), cache.held) == (2, 6)
    cache.get("aaa", built)
    assert built == ["aaa", "bbb", "ccc"]
    cache.get("bbb", built)
    assert built == ["aaa", "bbb", "ccc", "bbb"]


def test_an_entry_heavier_than_the_budget_is_kept_alone() -> None:
    cache, built = _cache(2)
    cache.get("a", built)
    cache.get("long", built)
    assert (len(cache), cache.held) == (1, 4)
    cache.get("long", built)
    assert built == ["a", "long"]


def test_a_value_another_caller_stored_meanwhile_wins() -> None:
    """`build` runs outside the lock: when the key was stored while it ran, that value is given back and weighed
    once."""
    cache, _ = _cache(100)

    def racing(key: str) -> str:
        cache.get(key, lambda k: "first")
        return "second!"

    assert cache.get("k", racing) == "first"
    assert (len(cache), cache.held) == (1, 5)
    assert cache.get("k", racing) == "first"
    cache.clear()
    assert (len(cache), cache.held) == (0, 0)
