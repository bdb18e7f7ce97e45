"""The DRA wire vocabulary, declared once: attribute members, the standard attribute names, qualified names.

Every reader of ResourceSlice devices (celext's engines, the webhook's rules, lint, audit, topology) takes
these names from here rather than spelling them again. Upstream: `k8s.io/api/resource/v1` (`DeviceAttribute`,
`QualifiedName`) and the standard attributes of `k8s.io/dynamic-resource-allocation/deviceattribute`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

STANDARD_DOMAIN: Final = "resource.kubernetes.io"
NUMA_NODE: Final = "resource.kubernetes.io/numaNode"  # KEP-6072
PCIE_ROOT: Final = "resource.kubernetes.io/pcieRoot"
PCI_BUS_ID: Final = "resource.kubernetes.io/pciBusID"

# The members of a DeviceAttribute in Go field order; exactly one is set. The list members are KEP-5491's.
SCALAR_MEMBERS: Final = ("int", "bool", "string", "version")
LIST_MEMBERS: Final = ("ints", "bools", "strings", "versions")
MEMBERS: Final = SCALAR_MEMBERS + LIST_MEMBERS
ELEMENT_OF: Final[Mapping[str, str]] = dict(zip(LIST_MEMBERS, SCALAR_MEMBERS, strict=True))  # "ints" -> "int"
LIST_OF: Final[Mapping[str, str]] = dict(zip(SCALAR_MEMBERS, LIST_MEMBERS, strict=True))  # "int" -> "ints"


def split(name: str, driver: str) -> tuple[str, str]:
    """`domain/id` as (domain, id); a bare id is in the driver's domain (upstream `parseQualifiedName`)."""
    domain, sep, ident = name.partition("/")
    return (domain, ident) if sep else (driver, name)


def qualify(name: str, driver: str) -> str:
    """The fully qualified form of an attribute or capacity name: a bare id gets the driver's domain."""
    return name if "/" in name else f"{driver}/{name}"


def device_body(device: Any) -> Any:
    """The fields of one `spec.devices[i]` entry: v1beta1 nests them under `basic`, v1 and v1beta2 do not.

    Returns whatever is there (possibly not a mapping: the caller reports that); a missing or empty `basic`
    reads the device itself.
    """
    if not isinstance(device, Mapping):
        return device
    return device.get("basic") or device
