"""Walking a ResourceSlice's devices and attributes, tolerating any wrong type on the way.

The parity rules report wrong shapes; draguard's own rules read through these helpers and simply see
nothing where the shape is wrong, so one malformed field yields one finding, not a cascade.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from webhook.fieldpath import FieldPath
from webhook.rules.base import RuleContext
from webhook.wire import Obj

SPEC = FieldPath.root("spec")
DEVICES = SPEC.child("devices")
SCALARS = ("int", "bool", "string", "version")
LISTS = ("ints", "bools", "strings", "versions")
MEMBERS = SCALARS + LISTS
STANDARD_DOMAIN = "resource.kubernetes.io"


def driver_of(slice_: Obj) -> str:
    spec = slice_.get("spec")
    driver = spec.get("driver") if isinstance(spec, Mapping) else None
    return driver if isinstance(driver, str) else ""


def devices(slice_: Obj) -> Iterator[tuple[FieldPath, Obj]]:
    """`(spec.devices[i], device)` for every device that is a mapping."""
    spec = slice_.get("spec")
    items = spec.get("devices") if isinstance(spec, Mapping) else None
    if not isinstance(items, list):
        return
    for i, device in enumerate(items):
        if isinstance(device, Mapping):
            basic = device.get("basic")  # v1beta1 nests device fields under `basic`; read it flat
            yield DEVICES.index(i), ({**basic, "name": device.get("name")} if isinstance(basic, Mapping) else device)


def device_list(slice_: Obj, ctx: RuleContext) -> list[tuple[FieldPath, Obj]]:
    """`devices(slice_)`, walked once per run and shared by every rule."""
    return ctx.once("devices", lambda: list(devices(slice_)))


def named_attribute(slice_: Obj, ctx: RuleContext, name: str) -> list[tuple[FieldPath, Obj, Obj]]:
    """`(path to the attribute, device, attribute)` for each device publishing attribute `name` as an object.

    Computed once per run, so every rule about one standard attribute shares the walk.
    """

    def walk() -> list[tuple[FieldPath, Obj, Obj]]:
        found: list[tuple[FieldPath, Obj, Obj]] = []
        for path, device in device_list(slice_, ctx):
            attribute = attributes(device).get(name)
            if isinstance(attribute, dict):
                found.append((path.child("attributes").key(name), device, attribute))
        return found

    return ctx.once(f"attribute:{name}", walk)


def name_of(device: Obj) -> str:
    """The device name for a message, escaped when it is not printable on one line."""
    name = device.get("name")
    if not isinstance(name, str):
        return "?"
    return name if name.isprintable() else printable(name)


def printable(text: str) -> str:
    """`text` with control characters escaped as Go's %q would, without the quotes."""
    from webhook.rules.k8s.errors import go_quote

    return go_quote(text)[1:-1]


def attributes(device: Obj) -> Mapping[str, Any]:
    attrs = device.get("attributes")
    return attrs if isinstance(attrs, Mapping) else {}


def lookup(attrs: Mapping[str, Any], qualified: str, driver: str) -> tuple[str, Obj] | None:
    """The attribute named `qualified` (`domain/id`), also found under its bare id when the domain is the driver.

    Returns `(key as written, attribute)`; Kubernetes gives an unqualified key the driver's domain.
    """
    value = attrs.get(qualified)
    if isinstance(value, Mapping):
        return qualified, value
    domain, _, ident = qualified.partition("/")
    if domain == driver and ident:
        value = attrs.get(ident)
        if isinstance(value, Mapping):
            return ident, value
    return None


def members(attribute: Obj) -> list[str]:
    """The union members an attribute sets, in API order (`int`, ..., `versions`)."""
    return [m for m in MEMBERS if attribute.get(m) is not None]


def int_values(attribute: Obj) -> list[tuple[str | int, object]]:
    """`("int", v)` for a scalar, `(i, v)` for each list element; empty when the attribute is neither."""
    if "int" in attribute and attribute["int"] is not None:
        return [("int", attribute["int"])]
    values = attribute.get("ints")
    if isinstance(values, list):
        return list(enumerate(values))
    return []


def value_path(attr_path: FieldPath, where: str | int) -> FieldPath:
    """`…[key].int` for the scalar, `…[key].ints[i]` for a list element."""
    return attr_path.child(where) if isinstance(where, str) else attr_path.child("ints").index(where)


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
