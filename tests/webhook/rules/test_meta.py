"""The draguard.io/ignore annotation's own rule."""

from __future__ import annotations

from tests.builders import slice_with
from tests.webhook.rules.conftest import Check

PATH = "metadata.annotations[draguard.io/ignore]"


def test_suppression_with_reason_passes(check: Check) -> None:
    obj = slice_with(numa=-1, annotations={"draguard.io/ignore": "numa-node-range: firmware reports -1, ticket 12"})
    assert check("suppression-reason-missing", obj) == []


def test_suppression_without_reason_is_reported(check: Check) -> None:
    obj = slice_with(numa=-1, annotations={"draguard.io/ignore": "numa-node-range"})
    assert check("suppression-reason-missing", obj) == [
        (PATH, "draguard.io/ignore names numa-node-range without a reason, so it suppresses nothing")]


def test_suppression_of_unknown_rule_is_reported(check: Check) -> None:
    obj = slice_with(annotations={"draguard.io/ignore": "numa-range: typo"})
    assert check("suppression-reason-missing", obj) == [(PATH, "draguard.io/ignore names unknown rule numa-range")]
