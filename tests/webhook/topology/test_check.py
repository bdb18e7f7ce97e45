"""Published numaNode values against the NPS4 machine of KEP-6072: each mismatch a finding with its path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.webhook.topology.trees import EPYC_9825_NPS4, Node, Tree
from webhook.findings import Action
from webhook.topology import Form, Sysfs, Topology
from webhook.topology.check import check_slice

NUMA = "resource.kubernetes.io/numaNode"
BUS_ID = "resource.kubernetes.io/pciBusID"


@pytest.fixture
def topology(tmp_path: Path) -> Topology:
    return Topology(Sysfs.open(EPYC_9825_NPS4.build(tmp_path)))


def slice_of(driver: str, *devices: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{driver}-slice"},
        "spec": {
            "driver": driver,
            "nodeName": "node-a",
            "pool": {"name": "node-a", "generation": 1, "resourceSliceCount": 1},
            "devices": [{"name": f"dev{i}", "attributes": attributes} for i, attributes in enumerate(devices)],
        },
    }


def found(slice_: dict[str, Any], topology: Topology, form: Form | None = None) -> list[tuple[str, str, str, str]]:
    return [
        (f.rule, f.action.value if f.action else "", str(f.path), f.message)
        for f in check_slice(slice_, topology, form=form)
    ]


def test_correct_values_in_both_forms_pass(topology: Topology) -> None:
    dranet = slice_of(
        "dra.net",
        {"dra.net/pciAddress": {"string": "0000:c1:00.1"}, NUMA: {"ints": [6, 4, 5, 7]}, "numaNode": {"int": 6}},
        {"pciAddress": {"string": "0000:01:00.0"}, NUMA: {"int": 0}},
    )
    assert found(dranet, topology) == []


def test_list_order_after_the_physical_node_does_not_matter(topology: Topology) -> None:
    assert (
        found(slice_of("dra.net", {BUS_ID: {"string": "0000:c1:00.1"}, NUMA: {"ints": [6, 7, 5, 4]}}), topology) == []
    )


def test_a_repeated_node_is_a_mismatch_though_the_set_is_right(topology: Topology) -> None:
    nic = slice_of("dra.net", {BUS_ID: {"string": "0000:c1:00.1"}, NUMA: {"ints": [6, 6, 4, 5, 7]}})
    assert [message for *_, message in found(nic, topology)] == [
        f"{NUMA} is [6, 6, 4, 5, 7] but sysfs gives [6, 4, 5, 7] for PCI device 0000:c1:00.1 (numa_node 6)"]


def test_a_single_element_list_on_nps4_is_a_mismatch(topology: Topology) -> None:
    # dra-driver-nvidia-gpu publishes [N] without the SLIT expansion (its issue #1242).
    gpu = slice_of("gpu.nvidia.com", {BUS_ID: {"string": "0000:41:00.0"}, NUMA: {"ints": [5]}})
    assert found(gpu, topology) == [
        (
            "topology-numa-mismatch",
            "deny",
            f"spec.devices[0].attributes[{NUMA}].ints",
            f"{NUMA} is [5] but sysfs gives [5, 4, 6, 7] for PCI device 0000:41:00.0 (numa_node 5)",
        )
    ]
    assert check_slice(gpu, topology)[0].hint == "publish {ints: [5, 4, 6, 7]}"


def test_a_list_built_without_the_socket_filter_is_a_mismatch(topology: Topology) -> None:
    nic = slice_of("dra.net", {BUS_ID: {"string": "0000:01:00.0"}, NUMA: {"ints": [0, 1, 2, 3, 4, 5, 6, 7]}})
    assert found(nic, topology)[0][3] == (
        f"{NUMA} is [0, 1, 2, 3, 4, 5, 6, 7] but sysfs gives [0, 1, 2, 3] for PCI device 0000:01:00.0 "
        "(numa_node 0)"
    )


def test_physical_node_must_come_first(topology: Topology) -> None:
    nic = slice_of("dra.net", {BUS_ID: {"string": "0000:c1:00.1"}, NUMA: {"ints": [4, 5, 6, 7]}})
    assert [f[0] for f in found(nic, topology)] == ["topology-numa-mismatch"]


def test_wrong_scalar_and_vendor_alias(topology: Topology) -> None:
    amd = slice_of("gpu.amd.com", {"pciAddr": {"string": "0000:41:00.0"}, "numaNode": {"int": 4}, NUMA: {"int": 5}})
    assert found(amd, topology) == [
        (
            "topology-numa-mismatch",
            "deny",
            "spec.devices[0].attributes[numaNode].int",
            "gpu.amd.com/numaNode is 4 but sysfs gives 5 for PCI device 0000:41:00.0 (numa_node 5)",
        )
    ]


def test_minus_one_published_for_a_device_without_affinity(topology: Topology) -> None:
    # dra-driver-sriov publishes dra.net/numaNode -1 when sysfs has no NUMA affinity.
    sriov = slice_of(
        "sriovnetwork.k8snetworkplumbingwg.io",
        {
            "sriovnetwork.k8snetworkplumbingwg.io/pciAddress": {"string": "0000:00:00.0"},
            "dra.net/numaNode": {"int": -1},
        },
    )
    assert found(sriov, topology) == [
        (
            "topology-no-affinity",
            "deny",
            "spec.devices[0].attributes[dra.net/numaNode].int",
            "dra.net/numaNode is -1 but PCI device 0000:00:00.0 has no NUMA affinity (numa_node=-1)",
        )
    ]


def test_a_value_on_a_kernel_without_numa_files(topology: Topology, tmp_path: Path) -> None:
    (tmp_path / "devices/pci0000:00/0000:01:00.0/numa_node").unlink()
    nvme = slice_of("dra.nvme", {BUS_ID: {"string": "0000:01:00.0"}, "dra.nvme/numaNode": {"int": 0}})
    assert found(nvme, topology) == [
        (
            "topology-no-affinity",
            "deny",
            "spec.devices[0].attributes[dra.nvme/numaNode].int",
            "dra.nvme/numaNode is 0 but PCI device 0000:01:00.0 has no numa_node file (a kernel without NUMA support)",
        )
    ]


def test_form_asked_for(topology: Topology) -> None:
    nic = slice_of("dra.net", {BUS_ID: {"string": "0000:c1:00.1"}, NUMA: {"int": 6}, "dra.net/numaNode": {"int": 6}})
    assert found(nic, topology, Form.LIST) == [
        (
            "topology-numa-form",
            "deny",
            f"spec.devices[0].attributes[{NUMA}]",
            f"{NUMA} is published as a scalar (int) but the list form was asked for: PCI device 0000:c1:00.1 should "
            "publish {ints: [6, 4, 5, 7]}",
        )
    ]  # the legacy alias stays a scalar: not a form finding
    assert found(nic, topology, Form.SCALAR) == []


def test_cpu_device_checked_by_its_node(topology: Topology) -> None:
    # KEP-6072 lets a CPU or memory device publish [N] or the helper's SLIT list: its table has [4] for a
    # CPU on node 4 of this machine, where GetNUMANodeAttribute gives [4, 5, 6, 7].
    cpu = slice_of(
        "dra.cpu",
        {NUMA: {"int": 4}, "dra.cpu/numaNodeID": {"int": 4}, "dra.net/numaNode": {"int": 4}},
        {NUMA: {"ints": [4]}},
        {NUMA: {"ints": [4, 5, 6, 7]}, "dra.cpu/numaNodeID": {"int": 5}},
        {NUMA: {"ints": [4, 5]}},
        {NUMA: {"ints": [5, 4, 6, 7]}},  # a device on node 5: its own list, fine
    )
    assert found(cpu, topology) == [
        (
            "topology-numa-mismatch",
            "deny",
            "spec.devices[2].attributes[dra.cpu/numaNodeID].int",
            "dra.cpu/numaNodeID is 5 but sysfs gives 4 for NUMA node 4",
        ),
        (
            "topology-numa-mismatch",
            "deny",
            f"spec.devices[3].attributes[{NUMA}].ints",
            f"{NUMA} is [4, 5] but sysfs gives [4, 5, 6, 7] for NUMA node 4 (a CPU or memory device may also "
            "publish [4])",
        ),
    ]
    assert check_slice(cpu, topology)[1].hint == "publish {ints: [4, 5, 6, 7]} or {ints: [4]}"


def test_a_node_this_machine_does_not_have(topology: Topology) -> None:
    memory = slice_of("dra.memory", {"dra.memory/numaNode": {"int": 9}})
    assert found(memory, topology) == [
        (
            "topology-unknown-node",
            "warn",
            "spec.devices[0].attributes[dra.memory/numaNode]",
            "dra.memory/numaNode names NUMA node 9, which this machine does not have (nodes: 0, 1, 2, 3, 4, 5, 6, 7)",
        )
    ]


def test_a_negative_node_without_pci_address(topology: Topology) -> None:
    assert found(slice_of("dra.cpu", {NUMA: {"int": -1}}), topology) == [
        (
            "topology-no-affinity",
            "deny",
            f"spec.devices[0].attributes[{NUMA}].int",
            f"{NUMA} is -1: a negative node means none",
        )
    ]


def test_a_device_not_on_this_node(topology: Topology, tmp_path: Path) -> None:
    gpu = slice_of("gpu.nvidia.com", {BUS_ID: {"string": "0000:e1:00.0"}, NUMA: {"int": 7}})
    assert found(gpu, topology) == [
        (
            "topology-unknown-device",
            "warn",
            f"spec.devices[0].attributes[{BUS_ID}]",
            f"PCI device 0000:e1:00.0 is not on this machine (no {tmp_path}/bus/pci/devices/0000:e1:00.0); "
            "its numaNode cannot be checked",
        )
    ]


def test_an_address_the_helper_would_reject(topology: Topology) -> None:
    gpu = slice_of("gpu.nvidia.com", {BUS_ID: {"string": "0000:C1:00.1"}, NUMA: {"int": 6}})
    assert [f[:3] for f in found(gpu, topology)] == [
        ("topology-bad-pci-address", "warn", f"spec.devices[0].attributes[{BUS_ID}]")
    ]


def test_devices_without_numa_values_are_left_alone(topology: Topology) -> None:
    odd = slice_of("dra.net", {BUS_ID: {"string": "0000:c1:00.1"}})  # nothing published: nothing to compare
    odd["spec"]["devices"].append("not a device")
    assert found(odd, topology) == []


def test_the_standard_attribute_names_the_node_when_aliases_disagree(topology: Topology) -> None:
    findings = check_slice(slice_of("x", {"x/numa": {"int": 2}, NUMA: {"int": 3}}), topology)
    assert [(f.action, str(f.path), f.message) for f in findings] == [
        (
            Action.DENY,
            "spec.devices[0].attributes[x/numa].int",
            "x/numa is 2 but sysfs gives 3 for NUMA node 3",
        )
    ]


def test_a_mismatch_says_when_the_derived_list_is_a_fallback(tmp_path: Path) -> None:
    no_slit = Tree({0: Node(cpus=(0,)), 1: Node(cpus=(1,))}, pci={"0000:02:00.0": "1"})
    topology = Topology(Sysfs.open(no_slit.build(tmp_path / "sys")))
    nic = slice_of("dra.net", {BUS_ID: {"string": "0000:02:00.0"}, NUMA: {"ints": [1, 0]}})
    assert [f[3] for f in found(nic, topology)] == [
        f"{NUMA} is [1, 0] but sysfs gives [1] for PCI device 0000:02:00.0 (numa_node 1); node 1 has no SLIT "
        "distance row (devices/system/node/node1/distance is missing): list falls back to [1]"
    ]
