"""Which reads of `device` the compiled engine turns into wire lookups (celext.plan.device): only the real
`device` variable, not one a comprehension shadows nor another value with the same field names. Each answer
is derived by hand from CEL's rules and checked in both compiled forms and the reference engine. Fast
(milliseconds a case), so the mutation run's budget reaches them."""

from __future__ import annotations

from typing import Any

import pytest

from tests.celext.outcome import evaluated

DRIVER = "d.io"
DEVICE: dict[str, Any] = {"name": "g", "allowMultipleAllocations": True,
                          "attributes": {"d.io/n": {"int": 3}, "model": {"string": "abc"}, "e.io/x": {"int": 7}},
                          "capacity": {"d.io/mem": {"value": "2Gi"}}}
# 100 ones added: a tree above COMPACT_NODES, so `(E) && PAD` runs in the compact form with E's answer.
PAD = "(" + " + ".join(["1"] * 100) + ") == 100"

# (expression, the answer on DEVICE with driver d.io: True/False or "eval: <the error text>")
TABLE: list[tuple[str, bool | str]] = [
    # a comprehension variable named `device` shadows the device: its fields are the element's
    ("[{'driver': 'x'}].all(device, device.driver == 'x')", True),
    ("[{'driver': 'x'}].exists(device, device.driver == 'd.io')", False),
    ("[{'allowMultipleAllocations': false}].all(device, !device.allowMultipleAllocations)", True),
    ("[{'attributes': {'d.io': {'n': 5}}}].all(device, device.attributes['d.io'].n == 5)", True),
    ("[{'attributes': {'d.io': {'n': 5}}}].all(device, device.attributes['d.io']['n'] == 5)", True),
    ("[{'attributes': {'d.io': {'n': 5}}}].exists(device, has(device.attributes['d.io'].n))", True),
    ("[{'attributes': {'d.io': {'m': 5}}}].exists(device, has(device.attributes['d.io'].n))", False),
    ("[{'capacity': {'d.io': {'mem': 1}}}].all(device, device.capacity['d.io'].mem == 1)", True),
    ("[{'attributes': {'d.io': {'n': 5}}}].all(device, 'd.io' in device.attributes)", True),
    ("[{'attributes': {'f.io': {'n': 5}}}].all(device, 'd.io' in device.attributes)", False),
    # the device itself, outside and beside a comprehension that shadows it
    ("device.driver == 'd.io' && [{'driver': 'x'}].all(device, device.driver == 'x')", True),
    ("[1].all(d, device.driver == 'd.io' && device.attributes['d.io'].n == 3)", True),
    ("[1].all(d, device.allowMultipleAllocations)", True),
    # another value with the device's field names is not the device
    ("{'driver': 'x'}.driver == 'x'", True),
    ("{'allowMultipleAllocations': false}.allowMultipleAllocations", False),
    ("{'attributes': {'d.io': {'n': 5}}}.attributes['d.io'].n == 5", True),
    ("{'capacity': {'d.io': {'mem': 1}}}.capacity['d.io'].mem == 1", True),
    ("'d.io' in {'attributes': {'f.io': 1}}.attributes", False),
    # every spelling of a constant path reads the same entry
    ("device.attributes['d.io'].n == 3", True),
    ("device.attributes['d.io']['n'] == 3", True),
    ("device.attributes['d.io'].model == 'abc'", True),
    ("device.attributes['e.io'].x == 7", True),
    ("device.attributes['e.io']['x'] == 7", True),
    ("device.attributes['d.io'].?n.orValue(0) == 3", True),
    ("device.attributes['d.io'].?nosuch.orValue(0) == 0", True),
    ("device.attributes['d.io'].?n.hasValue()", True),
    ("has(device.attributes['d.io'].n)", True),
    ("has(device.attributes['d.io'].nosuch)", False),
    ("has(device.capacity['d.io'].mem)", True),
    ("has(device.capacity['e.io'].mem)", False),
    ("device.capacity['d.io'].mem == quantity('2Gi')", True),
    ("device.allowMultipleAllocations", True),
    ("device.attributes['d.io'].n in [3]", True),
    ("device.attributes['d.io'].nosuch == 3", "eval: no such key: nosuch"),
    ("device.capacity['d.io'].nosuch == quantity('1')", "eval: no such key: nosuch"),
]


def _answer(expression: str, engine: str) -> bool | str:
    answer: bool | str = evaluated(expression, DEVICE, DRIVER, engine=engine)
    return answer


@pytest.mark.parametrize(("expression", "expected"), TABLE)
def test_both_forms_and_the_reference_read_the_device_as_cel_does(expression: str, expected: bool | str) -> None:
    padded = f"({expression}) && {PAD}"
    answers = [_answer(expression, "compiled"), _answer(padded, "compiled"), _answer(expression, "reference")]
    assert answers == [expected] * 3
