"""What a user reads for each of draguard's own slice findings: rule, field path, message and the hint, in
full. The hints are the remediation printed by `lint` and sent as admission warnings; the edges the rules
turn on (node 0, a repeated node, a lower-case rewrite) are cases of their own."""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import NUMA, device, slice_with
from webhook.policy import Policy
from webhook.run import run_rules

PCI = "resource.kubernetes.io/pciBusID"
ROOT = "resource.kubernetes.io/pcieRoot"
ALIAS = "gpu.example.com/numaNode"
A = "spec.devices[0].attributes"
IGNORE = "metadata.annotations[draguard.io/ignore]"


ORDER_ON = Policy.from_mapping({"rules": {"numa-node-order": "warn"}})


def seen(obj: dict[str, Any], policy: Policy | None = None) -> list[tuple[str, str, str, str | None]]:
    return [(f.rule, str(f.path), f.message, f.hint) for f in run_rules(obj, policy or Policy.default()).findings]


def test_numa_order_is_off_by_default_and_style_only_when_enabled() -> None:
    assert seen(slice_with(numa=[0, 3, 2])) == []
    assert seen(slice_with(numa=[0, 3, 2]), ORDER_ON) == [(
        "numa-node-order", f"{A}[{NUMA}].ints[2]",
        "numaNode list [0, 3, 2] is not ascending after the physical node (3 comes before 2); KEP-6072 gives those "
        "nodes no order, so this is style only",
        "for stable diffs, publish the others ascending (as draguard topology prints them): [0, 2, 3]")]


@pytest.mark.parametrize(("obj", "expected"), [
    pytest.param(slice_with(numa=[0, 3, 2]), [], id="numa-order-off-by-default"),
    pytest.param(slice_with(numa=[0, 1, 2]), [], id="numa-list-from-node-0"),
    pytest.param(slice_with(device("d", attributes={PCI: "0000:3B:00.0"})), [(
        "pci-bus-id-format", f"{A}[{PCI}].string",
        f'{PCI} "0000:3B:00.0" is not a PCI address dddd:bb:dd.f in lower-case hex',
        "use lower-case hex: 0000:3b:00.0")], id="pci-upper-case"),
    pytest.param(slice_with(device("d", attributes={PCI: "3b:00.0"})), [(
        "pci-bus-id-format", f"{A}[{PCI}].string",
        f'{PCI} "3b:00.0" is not a PCI address dddd:bb:dd.f in lower-case hex',
        "write the address as sysfs names it, domain:bus:device.function, e.g. 0000:3b:00.0")], id="pci-no-domain"),
    pytest.param(slice_with(device("d", attributes={PCI: 5})), [(
        "pci-bus-id-format", f"{A}[{PCI}]", f"{PCI} must be a string value",
        'publish the address as a string, e.g. `string: "0000:3b:00.0"`')], id="pci-int"),
    pytest.param(slice_with(device("d", attributes={PCI: "0000:3b:00.0"})), [], id="pci-good"),
    pytest.param(slice_with(device("d", attributes={ROOT: ""})), [(
        "pcie-root-type", f"{A}[{ROOT}].string", f"{ROOT} is empty",
        "omit the attribute when the root complex is unknown")], id="pcie-root-empty"),
    pytest.param(slice_with(numa=0, annotations={"draguard.io/ignore": "numa-node-order"}), [(
        "suppression-reason-missing", IGNORE,
        "draguard.io/ignore names numa-node-order without a reason, so it suppresses nothing",
        'write "<rule>[,<rule>]: <reason>", e.g. "numa-node-order: why this is fine"')], id="ignore-without-reason"),
    pytest.param(slice_with(numa=0, annotations={"draguard.io/ignore": "no-such-rule: because"}), [(
        "suppression-reason-missing", IGNORE, "draguard.io/ignore names unknown rule no-such-rule",
        "use rule ids from `draguard rules` (or the README rule catalogue)")], id="ignore-unknown-rule"),
    pytest.param(slice_with(device("d", attributes={NUMA: 1, ALIAS: 0})), [(
        "numa-node-alias-mismatch", f"{A}[{ALIAS}].int",
        f"{ALIAS} is 0 but {NUMA} says the device is on NUMA node 1",
        f"publish the same physical node in both; selectors on {ALIAS} and on the standard attribute would "
        "otherwise pick different devices")], id="alias-mismatch"),
    pytest.param(slice_with(device("d", attributes={NUMA: 0, ALIAS: 0})), [], id="alias-node-0-agrees"),
    pytest.param(slice_with(device("d", attributes={NUMA: [0, 1], ALIAS: 0})), [], id="alias-agrees-with-list"),
    pytest.param(slice_with(device("d", attributes={ALIAS: -1})), [(
        "numa-node-alias-type", f"{A}[{ALIAS}].int", f"NUMA alias {ALIAS} is -1",
        "omit the alias while the NUMA node is unknown instead of publishing a negative value; selectors "
        "comparing node ids would match it")], id="alias-negative"),
    pytest.param(slice_with(device("d", attributes={ALIAS: "0"})), [(
        "numa-node-alias-type", f"{A}[{ALIAS}]", f"NUMA alias {ALIAS} is a string value, not an int",
        "publish vendor NUMA aliases as `int: N`, like the standard attribute")], id="alias-string"),
    pytest.param(slice_with(device("d", attributes={ALIAS: 0})), [(
        "numa-node-standard-missing", f"{A}[{ALIAS}]",
        f"the device publishes {ALIAS} but not {NUMA}, so cross-driver matchAttribute cannot see its NUMA node",
        f"also publish {NUMA} with the same node (KEP-6072)")], id="alias-without-standard"),
])
def test_finding_in_full(obj: dict[str, Any], expected: list[tuple[str, str, str, str | None]]) -> None:
    assert seen(obj) == expected


def test_two_devices_with_the_same_list_are_checked_alike() -> None:
    obj = slice_with(device("a", numa=[1, 3, 2]), device("b", numa=[1, 3, 2]), device("c", numa=[0, 1]))
    assert [(rule, path) for rule, path, _, _ in seen(obj, ORDER_ON)] == [
        ("numa-node-order", f"spec.devices[0].attributes[{NUMA}].ints[2]"),
        ("numa-node-order", f"spec.devices[1].attributes[{NUMA}].ints[2]")]


MIXED_HINT = "publish one form across the slice, so one selector works on every device"
ROOT_HINT = 'publish the root complex name, e.g. `string: "pci0000:00"`'


@pytest.mark.parametrize(("obj", "expected"), [
    pytest.param(slice_with(device("d", attributes={ROOT: 5})), [(
        "pcie-root-type", f"{A}[{ROOT}]", f"{ROOT} is an int value; it must be string or strings", ROOT_HINT)],
        id="pcie-root-int"),
    pytest.param(slice_with(device("d", attributes={ROOT: ["pci0000:00", ""]})), [(
        "pcie-root-type", f"{A}[{ROOT}].strings[1]", f"{ROOT} entry 1 is empty", "list only known root complexes")],
        id="pcie-root-empty-entry"),
    pytest.param(slice_with(device("d", attributes={ROOT: ["pci0000:00", "pci0000:80"]})), [], id="pcie-root-list"),
    pytest.param(slice_with(device("a", numa=0), device("b", numa=[1, 0])), [(
        "numa-node-mixed-form", f"spec.devices[1].attributes[{NUMA}].ints",
        "b publishes numaNode as ints while a uses int", MIXED_HINT)], id="mixed-tie-first-is-int"),
    pytest.param(slice_with(device("a", numa=[1, 0]), device("b", numa=0)), [(
        "numa-node-mixed-form", f"spec.devices[1].attributes[{NUMA}].int",
        "b publishes numaNode as int while a uses ints", MIXED_HINT)], id="mixed-tie-first-is-ints"),
    pytest.param(slice_with(device("a", numa=0), device("b", numa=[1, 0]), device("c", numa=[1, 0])), [(
        "numa-node-mixed-form", f"spec.devices[0].attributes[{NUMA}].int",
        "a publishes numaNode as int while b uses ints", MIXED_HINT)], id="mixed-majority-ints"),
    pytest.param(slice_with(device("a", numa=[0, 1]), device("b", numa=[0, 2])), [(
        "numa-node-list-consistency", f"spec.devices[1].attributes[{NUMA}].ints",
        "b publishes [0, 2] but a, on the same physical node 0, publishes [0, 1]",
        "derive every device's list from the same SLIT row (the KEP-6072 helper does); the order after the "
        "physical node does not matter")], id="list-consistency"),
    pytest.param(slice_with(device("a", numa=[4, 5, 6, 7]), device("b", numa=[4, 7, 6, 5])), [],
                 id="list-consistency-same-set-in-another-order"),
    pytest.param(slice_with(device("a", numa=[4, 5, 6, 7]), device("b", numa=[5, 4, 6, 7])), [],
                 id="list-consistency-other-physical-node"),
    pytest.param(slice_with(device("a", numa=[4, 5, 6]), device("b", numa=[4, 6, 7])), [(
        "numa-node-list-consistency", f"spec.devices[1].attributes[{NUMA}].ints",
        "b publishes [4, 6, 7] but a, on the same physical node 4, publishes [4, 5, 6]",
        "derive every device's list from the same SLIT row (the KEP-6072 helper does); the order after the "
        "physical node does not matter")], id="list-consistency-another-set"),
    pytest.param(slice_with(device("a", numa=[4, 5, 6]), device("b", numa=[4, 5, 6, 6])), [(
        "numa-node-duplicates", f"spec.devices[1].attributes[{NUMA}].ints[3]",
        "numaNode 6 appears twice in the list (also at index 2)",
        "list each NUMA node once: matchAttribute treats the list as a set, CEL counts every entry")],
        id="list-consistency-a-repeat-is-the-same-set"),
])
def test_slice_wide_findings_in_full(obj: dict[str, Any], expected: list[tuple[str, str, str, str | None]]) -> None:
    assert seen(obj) == expected
