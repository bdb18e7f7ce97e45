"""Build sysfs trees the way the kernel lays them out, in a temporary directory.

bus/pci/devices/<BDF> -> ../../../devices/pci0000:00/[<bridge BDF>/...]<BDF>     (numa_node inside)
class/<CLASS>/<NAME> -> ../../devices/pci0000:00/.../<BDF>/<CLASS>/<NAME>
devices/system/node/node<N>/{distance,cpulist}
devices/system/cpu/cpu<X>/topology/physical_package_id, cpu<X>/node<N> -> ../../node/node<N>
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Node:
    cpus: Sequence[int] = ()  # empty: a CPU-less (memory-only) node
    socket: int | None = None  # physical_package_id of its CPUs; None: no topology file
    distance: str | None = None  # the SLIT row as the kernel prints it; None: no distance file


@dataclass(frozen=True)
class Tree:
    nodes: Mapping[int, Node] = field(default_factory=dict)
    pci: Mapping[str, str] = field(default_factory=dict)  # BDF -> numa_node file text ("6", "-1")
    bridges: Mapping[str, str] = field(default_factory=dict)  # BDF -> the bridge it sits behind (also in `pci`)
    # "net/eth1" -> where under the PCI device the class entry lives: "0000:c1:00.1/net/eth1",
    # "0000:00:03.0/virtio2/net/eth0"; or a path under devices/ for a device on no PCI bus: "virtual/net/lo".
    classes: Mapping[str, str] = field(default_factory=dict)

    def device_dir(self, bdf: str) -> Path:
        """Where the kernel puts a PCI device: under its root complex and every bridge above it."""
        chain = [bdf]
        while chain[-1] in self.bridges:
            chain.append(self.bridges[chain[-1]])
        return Path("devices", f"pci{bdf[:4]}:00", *reversed(chain))

    def build(self, root: Path) -> Path:
        (root / "bus/pci/devices").mkdir(parents=True, exist_ok=True)
        (root / "devices/system/node").mkdir(parents=True, exist_ok=True)
        (root / "devices/system/cpu").mkdir(parents=True, exist_ok=True)
        for bdf, numa in self.pci.items():
            real = root / self.device_dir(bdf)
            real.mkdir(parents=True, exist_ok=True)
            (real / "numa_node").write_text(numa + "\n")
            (root / "bus/pci/devices" / bdf).symlink_to(Path("../../..") / self.device_dir(bdf))
        for entry, where in self.classes.items():
            first, _, rest = where.partition("/")
            target = self.device_dir(first) / rest if first in self.pci else Path("devices", where)
            (root / target).mkdir(parents=True, exist_ok=True)
            (root / "class" / entry).parent.mkdir(parents=True, exist_ok=True)
            (root / "class" / entry).symlink_to(Path("../..") / target)
        for node_id, node in self.nodes.items():
            node_dir = root / f"devices/system/node/node{node_id}"
            node_dir.mkdir(parents=True)
            (node_dir / "cpulist").write_text(cpulist(node.cpus) + "\n")
            if node.distance is not None:
                (node_dir / "distance").write_text(node.distance + "\n")
            for cpu in node.cpus:
                cpu_dir = root / f"devices/system/cpu/cpu{cpu}"
                (cpu_dir / "topology").mkdir(parents=True)
                if node.socket is not None:
                    (cpu_dir / "topology/physical_package_id").write_text(f"{node.socket}\n")
                (cpu_dir / f"node{node_id}").symlink_to(Path("../../node") / f"node{node_id}")
        return root


def cpulist(cpus: Sequence[int]) -> str:
    """The kernel's range form: [0, 1, 2, 5] -> "0-2,5"."""
    ranges: list[list[int]] = []
    for cpu in sorted(cpus):
        if ranges and cpu == ranges[-1][1] + 1:
            ranges[-1][1] = cpu
        else:
            ranges.append([cpu, cpu])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in ranges)


def slit(n: int, distance: Mapping[tuple[int, int], int] | None = None, *, per_socket: int = 0) -> dict[int, str]:
    """Distance rows for n nodes: 10 to self, 12 within a socket of `per_socket` nodes, 32 across."""
    rows = {}
    for i in range(n):
        row = []
        for j in range(n):
            if distance and (i, j) in distance:
                row.append(distance[i, j])
            elif i == j:
                row.append(10)
            elif per_socket and i // per_socket == j // per_socket:
                row.append(12)
            else:
                row.append(32)
        rows[i] = " ".join(map(str, row))
    return rows


def sockets(n: int, per_socket: int, cpus_per_node: int = 2, rows: Mapping[int, str] | None = None) -> dict[int, Node]:
    """n nodes, `per_socket` of them on each package, `cpus_per_node` CPUs each, the given SLIT rows."""
    rows = rows if rows is not None else slit(n, per_socket=per_socket)
    return {i: Node(range(i * cpus_per_node, (i + 1) * cpus_per_node), i // per_socket, rows.get(i)) for i in range(n)}


# The KEP-6072 example machine: AMD EPYC 9825, 2 sockets, NPS4 (8 NUMA nodes; 12 inside a socket, 32 across).
EPYC_9825_NPS4 = Tree(
    nodes=sockets(8, per_socket=4),
    pci={
        "0000:01:00.0": "0",  # NVMe on NUMA 0
        "0000:41:00.0": "5",  # GPU expansion slot on NUMA 5 (story 3)
        "0000:c1:00.1": "6",  # NIC VF on NUMA 6
        "0000:00:00.0": "-1",  # a host bridge without NUMA affinity
    },
)
