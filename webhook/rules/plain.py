"""The fast accept of draguard's own slice rules: one walk proving that a family has nothing to say.

The numaNode rules (`numa`, `numa_slice`), the vendor alias rules (`numa_alias`) and the pcieRoot/pciBusID
rules (`standard_attrs`) each read a few attributes of every device. `digest` reads them all in one pass over
the shared slice index and answers, per family, whether every value is *plainly right*: exact JSON types,
within range, in the form the rules expect. A family whose answer is yes skips its rules; otherwise they run
their precise loops unchanged, so the findings are the same either way (`test_fast_parity.py`). The checks
here are narrower than the rules: anything unusual counts as not plain.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Final

from msgspec import Struct

from celext.vocabulary import NUMA_NODE, PCI_BUS_ID, PCIE_ROOT, qualify
from webhook.rules.base import RuleContext
from webhook.rules.devices import driver_of, slice_index
from webhook.rules.k8s.fast import enabled
from webhook.wire import Obj

MAX_NODE: Final = 1024  # maxNUMANodes in the KEP-6072 helper (deviceattribute/numa_linux.go)
# domain:bus:device.function; device is 5 bits (00-1f), function 3 bits (0-7).
BDF: Final = re.compile(r"[0-9a-f]{4}:[0-9a-f]{2}:[01][0-9a-f]\.[0-7]")  # fullmatch: "$" passes a final "\n"
_INT: Final = frozenset({int})
_KEY: Final = "plain-digest"
MAX_DRIVER_CHARS: Final = 63  # a driver name's limit (k8s-driver); longer ones are not remembered


class Digest(Struct, frozen=True):
    """Per rule family: True when its rules are sure to report nothing on this slice."""

    numa: bool = False  # numa-node-type, -range, -duplicates, -order
    numa_alike: bool = False  # numa-node-list-consistency, numa-node-mixed-form
    aliases: bool = False  # numa-node-alias-mismatch, -alias-type, numa-node-standard-missing
    pcie_root: bool = False  # pcie-root-type
    pci_bus_id: bool = False  # pci-bus-id-format


NOTHING_PROVEN: Final = Digest()


def digest(slice_: Obj, ctx: RuleContext) -> Digest:
    """The slice's `Digest`, computed once per run (NOTHING_PROVEN under `precise_only`)."""
    found: Digest | None = ctx.shared.get(_KEY)  # asked by eleven rules: the common case without a call
    if found is not None:
        return found
    if not enabled():
        return NOTHING_PROVEN
    return ctx.once(_KEY, lambda: _digest(slice_, ctx, alias_key_set(driver_of(slice_), ctx.policy.aliases)))


def alias_key_set(driver: str, configured: tuple[str, ...]) -> frozenset[str]:
    """Every key an alias is written under; the same few for every slice of a driver, so remembered for
    drivers of a valid length."""
    if len(driver) > MAX_DRIVER_CHARS:
        return _alias_key_set(driver, configured)
    return _known_alias_key_set(driver, configured)


def _alias_key_set(driver: str, configured: tuple[str, ...]) -> frozenset[str]:
    return frozenset(key for name, bare in alias_keys(driver, configured) for key in (name, bare) if key)


_known_alias_key_set = functools.lru_cache(maxsize=64)(_alias_key_set)


def alias_names(driver: str, configured: tuple[str, ...]) -> list[str]:
    """The vendor NUMA aliases checked: the policy's, then `<driver>/numaNode` and `<driver>/numa`."""
    names = list(configured)
    if driver and driver.isprintable():
        names += [qualify("numaNode", driver), qualify("numa", driver)]
    return [n for n in dict.fromkeys(names) if n != NUMA_NODE]


def alias_keys(driver: str, configured: tuple[str, ...]) -> list[tuple[str, str | None]]:
    """Each alias as written qualified, and the bare id that also names it when its domain is the driver's."""
    return [(name, ident if domain == driver and ident else None)
            for name in alias_names(driver, configured)
            for domain, _, ident in [name.partition("/")]]


def _digest(slice_: Obj, ctx: RuleContext, alias_keys: frozenset[str]) -> Digest:
    numa = alike = aliases = root = bus = True
    lists: dict[int, list[int]] = {}  # physical node -> the first list naming it
    forms: set[str] = set()
    for _i, _device, attrs in slice_index(slice_, ctx).devices:
        if not attrs:
            continue
        get = attrs.get
        node = get(NUMA_NODE)
        physical: int | None = None
        if node is not None and isinstance(node, dict):
            if type(node) is dict and numa_plain(node):
                values = node.get("ints")
                if values is None:
                    forms.add("int")
                    physical = node["int"]
                else:
                    forms.add("ints")
                    physical = values[0]
                    alike = alike and lists.setdefault(physical, values) == values
            else:
                numa = alike = False
        if aliases and alias_keys:
            hits = attrs.keys() & alias_keys  # looks up the few alias keys, not every attribute
            if hits and not all(_alias_plain(attrs[key], physical) for key in hits):
                aliases = False
        value = get(PCIE_ROOT)
        if root and value is not None and isinstance(value, dict) and not (type(value) is dict and root_plain(value)):
            root = False
        value = get(PCI_BUS_ID)
        if bus and value is not None and isinstance(value, dict) and not (type(value) is dict and bus_plain(value)):
            bus = False
    return Digest(numa=numa, numa_alike=alike and len(forms) < 2, aliases=aliases, pcie_root=root, pci_bus_id=bus)


def numa_plain(attribute: dict[str, Any]) -> bool:
    """`{int: n}`, or `{ints: [...]}` of distinct ints after the physical node in ascending order; every node in
    [0, MAX_NODE)."""
    if len(attribute) != 1:
        return False
    values = attribute.get("ints")
    if values is None:
        node = attribute.get("int")
        return type(node) is int and 0 <= node < MAX_NODE
    if type(values) is not list or not values or set(map(type, values)) != _INT:
        return False
    rest = values[1:]
    return min(values) >= 0 and max(values) < MAX_NODE and len(set(values)) == len(values) and rest == sorted(rest)


def _alias_plain(attribute: Any, physical: int | None) -> bool:
    """An alias `{int: n}` naming the same node as a plain standard attribute (nothing for the alias rules)."""
    if type(attribute) is not dict or len(attribute) != 1 or physical is None:
        return False
    value = attribute.get("int")
    return type(value) is int and value == physical


def root_plain(attribute: dict[str, Any]) -> bool:
    """Only a non-empty `string`, or only a `strings` list without ""."""
    if len(attribute) != 1:
        return False
    value = attribute.get("string")
    if value is not None:
        return type(value) is str and value != ""
    values = attribute.get("strings")
    return type(values) is list and "" not in values


def bus_plain(attribute: dict[str, Any]) -> bool:
    """Only a `string` that is a lower-case PCI address."""
    value = attribute.get("string")
    return type(value) is str and len(attribute) == 1 and BDF.fullmatch(value) is not None
