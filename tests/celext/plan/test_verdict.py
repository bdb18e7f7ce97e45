"""The whole-device conversion check (celext.runtime.verdict): always to_device's verdict and text, every
selector fails on a device Kubernetes cannot convert, and the remembered verdict follows edits."""

from __future__ import annotations

from collections.abc import MutableMapping
from types import MappingProxyType
from typing import Any

import pytest

import celext
from celext.reference.values import to_device
from celext.runtime import verdict
from tests.celext.plan.views import View

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

ATTRIBUTES: list[Any] = [
    {"int": INT64_MIN - 1}, {"int": INT64_MIN}, {"int": INT64_MAX}, {"int": INT64_MAX + 1}, {"int": True},
    {"ints": [INT64_MIN - 1]}, {"ints": [0, INT64_MAX]}, {"ints": [INT64_MAX + 1]}, {"ints": [1, True]},
    {"ints": []}, {"ints": "1"}, {"bool": False}, {"bool": 0}, {"bools": [True, 1]}, {"bools": [False]},
    {"string": ""}, {"string": 1}, {"string": None}, {"strings": ["a", 1]}, {"strings": ["a", "b"]},
    {"version": "1.2.3"}, {"version": "1.2"}, {"version": "01.2.3"}, {"version": "1.2.3-rc.1+b"},
    {"version": 1}, {"versions": ["1.0.0", "2.0.0"]}, {"versions": ["1.0.0", "x"]}, {"versions": [1]},
    {}, {"int": 1, "string": "a"}, {"ints": [1], "int": 2}, {"other": 1}, "a", ["int"], None, 5,
    # int lists around the length where the item-by-item check hands over to the bulk one (verdict._SHORT)
    *({"ints": [0] * (n - 1) + [last]} for n in (7, 8, 9) for last in (INT64_MAX + 1, INT64_MIN - 1, True, 1.0,
                                                                        INT64_MIN)),
]
CAPACITIES: list[Any] = [{"value": "80Gi"}, {"value": "1.5"}, {"value": "80 Gi"}, {"value": ""}, {"value": 5},
                         "16", "x", {"other": "1"}, {}, None]


@pytest.mark.parametrize("raw", ATTRIBUTES, ids=repr)
def test_attribute_verdicts_are_to_devices(raw: Any) -> None:
    device = {"name": "d", "attributes": {"ok": {"string": "x"}, "a": raw}}
    assert verdict.device_error(device, "drv") == to_device(device, "drv").error


@pytest.mark.parametrize("raw", CAPACITIES, ids=repr)
def test_capacity_verdicts_are_to_devices(raw: Any) -> None:
    device = {"basic": {"attributes": {"a": {"int": 1}}, "capacity": {"memory": raw}}}
    assert verdict.device_error(device, "drv") == to_device(device, "drv").error


def test_the_texts_and_the_first_bad_entry_in_map_order() -> None:
    device = {"attributes": {"a": {"int": 1}, "v": {"version": "1.2"}, "w": {}}, "capacity": {"m": "x"}}
    expected = "attribute v: parse semantic version: No Major.Minor.Patch elements found"
    assert verdict.device_error(device, "d") == expected
    device = {"attributes": {"w": {}, "v": {"version": "1.2"}}}
    assert verdict.device_error(device, "d") == "attribute w: unsupported attribute value"
    message = verdict.device_error({"capacity": {"m": {"value": "80 Gi"}}}, "d")
    assert message is not None and message.startswith("capacity m: ")


@pytest.mark.parametrize("device", [{"basic": 5}, {"basic": {}}, {"attributes": []}, {"attributes": {}},
                                    {"capacity": "x"}, {}, {"basic": {"attributes": {"a": {}}}}], ids=repr)
def test_odd_shapes_are_decided_by_to_device(device: Any) -> None:
    assert verdict.device_error(device, "d") == to_device(device, "d").error


@pytest.mark.parametrize("device", [
    {"attributes": {"a": {"int": 1}, "v": {"version": "1.2.3"}}, "capacity": {"m": {"value": "80Gi"}}},
    {"attributes": {"a": {"int": 1}, "v": {"version": "1.2"}}},
    {"capacity": {"m": {"value": "80 Gi"}}},
    {"basic": {"attributes": {"a": {}}}},
    {"basic": 5},
], ids=repr)
def test_a_device_in_another_mapping_gets_the_dicts_verdict(device: dict[str, Any]) -> None:
    assert verdict.device_error(View(device), "d") == verdict.device_error(device, "d")


def test_every_selector_fails_on_a_bad_device_it_does_not_read() -> None:
    device = {"attributes": {"model": {"string": "A100"}, "n": {"int": 1}, "v": {"version": "1.2.3.4"}}}
    for engine in ("compiled", "reference"):
        selector = celext.compile('device.driver == "x"', engine=engine)
        with pytest.raises(celext.EvaluationError, match=r"^attribute v: parse semantic version: "):
            selector.evaluate(device, "d")


def test_the_remembered_verdict_follows_a_grown_or_replaced_map() -> None:
    selector = celext.compile('device.driver == "d"')
    device: dict[str, Any] = {"attributes": {"a": {"int": 1}}}
    assert selector.matches(device, "d") is True
    device["attributes"]["b"] = {"version": "x"}  # the same map, grown
    with pytest.raises(celext.EvaluationError, match=r"^attribute b: parse semantic version"):
        selector.evaluate(device, "d")
    device["attributes"] = {"a": {"int": 1}}  # replaced
    assert selector.evaluate(device, "d") is True
    device["capacity"] = {"m": {"value": "x"}}
    with pytest.raises(celext.EvaluationError, match=r"^capacity m: "):
        selector.matches(device, "d")


def test_remembered_answers_follow_maps_that_appear_or_are_read_only_views() -> None:
    selector = celext.compile('device.driver == "d"')
    device: dict[str, Any] = {}
    assert [selector.matches(device, "d"), selector.evaluate(device, "d")] == [True, True]  # both maps absent
    device["attributes"] = {}  # a map appears, empty
    assert selector.matches(device, "d") is True
    device["attributes"]["a"] = {"version": "x"}  # the same map, grown
    with pytest.raises(celext.EvaluationError, match=r"^attribute a: parse semantic version"):
        selector.matches(device, "d")
    # A map that is not a dict (here a read-only view of one) is never remembered: its contents can change
    # under the same object and the same size.
    for fresh in ({"a": {"int": 1}}, {"a": {"int": 1}, "b": {"int": 2}}):
        inner: dict[str, Any] = fresh
        viewed = {"attributes": MappingProxyType(inner), "capacity": MappingProxyType({})}
        assert [selector.matches(viewed, "d"), selector.evaluate(viewed, "d")] == [True, True]
        inner["a"] = {"version": "x"}  # replaced in place: same view, same size
        with pytest.raises(celext.EvaluationError, match=r"^attribute a: parse semantic version"):
            selector.matches(viewed, "d")
        with pytest.raises(celext.EvaluationError, match=r"^attribute a: parse semantic version"):
            selector.evaluate(viewed, "d")


def test_string_verdicts_are_bounded() -> None:
    verdicts = verdict.TextVerdicts(lambda text: text == "ok", limit=2)
    assert [verdicts["ok"], verdicts["no"], verdicts["ok"]] == [True, False, True]
    assert len(verdicts) <= 2


def test_a_read_only_mappings_verdict_is_remembered_within_a_bound() -> None:
    """A read-only Mapping device keeps its verdict by identity, up to READ_ONLY_VERDICTS devices; one more drops
    the table; `celext.clear_caches()` lets the devices go."""
    celext.clear_caches()
    good = {"attributes": {"v": {"version": "1.2.3"}}}
    expected = None
    views = [View(good) for _ in range(verdict.READ_ONLY_VERDICTS + 1)]
    for view in views[:-2]:
        verdict.device_error(view, "d")
    assert verdict.remembered() == verdict.READ_ONLY_VERDICTS - 1
    assert verdict.device_error(views[-2], "d") == expected
    assert verdict.remembered() == verdict.READ_ONLY_VERDICTS
    assert verdict.device_error(views[-1], "d") == expected
    assert verdict.remembered() == 1
    assert verdict.device_error(views[-1], "d") == expected  # remembered
    celext.clear_caches()
    assert verdict.remembered() == 0


def test_a_mutable_mappings_verdict_follows_its_changes() -> None:
    class Mutable(View, MutableMapping[str, Any]):
        def __setitem__(self, key: str, value: Any) -> None:
            self._fields[key] = value

        def __delitem__(self, key: str) -> None:
            del self._fields[key]

    device = Mutable({"attributes": {"v": {"version": "1.2.3"}}})
    assert verdict.device_error(device, "d") is None
    device["attributes"] = {"v": {"version": "1.2"}}
    assert verdict.device_error(device, "d") == verdict.device_error({"attributes": {"v": {"version": "1.2"}}}, "d")
