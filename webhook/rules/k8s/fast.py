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

import contextlib
from collections.abc import Callable, Collection, Iterator
from contextvars import ContextVar
from typing import Any, Final

from celext.quantity import parse_quantity
from celext.semver import is_semver_text
from webhook.rules.k8s.attribute import MAX_ATTRIBUTES_AND_CAPACITIES, fits
from webhook.rules.k8s.attribute import MAX_VALUE_LENGTH as MAX_VALUE_BYTES
from webhook.rules.k8s.decode import INT64_MAX, INT64_MIN
from webhook.rules.k8s.names import dns1123_label_ok, qualified_name_ok

FAST_FIELDS: Final = frozenset({"name", "attributes", "capacity"})
ENABLED: ContextVar[bool] = ContextVar("draguard_fast_accept", default=True)
MEMO_ENTRIES: Final = 4096  # per table; a full table is emptied and refilled
MEMO_KEY_CHARS: Final = 128  # longer texts are judged every time, never held


def enabled() -> bool:
    """Whether the rules may take their fast accept (always, except under `precise_only`)."""
    return ENABLED.get()


@contextlib.contextmanager
def precise_only() -> Iterator[None]:
    """Within the block every rule reads every device the precise way: what the differential test compares with."""
    token = ENABLED.set(False)
    try:
        yield
    finally:
        ENABLED.reset(token)


class Verdicts:
    """A bounded memo of `judge(text)`: the texts judged good and bad, at most MEMO_ENTRIES of MEMO_KEY_CHARS chars.

    `good` is a set so that a caller can test a whole map's keys at once (`good.issuperset(keys)`, in C).
    """

    __slots__ = ("_judge", "bad", "good")

    def __init__(self, judge: Callable[[str], bool]) -> None:
        self._judge = judge
        self.good: set[str] = set()
        self.bad: set[str] = set()

    def __call__(self, text: str) -> bool:
        if text in self.good:
            return True
        if text in self.bad:
            return False
        verdict = bool(self._judge(text))
        if len(text) <= MEMO_KEY_CHARS:
            if len(self.good) + len(self.bad) >= MEMO_ENTRIES:
                self.good.clear()
                self.bad.clear()
            (self.good if verdict else self.bad).add(text)
        return verdict

    def all_good(self, texts: Collection[Any]) -> bool:
        """Whether every one of `texts` (a map's keys, a list) is a `str` judged good (the known ones checked in C)."""
        try:
            if self.good.issuperset(texts):
                return True
        except TypeError:  # an unhashable value: no text
            return False
        return all(type(text) is str and self(text) for text in texts)


def _semver_ok(text: str) -> bool:
    return fits(text) and is_semver_text(text)


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
    """The attributes' value count (a list counts its length) when each is plainly valid, else -1."""
    return attribute_census(attributes)[0]


def attribute_census(attributes: dict[Any, Any]) -> tuple[int, bool]:
    """`(values, lists)`: the value count (a list counts its length) when each attribute is plainly valid, else
    -1; and whether any attribute is a list (upstream's haveListAttributes, read in the same pass).

    Plainly valid: a `str` key known to be a qualified name, a dict with exactly one known member of exactly
    the member's type, strings and versions within 64 bytes, versions strict semver, lists non-empty.
    """
    if not name_ok.all_good(attributes):
        return -1, False
    total = len(attributes)
    lists = False
    low, high, short = INT64_MIN, INT64_MAX, MAX_VALUE_BYTES // 4
    versions = version_ok.good
    for attribute in attributes.values():
        if type(attribute) is not dict or len(attribute) != 1:
            return -1, False
        for member in attribute:  # the one member (faster than unpacking items())
            value = attribute[member]
            kind = type(value)
            if kind is int:
                if member != "int" or value < low or value > high:
                    return -1, False
            elif kind is str:
                if member == "string":
                    if len(value) > short and not fits(value):
                        return -1, False
                elif member != "version" or (value not in versions and not version_ok(value)):
                    return -1, False
            elif kind is bool:
                if member != "bool":
                    return -1, False
            elif kind is list and value and _list_ok(member, value):
                total += len(value) - 1
                lists = True
            else:
                return -1, False
    return total, lists


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
        return kinds == _STR and version_ok.all_good(values)
    return False


def capacity_ok(capacity: dict[Any, Any]) -> bool:
    """Each entry a known-good key with exactly `{value: <quantity string>}` (no request policy)."""
    if not name_ok.all_good(capacity):
        return False
    quantities = quantity_ok.good
    for entry in capacity.values():
        if type(entry) is not dict or len(entry) != 1:
            return False
        value = entry.get("value")
        if type(value) is not str or (value not in quantities and not quantity_ok(value)):
            return False
    return True


NOT_CLEAN: Final = 0  # the precise validator must read the device
CLEAN: Final = 1  # it would report nothing; no attribute is a list
CLEAN_WITH_LISTS: Final = 2  # it would report nothing; some attribute is a list (the slice's device limit is 64)


def clean_device(device: Any, fields: frozenset[str], max_values: int | None) -> bool:
    """Whether the precise `validate_device` is sure to report nothing for this (flat) device."""
    return device_verdict(device, fields, max_values) != NOT_CLEAN


def device_verdict(device: Any, fields: frozenset[str], max_values: int | None) -> int:
    """NOT_CLEAN, or CLEAN / CLEAN_WITH_LISTS when the precise `validate_device` is sure to report nothing for
    this (flat) device; the list flag is upstream's haveListAttributes, read in the same pass.

    `fields` are the device fields of the release this check may see (FAST_FIELDS within the release's);
    `max_values` is the release's per-device attribute value limit (None: no limit). The caller handles
    per-device node selection (a slice with `perDeviceNodeSelection` never takes this path).
    """
    if type(device) is not dict or not fields.issuperset(device):
        return NOT_CLEAN
    name = device.get("name")
    if type(name) is not str or (name not in label_ok.good and not label_ok(name)):
        return NOT_CLEAN
    attributes = device.get("attributes")
    capacity = device.get("capacity")
    pairs = 0
    if attributes is not None:
        if type(attributes) is not dict:
            return NOT_CLEAN
        pairs = len(attributes)
    if capacity is not None:
        if type(capacity) is not dict:
            return NOT_CLEAN
        pairs += len(capacity)
    if pairs > MAX_ATTRIBUTES_AND_CAPACITIES:
        return NOT_CLEAN
    lists = False
    if attributes:
        values, lists = attribute_census(attributes)
        if values < 0 or (max_values is not None and values > max_values):
            return NOT_CLEAN
    if capacity and not capacity_ok(capacity):
        return NOT_CLEAN
    return CLEAN_WITH_LISTS if lists else CLEAN
