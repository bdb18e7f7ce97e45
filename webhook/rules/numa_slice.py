"""numaNode consistency across the devices of one slice. draguard's own rules (warnings by default).

Devices on the same physical node sit at the same SLIT distances, so the KEP-6072 helper gives them the
same list; and one driver publishes one form, scalar or list, so selectors behave alike on every device.

    passes: gpu-0 {ints: [0, 1]}, gpu-1 {ints: [0, 1]}
    passes: gpu-0 {ints: [4, 5, 6, 7]}, gpu-1 {ints: [4, 7, 6, 5]}   (the same set after the physical node)
    warns:  gpu-0 {ints: [0, 1]}, gpu-1 {ints: [0]}    (numa-node-list-consistency)
    warns:  gpu-0 {ints: [0, 1]}, gpu-1 {int: 1}       (numa-node-mixed-form)
"""

from __future__ import annotations

from collections.abc import Iterator

from webhook.findings import Action, Finding
from webhook.rules.base import RESOURCE_SLICE, Rule, RuleContext
from webhook.rules.devices import attribute_path, name_of
from webhook.rules.numa import NUMA, node_list, numa_attributes, show_nodes
from webhook.rules.plain import digest
from webhook.wire import Obj

_SLICE = frozenset({RESOURCE_SLICE})


def _consistency(slice_: Obj, ctx: RuleContext) -> Iterator[Finding]:
    if digest(slice_, ctx).numa_alike:
        return
    first: dict[int, tuple[Obj, list[int]]] = {}  # physical node -> the first device listing it, and its list
    for i, device, attribute in numa_attributes(slice_, ctx):
        values = node_list(attribute)
        if values is None:
            continue
        seen = first.setdefault(values[0], (device, values))
        # KEP-6072: the physical node first, the rest "an unordered, equal-weight set": compare it as a set.
        if set(seen[1][1:]) != set(values[1:]):
            yield Finding(
                attribute_path(i, NUMA).child("ints"),
                f"{name_of(device)} publishes {show_nodes(values)} but {name_of(seen[0])}, on the same physical node "
                f"{values[0]}, publishes {show_nodes(seen[1])}",
                hint="derive every device's list from the same SLIT row (the KEP-6072 helper does); the order after "
                     "the physical node does not matter",
            )


def _mixed(slice_: Obj, ctx: RuleContext) -> Iterator[Finding]:
    """Devices whose form differs from the slice's majority form (ties: the first device's form)."""
    if digest(slice_, ctx).numa_alike:
        return
    forms = []
    for i, device, attribute in numa_attributes(slice_, ctx):
        form = "ints" if attribute.get("ints") is not None else "int" if attribute.get("int") is not None else ""
        if form:
            forms.append((form, i, device))
    if len({form for form, _, _ in forms}) < 2:
        return
    ints = sum(form == "ints" for form, _, _ in forms)
    majority = "ints" if ints * 2 > len(forms) or (ints * 2 == len(forms) and forms[0][0] == "ints") else "int"
    example = next(name_of(device) for form, _, device in forms if form == majority)
    for form, i, device in forms:
        if form != majority:
            yield Finding(
                attribute_path(i, NUMA).child(form),
                f"{name_of(device)} publishes numaNode as {form} while {example} uses {majority}",
                hint="publish one form across the slice, so one selector works on every device",
            )


RULES = (
    Rule("numa-node-list-consistency", kinds=_SLICE, default=Action.WARN,
         summary="devices of one slice with the same physical node publish the same numaNode list (the nodes after "
                 "the physical one compared as a set)",
         remediation="compute every list from the same SLIT data", check=_consistency),
    Rule("numa-node-mixed-form", kinds=_SLICE, default=Action.WARN,
         summary="the devices of one slice publish numaNode in one form, all `int` or all `ints`",
         remediation="pick the scalar or the list form for the whole driver", check=_mixed),
)
