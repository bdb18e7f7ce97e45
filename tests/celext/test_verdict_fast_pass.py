"""The whole-device check's fast pass (celext.runtime.verdict), row by row at its edges.

The answers of every selector are pinned by test_engine_device_verdicts.py, but a fast pass that refuses a shape
it should accept gives the same answers (the conversion decides instead, slower). `clean()` says what the fast pass
itself accepts, so each row here pins that too: what drivers publish is accepted without a conversion, and
anything else is left to the conversion. The verdict table (`VERDICTS`) remembers each device's answer, clean or
not, and is dropped when full.
"""

from __future__ import annotations

from collections import UserDict
from types import MappingProxyType
from typing import Any

import pytest

import celext
from celext.runtime import verdict
from celext.runtime.memo import MISS

INT64_MAX, INT64_MIN = 2**63 - 1, -(2**63)
LONG = list(range(9))  # past the length (8) up to which int lists are checked item by item

# (row id, one attribute's wire entry, does the fast pass accept it)
ATTRIBUTES: list[tuple[str, Any, bool]] = [
    ("string", {"string": "a"}, True),
    ("empty string", {"string": ""}, True),
    ("int as string", {"string": 5}, False),
    ("int64 max", {"int": INT64_MAX}, True),
    ("int64 min", {"int": INT64_MIN}, True),
    ("zero", {"int": 0}, True),
    ("int64 max + 1", {"int": INT64_MAX + 1}, False),
    ("int64 min - 1", {"int": INT64_MIN - 1}, False),
    ("bool as int", {"int": True}, False),
    ("string as int", {"int": "1"}, False),
    ("bool false", {"bool": False}, True),
    ("bool true", {"bool": True}, True),
    ("int as bool", {"bool": 1}, False),
    ("version", {"version": "1.2.3"}, True),
    ("version without patch", {"version": "1.0"}, False),
    ("int as version", {"version": 1}, False),
    ("two ints at the edges", {"ints": [INT64_MAX, INT64_MIN]}, True),
    ("eight ints", {"ints": LONG[:8]}, True),
    ("eight ints past max", {"ints": [*LONG[:7], INT64_MAX + 1]}, False),
    ("eight ints past min", {"ints": [*LONG[:7], INT64_MIN - 1]}, False),
    ("eight ints with a bool", {"ints": [*LONG[:7], True]}, False),
    ("nine ints at the edges", {"ints": [*LONG[:7], INT64_MAX, INT64_MIN]}, True),
    ("nine ints past max", {"ints": [*LONG[:8], INT64_MAX + 1]}, False),
    ("nine ints past min", {"ints": [*LONG[:8], INT64_MIN - 1]}, False),
    ("nine ints with a bool", {"ints": [*LONG[:8], True]}, False),
    ("nine ints with a string", {"ints": [*LONG[:8], "9"]}, False),
    ("empty ints", {"ints": []}, True),
    ("empty bools", {"bools": []}, True),
    ("empty strings", {"strings": []}, True),
    ("empty versions", {"versions": []}, True),
    ("strings", {"strings": ["a", "b"]}, True),
    ("strings with an int", {"strings": ["a", 1]}, False),
    ("versions", {"versions": ["1.0.0", "2.0.0-rc.1"]}, True),
    ("versions with a bad one", {"versions": ["1.0.0", "1.0"]}, False),
    ("versions with an int", {"versions": ["1.0.0", 1]}, False),
    ("bools", {"bools": [True, False]}, True),
    ("bools with an int", {"bools": [True, 1]}, False),
    ("bools with a string", {"bools": ["a"]}, False),
    ("ints given as strings", {"ints": ["1"]}, False),
    ("ints member not a list", {"ints": 5}, False),
    ("ints member a tuple", {"ints": (1, 2)}, False),
    ("unknown list member", {"floats": [1.5]}, False),
    ("unknown member", {"float": 1.5}, False),
    ("null string", {"string": None}, False),
    ("two members", {"int": 1, "string": "a"}, False),
    ("no member", {}, False),
    ("not a map", 5, False),
    ("a read-only entry", MappingProxyType({"int": 1}), False),
]

CAPACITIES: list[tuple[str, Any, bool]] = [
    ("quantity", {"value": "1Gi"}, True),
    ("bare quantity string", "1Gi", True),
    ("number", {"value": 5}, False),  # converts, but only strings take the fast pass
    ("not a quantity", {"value": "abc"}, False),
    ("value under another name", {"VALUE": "1"}, False),
    ("a read-only entry", MappingProxyType({"value": "1"}), False),
]


@pytest.mark.parametrize(("raw", "accepted"), [row[1:] for row in ATTRIBUTES], ids=[row[0] for row in ATTRIBUTES])
def test_the_fast_pass_accepts_what_drivers_publish_and_leaves_the_rest(raw: Any, accepted: bool) -> None:
    good = {"ok": {"int": 1}}
    assert verdict.clean({**good, "x": raw}, None) is accepted
    assert verdict.clean({"x": raw, **good}, {"m": {"value": "1"}}) is accepted
    # A device whose attribute map the fast pass refuses is not made clean by a clean capacity map.
    assert verdict.clean({"x": raw}, {}) is accepted


@pytest.mark.parametrize(("raw", "accepted"), [row[1:] for row in CAPACITIES], ids=[row[0] for row in CAPACITIES])
def test_the_fast_pass_over_capacities(raw: Any, accepted: bool) -> None:
    assert verdict.clean({"ok": {"int": 1}}, {"first": {"value": "2"}, "m": raw}) is accepted
    assert verdict.clean(None, {"m": raw}) is accepted


@pytest.mark.parametrize(("attributes", "capacities", "accepted"), [
    (None, None, True),
    ({}, {}, True),
    (None, {}, True),
    ({}, None, True),
    (UserDict({"ok": {"int": 1}}), None, False),  # a map that is not a dict: left to the conversion
    ({"ok": {"int": 1}}, UserDict({"m": {"value": "1"}}), False),
    ({"ok": {"int": INT64_MAX + 1}}, {"m": {"value": "1"}}, False),
    ({"ok": {"int": INT64_MAX + 1}}, None, False),
])
def test_the_fast_pass_over_whole_maps(attributes: Any, capacities: Any, accepted: bool) -> None:
    assert verdict.clean(attributes, capacities) is accepted


TOO_BIG = "attribute x: cannot unmarshal number into Go struct field DeviceAttribute.int of type int64"


@pytest.mark.parametrize(("device", "expected", "maps", "devices"), [
    ({"name": "d", "attributes": {"x": {"int": 1}}}, None, 1, 0),
    ({"name": "d", "basic": {"attributes": {"x": {"int": 1}}, "capacity": {"m": "1"}}}, None, 2, 0),
    ({"name": "d", "attributes": {"x": {"int": INT64_MAX + 1}}}, TOO_BIG, 0, 1),
    ({"name": "d", "basic": {"attributes": {"x": {"int": INT64_MAX + 1}}}}, TOO_BIG, 0, 1),
    ({"name": "d", "capacity": {"m": {"value": 5}}}, None, 0, 1),  # converts, though not by the fast pass
])
def test_each_verdict_is_remembered_under_its_maps_or_its_device(device: dict[str, Any], expected: str | None,
                                                                 maps: int, devices: int) -> None:
    """What the fast pass accepts is remembered map by map; any other verdict (to_device's) under the device."""
    celext.clear_caches()
    verdict.VERDICTS.clear()
    assert verdict.device_error(device, "d") == expected
    assert len(verdict.VERDICTS) == maps + devices
    assert len(verdict.VERDICTS.attributes) + len(verdict.VERDICTS.capacities) == maps
    assert len(verdict.VERDICTS.devices) == devices
    assert verdict.VERDICTS.get(device) == expected
    assert verdict.VERDICTS.get({"name": "other", "attributes": {"x": {"int": 1}}}) is MISS  # a map never seen
    assert verdict.device_error(device, "d") == expected  # read back from the table


def test_a_device_whose_maps_are_not_dicts_is_not_remembered() -> None:
    verdict.VERDICTS.clear()
    device = {"name": "d", "attributes": UserDict({"x": {"int": 1}})}
    assert verdict.device_error(device, "d") is None
    assert len(verdict.VERDICTS) == 0
    assert verdict.VERDICTS.get(device) is MISS


@pytest.mark.parametrize(("limit", "devices", "kept"), [(3, 2, 2), (3, 3, 3), (3, 4, 1)])
def test_the_verdict_table_is_dropped_when_full(monkeypatch: pytest.MonkeyPatch, limit: int, devices: int,
                                                kept: int) -> None:
    """Below and at its limit every device is remembered; the next one past it finds the table full, drops
    it, and is the only one remembered."""
    verdict.VERDICTS.clear()
    monkeypatch.setattr(verdict.VERDICTS, "limit", limit)
    made = [{"name": f"d{i}", "attributes": {"x": {"int": i}}} for i in range(devices)]
    for device in made:
        assert verdict.device_error(device, "d") is None
    assert len(verdict.VERDICTS) == kept
    assert verdict.VERDICTS.get(made[-1]) is None
    verdict.VERDICTS.clear()


@pytest.mark.parametrize(("limit", "devices", "kept"), [(3, 2, 2), (3, 3, 3), (3, 4, 1)])
def test_the_read_only_table_is_dropped_when_full(monkeypatch: pytest.MonkeyPatch, limit: int, devices: int,
                                                  kept: int) -> None:
    verdict.forget()
    monkeypatch.setattr(verdict, "READ_ONLY_VERDICTS", limit)
    made = [MappingProxyType({"name": f"d{i}", "attributes": {"x": {"int": i}}}) for i in range(devices)]
    for device in made:
        assert verdict.device_error(device, "d") is None
    assert verdict.remembered() == kept
    verdict.forget()
