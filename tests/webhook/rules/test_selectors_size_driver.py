"""The selector rules on `size()` of an attribute (characters of a string, elements of a list) and on reads
through the driver's own domain, `device.attributes[device.driver].<id>`."""

from __future__ import annotations

import pytest

from tests.builders import claim_with_selector, device, device_class_with_selector, slice_with
from tests.webhook.rules.test_selectors import SEL0, check, findings

GPU = 'device.attributes["gpu.example.com"]'
MODEL = f"{GPU}.model"
NUMA = 'device.attributes["resource.kubernetes.io"].numaNode'
OWN = "device.attributes[device.driver]"
SIZE_MESSAGE = ("`size()` on gpu.example.com/model silently counts elements instead of characters once the driver "
                "publishes it as a list")


# -- list-fragile-compare: size() ----------------------------------------------------------------------------


@pytest.mark.parametrize("expression", [f"size({MODEL}) > 3", f"{MODEL}.size() > 3"])
def test_size_of_an_attribute_of_unknown_type_is_fragile_without_a_fix(expression: str) -> None:
    (finding,) = findings("list-fragile-compare", claim_with_selector(expression))
    assert finding.message == SIZE_MESSAGE
    assert finding.fix is None
    assert finding.hint == (f"for a list: {MODEL}.exists(v, size(v) ...) tests each string's length; keep size() "
                            f"on the value only if the driver documents a string")
    assert check("list-fragile-compare", claim_with_selector(expression)) == [(SEL0, SIZE_MESSAGE, "size")]


def test_size_through_an_optional_read_names_the_unwrap() -> None:
    (finding,) = findings("list-fragile-compare", claim_with_selector(f'{GPU}.?model.orValue("").size() == 0'))
    assert finding.message.startswith("`size()` on gpu.example.com/model (read with `.orValue()`) silently counts")


@pytest.mark.parametrize("expression", [f"size({NUMA}) == 2", f"{NUMA}.size() == 2",
                                        'size(device.attributes["dra.net"].numaNode) > 1',
                                        f"size({MODEL}.filter(m, m != \"\")) > 0", f"size({GPU}) > 2"])
def test_size_of_a_numa_node_or_of_a_derived_value_is_not_fragile(expression: str) -> None:
    """NUMA node ids are ints: size() on one is an error already, so whoever writes it reads a list."""
    assert check("list-fragile-compare", claim_with_selector(expression)) == []


def inventory(*values: object) -> tuple[dict[str, object], ...]:
    return (slice_with(*(device(f"gpu-{i}", attributes={"model": v}) for i, v in enumerate(values))),)


@pytest.mark.parametrize(("published", "reported"), [
    (("A100",), True),  # a string today: counts characters, later elements
    (("A100", ["T4", "L4"]), True),  # a list on some devices already
    ((["T4", "L4"], ["A100"]), False),  # a list everywhere: a list consumer already
    ((4,), False),  # size(int) is a runtime error today: not a list question
    (([4, 5], {"version": "1.0.0"}), False),
])
def test_size_with_an_inventory_follows_the_published_types(published: tuple[object, ...], reported: bool) -> None:
    found = check("list-fragile-compare", claim_with_selector(f"size({MODEL}) > 3"), slices=inventory(*published))
    assert bool(found) is reported
    if found and any(isinstance(v, list) for v in published):
        assert found[0][1] == (
            "`size()` on gpu.example.com/model: gpu.example.com/model is a list on 1 device(s) in the inventory "
            "(e.g. gpu.example.com/pool-0/gpu-1), where this silently counts elements instead of characters")


def test_size_of_an_attribute_the_inventory_does_not_publish_is_reported() -> None:
    found = check("list-fragile-compare", claim_with_selector(f"size({GPU}.serial) > 3"), slices=inventory("A100"))
    assert [m for _p, m, _c in found] == [
        "`size()` on gpu.example.com/serial silently counts elements instead of characters once the driver "
        "publishes it as a list"]


# -- reads through the driver's own domain ------------------------------------------------------------------


def test_equality_through_the_drivers_domain_is_fragile_with_the_includes_fix() -> None:
    (finding,) = findings("list-fragile-compare", device_class_with_selector(f"{OWN}.numaNode == 0"))
    assert str(finding.path) == "spec.selectors[0].cel.expression"
    assert finding.message == ("`==` on <driver>/numaNode is silently false once the driver publishes it as a list")
    assert finding.fix is not None and finding.fix.safe
    assert finding.fix.replacement == f"{OWN}.numaNode.includes(0)"
    (finding,) = findings("list-fragile-compare", claim_with_selector(f'{OWN}["index"] in [0, 1]'))
    assert finding.fix is not None and finding.fix.replacement == f'[0, 1].exists(v, {OWN}["index"].includes(v))'


def test_driver_domain_lists_in_the_inventory_resolve_per_device() -> None:
    slices = (slice_with(device("nic-0", attributes={"numaNode": [0, 1]}), driver="dra.net", name="s1"),
              slice_with(device("gpu-0", attributes={"numaNode": 0})))
    (finding,) = findings("list-fragile-compare", claim_with_selector(f"{OWN}.numaNode == 0"), slices=slices)
    assert finding.message == ("`==` on <driver>/numaNode: <driver>/numaNode is a list on 1 device(s) in the "
                               "inventory (e.g. dra.net/pool-0/nic-0), where this is silently false")
    assert check("list-fragile-compare", claim_with_selector(f"size({OWN}.numaNode) > 1"), slices=slices) == []
    size_slices = (slice_with(device("gpu-0", attributes={"model": "A100"})),)
    assert len(check("list-fragile-compare", claim_with_selector(f"size({OWN}.model) > 1"), slices=size_slices)) == 1


def test_the_drivers_numa_node_is_a_vendor_numa_attribute() -> None:
    expression = f"{OWN}.numaNode.includes(0) && {OWN}.?numa.hasValue()"
    found = findings("selector-vendor-numa", device_class_with_selector(expression))
    assert [(f.message, f.hint) for f in found] == [
        ("<driver>/numaNode is a vendor NUMA attribute; KEP-6072 standardises resource.kubernetes.io/numaNode, "
         "which every updated driver publishes and which lines devices of different drivers up",
         'device.attributes["resource.kubernetes.io"].numaNode (check your drivers publish it)'),
        ("<driver>/numa is a vendor NUMA attribute; KEP-6072 standardises resource.kubernetes.io/numaNode, "
         "which every updated driver publishes and which lines devices of different drivers up",
         'device.attributes["resource.kubernetes.io"].?numaNode (check your drivers publish it)')]
    assert [c for _p, _m, c in check("selector-vendor-numa", claim_with_selector(expression))] == [
        f"{OWN}.numaNode", f"{OWN}.?numa"]
    assert check("selector-vendor-numa", claim_with_selector(f"{OWN}.model == 'a'")) == []


def test_the_drivers_domain_is_no_malformed_domain() -> None:
    assert check("selector-attribute-reference", claim_with_selector(f'{OWN}.model == "a" && "x" in {OWN}')) == []
    ((_p, message, covered),) = check("selector-attribute-reference", claim_with_selector(f"{OWN}.int == 0"))
    assert covered == "int" and message.startswith("`.int` is a wire-format type key, not an attribute")


def test_a_missing_driver_domain_attribute_is_resolved_per_candidate_device() -> None:
    slices = (slice_with(device("nic-0", attributes={"numaNode": 0}), driver="dra.net", name="s1"),
              slice_with(device("gpu-0", attributes={"dra.net/numaNode": 1})))
    obj = claim_with_selector(f"{OWN}.numaNode.includes(0)")
    ((_p, message, covered),) = check("selector-attribute-missing", obj, slices=slices)
    assert covered == f"{OWN}.numaNode"
    assert message == ("<driver>/numaNode is absent on 1 of 2 candidate device(s) (e.g. gpu.example.com/pool-0/gpu-0): "
                       f"`{OWN}.numaNode` fails there with no such key, which aborts allocation for the claim")
    guarded = claim_with_selector(f"has({OWN}.numaNode) && {OWN}.numaNode.includes(0)")
    assert check("selector-attribute-missing", guarded, slices=slices) == []


def test_a_type_mismatch_through_the_drivers_domain_uses_each_devices_own_attribute() -> None:
    slices = (slice_with(device("nic-0", attributes={"model": "X", "dra.net/other": 4}), driver="dra.net", name="s1"),
              slice_with(device("gpu-0", attributes={"model": "A100", "dra.net/model": 4})))
    ((_p, message, covered),) = check("selector-type-mismatch", claim_with_selector(f"{OWN}.model == 4"),
                                      slices=slices)
    assert covered == "=="
    assert message.startswith("<driver>/model is a string on every candidate device that publishes it (2); ")
    assert check("selector-type-mismatch", claim_with_selector(f'{OWN}.model == "X"'), slices=slices) == []


def test_pinned_numa_through_the_drivers_domain() -> None:
    ((_p, message, _c),) = check("selector-numa-pinned", claim_with_selector(f"{OWN}.numaNode == 1"))
    assert message.startswith("the selector pins <driver>/numaNode to NUMA node 1: ")
