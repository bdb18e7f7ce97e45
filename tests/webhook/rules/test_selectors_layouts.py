"""The selector rules read the inventory per layout (devices of one model share one `Layout`), not per device:
class candidates are selected once per group, list and type scans look at each layout once, and a read is
"lacking" exactly where the layout lacks the attribute or capacity it names."""

from __future__ import annotations

from typing import Any

import pytest

import celext
from tests.builders import NUMA, claim_with_selector, device, device_class_with_selector, slice_with
from webhook.inventory import build
from webhook.policy import Policy
from webhook.rules import CATALOGUE, selectors_outcomes
from webhook.rules.base import RuleContext
from webhook.rules.selectors_outcomes import Projections, candidates, keyed

GPU = "gpu.example.com"
NUMA_READ = 'device.attributes["resource.kubernetes.io"].numaNode'
MEMORY = f'device.capacity["{GPU}"].memory.compareTo(quantity("1Gi")) > 0'


def _messages(rule: str, expression: str, *objects: dict[str, Any], device_class: str = GPU) -> list[str]:
    obj = claim_with_selector(expression, device_class=device_class)
    return [f.message for f in CATALOGUE[rule].check(obj, RuleContext(Policy.default(), objects))]


def test_a_capacity_read_lacks_only_where_the_device_publishes_no_such_capacity() -> None:
    slices = slice_with(device("gpu-0", capacity={"memory": "80Gi"}), device("gpu-1"),
                        device("gpu-2", capacity={"memory": "not-a-quantity"}),  # present, but does not convert
                        device("gpu-3", capacity={"cores": "8"}), device("gpu-4", capacity={"memory": "40Gi"}))
    assert _messages("selector-attribute-missing", MEMORY, slices) == [
        f"{GPU}/memory is absent on 2 of 5 candidate device(s) (e.g. {GPU}/pool-0/gpu-1): "
        f'`device.capacity["{GPU}"].memory` fails there with no such key, which aborts allocation for the claim']


def test_a_guarded_capacity_read_is_not_reported() -> None:
    slices = slice_with(device("gpu-0", capacity={"memory": "80Gi"}), device("gpu-1"))
    guarded = f'has(device.capacity["{GPU}"].memory) && {MEMORY}'
    assert _messages("selector-attribute-missing", guarded, slices) == []


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Records every device a class selector is evaluated on (selectors_outcomes.outcome)."""
    seen: list[str] = []
    evaluate = selectors_outcomes.outcome

    def counted(selector: celext.Selector, device_: Any) -> Any:
        seen.append(device_.name)
        return evaluate(selector, device_)

    monkeypatch.setattr(selectors_outcomes, "outcome", counted)
    return seen


def test_a_class_selector_is_evaluated_once_per_group_and_excludes_what_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    gpus = [device(f"gpu-{i}", numa=i % 2, attributes={"model": "A"}) for i in range(40)]
    broken = device("broken", attributes={"model": {"int": True}})  # does not convert: every selector fails
    inventory = build([slice_with(*gpus[:20], broken, *gpus[20:]),
                       slice_with(device("nic-0"), driver="nic.example.com", name="nic"),
                       device_class_with_selector(f'device.driver == "{GPU}"', name="gpu")])
    seen = _counting(monkeypatch)
    selected = candidates(inventory, "gpu")
    assert [d.name for d in selected] == [f"gpu-{i}" for i in range(40)]
    assert sorted(seen) == ["broken", "gpu-0", "nic-0"]  # one per group: the 40 GPUs read nothing that differs
    assert candidates(inventory, "gpu") is selected and len(seen) == 3  # remembered per class


def test_several_class_selectors_group_on_every_path_they_read(monkeypatch: pytest.MonkeyPatch) -> None:
    devices = [device("a0", numa=0, attributes={"model": "A"}), device("a1", numa=1, attributes={"model": "A"}),
               device("b0", numa=0, attributes={"model": "B"}), device("a-", attributes={"model": "A"}),
               device("a0-again", numa=0, attributes={"model": "A"})]
    inventory = build([slice_with(*devices), {"kind": "DeviceClass", "metadata": {"name": "a-numa0"}, "spec": {
        "selectors": [{"cel": {"expression": f'device.attributes["{GPU}"].model == "A"'}},
                      {"cel": {"expression": f"{NUMA_READ} == 0"}}]}}])
    seen = _counting(monkeypatch)
    assert [d.name for d in candidates(inventory, "a-numa0")] == ["a0", "a0-again"]  # a-: no such key
    # Four groups (a0-again is a0's), each selector in turn until one is not true.
    assert seen == ["a0", "a0", "a1", "a1", "b0", "a-", "a-"]


def test_a_class_with_dynamic_reads_is_evaluated_per_device() -> None:
    models = [device(f"gpu-{i}", attributes={"model": model}) for i, model in enumerate("ABA")]
    inventory = build([slice_with(*models),
                       device_class_with_selector('device.attributes[device.driver].model == "A"', name="dyn")])
    assert [d.name for d in candidates(inventory, "dyn")] == ["gpu-0", "gpu-2"]


def test_a_class_that_does_not_compile_selects_nothing_and_an_unknown_one_everything() -> None:
    inventory = build([slice_with(device("gpu-0")), device_class_with_selector("device.nope(", name="broken")])
    assert candidates(inventory, "broken") == []
    assert candidates(inventory, "unknown") is inventory.devices


def test_class_candidates_narrow_what_the_rules_count() -> None:
    slices = (slice_with(device("gpu-0", numa=[0, 1]), device("gpu-1", attributes={"model": "A"})),
              slice_with(device("nic-0"), driver="nic.example.com", name="nic"),
              device_class_with_selector(f'device.driver == "{GPU}"', name="gpu"))
    assert _messages("selector-attribute-missing", f"{NUMA_READ} == 0", *slices, device_class="gpu") == [
        f"{NUMA} is absent on 1 of 2 candidate device(s) (e.g. {GPU}/pool-0/gpu-1): `{NUMA_READ}` fails there "
        f"with no such key, which aborts allocation for the claim"]


def test_list_devices_are_counted_over_every_layout_and_named_by_the_first() -> None:
    slices = (slice_with(device("gpu-0", numa=0), device("gpu-1", numa=[0, 1], attributes={"model": "A"}),
                         device("gpu-2", numa=[1]), device("gpu-3", numa=[0, 1], attributes={"model": "B"})),)
    assert _messages("list-fragile-compare", f"{NUMA_READ} == 0", *slices) == [
        f"`==` on {NUMA}: {NUMA} is a list on 3 device(s) in the inventory (e.g. {GPU}/pool-0/gpu-1), where "
        f"this is silently false"]


def test_type_counts_add_up_over_layouts_that_share_a_type() -> None:
    slices = (slice_with(device("gpu-0", attributes={"model": "A"}), device("gpu-1", attributes={"model": "A", "x": 1}),
                         device("gpu-2", attributes={"model": 7})),)
    assert _messages("selector-type-mismatch", f'device.attributes["{GPU}"].model == true', *slices) == [
        f"{GPU}/model is a string on every candidate device that publishes it (2); `==` with a bool value never "
        f"matches it, so this is always false"]


def test_layouts_that_differ_only_in_list_or_scalar_are_read_as_one_shape() -> None:
    devices = build([slice_with(device("gpu-0", numa=0, attributes={"model": "A"}),
                                device("gpu-1", numa=[0, 1], attributes={"model": "A"}),
                                device("gpu-2", numa=1, attributes={"model": "B"}))]).devices
    assert devices[0].layout is not devices[1].layout and devices[0].layout is devices[2].layout
    model = keyed(celext.compile(f'device.attributes["{GPU}"].model == "A"'))
    assert [g.indexes for g in Projections().groups(devices, model)] == [(0, 1), (2,)]
    driver = keyed(celext.compile(f'device.driver == "{GPU}"'))
    assert [g.indexes for g in Projections().groups(devices, driver)] == [(0, 1, 2)]


def test_a_device_not_known_clean_is_grouped_by_its_verdict() -> None:
    devices = build([slice_with(device("gpu-0", attributes={"model": "A"}), device("gpu-1", attributes={"model": "B"}),
                                device("bad", attributes={"model": {"int": True}}))]).devices
    assert [d.clean for d in devices] == [True, True, False]
    driver = keyed(celext.compile(f'device.driver == "{GPU}"'))
    groups = Projections().groups(devices, driver)
    assert [g.indexes for g in groups] == [(0, 1), (2,)]
    verdicts = [g.key[1] if g.key else "no key" for g in groups]
    assert verdicts[0] is None and isinstance(verdicts[1], str)  # the conversion error


def test_class_candidates_keep_the_inventorys_order_across_groups() -> None:
    models = [device(f"gpu-{i}", attributes={"model": model}) for i, model in enumerate("ABAC")]
    inventory = build([slice_with(*models), device_class_with_selector(
        f'device.attributes["{GPU}"].model in ["A", "B"]', name="a-or-b")])
    assert [d.name for d in candidates(inventory, "a-or-b")] == ["gpu-0", "gpu-1", "gpu-2"]
