"""The pipeline behind `draguard eval`: one CEL selector over every device of some ResourceSlices, the
answers grouped by node, driver and pool as the scheduler would see them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from msgspec import Struct, field

from webhook.errors import DraguardError
from webhook.wire import get_list, get_map, get_str


class Group(Struct):
    """The devices of one pool of one driver as seen from one node."""

    node: str
    driver: str
    pool: str
    matches: list[str] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)


def node_key(spec: Mapping[str, Any]) -> str:
    """Where a slice's devices live, as eval groups them."""
    name = spec.get("nodeName")
    if isinstance(name, str) and name:
        return name
    if spec.get("allNodes") is True:
        return "(all nodes)"
    if spec.get("perDeviceNodeSelection") is True:
        return "(per-device node selection)"
    return "(node selector)"


def evaluate(expression: str, slices: Sequence[Mapping[str, Any]]) -> list[Group]:
    """Evaluate on every device: named nodes first, then the slices for all or selected nodes.
    Raises DraguardError when the expression does not compile."""
    import celext
    from celext.alloc.explain import enhance
    from celext.errors import CELError, CompileError

    try:
        selector = celext.compile(expression)
    except CompileError as err:
        raise DraguardError(f"cannot compile EXPR: {err}") from None
    groups: dict[tuple[str, str, str], Group] = {}
    for obj in slices:
        spec = get_map(obj, "spec")
        driver = get_str(spec, "driver")
        key = (node_key(spec), driver, get_str(spec, "pool", "name"))
        group = groups.setdefault(key, Group(*key))
        for device in get_list(spec, "devices"):
            if not isinstance(device, Mapping):
                continue
            name = str(device.get("name") or "")
            try:
                (group.matches if selector.matches(device, driver) else group.misses).append(name)
            except CELError as err:
                group.errors.append((name, f"CEL runtime error: {enhance(str(err))}"))
    named = sorted(k for k in groups if not k[0].startswith("("))
    return [groups[k] for k in named + sorted(k for k in groups if k[0].startswith("("))]


def totals(groups: Sequence[Group]) -> tuple[int, int, int]:
    """Devices that match, do not match, and error."""
    return (sum(len(g.matches) for g in groups), sum(len(g.misses) for g in groups),
            sum(len(g.errors) for g in groups))
