"""Walking a ResourceSlice's devices and attributes, tolerating any wrong type on the way.

The parity rules report wrong shapes; draguard's own rules read through these helpers and simply see
nothing where the shape is wrong, so one malformed field yields one finding, not a cascade.

`slice_index` walks the devices once per run for every draguard rule on the slice (numaNode, its vendor
aliases, pcieRoot, pciBusID): `webhook.rules.plain` reads it once to clear whole rule families, and a rule
that must look reads the attributes it is about by name, building a field path only for what it reports
(`attribute_path`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from msgspec import Struct, field

from celext.vocabulary import MEMBERS
from webhook.fieldpath import FieldPath
from webhook.rules.base import RuleContext
from webhook.rules.k8s.decode import INT64_MAX, INT64_MIN, as_int64, is_int64
from webhook.wire import Obj

SPEC = FieldPath.root("spec")
DEVICES = SPEC.child("devices")

Named = list[tuple[int, Obj, Obj]]  # (device index, device, attribute)
_INT = frozenset({int})


def driver_of(slice_: Obj) -> str:
    spec = slice_.get("spec")
    driver = spec.get("driver") if isinstance(spec, Mapping) else None
    return driver if isinstance(driver, str) else ""


def devices(slice_: Obj) -> Iterator[tuple[int, Obj]]:
    """`(i, device)` for every `spec.devices[i]` that is a mapping; a v1beta1 device is read flat (its `basic`
    fields next to its name)."""
    spec = slice_.get("spec")
    items = spec.get("devices") if isinstance(spec, Mapping) else None
    if not isinstance(items, list):
        return
    for i, device in enumerate(items):
        flat = flat_or_none(device)
        if flat is not None:
            yield i, flat


def flat_or_none(device: object) -> Obj | None:
    """The device read flat (a v1beta1 device's `basic` fields next to its name); None when it is no mapping."""
    if type(device) is dict or isinstance(device, Mapping):
        basic = device.get("basic")  # v1beta1 nests device fields under `basic`; read it flat
        return device if basic is None else {**basic, "name": device.get("name")} \
            if isinstance(basic, Mapping) else device
    return None


def attribute_path(i: int, key: str) -> FieldPath:
    """`spec.devices[i].attributes[key]`, built when a rule reports on it."""
    return DEVICES.index(i).child("attributes").key(key)


class SliceIndex(Struct):
    """One walk of a slice's devices: each device (a mapping) with its attributes (empty when not a mapping)."""

    devices: list[tuple[int, Obj, Mapping[str, Any]]] = field(default_factory=list)  # (i, device, attributes)


def slice_index(slice_: Obj, ctx: RuleContext) -> SliceIndex:
    """The slice's `SliceIndex`, walked once per run and shared by every rule."""
    return ctx.once("slice-index", lambda: SliceIndex(_walk(slice_)))


def _walk(slice_: Obj) -> list[tuple[int, Obj, Mapping[str, Any]]]:
    """`(i, device, attributes)` as `devices` and `attributes` read them; a flat dict device with a dict of
    attributes (what a JSON decoder gives) is read inline, without the generator and calls."""
    spec = slice_.get("spec")
    items = spec.get("devices") if isinstance(spec, Mapping) else None
    if not isinstance(items, list):
        return []
    walked: list[tuple[int, Obj, Mapping[str, Any]]] = []
    for i, device in enumerate(items):
        if type(device) is dict and device.get("basic") is None:
            attrs = device.get("attributes")
            walked.append((i, device, attrs if type(attrs) is dict else attributes(device)))
        elif (flat := flat_or_none(device)) is not None:
            walked.append((i, flat, attributes(flat)))
    return walked


def named_attribute(slice_: Obj, ctx: RuleContext, name: str) -> Named:
    """`(device index, device, attribute)` for each device publishing attribute `name` as an object (once per run)."""
    return ctx.once(f"attribute:{name}", lambda: [
        (i, device, attribute) for i, device, attrs in slice_index(slice_, ctx).devices
        if isinstance(attribute := attrs.get(name), dict)])


def name_of(device: Obj) -> str:
    """The device name for a message, escaped when it is not printable on one line."""
    name = device.get("name")
    if not isinstance(name, str):
        return "?"
    return name if name.isprintable() else printable(name)


def printable(text: str) -> str:
    """`text` with control characters escaped as Go's %q would, without the quotes."""
    from celext.gostrconv import go_quote

    return go_quote(text)[1:-1]


def attributes(device: Obj) -> Mapping[str, Any]:
    attrs = device.get("attributes")
    return attrs if type(attrs) is dict or isinstance(attrs, Mapping) else {}


def members(attribute: Obj) -> list[str]:
    """The union members an attribute sets, in API order (`int`, ..., `versions`)."""
    return [m for m in MEMBERS if attribute.get(m) is not None]


def int_values(attribute: Obj) -> list[tuple[str | int, int]]:
    """`("int", n)` for a scalar, `(i, n)` for each list item, as the API server stores them (`stored_int`, a
    null item 0); a value the decoder refuses is left out (k8s-wire-type reports it), so is a non-list `ints`."""
    scalar = attribute.get("int")
    if scalar is not None:
        node = stored_int(scalar)
        return [] if node is None else [("int", node)]
    values = attribute.get("ints")
    if not isinstance(values, list):
        return []
    return [(i, node) for i, value in enumerate(values) if (node := stored_item(value)) is not None]


def stored_int(value: object) -> int | None:
    """An int64 field's value as the API server stores it, None when its decoder refuses it: kubectl sends YAML's
    `1.0` as 1, so the webhook sees 1 where a file says `1.0`; a bool or a number beyond int64 is refused."""
    return as_int64(value) if is_int64(value) else None


def stored_item(value: object) -> int | None:
    """An `ints` item as stored: a null item is 0 (Go's decoder leaves a null primitive at its zero value)."""
    return 0 if value is None else stored_int(value)


def stored_ints(values: object) -> list[int] | None:
    """An `ints` list as the API server stores it (`stored_item` for each), None when it is no list or the
    decoder refuses an item."""
    if not isinstance(values, list):
        return None
    if _INT.issuperset(map(type, values)):  # the common case, in C: plain ints (int64 range or not)
        return values if all(INT64_MIN <= v <= INT64_MAX for v in values) else None
    out = [stored_item(v) for v in values]
    return None if None in out else out  # type: ignore[return-value]


def value_path(attr_path: FieldPath, where: str | int) -> FieldPath:
    """`…[key].int` for the scalar, `…[key].ints[i]` for a list element."""
    return attr_path.child(where) if isinstance(where, str) else attr_path.child("ints").index(where)
