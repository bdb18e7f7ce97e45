"""The audit's compact inventory: what the selector rules and CEL read from it equals what they read from the
slices themselves (webhook.inventory.build, the `lint --slices` inventory), value types included."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import celext
from celext.runtime.wire import device_error
from tests.builders import device, slice_with
from webhook.audit.devices import CompactDevice, DeviceInventory
from webhook.inventory import Device, build, layout, members

DOMAIN = "gpu.example.com"


def _raw(**attributes: Any) -> dict[str, Any]:
    """A device whose attributes are given in wire form (`{"int": 1}`), not through the builders' `attr`."""
    return {"name": f"dev-{len(attributes)}", "attributes": attributes}


def _compact(*devices: dict[str, Any]) -> list[Device]:
    inventory = DeviceInventory()
    inventory.add_slice(slice_with(*copy.deepcopy(devices)))
    return inventory.inventory.devices


def _wire(devices: list[Device]) -> list[dict[str, Any]]:
    return [{key: d.raw[key] for key in d.raw} for d in devices]


MIXED = (
    device("gpu-0", numa=[0, 1], attributes={"model": "A100", "uuid": "GPU-0", "v": {"version": "1.2.3"}},
           capacity={"memory": "80Gi"}),
    device("gpu-1", numa=0, attributes={"model": "A100", "uuid": "GPU-1", "v": {"version": "1.2.3"}},
           capacity={"memory": "80Gi"}, allowMultipleAllocations=True),
    device("gpu-2", numa=[0, 1], attributes={"model": "H100", "flags": [True, False]}),
    _raw(broken={"int": 1, "string": "x"}, empty={}, odd=[1], none={"int": None}, unknown={"number": 1},
         nested={"ints": [{"a": 1}]}),
    {"name": "v1beta1", "basic": {"attributes": {"model": {"string": "A100"}}, "capacity": {"m": {"value": "1"}}}},
    {"name": "no-attributes"},
    device("cap-text", capacity={"memory": {"value": "80Gi", "requestPolicy": {"default": "1Gi"}}}),
    {"name": "cap-not-a-map", "capacity": {"memory": "80Gi"}},
    {"name": "cap-number", "capacity": {"memory": {"value": 80}}},
    {"name": "cap-no-value", "capacity": {"memory": {}}},
    device("int-true", attributes={"model": {"int": True}}),
)
SELECTORS = (
    'device.driver == "gpu.example.com"',
    f'device.attributes["{DOMAIN}"].model == "A100"',
    'device.attributes["resource.kubernetes.io"].numaNode.includes(1)',
    f'device.capacity["{DOMAIN}"].memory.compareTo(quantity("40Gi")) >= 0',
    f'has(device.attributes["{DOMAIN}"].v) && device.attributes["{DOMAIN}"].v.isGreaterThan(semver("1.0.0"))',
    "device.allowMultipleAllocations",
)


def _outcome(selector: celext.Selector, device_: Any) -> object:
    try:
        return selector.matches(device_, DOMAIN)
    except celext.EvaluationError as err:
        return err.message


@pytest.mark.parametrize("expression", SELECTORS)
def test_selectors_answer_on_the_inventory_as_on_the_slices(expression: str) -> None:
    selector = celext.compile(expression)
    compact = [_outcome(selector, d.raw) for d in _compact(*MIXED)]
    wire = [_outcome(selector, d) for d in copy.deepcopy(MIXED)]
    assert compact == wire
    assert len(set(map(str, wire))) > 1  # the devices tell the selectors' answers apart


def test_the_inventory_equals_lints_device_for_device() -> None:
    compact = _compact(*MIXED)
    full = build([slice_with(*copy.deepcopy(MIXED))]).devices
    assert [(d.label, d.attributes, d.lists, dict(d.types)) for d in compact] == \
        [(d.label, d.attributes, d.lists, dict(d.types)) for d in full]


def test_devices_known_clean_are_those_celexts_fast_verdict_accepts() -> None:
    compact = _compact(*MIXED)
    full = build([slice_with(*copy.deepcopy(MIXED))]).devices
    # Not known clean: the broken unions, a capacity value that is a number or missing, `int: true` (the verdict
    # itself then decides: a number converts).
    expected = [True, True, True, False, True, True, True, True, False, False, False]
    assert [d.clean for d in compact] == [d.clean for d in full] == expected
    for d in (*compact, *full):
        if d.clean:
            assert device_error(d.raw, d.driver) is None, d.label


def test_cel_reads_the_wire_form_back() -> None:
    compact = _compact(*MIXED)
    body = [m.get("basic") or m for m in copy.deepcopy(MIXED)]
    for b in body:  # CEL reads a capacity's value only: the inventory keeps nothing else of a well-formed one
        if all(isinstance(c, dict) and isinstance(c.get("value"), str) for c in b.get("capacity", {}).values()):
            b["capacity"] = {k: {"value": c["value"]} for k, c in b.get("capacity", {}).items()} or None
    assert _wire(compact) == [{k: v for k, v in b.items() if k in ("attributes", "capacity") and v is not None}
                              | ({"allowMultipleAllocations": True} if b.get("allowMultipleAllocations") else {})
                              for b in body]


def test_a_compact_device_is_a_read_only_mapping_of_three_keys() -> None:
    gpu = _compact(*MIXED)[1].raw
    assert isinstance(gpu, CompactDevice)
    assert list(gpu) == ["attributes", "capacity", "allowMultipleAllocations"] and len(gpu) == 3
    assert gpu.get("basic") is None and gpu.get("basic", 7) == 7 and "basic" not in gpu
    with pytest.raises(KeyError):
        gpu["basic"]
    bare = _compact({"name": "bare"})[0].raw
    assert list(bare) == [] and bare.get("attributes") is None and bare.get("capacity") is None


@pytest.mark.parametrize(("first", "second"), [
    ({"int": 1}, {"int": True}),
    ({"int": 1}, {"int": 1.0}),
    ({"bool": True}, {"bool": 1}),
    ({"ints": [1, 2]}, {"ints": [True, 2]}),
    ({"string": "1"}, {"int": 1}),
])
def test_equal_values_of_other_json_types_stay_apart(first: dict[str, Any], second: dict[str, Any]) -> None:
    a, b, c = _compact(_raw(x=first), _raw(x=second), _raw(x=second))
    for compact, wire in ((a, first), (b, second), (c, second)):
        value = compact.raw["attributes"]["x"]
        assert value == wire
        assert [type(v) for v in value.values()] == [type(v) for v in wire.values()]
        inner = next(iter(value.values()))
        if isinstance(inner, list):
            assert [type(v) for v in inner] == [type(v) for v in next(iter(wire.values()))]


def test_a_conversion_error_is_not_hidden_by_an_equal_clean_value() -> None:
    clean, bad, bad_again = _compact(_raw(x={"int": 1}), _raw(x={"int": True}), _raw(x={"int": True}))
    selector = celext.compile(f'device.attributes["{DOMAIN}"].x == 1')
    assert selector.matches(clean.raw, DOMAIN) is True
    for broken in (bad, bad_again):
        with pytest.raises(celext.EvaluationError):
            selector.matches(broken.raw, DOMAIN)


def test_a_repeated_value_is_one_shared_map_and_a_unique_one_its_own() -> None:
    first, second, third = _compact(*(device(f"gpu-{i}", attributes={"model": "A100", "uuid": f"GPU-{i}"})
                                      for i in range(3)))
    models = [d.raw["attributes"]["model"] for d in (first, second, third)]
    assert models == [{"string": "A100"}] * 3
    assert second.raw["attributes"]["model"] is third.raw["attributes"]["model"]
    assert [d.raw["attributes"]["uuid"] for d in (first, second, third)] == [{"string": f"GPU-{i}"} for i in range(3)]


def test_devices_evaluated_in_turn_each_read_their_own_values() -> None:
    zero, one = _compact(device("gpu-0", numa=0), device("gpu-1", numa=1))
    selector = celext.compile('device.attributes["resource.kubernetes.io"].numaNode == 1')
    assert [selector.evaluate(d.raw, DOMAIN) for d in (zero, one, zero, one, one, zero)] == \
        [False, True, False, True, True, False]


def test_devices_of_one_layout_share_their_name_sets() -> None:
    a, b, c = _compact(device("a", numa=0, attributes={"m": "x"}), device("b", numa=1, attributes={"m": "y"}),
                       device("c", numa=[1], attributes={"m": "y"}))
    assert a.attributes is b.attributes and a.lists is b.lists and a.types is b.types
    assert c.attributes == a.attributes and c.lists == {"resource.kubernetes.io/numaNode"}


@pytest.mark.parametrize(("value", "expected"), [
    ({"int": 1}, "int"),
    ({"ints": [1]}, "ints"),
    ({"int": None}, ""),
    ({"number": 1}, "number"),
    ({"int": 1, "string": "x"}, ("int", "string")),
    ({"int": None, "string": "x"}, ("string",)),
    ({}, ()),
    ([1], ()),
    ("x", ()),
])
def test_members_of_one_attribute(value: Any, expected: str | tuple[str, ...]) -> None:
    assert members(value) == expected


def test_a_layout_qualifies_names_and_types_elements() -> None:
    found = layout(DOMAIN, ("model", "other.io/ids", "both", "null", "number", "bools"),
                   ("string", "ints", ("int", "string"), "", "number", ("bools",)), ("memory", "other.io/slots"))
    assert found.names == {f"{DOMAIN}/{n}" for n in ("model", "both", "null", "number", "bools")} | {"other.io/ids"}
    assert found.lists == {"other.io/ids", f"{DOMAIN}/bools"}
    assert found.types == {f"{DOMAIN}/model": "string", "other.io/ids": "int", f"{DOMAIN}/bools": "bool"}
    assert found.attribute_pairs == {(DOMAIN, n) for n in ("model", "both", "null", "number", "bools")} | \
        {("other.io", "ids")}
    assert found.capacities == {f"{DOMAIN}/memory", "other.io/slots"}
    assert found.capacity_pairs == {(DOMAIN, "memory"), ("other.io", "slots")}


def test_values_whose_json_text_loses_something_are_not_shared() -> None:
    """NaN and infinities are written `null`, a tuple as a list: such values keep their own map."""
    nan, inf, null, null_again, pair, pair_list = _compact(
        _raw(x={"int": float("nan")}), _raw(x={"int": float("inf")}), _raw(x={"int": None}), _raw(x={"int": None}),
        _raw(x={"ints": (1, 2)}), _raw(x={"ints": [1, 2]}))
    inner = [next(iter(d.raw["attributes"]["x"].values())) for d in (nan, inf, null, null_again, pair, pair_list)]
    assert inner[0] != inner[0] and inner[1] == float("inf") and inner[2:4] == [None, None]
    assert type(inner[4]) is tuple and type(inner[5]) is list
    assert null.raw["attributes"]["x"] is null_again.raw["attributes"]["x"]  # a faithful text is shared
    capacities = _compact(*({"name": n, "capacity": {"m": {"value": "1"}}} for n in "ab"))
    assert capacities[0].raw["capacity"] is capacities[1].raw["capacity"] == {"m": {"value": "1"}}
