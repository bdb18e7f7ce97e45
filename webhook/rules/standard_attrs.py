"""The other standard attributes (`resource.kubernetes.io/...`). draguard's own rules.

`pcieRoot` names the PCIe root complex (a string, or with KEP-5491 a string list for devices under
several roots); `pciBusID` is the device's PCI address as sysfs names it.

    passes: resource.kubernetes.io/pcieRoot: {string: "pci0000:00"}
    passes: resource.kubernetes.io/pciBusID: {string: "0000:3b:00.0"}
    fails:  resource.kubernetes.io/pcieRoot: {string: ""}               (pcie-root-type)
    fails:  resource.kubernetes.io/pciBusID: {string: "0000:3B:00.0"}   (pci-bus-id-format)
"""

from __future__ import annotations

from collections.abc import Iterator

from celext.gostrconv import go_quote
from celext.vocabulary import PCI_BUS_ID, PCIE_ROOT
from webhook.findings import Action, Finding
from webhook.rules.base import RESOURCE_SLICE, Rule, RuleContext
from webhook.rules.devices import attribute_path, members, named_attribute
from webhook.rules.plain import BDF, digest
from webhook.wire import Obj
from webhook.words import with_article

_SLICE = frozenset({RESOURCE_SLICE})


def _pcie_root(slice_: Obj, ctx: RuleContext) -> Iterator[Finding]:
    if digest(slice_, ctx).pcie_root:
        return
    for d, _device, attribute in named_attribute(slice_, ctx, PCIE_ROOT):
        attr_path = attribute_path(d, PCIE_ROOT)
        wrong = [m for m in members(attribute) if m not in ("string", "strings")]
        if wrong:
            yield Finding(attr_path, f"{PCIE_ROOT} is {' and '.join(map(with_article, wrong))} value; "
                          "it must be string or strings",
                          hint='publish the root complex name, e.g. `string: "pci0000:00"`')
            continue
        if attribute.get("string") == "":
            yield Finding(attr_path.child("string"), f"{PCIE_ROOT} is empty",
                          hint="omit the attribute when the root complex is unknown")
        values = attribute.get("strings")
        for i, value in enumerate(values if isinstance(values, list) else ()):
            if value == "":
                yield Finding(attr_path.child("strings").index(i), f"{PCIE_ROOT} entry {i} is empty",
                              hint="list only known root complexes")


def _pci_bus_id(slice_: Obj, ctx: RuleContext) -> Iterator[Finding]:
    if digest(slice_, ctx).pci_bus_id:
        return
    for i, _device, attribute in named_attribute(slice_, ctx, PCI_BUS_ID):
        value = attribute.get("string")
        attr_path = attribute_path(i, PCI_BUS_ID)
        if not isinstance(value, str) or any(m != "string" for m in members(attribute)):
            yield Finding(attr_path, f"{PCI_BUS_ID} must be a string value",
                          hint='publish the address as a string, e.g. `string: "0000:3b:00.0"`')
        elif not BDF.fullmatch(value):
            hint = "write the address as sysfs names it, domain:bus:device.function, e.g. 0000:3b:00.0"
            if BDF.fullmatch(value.lower()):
                hint = f"use lower-case hex: {value.lower()}"
            message = f"{PCI_BUS_ID} {go_quote(value)} is not a PCI address dddd:bb:dd.f in lower-case hex"
            yield Finding(attr_path.child("string"), message, hint=hint)


RULES = (
    Rule("pcie-root-type", kinds=_SLICE, default=Action.DENY,
         summary=f"`{PCIE_ROOT}` is a non-empty string or string list",
         remediation="publish the root complex name (`pci0000:00`); omit it when unknown", check=_pcie_root),
    Rule("pci-bus-id-format", kinds=_SLICE, default=Action.DENY,
         summary=f"`{PCI_BUS_ID}` is a PCI address `dddd:bb:dd.f` in lower-case hex",
         remediation="write the address as sysfs names it, e.g. `0000:3b:00.0`", check=_pci_bus_id),
)
