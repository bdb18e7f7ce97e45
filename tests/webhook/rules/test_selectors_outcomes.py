"""Projections: devices with equal keys get equal outcomes from a selector, and the keys tell apart every
difference a selector can see (driver, conversion verdict, the raw value and its type, bare vs qualified)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

import celext
from tests.builders import NUMA, claim_with_selector, device, slice_with
from webhook.inventory import Device, build
from webhook.manifests import read
from webhook.policy import Policy
from webhook.rules import CATALOGUE
from webhook.rules.base import RuleContext
from webhook.rules.selectors_outcomes import Projections, keyed, outcome, projections

NUMA_READ = 'device.attributes["resource.kubernetes.io"].numaNode'
GPU_MODEL = ("attributes", "gpu.example.com", "model")
NUMA_PATH = ("attributes", "resource.kubernetes.io", "numaNode")


def _devices(*devices: dict[str, Any], driver: str = "gpu.example.com") -> list[Device]:
    return build([slice_with(*devices, driver=driver)]).devices


def _keys(devices: list[Device], *paths: tuple[str, ...]) -> list[tuple[Any, ...]]:
    """The keys of `devices` from one Projections (value ids are numbered per Projections)."""
    shapes = Projections()
    return [shapes.key(d, paths) for d in devices]


def test_devices_differing_only_where_the_selector_does_not_read_share_a_key() -> None:
    a, b = _devices(device("gpu-0", numa=0, attributes={"uuid": "a"}),
                    device("gpu-1", numa=0, attributes={"uuid": "b"}))
    shapes = Projections()
    assert shapes.key(a, (NUMA_PATH,)) == shapes.key(b, (NUMA_PATH,))
    assert shapes.key(a, (NUMA_PATH, ("attributes", "gpu.example.com", "uuid"))) != \
        shapes.key(b, (NUMA_PATH, ("attributes", "gpu.example.com", "uuid")))


@pytest.mark.parametrize(("first", "second"), [
    ({"int": 1}, {"bool": True}),  # equal in Python, different attributes
    ({"int": 1}, {"ints": [1]}),
    ({"string": "1"}, {"int": 1}),
    ({"ints": [0, 1]}, {"ints": [1, 0]}),
])
def test_values_a_selector_tells_apart_have_different_keys(first: dict[str, Any], second: dict[str, Any]) -> None:
    a, b = _keys(_devices(device("gpu-0", attributes={"model": first}), device("gpu-1", attributes={"model": second})),
                 GPU_MODEL)
    assert a != b


def test_absent_differs_from_every_value() -> None:
    a, b = _keys(_devices(device("gpu-0", attributes={"model": {"int": 0}}), device("gpu-1")), GPU_MODEL)
    assert a != b


def test_the_driver_is_part_of_the_key() -> None:
    a, b = _keys(_devices(device("gpu-0", numa=0)) + _devices(device("gpu-0", numa=0), driver="other.example.com"),
                 NUMA_PATH)
    assert a != b


def test_a_device_that_does_not_convert_has_its_own_key() -> None:
    a, b = _keys(_devices(device("gpu-0", numa=0), device("gpu-1", numa=0, attributes={"bad": {"int": "x"}})),
                 NUMA_PATH)
    assert a != b


def test_bare_and_qualified_spellings_key_the_entry_the_engine_reads() -> None:
    # Both spellings of one attribute: the later one in the map is the value (as to_device files them).
    bare_last = device("gpu-0", attributes={"gpu.example.com/model": "A", "model": "B"})
    qualified_last = device("gpu-1", attributes={"model": "B", "gpu.example.com/model": "A"})
    only_bare = device("gpu-2", attributes={"model": "B"})
    devices = _devices(bare_last, qualified_last, only_bare)
    a, b, c = _keys(devices, GPU_MODEL)
    assert a == c != b
    selector = celext.compile('device.attributes["gpu.example.com"].model == "B"')
    assert [outcome(selector, d) for d in devices] == [True, False, True]


def test_other_fields_read_by_a_selector() -> None:
    devices = _devices(device("gpu-0", allowMultipleAllocations=True), device("gpu-1"),
                       device("gpu-2", capacity={"memory": "80Gi"}))
    a, b, _ = _keys(devices, ("allowMultipleAllocations",))
    assert a != b
    _, b, c = _keys(devices, ("capacity", "gpu.example.com", "memory"))
    assert b != c
    a, b, _ = _keys(devices, ("driver",))
    assert a == b


def test_dynamic_reads_have_no_key() -> None:
    assert keyed(celext.compile("device.attributes[device.driver].model == 'A'")) is None
    assert keyed(celext.compile(f"{NUMA_READ} == 0 && device.driver == 'x'")) == (NUMA_PATH, ("driver",))


def test_the_projections_are_shared_by_one_inventory() -> None:
    inventory = build([slice_with()])
    assert projections(inventory) is projections(inventory)
    assert projections(inventory) is not projections(build([slice_with()]))


def test_outcome_is_the_answer_or_the_error_message() -> None:
    (dev,) = _devices(device("gpu-0"))
    assert outcome(celext.compile("true"), dev) is True
    assert outcome(celext.compile(f"{NUMA_READ} == 0"), dev) == "no such key: numaNode"


def test_missing_attribute_labels_every_device_of_a_shape_in_order() -> None:
    # gpu-0 and gpu-2 share a shape (one evaluation), gpu-1 publishes the attribute, gpu-3 fails on another read.
    slices = (slice_with(device("gpu-0", attributes={"model": "A"}), device("gpu-1", numa=0, attributes={"model": "A"}),
                         device("gpu-2", attributes={"model": "A"}), device("gpu-3", numa=0)),)
    obj = claim_with_selector(f'{NUMA_READ} == 0 && device.attributes["gpu.example.com"].model == "A"')
    found = list(CATALOGUE["selector-attribute-missing"].check(obj, RuleContext(Policy.default(), slices)))
    assert [f.message for f in found] == [
        f"{NUMA} is absent on 2 of 4 candidate device(s) (e.g. gpu.example.com/pool-0/gpu-0): `{NUMA_READ}` fails "
        f"there with no such key, which aborts allocation for the claim",
        "gpu.example.com/model is absent on 1 of 4 candidate device(s) (e.g. gpu.example.com/pool-0/gpu-3): "
        '`device.attributes["gpu.example.com"].model` fails there with no such key, which aborts allocation for '
        "the claim",
    ]


def test_equal_keys_mean_equal_outcomes_on_the_corpus(corpus: Path) -> None:
    """The first 60 keyed expressions of the corpus index on every corpus device: the outcome memoised per key
    is what evaluating that device gives (a key that misses a difference fails here)."""
    slices = sorted(str(p) for p in corpus.rglob("*.yaml") if "kind: ResourceSlice" in p.read_text(encoding="utf-8"))
    inventory = build([o.obj for o in read(slices)[0]])
    index = YAML(typ="safe", pure=True).load((corpus / "cel-expressions.yaml").read_text(encoding="utf-8"))
    shapes = Projections()
    compared = tested = 0
    for entry in index["expressions"]:
        if tested == 60:
            break
        try:
            selector = celext.compile(entry["expression"])
        except celext.CELError:
            continue
        paths = keyed(selector)
        if paths is None:
            continue
        tested += 1
        seen: dict[tuple[Any, ...], Any] = {}
        for dev in inventory.devices:
            answer = outcome(selector, dev)
            assert seen.setdefault(shapes.key(dev, paths), answer) == answer, (entry["expression"], dev.label)
            compared += 1
    assert compared == 60 * len(inventory.devices) > 10_000
