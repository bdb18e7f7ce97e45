""""Did you mean" for typos in selectors: a `device` field, a function or variable, an attribute name.

Added to the message of the finding that names the typo (`selector-compile`, and `selector-attribute-missing`
when the attribute is absent on every candidate device of the inventory), from the closest known name.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence

from msgspec.structs import replace

from webhook.findings import Finding
from webhook.waivers import did_you_mean
from webhook.wire import Obj

_FIELD = re.compile(r"undefined field '(\w+)'$")
_REFERENCE = re.compile(r"undeclared reference to '([\w.]+)'$")
_ABSENT = re.compile(r"^([^\s/]+)/(\S+) is absent on (\d+) of (\d+) ")


@functools.cache
def _device_fields() -> frozenset[str]:
    from celext.env import DEVICE_FIELDS

    return DEVICE_FIELDS


@functools.cache
def _names() -> frozenset[str]:
    """Functions (with their namespaces: `sets.contains`) and the one variable, `device`."""
    from celext.env import FUNCTIONS

    return frozenset({"device"} | {k for k in FUNCTIONS if isinstance(k, str) and k[:1].isalpha()})


def with_suggestion(finding: Finding, inventory: Sequence[Obj]) -> Finding:
    if finding.rule == "selector-compile":
        for pattern, choices in ((_FIELD, _device_fields), (_REFERENCE, _names)):
            match = pattern.search(finding.message)
            if match:
                return _add(finding, did_you_mean(match.group(1), choices()))
    elif finding.rule == "selector-attribute-missing" and inventory:
        match = _ABSENT.match(finding.message)
        if match and match.group(3) == match.group(4):  # absent everywhere: a typo more likely than a gap
            domain, name = match.group(1), match.group(2)
            return _add(finding, did_you_mean(name, attribute_names(inventory).get(domain, ())))
    return finding


def _add(finding: Finding, suggestion: str) -> Finding:
    return replace(finding, message=finding.message + suggestion) if suggestion else finding


# The last inventory's names, by identity: one run passes the same inventory object for every file.
_LAST: list[tuple[Sequence[Obj], Mapping[str, frozenset[str]]]] = []


def attribute_names(inventory: Sequence[Obj]) -> Mapping[str, frozenset[str]]:
    """Attribute ids each domain publishes in the inventory's ResourceSlices (unqualified keys are the
    driver's own domain)."""
    if _LAST and _LAST[0][0] is inventory:
        return _LAST[0][1]
    names: dict[str, set[str]] = {}
    for obj in inventory:
        spec = obj.get("spec") if obj.get("kind") == "ResourceSlice" else None
        if not isinstance(spec, Mapping):
            continue
        driver = spec.get("driver")
        for key in _attribute_keys(spec.get("devices")):
            domain, slash, name = key.rpartition("/")
            if slash:
                names.setdefault(domain, set()).add(name)
            elif isinstance(driver, str):
                names.setdefault(driver, set()).add(key)
    found = {domain: frozenset(ids) for domain, ids in names.items()}
    _LAST[:] = [(inventory, found)]
    return found


def _attribute_keys(devices: object) -> Iterable[str]:
    for device in devices if isinstance(devices, list) else ():
        body = device.get("basic", device) if isinstance(device, Mapping) else None
        attributes = body.get("attributes") if isinstance(body, Mapping) else None
        if isinstance(attributes, Mapping):
            yield from (k for k in attributes if isinstance(k, str))
