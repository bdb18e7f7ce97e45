"""topology: deriving numaNode for every PCI device of a large machine, and checking its slices.

A 2-socket, 16-node (NPS8-like) tree with 1024 PCI devices, built in a temporary directory. Figures from one
run on a shared machine: read the ratios. Cases: the list form for every device with the per-node memo
(what `draguard topology` does), the same with a fresh Topology per device (what calling the upstream helper
once per device costs: every call re-reads the SLIT row and the sockets), the scalar form (no SLIT read),
`--check` of 8 slices of 128 devices each, and the whole `draguard topology` table (kernel names, both forms).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.webhook.topology.trees import Tree, sockets
from webhook.topology import Form, Sysfs, Topology, listing
from webhook.topology.check import check_slice

NODES, PER_SOCKET, DEVICES = 16, 8, 1024


def bdf(i: int) -> str:
    return f"0000:{i // 32:02x}:{i % 32:02x}.0"


def timed(label: str, fn: Callable[[], Any], repeat: int = 5) -> float:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    best = min(runs)
    print(f"{label:<48} {best * 1000:8.1f} ms  (median {statistics.median(runs) * 1000:.1f} ms)")
    return best


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tree = Tree(sockets(NODES, PER_SOCKET), pci={bdf(i): str(i % NODES) for i in range(DEVICES)})
        sysfs = Sysfs.open(tree.build(Path(tmp)))
        addresses = [bdf(i) for i in range(DEVICES)]

        def memo(form: Form) -> None:
            topology = Topology(sysfs)
            for address in addresses:
                topology.pci(address, form)

        def fresh() -> None:
            for address in addresses:
                Topology(sysfs).pci(address, Form.LIST)

        slices = [
            {
                "kind": "ResourceSlice",
                "spec": {
                    "driver": "dra.net",
                    "nodeName": "n",
                    "devices": [
                        {
                            "name": f"d{i}",
                            "attributes": {
                                "resource.kubernetes.io/pciBusID": {"string": bdf(i)},
                                "resource.kubernetes.io/numaNode": {"int": i % NODES},
                            },
                        }
                        for i in range(s * 128, (s + 1) * 128)
                    ],
                },
            }
            for s in range(DEVICES // 128)
        ]

        def check() -> None:
            topology = Topology(sysfs)
            for slice_ in slices:
                assert check_slice(slice_, topology) == []

        def table() -> None:
            topology = Topology(sysfs)
            forms = (Form.SCALAR, Form.LIST)
            listing.table(listing.collect(topology, forms, pci=topology.pci_devices(), nodes=topology.nodes()))

        print(f"{DEVICES} PCI devices on {NODES} NUMA nodes ({NODES // PER_SOCKET} sockets)")
        listed = timed("list form, per-node memo", lambda: memo(Form.LIST))
        uncached = timed("list form, fresh Topology per device", fresh)
        scalar = timed("scalar form", lambda: memo(Form.SCALAR))
        checked = timed(f"--check of {len(slices)} slices x 128 devices", check)
        shown = timed("`draguard topology` table (names, both forms)", table)
        print(f"memo speed-up over per-device derivation: {uncached / listed:.1f}x")
        print(f"list form / scalar form: {listed / scalar:.2f}x")
        print(f"per device: list {listed / DEVICES * 1e6:.0f} us, check {checked / DEVICES * 1e6:.0f} us")
        print(f"full table / list form derivation: {shown / listed:.1f}x (kernel names: 6 directory reads a device)")


if __name__ == "__main__":
    main()
