"""KEP-6072 `resource.kubernetes.io/numaNode` from a node's sysfs: derive it, and check what drivers publish.

    sysfs.py     Sysfs: a safe reader of a sysfs root, SysfsError
    numa.py      Topology: the upstream derivation (deviceattribute numa_linux.go), pure over a Reader
    devices.py   kernel names on a PCI device (eth1, nvme0, card1) and the PCI device of a /sys/class entry
    listing.py   what `draguard topology` prints: table, JSON, YAML
    check.py     check_slice(): published numaNode values against derived ones, as Findings
    checking.py  `draguard topology --check`: read slices, keep this node's, report like `validate`
"""

from webhook.topology.numa import (
    MAX_NUMA_NODES,
    Derivation,
    Form,
    NumaValue,
    Reader,
    Topology,
)
from webhook.topology.sysfs import Sysfs, SysfsError

__all__ = [
    "MAX_NUMA_NODES",
    "Derivation",
    "Form",
    "NumaValue",
    "Reader",
    "Sysfs",
    "SysfsError",
    "Topology",
]
