"""The compact form (celext.plan.closures) on device paths: `device.driver` compared with a constant, the
`allowMultipleAllocations` flag, attributes read from a dict or another mapping, and member calls whose
implementation raises. Every answer is the reference engine's (derived by hand, checked against it here). Fast, for
the mutation budget."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import pytest

import celext
from tests.celext.outcome import evaluated

PAD = "(" + " + ".join(["1"] * 100) + ") == 100"  # above COMPACT_NODES: the compact form
_ATTRS: dict[str, Any] = {"d.io/model": {"string": "abc"}, "d.io/li": {"ints": [1, 2]}}
PLAIN: dict[str, Any] = {"attributes": _ATTRS}
PROXY: dict[str, Any] = {"attributes": MappingProxyType(_ATTRS)}
MULTI: dict[str, Any] = {"attributes": _ATTRS, "allowMultipleAllocations": True}
SINGLE: dict[str, Any] = {"attributes": _ATTRS, "allowMultipleAllocations": False}

# (expression, device, driver, answer)
CASES: list[tuple[str, dict[str, Any], str, bool | str]] = [
    ("device.driver == 'd.io'", PLAIN, "d.io", True),
    ("device.driver == 'd.io'", PLAIN, "e.io", False),
    ("device.driver != 'd.io'", PLAIN, "d.io", False),
    ("device.driver != 'd.io'", PLAIN, "e.io", True),
    ("device.driver == ''", PLAIN, "", True),
    ("device.driver != ''", PLAIN, "", False),
    ("device.driver == 'XXXX'", PLAIN, "", False),
    ("device.driver + '!' == '!'", PLAIN, "", True),
    ("device.driver.size() == 0", PLAIN, "", True),
    ("device.driver < 'e'", PLAIN, "d.io", True),
    ("device.driver >= 'e'", PLAIN, "d.io", False),
    ("device.driver == ('d.' + 'io')", PLAIN, "d.io", True),
    ("device.driver != ('d.' + 'io')", PLAIN, "d.io", False),
    ("device.driver == ['d.io'][0]", PLAIN, "d.io", True),
    ("device.driver == 'd.' + 'io'", PLAIN, "d.io", True),
    ("device.driver != 'd.' + 'io'", PLAIN, "d.io", False),
    ("device.driver == device.driver", PLAIN, "d.io", True),
    ("device.driver in ['d.io']", PLAIN, "d.io", True),
    ("device.driver == 'd.io' || device.driver == 'e.io'", PLAIN, "e.io", True),
    ("device.allowMultipleAllocations", MULTI, "d.io", True),
    ("device.allowMultipleAllocations", SINGLE, "d.io", False),
    ("device.allowMultipleAllocations", PLAIN, "d.io", False),
    ("!device.allowMultipleAllocations", MULTI, "d.io", False),
    ("device.attributes['d.io'].model == 'abc'", PLAIN, "d.io", True),
    ("device.attributes['d.io'].model == 'abc'", PROXY, "d.io", True),
    ("device.attributes['d.io'].model == 'abd'", PROXY, "d.io", False),
    ("device.attributes['d.io'].model == 'abc' && device.attributes['d.io'].model.size() == 3", PROXY, "d.io", True),
    ("has(device.attributes['d.io'].model)", PROXY, "d.io", True),
    ("has(device.attributes['d.io'].other)", PROXY, "d.io", False),
    ("device.attributes['d.io'].nope.all(x, x > 0)", PLAIN, "d.io", "eval: no such key: nope"),
    ("device.attributes['d.io'].nope.exists(x, x > 0)", PLAIN, "d.io", "eval: no such key: nope"),
    ("device.attributes['d.io'].li.join('-') == 'a'", PLAIN, "d.io", "eval: join: invalid input: 1"),
]


@pytest.mark.parametrize(("expression", "device", "driver", "expected"), CASES)
def test_the_compact_form_answers_as_the_reference_engine(expression: str, device: dict[str, Any], driver: str,
                                                          expected: bool | str) -> None:
    padded = f"({expression}) && {PAD}"
    assert celext.compile(padded).source is not None
    assert evaluated(expression, device, driver, engine="reference") == expected
    assert evaluated(padded, device, driver) == expected
    assert evaluated(expression, device, driver) == expected
