"""Projections.groups(): candidates grouped once per selector path set; every device of a group has the group's
projection key, its published names and the outcome of its first device (what selector-attribute-missing
evaluates once per group)."""

from __future__ import annotations

import string
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

import celext
from celext.runtime.wire import ABSENT, lookup
from tests.builders import NUMA, claim_with_selector, device, slice_with
from webhook.inventory import Device, Inventory, Layout, Prebuilt, build, filed
from webhook.manifests import read
from webhook.policy import Policy
from webhook.rules import CATALOGUE
from webhook.rules.base import RuleContext
from webhook.rules.selectors_outcomes import Projections, keyed, outcome

NUMA_READ = 'device.attributes["resource.kubernetes.io"].numaNode'
GPU = "gpu.example.com"
GPU_MODEL = ("attributes", GPU, "model")
NUMA_PATH = ("attributes", "resource.kubernetes.io", "numaNode")


def _devices(*devices: dict[str, Any], driver: str = GPU) -> list[Device]:
    return build([slice_with(*devices, driver=driver)]).devices


def _check(candidates: list[Device], expression: str) -> int:
    """Every group's members agree with the group: key, names, outcome. Returns the number of groups."""
    shapes = Projections()
    selector = celext.compile(expression)
    paths = keyed(selector)
    groups = shapes.groups(candidates, paths)
    assert sorted(i for g in groups for i in g.indexes) == list(range(len(candidates)))
    assert [g.indexes[0] for g in groups] == sorted(g.indexes[0] for g in groups)
    for group in groups:
        assert group.first is candidates[group.indexes[0]]
        for i in group.indexes:
            member = candidates[i]
            assert member.attributes == group.first.attributes, member.label
            if paths is not None:
                assert group.key == shapes.key(member, paths), member.label
            assert outcome(selector, member) == outcome(selector, group.first), (expression, member.label)
    return len(groups)


def test_devices_of_one_shape_that_lack_what_a_selector_reads_form_one_group() -> None:
    candidates = _devices(*(device(f"gpu-{i}", attributes={"uuid": f"u{i}"}) for i in range(5)))
    assert _check(candidates, f"{NUMA_READ} == 0") == 1


def test_devices_publishing_what_a_selector_reads_are_split_by_value() -> None:
    candidates = _devices(device("gpu-0", numa=0), device("gpu-1", numa=1), device("gpu-2", numa=0), device("gpu-3"))
    groups = Projections().groups(candidates, keyed(celext.compile(f"{NUMA_READ} == 0")))
    assert [g.indexes for g in groups] == [(0, 2), (1,), (3,)]
    assert _check(candidates, f"{NUMA_READ} == 0") == 3


def test_the_driver_tells_groups_apart_even_where_both_lack_every_read() -> None:
    # Equal but for the driver: `device.driver == ...` decides whether the missing read fails.
    expression = f'device.driver == "{GPU}" && {NUMA_READ} == 0'
    candidates = _devices(device("gpu-0")) + _devices(device("gpu-0"), driver="other.example.com")
    shapes = Projections()
    first, second = shapes.groups(candidates, keyed(celext.compile(expression)))
    assert first.key != second.key
    assert _check(candidates, expression) == 2
    without_driver_read = Projections().groups(candidates, keyed(celext.compile(f"{NUMA_READ} == 0")))
    assert without_driver_read[0].key != without_driver_read[1].key  # the driver is in every key


def test_only_the_device_of_the_driver_read_is_reported() -> None:
    slices = (slice_with(device("gpu-0")), slice_with(device("nic-0"), driver="nic.example.com", name="nic"))
    obj = claim_with_selector(f'device.driver == "{GPU}" && {NUMA_READ} == 0')
    found = list(CATALOGUE["selector-attribute-missing"].check(obj, RuleContext(Policy.default(), slices)))
    assert [f.message for f in found] == [
        f"{NUMA} is absent on 1 of 2 candidate device(s) (e.g. {GPU}/pool-0/gpu-0): `{NUMA_READ}` fails there "
        f"with no such key, which aborts allocation for the claim",
    ]


def test_counts_and_first_device_span_groups_in_candidate_order() -> None:
    # gpu-1 and gpu-3 (no model) fail alike; gpu-0 and gpu-2 publish different models and fail on numaNode.
    slices = (slice_with(device("gpu-0", attributes={"model": "A"}), device("gpu-1"),
                         device("gpu-2", attributes={"model": "B"}), device("gpu-3"), device("gpu-4", numa=0)),)
    obj = claim_with_selector(f'device.attributes["{GPU}"].model != "" && {NUMA_READ} == 0')
    found = list(CATALOGUE["selector-attribute-missing"].check(obj, RuleContext(Policy.default(), slices)))
    assert [f.message.split(":")[0] for f in found] == [
        f"{NUMA} is absent on 2 of 5 candidate device(s) (e.g. {GPU}/pool-0/gpu-0)",
        f"{GPU}/model is absent on 3 of 5 candidate device(s) (e.g. {GPU}/pool-0/gpu-1)",
    ]


def test_bare_and_qualified_spellings_group_by_the_entry_the_engine_reads() -> None:
    candidates = _devices(device("gpu-0", attributes={f"{GPU}/model": "A", "model": "B"}),
                          device("gpu-1", attributes={"model": "B", f"{GPU}/model": "A"}),
                          device("gpu-2", attributes={"model": "B"}),
                          device("gpu-3", attributes={f"{GPU}/model": "B"}))
    expression = f'device.attributes["{GPU}"].model == "B"'
    assert _check(candidates, expression) == 2
    # The later spelling is the value: "B" on gpu-0, "A" on gpu-1.
    groups = Projections().groups(candidates, keyed(celext.compile(expression)))
    assert [g.indexes for g in groups] == [(0, 2, 3), (1,)]


def test_capacity_and_other_fields() -> None:
    candidates = _devices(device("gpu-0", capacity={"memory": "80Gi"}), device("gpu-1"),
                          device("gpu-2", allowMultipleAllocations=True), device("gpu-3", capacity={"memory": "80Gi"}))
    memory = f'device.capacity["{GPU}"].memory.compareTo(quantity("1Gi")) > 0'
    assert _check(candidates, memory) == 2
    assert [g.indexes for g in Projections().groups(candidates, keyed(celext.compile(memory)))] == [(0, 3), (1, 2)]
    multiple = "device.allowMultipleAllocations == true"
    assert _check(candidates, multiple) == 3
    groups = Projections().groups(candidates, keyed(celext.compile(multiple)))
    assert [g.indexes for g in groups] == [(0, 3), (1,), (2,)]


def test_dynamic_reads_give_one_group_per_device() -> None:
    candidates = _devices(device("gpu-0"), device("gpu-1"))
    groups = Projections().groups(candidates, None)
    assert [(g.key, g.indexes) for g in groups] == [(None, (0,)), (None, (1,))]


def test_groups_are_remembered_per_candidate_list_and_paths() -> None:
    candidates = _devices(device("gpu-0"), device("gpu-1", numa=0))
    shapes = Projections()
    assert shapes.groups(candidates, (NUMA_PATH,)) is shapes.groups(candidates, (NUMA_PATH,))
    assert shapes.groups(candidates, (NUMA_PATH,)) is not shapes.groups(list(candidates), (NUMA_PATH,))


_NAMES = st.sampled_from(["model", "gpu.example.com/model", "other.example.com/model", "a/b/c", "/model", "model/",
                          "gpu.example.com/a/b", "", "x"])


@settings(max_examples=300, deadline=None)
@given(keys=st.lists(st.one_of(_NAMES, st.integers(0, 2)), max_size=6),
       domain=st.sampled_from([GPU, "other.example.com", "a", "", "gpu.example.com/a", "x"]),
       ident=st.sampled_from(["model", "b/c", "a/b", "", "b", "x", "/model"]))
def test_filed_pairs_are_exactly_where_lookup_finds_an_entry(keys: list[Any], domain: str, ident: str) -> None:
    table = {key: {"string": str(i)} for i, key in enumerate(keys)}
    assert ((domain, ident) in filed(table, GPU)) == (lookup(table, GPU, domain, ident) is not ABSENT)


@settings(max_examples=200, deadline=None)
@given(st.text(string.ascii_lowercase + "./", max_size=12))
def test_filed_pairs_of_one_name(name: str) -> None:
    domain, ident = name.partition("/")[::2] if "/" in name else (GPU, name)
    assert (lookup({name: 1}, GPU, domain, ident) is not ABSENT) == ((domain, ident) in filed({name: 1}, GPU))


def test_groups_agree_with_every_device_on_the_corpus(corpus: Path) -> None:
    """The first 40 keyed expressions of the corpus index on every corpus device (and on one driver's devices)."""
    slices = sorted(str(p) for p in corpus.rglob("*.yaml") if "kind: ResourceSlice" in p.read_text(encoding="utf-8"))
    devices = build([o.obj for o in read(slices)[0]]).devices
    index = YAML(typ="safe", pure=True).load((corpus / "cel-expressions.yaml").read_text(encoding="utf-8"))
    tested = groups = 0
    for entry in index["expressions"]:
        if tested == 40:
            break
        try:
            selector = celext.compile(entry["expression"])
        except celext.CELError:
            continue
        if keyed(selector) is None:
            continue
        tested += 1
        groups += _check(devices, entry["expression"])
    assert tested == 40
    assert groups < 40 * len(devices) // 2  # the corpus repeats its shapes: far fewer groups than devices


def test_published_names_tell_groups_apart_where_the_engine_reads_alike() -> None:
    # A YAML int key: the inventory lists gpu.example.com/0 as published, the engine finds no "0" entry.
    candidates = _devices(device("gpu-0", attributes={0: 1}), device("gpu-1"))
    assert _check(candidates, f'device.attributes["{GPU}"].model == "A"') == 2


def test_groups_come_in_order_of_their_first_device_across_shapes() -> None:
    candidates = _devices(device("gpu-0", numa=0), device("gpu-1"), device("gpu-2", numa=1))
    groups = Projections().groups(candidates, keyed(celext.compile(f"{NUMA_READ} == 0")))
    assert [g.indexes for g in groups] == [(0,), (1,), (2,)]


def _mismatch(expression: str, *slices: dict[str, Any]) -> list[str]:
    obj = claim_with_selector(expression)
    return [f.message for f in CATALOGUE["selector-type-mismatch"].check(obj, RuleContext(Policy.default(), slices))]


def test_type_mismatch_counts_every_device_of_each_published_layout() -> None:
    slices = (slice_with(*(device(f"gpu-{i}", attributes={"model": "A"}) for i in range(3)),
                         device("gpu-3", attributes={"model": "B", "uuid": "u"})),
              slice_with(device("nic-0", attributes={"model": 4}), driver="nic.example.com", name="nic"))
    assert _mismatch(f'device.attributes["{GPU}"].model == 4', *slices) == [
        f"{GPU}/model is a string on every candidate device that publishes it (4); `==` with an int value never "
        f"matches it, so this is always false"]
    # Per driver: each device reads its own driver's domain (the nic publishes an int there).
    assert _mismatch("device.attributes[device.driver].model == true", *slices) == [
        "<driver>/model is a string on every candidate device that publishes it (4); `==` with a bool value "
        "never matches it, so this is always false"]


def test_type_mismatch_names_the_type_seen_first_when_counts_tie() -> None:
    first_int = slice_with(device("gpu-0", attributes={"model": 1}), device("gpu-1", attributes={"model": "A"}))
    first_string = slice_with(device("gpu-0", attributes={"model": "A"}), device("gpu-1", attributes={"model": 1}))
    expression = f'device.attributes["{GPU}"].model == true'
    assert _mismatch(expression, first_int)[0].startswith(f"{GPU}/model is an int on every candidate device")
    assert _mismatch(expression, first_string)[0].startswith(f"{GPU}/model is a string on every candidate device")


def test_type_groups_keep_drivers_apart_even_when_devices_share_one_types_mapping() -> None:
    # A prebuilt inventory (draguard audit builds one) may share one mapping between drivers.
    shared = {"a.example.com/model": "string", "b.example.com/model": "int"}
    devices = [Device(driver, "pool", "dev", {}, Layout(driver, frozenset(shared), frozenset(), shared, frozenset(),
                                                        frozenset(), frozenset()))
               for driver in ("a.example.com", "b.example.com")]
    obj = claim_with_selector("device.attributes[device.driver].model == true")
    found = CATALOGUE["selector-type-mismatch"].check(obj, RuleContext(Policy.default(), Prebuilt(Inventory(devices))))
    assert [f.message.split(";")[0] for f in found] == [
        "<driver>/model is a string on every candidate device that publishes it (1)"]


def test_a_candidate_list_that_grew_is_grouped_again() -> None:
    candidates = _devices(device("gpu-0"))
    shapes = Projections()
    assert [g.indexes for g in shapes.groups(candidates, (NUMA_PATH,))] == [(0,)]
    candidates += _devices(device("gpu-1", numa=0))
    assert [g.indexes for g in shapes.groups(candidates, (NUMA_PATH,))] == [(0,), (1,)]
