"""The hot path's fast accept: a proof, in one pass over a device, that upstream's validateDevice has nothing to say.

A maximal ResourceSlice has 64 devices of 32 attributes and capacities: walking it with the precise
validator (`k8s.device`) costs a field path and a dozen generic reads per value. Almost every device a
driver publishes is clean, so the slice validator asks `clean_device` first and runs the precise validator
only on a device this check cannot prove clean. Findings are therefore exactly the precise validator's
(tests/webhook/rules/test_fast_parity.py generates devices near every limit and compares the two).

The check is deliberately narrower than the validator: a device that uses any field beyond `name`,
`attributes` and `capacity`, any type that is not exactly what a JSON decoder produces (`type(x) is`, not
`isinstance`), or any name not seen valid before goes to the precise path. Accepting too little only costs
time; accepting too much would hide a finding, which the differential test guards against.

Verdicts on names (attribute and capacity keys, device names, versions, quantities) repeat across the devices
of a slice and across requests; they are memoised in bounded tables (entries and key length both capped).
"""

from __future__ import annotations

from typing import Any, Final

from celext.quantity import parse_quantity
from celext.semver import parse_semver
from webhook.rules.k8s.attribute import MAX_VALUE_LENGTH as MAX_VALUE_BYTES
from webhook.rules.k8s.attribute import fits
from webhook.rules.k8s.decode import INT64_MAX, INT64_MIN
from webhook.rules.k8s.device import MAX_ATTRIBUTES_AND_CAPACITIES
from webhook.rules.k8s.names import dns1123_label_ok, qualified_name_ok

FAST_FIELDS: Final = frozenset({"name", "attributes", "capacity"})
MEMO_ENTRIES: Final = 4096  # per table; a full table is emptied and refilled
MEMO_KEY_CHARS: Final = 128  # longer texts are judged every time, never held


class Verdicts:
    """A bounded memo of `judge(text)` for short strings: at most MEMO_ENTRIES keys of MEMO_KEY_CHARS chars."""

    __slots__ = ("_judge", "known")

    def __init__(self, judge: Any) -> None:
        self._judge = judge
        self.known: dict[str, bool] = {}

    def __call__(self, text: str) -> bool:
        verdict = self.known.get(text)
        if verdict is None:
            verdict = bool(self._judge(text))
            if len(text) <= MEMO_KEY_CHARS:
                if len(self.known) >= MEMO_ENTRIES:
                    self.known.clear()
                self.known[text] = verdict
        return verdict


def _semver_ok(text: str) -> bool:
    if not fits(text):
        return False
    try:
        parse_semver(text)
    except ValueError:
        return False
    return True


def _quantity_ok(text: str) -> bool:
    try:
        parse_quantity(text)
    except ValueError:
        return False
    return True


name_ok = Verdicts(qualified_name_ok)  # attribute and capacity keys: `id` or `domain/id`
label_ok = Verdicts(dns1123_label_ok)  # device names
version_ok = Verdicts(_semver_ok)
quantity_ok = Verdicts(_quantity_ok)


def attribute_values(attributes: dict[Any, Any]) -> int:
    """The attributes' value count (a list counts its length) when each is plainly valid, else -1.

    Plainly valid: a `str` key known to be a qualified name, a dict with exactly one known member of exactly
    the member's type, strings and versions within 64 bytes, versions strict semver, lists non-empty.
    """
    total = 0
    known_names = name_ok.known
    known_versions = version_ok.known
    for key, attribute in attributes.items():
        if not known_names.get(key) and (type(key) is not str or not name_ok(key)):
            return -1
        if type(attribute) is not dict or len(attribute) != 1:
            return -1
        for member, value in attribute.items():
            kind = type(value)
            if kind is str:
                if member == "string":
                    if len(value) > MAX_VALUE_BYTES // 4 and not fits(value):
                        return -1
                elif member != "version" or not (known_versions.get(value) or version_ok(value)):
                    return -1
                total += 1
            elif kind is int:
                if member != "int" or not INT64_MIN <= value <= INT64_MAX:
                    return -1
                total += 1
            elif kind is bool:
                if member != "bool":
                    return -1
                total += 1
            elif kind is list and value:
                if not _list_ok(member, value):
                    return -1
                total += len(value)
            else:
                return -1
    return total


_INT: Final = frozenset({int})
_STR: Final = frozenset({str})
_BOOL: Final = frozenset({bool})


def _list_ok(member: str, values: list[Any]) -> bool:
    kinds = set(map(type, values))  # exact element types, in C
    if member == "ints":
        return kinds == _INT and min(values) >= INT64_MIN and max(values) <= INT64_MAX
    if member == "strings":
        return kinds == _STR and (max(map(len, values)) <= MAX_VALUE_BYTES // 4 or all(map(fits, values)))
    if member == "bools":
        return kinds == _BOOL
    if member == "versions":
        known = version_ok.known
        return kinds == _STR and all(known.get(v) or version_ok(v) for v in values)
    return False


def capacity_ok(capacity: dict[Any, Any]) -> bool:
    """Each entry a known-good key with exactly `{value: <quantity string>}` (no request policy)."""
    known_names, known_quantities = name_ok.known, quantity_ok.known
    for key, entry in capacity.items():
        if not known_names.get(key) and (type(key) is not str or not name_ok(key)):
            return False
        if type(entry) is not dict or len(entry) != 1:
            return False
        value = entry.get("value")
        if type(value) is not str or not (known_quantities.get(value) or quantity_ok(value)):
            return False
    return True


def clean_device(device: Any, fields: frozenset[str], max_values: int | None) -> bool:
    """Whether the precise `validate_device` is sure to report nothing for this (flat) device.

    `fields` are the device fields of the release this check may see (FAST_FIELDS within the release's);
    `max_values` is the release's per-device attribute value limit (None: no limit). The caller handles
    per-device node selection (a slice with `perDeviceNodeSelection` never takes this path).
    """
    if type(device) is not dict or not fields.issuperset(device):
        return False
    name = device.get("name")
    if type(name) is not str or not (label_ok.known.get(name) or label_ok(name)):
        return False
    attributes = device.get("attributes")
    capacity = device.get("capacity")
    pairs = 0
    if attributes is not None:
        if type(attributes) is not dict:
            return False
        pairs = len(attributes)
    if capacity is not None:
        if type(capacity) is not dict:
            return False
        pairs += len(capacity)
    if pairs > MAX_ATTRIBUTES_AND_CAPACITIES:
        return False
    if attributes:
        values = attribute_values(attributes)
        if values < 0 or (max_values is not None and values > max_values):
            return False
    return not capacity or capacity_ok(capacity)


def uses_list_values(device: dict[str, Any]) -> bool:
    """Upstream haveListAttributes for a device `clean_device` accepted: any attribute whose member is a list."""
    attributes = device.get("attributes")
    if not attributes:
        return False
    for attribute in attributes.values():
        for value in attribute.values():
            if type(value) is list:
                return True
    return False
