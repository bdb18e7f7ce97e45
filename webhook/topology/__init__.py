"""KEP-6072 `resource.kubernetes.io/numaNode` from a node's sysfs: derive it, and check what drivers publish.

    sysfs.py   Sysfs: a safe reader of a sysfs root, SysfsError
    numa.py    Topology: the upstream derivation (deviceattribute numa_linux.go), pure over a Reader
    check.py   check_slices(): published numaNode values against derived ones, as Findings
"""

from webhook.topology.numa import (
    MAX_NUMA_NODES,
    STANDARD_NUMA_NODE,
    Derivation,
    Form,
    NumaValue,
    Reader,
    Topology,
)
from webhook.topology.sysfs import Sysfs, SysfsError

__all__ = [
    "MAX_NUMA_NODES",
    "STANDARD_NUMA_NODE",
    "Derivation",
    "Form",
    "NumaValue",
    "Reader",
    "Sysfs",
    "SysfsError",
    "Topology",
]
