"""Real slices from a Dell XE9680 (the corpus) against sysfs trees built to match the machine.

The capture was taken twice: with Intel SNC on (2 sockets x 2 sub-NUMA clusters = 4 nodes) and off (2 nodes).
The SNC-on slices agree with an SNC-on tree; the SNC-off slices, checked against the SNC-on machine (a BIOS
change after the driver published), disagree exactly where a device's node moved.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.webhook.topology.trees import Tree, slit, sockets
from webhook.manifests import load_paths
from webhook.topology import Sysfs, Topology
from webhook.topology.check import check_slice
from webhook.wire import get_list, get_map

SNC_ON = "topology-co-placement/results-xe9680-hardware-resourceslices.yaml"
SNC_OFF = "topology-co-placement/results-xe9680-hardware-snc-off-resourceslices.yaml"
NODE = "j42-h01-000-xe9680.rdu3.labs.perfscale.redhat.com"
BUS_ID = "resource.kubernetes.io/pciBusID"


def slices(corpus: Path, name: str) -> list[dict[str, Any]]:
    loaded = load_paths([str(corpus / name)])
    assert loaded.problems == []
    return [dict(m.obj) for m in loaded.manifests]


def pci_nodes(slices_: list[dict[str, Any]]) -> dict[str, int]:
    """BDF -> the node its driver published (AMD's `numaNode`, SR-IOV's `dra.net/numaNode`)."""
    found: dict[str, int] = {}
    for slice_ in slices_:
        for device in get_list(slice_, "spec", "devices"):
            attributes = get_map(device, "attributes")
            if BUS_ID not in attributes:
                continue
            numa = attributes.get("numaNode") or attributes.get("dra.net/numaNode")
            bdf = attributes[BUS_ID]["string"]
            assert found.setdefault(bdf, numa["int"]) == numa["int"], bdf
    return found


def snc_on_machine(root: Path, corpus: Path) -> Topology:
    rows = slit(4, {(i, j): 21 for i in range(4) for j in range(4) if i // 2 != j // 2}, per_socket=2)
    tree = Tree(
        sockets(4, per_socket=2, rows=rows), pci={b: str(n) for b, n in pci_nodes(slices(corpus, SNC_ON)).items()}
    )
    return Topology(Sysfs.open(tree.build(root)))


def test_snc_on_slices_match_the_snc_on_machine(corpus: Path, tmp_path: Path) -> None:
    topology = snc_on_machine(tmp_path, corpus)
    captured = slices(corpus, SNC_ON)
    assert {s["spec"]["nodeName"] for s in captured} == {NODE}
    assert [f for s in captured for f in check_slice(s, topology)] == []


def test_stale_snc_off_slices_disagree_where_devices_moved(corpus: Path, tmp_path: Path) -> None:
    topology = snc_on_machine(tmp_path, corpus)
    on, off = pci_nodes(slices(corpus, SNC_ON)), pci_nodes(slices(corpus, SNC_OFF))
    moved = {bdf for bdf in off if bdf in on and on[bdf] != off[bdf]}
    assert moved  # the capture really shows devices changing node
    findings = [f for s in slices(corpus, SNC_OFF) for f in check_slice(s, topology)]
    assert {f.rule for f in findings} <= {"topology-numa-mismatch", "topology-unknown-device"}
    mismatched = {
        f.message.split("PCI device ")[1].split(" ")[0] for f in findings if f.rule == "topology-numa-mismatch"
    }
    assert mismatched == moved
    sample = sorted(moved)[0]
    tail = f" is {off[sample]} but sysfs gives {on[sample]} for PCI device {sample} (numa_node {on[sample]})"
    messages = {f.message for f in findings}
    assert {f"gpu.amd.com/numaNode{tail}", f"dra.net/numaNode{tail}"} & messages


@pytest.mark.parametrize("capture", [SNC_ON, SNC_OFF])
def test_every_pci_address_in_the_capture_is_one_the_helper_accepts(corpus: Path, capture: str) -> None:
    from webhook.topology.numa import is_bdf

    assert all(is_bdf(bdf) for bdf in pci_nodes(slices(corpus, capture)))
