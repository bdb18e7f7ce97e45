"""The remembered conversion verdicts (celext.runtime.verdict.VERDICTS): a map the fast pass accepted is
remembered by itself (identity and size), any other verdict under its device; a first pass over a fleet leaves
nothing for the cyclic collector; each table is bounded."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

import celext
from celext.reference.values import to_device
from celext.runtime import verdict
from celext.runtime.memo import MISS

TOO_BIG = "attribute x: cannot unmarshal number into Go struct field DeviceAttribute.int of type int64"
BAD_QUANTITY = "capacity m: quantities must match the regular expression"
SELECTOR = 'device.driver == "d"'


@pytest.fixture(autouse=True)
def _empty_tables() -> Iterator[None]:
    verdict.VERDICTS.clear()
    yield
    verdict.VERDICTS.clear()


def _answer(device: dict[str, Any]) -> bool | str:
    try:
        return celext.compile(SELECTOR).evaluate(device, "d")
    except celext.EvaluationError as err:
        return err.message


def test_devices_sharing_a_map_share_its_verdict() -> None:
    """A YAML alias gives two devices the same attribute map: it is judged once and answers for both."""
    shared = {"x": {"int": 1}, "y": {"string": "a"}}
    first, second = {"name": "a", "attributes": shared}, {"name": "b", "attributes": shared}
    assert verdict.device_error(first, "d") is None
    assert len(verdict.VERDICTS) == 1
    assert verdict.VERDICTS.get(second) is None  # never evaluated, remembered through its map
    assert _answer(second) is True
    assert len(verdict.VERDICTS) == 1


def test_a_map_shrunk_and_grown_back_to_a_remembered_size_is_judged_again() -> None:
    """The size a map was last judged at is the one compared: an older clean size is forgotten."""
    attributes: dict[str, Any] = {"a": {"int": 1}, "b": {"int": 2}}
    device = {"name": "d", "attributes": attributes}
    assert _answer(device) is True  # judged clean at two entries
    del attributes["b"]
    assert _answer(device) is True  # judged again, clean at one entry
    attributes["x"] = {"int": 2**63}  # two entries again, one of them bad
    assert _answer(device) == TOO_BIG
    assert verdict.device_error(device, "d") == TOO_BIG == to_device(device, "d").error


def test_a_map_judged_bad_is_no_longer_remembered_clean_at_its_older_size() -> None:
    """Clean at one entry, grown in place by a bad entry (judged bad), then shrunk back to one entry that is the
    bad one: the clean verdict of the one-entry map must not answer for it."""
    attributes: dict[str, Any] = {"a": {"int": 1}}
    device = {"name": "d", "attributes": attributes}
    assert _answer(device) is True  # clean at one entry
    attributes["x"] = {"int": 2**63}
    assert _answer(device) == TOO_BIG
    del attributes["a"]  # one entry again: the bad one
    assert _answer(device) == TOO_BIG
    assert verdict.device_error(device, "d") == TOO_BIG == to_device(device, "d").error


def test_one_map_used_as_attributes_and_as_capacities_is_judged_as_each() -> None:
    """Clean as a capacity map is not clean as an attribute map: the two kinds are remembered apart."""
    entries = {"m": {"value": "1"}}
    as_capacity = {"name": "c", "attributes": {}, "capacity": entries}
    as_attributes = {"name": "a", "attributes": entries}
    assert _answer(as_capacity) is True
    expected = to_device(as_attributes, "d").error
    assert expected == "attribute m: unsupported attribute value"
    assert _answer(as_attributes) == expected
    assert verdict.VERDICTS.get(as_attributes) == expected
    assert _answer(as_capacity) is True


def test_a_bad_capacity_beside_a_remembered_attribute_map_is_still_seen() -> None:
    attributes = {"x": {"int": 1}}
    assert _answer({"attributes": attributes}) is True
    device = {"attributes": attributes, "capacity": {"m": {"value": "x"}}}
    answer = _answer(device)
    assert isinstance(answer, str) and answer.startswith(BAD_QUANTITY)
    assert verdict.VERDICTS.get(device) == answer


def test_a_first_pass_over_a_fleet_leaves_the_collector_nothing() -> None:
    """Remembering a clean device allocates no container the cyclic collector tracks (its count of new
    containers does not grow with the fleet), so a first pass sets off no collection walking the devices."""
    fleet = [{"name": f"d{i}", "attributes": {"x": {"int": i}, "y": {"string": "s"}},
              "capacity": {"m": {"value": "1Gi"}}} for i in range(2_000)]
    selector = celext.compile(SELECTOR)
    selector.evaluate(fleet[0], "d")
    verdict.VERDICTS.clear()
    gc.collect()
    gc.disable()
    try:
        before = gc.get_count()[0]
        assert all(selector.evaluate(device, "d") for device in fleet)
        grown = gc.get_count()[0] - before
    finally:
        gc.enable()
    assert len(verdict.VERDICTS) == 2 * len(fleet)  # every map remembered
    assert grown < 100, grown  # a tuple (or any container) per device would be 2,000


@pytest.mark.parametrize("field", ["attributes", "capacity"])
@pytest.mark.parametrize(("devices", "kept"), [(2, 2), (3, 3), (4, 1)])
def test_each_map_table_is_dropped_when_full(monkeypatch: pytest.MonkeyPatch, field: str, devices: int,
                                             kept: int) -> None:
    """Limit 3: below and at it every map is remembered; one more finds its table full, drops it and is the
    only one remembered. Dropping forgets, never answers wrongly: each device is judged again."""
    monkeypatch.setattr(verdict.VERDICTS, "limit", 3)
    entry = {"x": {"int": 1}} if field == "attributes" else {"m": {"value": "1"}}
    made = [{"name": f"d{i}", field: dict(entry)} for i in range(devices)]
    for device in made:
        assert verdict.device_error(device, "d") is None
    table = verdict.VERDICTS.attributes if field == "attributes" else verdict.VERDICTS.capacities
    sizes = verdict.VERDICTS.attribute_sizes if field == "attributes" else verdict.VERDICTS.capacity_sizes
    assert len(table) == len(sizes) == len(verdict.VERDICTS) == kept
    assert verdict.VERDICTS.get(made[-1]) is None
    assert verdict.VERDICTS.get(made[0]) is (None if kept == devices else MISS)
    assert [verdict.device_error(device, "d") for device in made] == [None] * devices


@pytest.mark.parametrize(("devices", "kept"), [(2, 2), (3, 3), (4, 1)])
def test_the_device_table_is_dropped_when_full(monkeypatch: pytest.MonkeyPatch, devices: int, kept: int) -> None:
    monkeypatch.setattr(verdict.VERDICTS, "limit", 3)
    made = [{"name": f"d{i}", "attributes": {"x": {"int": 2**63 + i}}} for i in range(devices)]
    for device in made:
        assert verdict.device_error(device, "d") == TOO_BIG
    assert len(verdict.VERDICTS.devices) == len(verdict.VERDICTS) == kept
    assert verdict.VERDICTS.get(made[-1]) == TOO_BIG


def test_a_remembered_map_is_held_so_its_identity_is_never_another_maps() -> None:
    """Maps made and dropped one after the other, clean and bad in turn, all of one size: a freed map's
    address may be reused, so the table must hold each map it remembers (and compare it by identity)."""
    for number in range(300):
        device = {"name": "d", "attributes": {"x": {"int": 1 if number % 2 else 2**63}}}
        assert verdict.device_error(device, "d") == (None if number % 2 else TOO_BIG)
        del device


GOOD_ATTRIBUTES = {"a": {"int": 1}, "v": {"version": "1.2.3"}}
GOOD_CAPACITY = {"m": {"value": "1Gi"}}


@pytest.mark.parametrize("device", [
    {"name": "d", "attributes": GOOD_ATTRIBUTES, "capacity": GOOD_CAPACITY},
    {"name": "d", "basic": {"attributes": GOOD_ATTRIBUTES, "capacity": GOOD_CAPACITY}},
    {"name": "d", "attributes": GOOD_ATTRIBUTES},
    {"name": "d", "capacity": GOOD_CAPACITY},
    {"name": "d"},
    {"name": "d", "attributes": {"x": {"int": 2**63}}},  # to_device's verdict, remembered under the device
    {"name": "d", "attributes": GOOD_ATTRIBUTES, "capacity": {"m": {"value": "1 Gi"}}},
], ids=["both", "basic", "attributes", "capacity", "neither", "bad-attribute", "bad-capacity"])
def test_a_device_seen_again_is_answered_from_memory(monkeypatch: pytest.MonkeyPatch, device: dict[str, Any]) -> None:
    """The memo's point: a device evaluated again, unchanged, is not judged again, and keeps its verdict."""
    judged: list[object] = []
    first_sight = verdict.first_sight

    def counting(*args: Any) -> str | None:
        judged.append(args[0])
        return first_sight(*args)

    monkeypatch.setattr(verdict, "first_sight", counting)
    expected = to_device(device, "d").error
    assert verdict.device_error(device, "d") == expected
    once = [device] if device.keys() - {"name"} else []  # a device without maps needs no judging
    assert judged == once
    assert [verdict.device_error(device, "d") for _ in range(2)] == [expected] * 2
    assert judged == once


def test_a_fresh_memo_is_empty_and_bounded_as_asked() -> None:
    fresh = verdict.Verdicts(5)
    assert (fresh.limit, fresh.devices.limit, len(fresh)) == (5, 5, 0)
    assert fresh.get({"name": "d", "attributes": {"a": {"int": 1}}}) is MISS
    assert fresh.get({"name": "d"}) is None  # no maps: nothing to convert
    assert fresh.get({"name": "d", "basic": [1]}) is MISS  # a `basic` that is not a map: to_device decides
    fresh.limit = 7
    assert (fresh.limit, fresh.devices.limit) == (7, 7)
