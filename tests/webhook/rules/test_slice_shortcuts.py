"""The slice rules' shortcuts each equal the plain reading they replace (issue 18: rules CPU).

- the fast accept's list flag (`device_verdict`) equals upstream's haveListAttributes, so the device limit (64 with
  list attributes, 128 without) is the precise one whichever device carries the list;
- gate drops (`gates._off`, remembered per release, overrides, scope and gates in use) equal the uncached
  choice, and the table stays bounded; `_any_sets` (the C check for dropped device fields) equals `_sets_any`;
- the slice index (`devices._walk`, plain dict devices read inline) equals `devices()` + `attributes()` for every
  shape a device can have on the wire.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webhook.policy import Policy
from webhook.profiles import load_profile
from webhook.rules.devices import _walk, attributes, devices
from webhook.rules.k8s import fast, gates
from webhook.rules.k8s.fast import CLEAN, CLEAN_WITH_LISTS, NOT_CLEAN, device_verdict, precise_only
from webhook.run import run_rules

DRIVER = "gpu.example.com"


def _device(i: int, *, lists: bool) -> dict[str, Any]:
    attrs: dict[str, Any] = {"index": {"int": i}, "model": {"string": "h100"}}
    if lists:
        attrs["lanes"] = {"ints": [0, 1]}
    return {"name": f"gpu-{i}", "attributes": attrs, "capacity": {"memory": {"value": "80Gi"}}}


def _slice(devices_: list[Any], version: str = "v1") -> dict[str, Any]:
    return {"apiVersion": f"resource.k8s.io/{version}", "kind": "ResourceSlice", "metadata": {"name": "node-a-gpu"},
            "spec": {"driver": DRIVER, "nodeName": "node-a", "devices": devices_,
                     "pool": {"name": "node-a", "generation": 1, "resourceSliceCount": 1}}}


def _seen(obj: dict[str, Any], policy: Policy) -> list[tuple[str, str, str, str, str]]:
    return [(f.rule, f.action.value, str(f.path), f.message, f.hint)
            for f in run_rules(copy.deepcopy(obj), policy).findings]


@pytest.mark.parametrize(("change", "verdict"), [
    (lambda d: None, CLEAN),
    (lambda d: d["attributes"].update(lanes={"ints": [1]}), CLEAN_WITH_LISTS),
    (lambda d: d["attributes"].update(lanes={"strings": ["a"]}), CLEAN_WITH_LISTS),
    (lambda d: d["attributes"].update(lanes={"bools": [True]}), CLEAN_WITH_LISTS),
    (lambda d: d["attributes"].update(lanes={"versions": ["1.0.0"]}), CLEAN_WITH_LISTS),
    (lambda d: d["attributes"].update(lanes={"ints": []}), NOT_CLEAN),
    (lambda d: d.pop("attributes"), CLEAN),
    (lambda d: d.update(attributes={}), CLEAN),
    (lambda d: d.update(taints=[]), NOT_CLEAN),
])
def test_device_verdict_names_list_attributes(change: Any, verdict: int) -> None:
    device = _device(0, lists=False)
    change(device)
    assert device_verdict(device, fast.FAST_FIELDS, 48) == verdict
    assert fast.clean_device(device, fast.FAST_FIELDS, 48) is (verdict != NOT_CLEAN)


@pytest.mark.parametrize("count", [63, 64, 65])
@pytest.mark.parametrize("where", ["first", "last", "unclean"])
def test_one_list_anywhere_sets_the_64_device_limit(count: int, where: str) -> None:
    """One device with a list attribute (clean, or held back by another field) makes the limit 64: at 63, 64, 65."""
    devices_ = [_device(i, lists=False) for i in range(count)]
    at = 0 if where == "first" else count - 1
    devices_[at]["attributes"]["lanes"] = {"ints": [0, 1]}
    if where == "unclean":
        devices_[at]["attributes"]["odd"] = {"int": 1, "bool": True}  # an attribute-union error: precise path
    seen = _seen(_slice(devices_), Policy.default())
    over = [f for f in seen if f[0] == "k8s-device-count"]
    assert len(over) == (count == 65)
    with precise_only():
        assert _seen(_slice(devices_), Policy.default()) == seen


def test_no_list_keeps_the_128_device_limit() -> None:
    devices_ = [_device(i, lists=False) for i in range(128)]
    assert [f for f in _seen(_slice(devices_), Policy.default()) if f[0] == "k8s-device-count"] == []


def _uncached_off(profile: Any, scope: str, in_use: frozenset[str]) -> dict[str, str]:
    """The choice `_off` remembers, made the long way: every gated field whose first disabled gate is unused."""
    found: dict[str, str] = {}
    for name, guards in load_profile(profile.version).fields.items():
        prefix, _, field = name.partition(".")
        if prefix != scope or not guards or any(g in in_use for g in guards):
            continue
        off = [g for g in guards if not profile.enabled(g)]
        if off:
            found[field] = off[0]
    return found


@pytest.mark.parametrize("version", ["1.34", "1.36", "1.37"])
@pytest.mark.parametrize("overrides", [{}, {"DRADeviceTaints": False}, {"DRANodeAllocatableResources": True},
                                       {"DRAConsumableCapacity": False, "DRAPartitionableDevices": False}])
@pytest.mark.parametrize("in_use", [frozenset(), frozenset({"DRADeviceTaints", "DRAConsumableCapacity"})])
def test_gate_drops_equal_the_uncached_choice(version: str, overrides: dict[str, bool],
                                              in_use: frozenset[str]) -> None:
    base = load_profile(version)
    known = {g: v for g, v in overrides.items() if g in base.gate_specs}
    profile = Policy.from_mapping({"kubernetes": version, "featureGates": known}).profile
    for scope in ("spec", "device", "capacity"):
        first = gates._off(profile, scope, in_use)
        assert dict(first) == _uncached_off(profile, scope, in_use)
        assert gates._off(profile, scope, in_use) is first  # remembered
        assert isinstance(first, MappingProxyType)  # shared between runs: read-only


def test_gate_drop_table_is_bounded() -> None:
    profile = load_profile("1.37")
    gates._OFF.clear()
    uses = [frozenset({f"Gate{k}"}) for k in range(gates._OFF_ENTRIES + 1)]
    for in_use in uses[:-1]:
        gates._off(profile, "device", in_use)
    assert len(gates._OFF) == gates._OFF_ENTRIES
    gates._off(profile, "device", uses[-1])  # one past the limit: the table starts again
    assert len(gates._OFF) == 1


def test_dropped_device_field_is_reported_by_the_c_check() -> None:
    """Default 1.37: DRANodeAllocatableResources is off, so the field is dropped (and said so) on the last device
    as on the first; a device without it drops nothing."""
    for at in (0, 2):
        devices_ = [_device(i, lists=False) for i in range(3)]
        devices_[at]["nodeAllocatableResources"] = {"cpu": {"capacityKey": "memory"}}
        gated = [f for f in _seen(_slice(devices_), Policy.default()) if f[0] == "k8s-feature-gate"]
        assert [f[2] for f in gated] == [f"spec.devices[{at}].nodeAllocatableResources"]
    assert [f for f in _seen(_slice([_device(0, lists=False)]), Policy.default()) if f[0] == "k8s-feature-gate"] == []


DEVICE_OFF = [{}, {"nodeAllocatableResources": "G"}, {"taints": "T", "nodeName": "P"}]
CAPACITY_OFF = [{}, {"requestPolicy": "C"}]
DEVICE_SHAPES = st.one_of(
    st.fixed_dictionaries({}, optional={
        "name": st.just("d"), "taints": st.just([]), "nodeName": st.just("n"),
        "nodeAllocatableResources": st.just({}),
        "capacity": st.sampled_from([{}, {"m": {"value": "1"}}, {"m": {"value": "1", "requestPolicy": {}}},
                                     {"m": "x"}, "x"]),
    }),
    st.sampled_from([None, "x", 1, [], MappingProxyType({"taints": []})]),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(DEVICE_SHAPES, max_size=4), st.sampled_from(range(len(DEVICE_OFF))),
       st.sampled_from(range(len(CAPACITY_OFF))))
def test_any_sets_equals_sets_any(devices_: list[Any], device_off: int, capacity_off: int) -> None:
    d_off, c_off = DEVICE_OFF[device_off], CAPACITY_OFF[capacity_off]
    expected = any(gates._sets_any(d, d_off, c_off) for d in devices_)
    assert gates._any_sets(devices_, d_off, c_off) is expected


class _Device(Mapping[str, Any]):
    """A read-only mapping device (not a dict): the index must take the general path for it."""

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Any:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


INDEX_SHAPES = [
    {"name": "a", "attributes": {"x": {"int": 1}}},
    {"name": "a"},
    {"name": "a", "attributes": None},
    {"name": "a", "attributes": []},
    {"name": "a", "attributes": MappingProxyType({"x": {"int": 1}})},
    {"name": "a", "basic": None, "attributes": {"x": {"int": 1}}},
    {"name": "a", "basic": {"attributes": {"y": {"int": 2}}}},
    {"name": "a", "basic": "x", "attributes": {"x": {"int": 1}}},
    _Device({"name": "a", "attributes": {"x": {"int": 1}}}),
    _Device({"name": "a", "basic": {"attributes": {"y": {"int": 2}}}}),
    None, "x", 3, [],
]


def test_slice_index_equals_the_generic_walk() -> None:
    slice_ = _slice(list(INDEX_SHAPES))
    expected = [(i, device, attributes(device)) for i, device in devices(slice_)]
    assert _walk(slice_) == expected
    assert [i for i, _d, _a in _walk(slice_)] == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    for odd in ({"spec": None}, {"spec": {"devices": "x"}}, {}):
        assert _walk(odd) == []


@pytest.mark.parametrize(("text", "expected"), [
    ("a" * 16, True), ("a" * 17, True), ("a" * 63, True), ("a" * 64, True), ("a" * 65, False),  # ASCII: a byte each
    ("é" * 16, True), ("é" * 31 + "a", True), ("é" * 32, True), ("é" * 32 + "a", False),  # 2 bytes each
    ("é" * 40, False),  # 40 characters, 80 bytes: not ASCII, so the characters say nothing
    ("€" * 21 + "a", True), ("€" * 21 + "ab", False),  # 3 bytes each: 64, then 65
])
def test_fits_counts_bytes_as_go_does(text: str, expected: bool) -> None:
    from webhook.rules.k8s.attribute import fits

    assert fits(text) is expected
    assert (len(text.encode()) <= 64) is expected
