"""`Projections` remembers groupings per candidate list: a list that grew since (an inventory filled page by
page) is grouped afresh with its new devices, and a `where` filter is applied even when the unfiltered grouping
is remembered. Named `test_selectors_outcomes_*` so mutation testing runs it first on
`webhook.rules.selectors_outcomes`."""

from __future__ import annotations

from typing import Any

from tests.builders import device, slice_with
from webhook.inventory import Device, build
from webhook.rules.selectors_outcomes import Projections

MODEL = ("attributes", "gpu.example.com", "model")


def _devices(*models: Any) -> list[Device]:
    return build([slice_with(*(device(f"gpu-{i}", attributes={"model": m}) for i, m in enumerate(models)))]).devices


def _members(projections: Projections, candidates: list[Device], **where: Any) -> list[tuple[int, ...]]:
    return [group.indexes for group in projections.groups(candidates, (MODEL,), **where)]


def test_a_grown_list_is_grouped_with_its_new_devices() -> None:
    first, second, third = _devices("a", "a", "b")
    candidates = [first, second]
    projections = Projections()
    assert _members(projections, candidates) == [(0, 1)]
    candidates.append(third)
    assert _members(projections, candidates) == [(0, 1), (2,)]


def test_where_filters_a_remembered_grouping() -> None:
    candidates = _devices("a", "b")
    projections = Projections()
    assert _members(projections, candidates) == [(0,), (1,)]
    assert _members(projections, candidates, where=lambda layout: False) == []
    assert _members(projections, candidates) == [(0,), (1,)]
