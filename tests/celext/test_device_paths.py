"""Device reads the compiled engine turns into direct wire-form lookups (celext.plan.device), in both forms.

`device.driver`, `device.allowMultipleAllocations` and `device.attributes|capacity[<domain>][<id>]` with constant
names, `has()` of such an entry and its `.?` form read the wire entry itself; any other read of `device` gets the
converted device. Both give CEL's answer, so each row pins the answer and how many devices the selector had to
convert (`celext.runtime.wire.CONVERTED`, the converted devices remembered per device object): a direct read
converts none. Each row runs on the generated function and on the compact closure form, on v1 and v1beta1
devices.
"""

from __future__ import annotations

from typing import Any

import pytest

import celext.plan
from celext.compile import prepare
from celext.runtime import wire
from celext.selector import Selector

FIELDS: dict[str, Any] = {"attributes": {"x": {"int": 1}, "o.io/y": {"string": "a"}},
                          "capacity": {"m": {"value": "2"}}, "allowMultipleAllocations": True}
DEVICES = {"v1": {"name": "x", **FIELDS}, "v1beta1": {"name": "x", "basic": FIELDS}}

# (expression, its answer on the device above for driver "d", devices converted)
CASES: list[tuple[str, bool | str, int]] = [
    ('device.attributes["d"].x == 1', True, 0),
    ("device.attributes.d.x == 1", True, 0),
    ('device.attributes["d"]["x"] == 1', True, 0),
    ('device.attributes.d["x"] == 1', True, 0),
    ('device.attributes["o.io"].y == "a"', True, 0),
    ('device.attributes["d"].z == 1', "no such key: z", 0),
    ('has(device.attributes["d"].x)', True, 0),
    ('has(device.attributes["d"].z)', False, 0),
    ("has(device.capacity.d.m)", True, 0),
    ("has(device.attributes.o.y)", False, 0),
    ('device.attributes["d"].?x.orValue(2) == 1', True, 0),
    ('device.attributes["d"].?z.orValue(2) == 2', True, 0),
    ('device.attributes["d"].?x.hasValue()', True, 0),
    ('device.capacity["d"].?m.hasValue()', True, 0),
    ('device.driver == "d"', True, 0),
    ('device.driver.startsWith("d") && device.capacity["d"].m.isInteger()', True, 0),
    ("device.allowMultipleAllocations", True, 0),
    ("device.capacity.d.m.isInteger()", True, 0),
    ('device.capacity["d"]["m"].isInteger()', True, 0),
    # Reads of whole maps, computed names and deeper paths take the converted device.
    ('device.attributes["d"].size() == 1', True, 1),
    ("has(device.attributes.d)", True, 1),
    ('device.attributes["d"].x == 1 && device.attributes.exists(k, k == "d")', True, 1),
    ('["d"].all(n, device.attributes[n].x == 1)', True, 1),
    ('device.attributes["d"][["x"][0]] == 1', True, 1),
    # A key that is no string (an int, uint, bool or double: cel-go qualifies with no other): the DRA compiler's
    # mapper answers it with its default, the empty map (its string-keyed map inside finds nothing); a domain's own
    # map has no such key; a key of another type is no qualifier at all.
    ("device.attributes[dyn(1)].size() == 0 && device.capacity[dyn(true)] == {}", True, 1),
    ("device.attributes[?dyn(2.5)].hasValue() && !has(device.attributes[dyn(2u)].x)", True, 1),
    ("dyn(1) in device.attributes", False, 1),
    ('device.attributes["d"][dyn(1)] == 1', "no such key: 1", 1),
    ('device.attributes[dyn(semver("1.0.0"))] == {}', "invalid qualifier type: cel.Semver", 1),
    # has() past an attribute's value: the value read by its path, the test on it (an int has no fields)
    ('has(device.attributes["d"].x.y)', False, 0),
    # A comprehension variable named `device` is not the device (nor is it converted: the map literal is built
    # by the compiled engine, not handed to the reference engine with the device in scope).
    ('[{"attributes": 1}].all(device, device.attributes == 1)', True, 0),
]


FORMS = [(compact, body) for compact in (False, True) for body in DEVICES]


@pytest.mark.parametrize(("compact", "body"), FORMS, ids=[f"{'compact' if c else 'generated'}-{b}" for c, b in FORMS])
@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_direct_device_reads_convert_nothing(case: tuple[str, bool | str, int], compact: bool, body: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    expression, expected, conversions = case
    monkeypatch.setattr(celext.plan, "COMPACT_NODES", -1 if compact else 1_000_000)
    selector = Selector(prepare(expression))
    assert selector.source.startswith(celext.plan.COMPACT_HEADER) is compact
    wire.CONVERTED.clear()
    try:
        answer: bool | str = selector.evaluate(DEVICES[body], "d")
    except celext.EvaluationError as err:
        answer = err.message
    assert (answer, len(wire.CONVERTED)) == (expected, conversions)
