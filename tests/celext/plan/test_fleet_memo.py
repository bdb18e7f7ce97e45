"""Fleets through the remembered verdicts and answers (celext.runtime.memo, celext.runtime.verdict).

The compiled engine remembers, per device object, whether Kubernetes would convert the device and each
selector's `matches()` answer; a version or quantity string is judged once per distinct string. These tests
give it what a fleet gives it: devices sharing raw values (the same objects and equal copies) with one bad
value among them, maps that are not dicts, devices changed between passes in every way the memo promises to
see (a map grown, shrunk or replaced, `basic` added or removed), and devices freed and allocated again at the
same address. Every answer must be the reference engine's (which remembers nothing per object).
"""

from __future__ import annotations

import copy
import functools
import os
from collections import UserDict
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import celext
from celext.reference.values import to_device
from celext.runtime import verdict
from tests.celext.plan.grammar import (
    DRIVERS,
    NAMES,
    QUANTITIES,
    Chooser,
    HypothesisChooser,
    attribute_value,
    pool,
    selector,
)
from tests.celext.plan.test_differential import agree

SCALE = int(os.environ.get("DRAGUARD_FUZZ_EXAMPLES", "0"))
FLEETS = settings(max_examples=SCALE or 150, deadline=None, database=None, suppress_health_check=list(HealthCheck))

# One bad value among good ones: a version or quantity string the other devices spell validly, a value of the
# wrong type, an int past int64, a member Kubernetes does not know.
BAD_ATTRIBUTES: list[Any] = [{"version": "1.0"}, {"version": "01.2.3"}, {"int": 2**63}, {"int": True},
                             {"string": 1}, {"ints": [1, True]}, {"strings": ["a", 2]}, {}, {"other": 1}, "x"]
BAD_QUANTITIES = ["1 Gi", "x", "", "1Kb"]
Device = dict[str, Any]


def _map(ch: Chooser, entries: dict[str, Any]) -> Any:
    """Mostly a dict; now and then a Mapping that is not one (never remembered, always checked again)."""
    return ch.choice([dict, dict, dict, dict, UserDict, MappingProxyType])(entries)


def fleet(ch: Chooser) -> list[Device]:
    """Two to six devices drawing their attributes and capacities from one small set of raw values (shared
    objects or equal copies), with now and then one bad value in one device."""
    names = [ch.choice(NAMES[:-1]) for _ in range(ch.randint(1, 4))]
    values = {name: [attribute_value(ch, name) for _ in range(ch.randint(1, 2))] for name in names}
    quantities = [ch.choice(QUANTITIES) for _ in range(ch.randint(1, 2))]
    devices: list[Device] = []
    for index in range(ch.randint(2, 6)):
        attributes: dict[str, Any] = {}
        for name in names:
            raw = ch.choice(values[name])
            attributes[ch.choice([name, f"d.io/{name}"])] = raw if ch.randint(0, 1) else copy.deepcopy(raw)
        capacity = {"memory": {"value": ch.choice(quantities)}} if ch.randint(0, 2) else {}
        body: dict[str, Any] = {"attributes": _map(ch, attributes), "capacity": _map(ch, capacity)}
        devices.append({"name": f"dev-{index}", "basic": body} if ch.randint(0, 3) == 0 else {"name": "dev", **body})
    if ch.randint(0, 2) == 0:
        body = _body(ch.choice(devices))
        if ch.randint(0, 2) and isinstance(body["attributes"], (dict, UserDict)):
            body["attributes"][ch.choice(["bad", names[0]])] = ch.choice(BAD_ATTRIBUTES)
        elif isinstance(body["capacity"], (dict, UserDict)):
            body["capacity"]["memory"] = {"value": ch.choice(BAD_QUANTITIES)}
    return devices


def _body(device: Device) -> dict[str, Any]:
    return device.get("basic", device)  # type: ignore[no-any-return]


def change(ch: Chooser, device: Device) -> None:
    """One change the memo promises to see: a map grown, shrunk or replaced, `basic` added or removed."""
    body = _body(device)
    field = ch.choice(["attributes", "capacity"])
    entries = body.get(field)
    new = ch.choice([{"int": 2**63}, {"int": 1}, {"version": "1.0"}, {"string": "x"}]) if field == "attributes" \
        else {"value": ch.choice([*QUANTITIES[:3], *BAD_QUANTITIES])}
    what = ch.randint(0, 4)
    if what == 0 and isinstance(entries, dict):  # grown in place
        entries[f"added-{len(entries)}"] = new
    elif what == 1 and isinstance(entries, dict) and entries:  # shrunk in place
        entries.pop(next(iter(entries)))
    elif what == 2:  # replaced by another map, equal but for one entry
        body[field] = {**(dict(entries) if entries is not None else {}), "memory": new}
    elif what == 3:  # wrapped into, or unwrapped from, `basic`
        if "basic" in device:
            device.update(device.pop("basic"))
        else:
            fields = {key: device.pop(key) for key in ("attributes", "capacity") if key in device}
            device["basic"] = fields
    else:  # the map removed
        body.pop(field, None)


@functools.cache
def _selectors() -> list[str]:
    return pool(120, 11, selector)


@FLEETS
@given(st.data())
def test_fleets_agree_across_passes_and_changes(data: Any) -> None:
    """A fleet evaluated cold, again (everything remembered), after each change to a device, and again: every
    answer is the reference engine's, through matches() and evaluate()."""
    ch = HypothesisChooser(data)
    devices = fleet(ch)
    text, driver = ch.choice(_selectors()), ch.choice(DRIVERS)
    verdict.VERDICTS.clear()
    agree(text, devices, driver)
    agree(text, devices, driver)
    for _ in range(ch.randint(1, 3)):  # each change evaluated before the next: the memo compares a map's size
        change(ch, ch.choice(devices))  # with the size it last saw (a map grown and shrunk back is not seen)
        agree(text, devices, driver)
    agree(text, devices, driver)


def _alternating(make: Callable[[int], Device], rounds: int = 200) -> None:
    """Devices made one after the other, each dropped before the next is made (so a freed device's address,
    and its maps', are free to be reused), good and bad in turn with maps of the same sizes: each verdict and
    each answer is its own device's."""
    text = 'device.attributes["d.io"].x == 1'
    compiled = celext.compile(text)
    for number in range(rounds):
        device = make(number)
        expected = to_device(device, "d.io").error
        assert verdict.device_error(device, "d.io") == expected
        try:
            answer: bool | str = compiled.matches(device, "d.io")
        except celext.EvaluationError as err:
            answer = err.message
        assert answer == (expected if expected is not None else True)
        del device


def _attribute(number: int) -> dict[str, Any]:
    return {"int": 1} if number % 2 else {"int": 2**63}


def test_a_freed_device_never_answers_for_the_next_one() -> None:
    _alternating(lambda number: {"name": "d", "attributes": {"x": _attribute(number)}})


def test_a_replaced_map_never_answers_for_the_next_one() -> None:
    """One device whose attribute map (or capacity map) is replaced again and again by a map of the same size."""
    held: Device = {"name": "d", "attributes": {"x": {"int": 1}}, "capacity": {"m": {"value": "1"}}}

    def attributes(number: int) -> Device:
        held["attributes"] = {"x": _attribute(number)}
        return held

    def capacities(number: int) -> Device:
        held["attributes"] = {"x": {"int": 1}}
        held["capacity"] = {"m": {"value": "1" if number % 2 else "1 Gi"}}
        return held

    _alternating(attributes)
    _alternating(capacities)
    held["capacity"] = {"m": {"value": "1"}}


def test_a_device_clean_in_between_is_not_answered_by_its_earlier_verdict() -> None:
    """A bad value dropped (the device is clean, and evaluated so), then another bad value added: the attribute
    map is the same object at its first size again, and its verdict is the new value's, not the first one's
    (hypothesis found the stale answer through matches())."""
    text = 'device.attributes["d.io"].x == 1'
    compiled, reference = celext.compile(text), celext.compile(text, engine="reference")
    device: Device = {"name": "dev", "attributes": {"i": {"version": "1.0"}}}
    answers = []
    for step in range(3):
        if step == 1:
            device["attributes"].pop("i")
        elif step == 2:
            device["attributes"]["added"] = {"int": 2**63}
        assert verdict.device_error(device, "d.io") == to_device(device, "d.io").error
        answers.append((_outcome(compiled.matches, device), _outcome(reference.evaluate, device)))
    assert [mine for mine, _ in answers] == [theirs for _, theirs in answers]
    assert "added" in answers[2][0]


def _outcome(check: Callable[[Device, str], Any], device: Device) -> Any:
    try:
        return bool(check(device, "d.io"))
    except celext.EvaluationError as err:
        return err.message
