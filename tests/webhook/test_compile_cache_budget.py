"""The webhook's compile-cache budget clears celext's caches once its byte estimate is passed."""

from __future__ import annotations

import celext
from tests.celext.test_clear_caches import EXPRESSION, _warm
from webhook.budget import COMPILED_BYTES_FIXED, COMPILED_BYTES_PER_TEXT_BYTE, CompileCacheBudget


def test_the_webhook_budget_clears_past_its_byte_estimate_without_failing() -> None:
    # Every celext module is loaded by now (both engines ran): the sweep must not trip over module objects
    # whose attribute lookup raises (a served selector review answered 500 when it did).
    compiled, _ = _warm()
    one = len(EXPRESSION) * COMPILED_BYTES_PER_TEXT_BYTE + COMPILED_BYTES_FIXED
    cache = CompileCacheBudget(max_bytes=one)  # room for exactly one expression's estimate
    cache.note({EXPRESSION})
    assert (cache.clears, cache.estimated_bytes) == (0, one)
    assert celext.compile(EXPRESSION) is compiled
    cache.note({EXPRESSION + " "})  # one byte more than fits: everything is dropped
    assert cache.clears == 1
    assert celext.compile(EXPRESSION) is not compiled
