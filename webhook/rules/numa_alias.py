"""Vendor NUMA aliases next to the standard numaNode. draguard's own rules.

Drivers published their own NUMA attribute before KEP-6072 (`dra.net/numaNode`, `dra.cpu/numaNodeID`, ...)
and many keep it for old selectors. The aliases checked are the policy's `numaNode.aliases` plus
`<driver>/numaNode` and `<driver>/numa` (also written unqualified, which means the driver's domain; a device
that sets both spellings has each checked, as CEL sees one of them at random).

    passes: {resource.kubernetes.io/numaNode: {ints: [1, 0]}, dra.net/numaNode: {int: 1}}
    fails:  {resource.kubernetes.io/numaNode: {int: 1},       dra.net/numaNode: {int: 0}}  (numa-node-alias-mismatch)
    warns:  {dra.net/numaNode: {int: -1}}                                                   (numa-node-alias-type)
    warns:  {dra.net/numaNode: {int: 1}} without the standard attribute                     (numa-node-standard-missing)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

from webhook.fieldpath import FieldPath
from webhook.findings import Action, Finding
from webhook.rules.base import RESOURCE_SLICE, Rule, RuleContext
from webhook.rules.devices import attribute_path, driver_of, printable, slice_index, stored_int
from webhook.rules.numa import NUMA, physical_node
from webhook.rules.plain import MAX_NODE, alias_keys, digest
from webhook.wire import Obj
from webhook.words import with_article

_SLICE = frozenset({RESOURCE_SLICE})


class Alias(NamedTuple):
    name: str  # as configured: `domain/id`
    device: int  # the device's index
    key: str  # as written in the device's attributes (the bare id when the domain is the driver's)
    attribute: Any

    @property
    def path(self) -> FieldPath:
        return attribute_path(self.device, self.key)


Aliases = list[tuple[Obj, list[Alias]]]


def _aliases(slice_: Obj, ctx: RuleContext) -> Aliases:
    """Per device with any alias set: `(device attributes, [Alias, ...])`."""
    return ctx.once("numa-aliases", lambda: _find_aliases(slice_, ctx))


def _find_aliases(slice_: Obj, ctx: RuleContext) -> Aliases:
    names = alias_keys(driver_of(slice_), ctx.policy.aliases)
    keys = frozenset(key for name, bare in names for key in (name, bare) if key is not None)
    out: Aliases = []
    for i, _device, attrs in slice_index(slice_, ctx).devices:
        hits = keys.intersection(attrs) if attrs else None
        if not hits:
            continue
        found = []
        for name, bare in names:
            # Both spellings may be set: CEL files them under one key and keeps whichever the Go map yields last,
            # so each is checked.
            for key in (name, bare):
                value = attrs.get(key) if key is not None and key in hits else None
                if key is not None and isinstance(value, Mapping):
                    found.append(Alias(name, i, key, value))
        if found:
            out.append((attrs, found))
    return out


def _alias_value(attribute: Any) -> int | None:
    value = stored_int(attribute.get("int")) if isinstance(attribute, dict) else None
    return value if value is not None and value >= 0 else None


def _mismatch(slice_: Obj, ctx: RuleContext) -> Iterator[Finding]:
    if digest(slice_, ctx).aliases:
        return
    for attrs, found in _aliases(slice_, ctx):
        standard = attrs.get(NUMA)
        physical = physical_node(standard) if isinstance(standard, dict) else None
        if physical is None or not 0 <= physical < MAX_NODE:
            continue  # no usable physical node to compare with (numa-node-range reports a bad one)
        for alias in found:
            value = _alias_value(alias.attribute)
            if value is not None and value != physical:
                name = alias.name
                yield Finding(
                    alias.path.child("int"),
                    f"{name} is {value} but {NUMA} says the device is on NUMA node {physical}",
                    hint=f"publish the same physical node in both; selectors on {name} and on the standard "
                    "attribute would otherwise pick different devices",
                )


def _alias_type(slice_: Obj, ctx: RuleContext) -> Iterator[Finding]:
    if digest(slice_, ctx).aliases:
        return
    for _attrs, found in _aliases(slice_, ctx):
        for alias in found:
            attribute, name = alias.attribute, alias.name
            if not isinstance(attribute, dict):
                continue
            value = attribute.get("int")
            if value is None:
                kinds = [printable(str(k)) for k, v in attribute.items() if v is not None] or ["empty"]
                yield Finding(alias.path, f"NUMA alias {name} is {with_article('/'.join(kinds))} value, not an int",
                              hint="publish vendor NUMA aliases as `int: N`, like the standard attribute")
            elif (node := stored_int(value)) is not None and node < 0:
                yield Finding(alias.path.child("int"), f"NUMA alias {name} is {node}",
                              hint="omit the alias while the NUMA node is unknown instead of publishing a "
                              "negative value; selectors comparing node ids would match it")


def _standard_missing(slice_: Obj, ctx: RuleContext) -> Iterator[Finding]:
    if digest(slice_, ctx).aliases:
        return
    for attrs, found in _aliases(slice_, ctx):
        if NUMA in attrs:
            continue
        usable = [alias for alias in found if _alias_value(alias.attribute) is not None]
        if usable:
            name = usable[0].name
            yield Finding(
                usable[0].path,
                f"the device publishes {name} but not {NUMA}, so cross-driver matchAttribute cannot see its "
                "NUMA node",
                hint=f"also publish {NUMA} with the same node (KEP-6072)",
            )


RULES = (
    Rule("numa-node-alias-mismatch", kinds=_SLICE, default=Action.DENY,
         summary="every vendor NUMA alias on a device equals the standard attribute's physical node",
         remediation="publish one physical node in the standard attribute and every alias", check=_mismatch),
    Rule("numa-node-alias-type", kinds=_SLICE, default=Action.WARN,
         summary="a vendor NUMA alias is a non-negative int",
         remediation="publish `int: N`; omit the alias while the node is unknown", check=_alias_type),
    Rule("numa-node-standard-missing", kinds=_SLICE, default=Action.WARN,
         summary=f"a device with a vendor NUMA alias also publishes `{NUMA}`",
         remediation=f"add `{NUMA}` so matchAttribute across drivers sees the node", check=_standard_missing),
)
