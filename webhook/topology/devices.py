"""Kernel names of PCI devices (eth1, nvme0, card1, mlx5_0, vda), and the PCI device under a `/sys/class` entry.

Operators know their NICs and disks by interface and controller names, drivers publish PCI addresses; this
module joins the two. A class entry is a symlink into the device tree
(`class/net/eth1 -> ../../devices/pci0000:c0/0000:c0:01.1/0000:c1:00.1/net/eth1`, behind any number of
bridges); the PCI device is the last `dddd:bb:dd.f` component of where it points. That also covers virtio
(`.../0000:00:03.0/virtio2/net/eth0`) and USB (`.../0000:00:14.0/usb1/...`: the host controller, whose
numa_node is the one that matters). An entry with no PCI component (`lo`, `virtual/net/*`) has no numaNode.
"""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

from webhook.topology.numa import Reader, is_bdf
from webhook.topology.sysfs import Sysfs, SysfsError

# Per class: the sub-directory of a PCI device holding its names, and which entries are device names
# (drm also lists renderD128 and card1-DP-1 connectors; only the cards name a GPU).
CLASSES = {"net": "*", "nvme": "nvme[0-9]*", "drm": "card[0-9]*", "infiniband": "*", "block": "*"}
_CLASS_DEVICE = re.compile(r"[^/]+/[^/]+")


def names(reader: Reader, bdf: str) -> tuple[str, ...]:
    """The kernel names under one PCI device (its own and those of a virtio function on it), sorted."""
    found: set[str] = set()
    base = f"bus/pci/devices/{bdf}"
    bases = [base]
    entries = reader.listdir(base) or []
    bases += [f"{base}/{name}" for name in entries if fnmatch.fnmatchcase(name, "virtio[0-9]*")]
    for where in bases:
        for class_name, pattern in CLASSES.items():
            for name in reader.listdir(f"{where}/{class_name}") or []:
                if fnmatch.fnmatchcase(name, pattern) and not name.startswith("."):
                    found.add(name)
    return tuple(sorted(found))


def pci_of(sysfs: Sysfs, class_device: str) -> str:
    """The PCI address of `class/<CLASS>/<NAME>` ("net/eth1"), or a one-line SysfsError saying why not."""
    if not _CLASS_DEVICE.fullmatch(class_device) or any(p in (".", "..") for p in class_device.split("/")):
        raise SysfsError(f"--class-device {class_device}: want CLASS/NAME as under /sys/class, e.g. net/eth1")
    rel = f"class/{class_device}"
    entry = Path(sysfs.describe(rel))
    class_name = class_device.partition("/")[0]
    if not sysfs.has(rel):
        known = sysfs.listdir(f"class/{class_name}")
        hint = f" (it has {', '.join(known)})" if known else ""
        raise SysfsError(f"--class-device {class_device}: no {entry}{hint}")
    target = os.path.realpath(entry)
    bdfs = [part for part in Path(target).parts if is_bdf(part)]
    if not bdfs:
        raise SysfsError(f"--class-device {class_device}: not on a PCI device ({entry} -> {target}), so no numaNode")
    bdf = bdfs[-1]
    if not sysfs.has(f"bus/pci/devices/{bdf}"):  # an entry there but broken: its row says why
        raise SysfsError(
            f"--class-device {class_device}: it points at PCI device {bdf}, which is not under "
            f"{sysfs.describe('bus/pci/devices')}"
        )
    return bdf
