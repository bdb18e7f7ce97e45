"""The compiled engine's device reads (celext.plan.emit_device, celext.plan.device): the fast paths as
`Selector.source` shows them (a read or table fetched once per block, the driver compared as a string,
`"domain" in device.attributes` as a scan of the names), and answers that only a wrong path changes. Answers
are derived by hand from CEL's rules and checked against the reference engine. Fast (milliseconds a case)."""

from __future__ import annotations

import re
from typing import Any

import pytest

import celext
from tests.celext.outcome import assert_source

DRIVER = "d.io"
DEVICE: dict[str, Any] = {"name": "g",
                          "attributes": {"d.io/n": {"int": 3}, "model": {"string": "abc"}, "d.io/l": {"ints": [1, 7]},
                                         "d.io/a/b": {"int": 9}},
                          "capacity": {"d.io/mem": {"value": "2Gi"}}}


def evaluated(expression: str, device: Any, driver: str, *, engine: str = "compiled") -> Any:
    """What `evaluate()` answers, or "eval: <message>"."""
    try:
        return celext.compile(expression, engine=engine).evaluate(device, driver)
    except celext.EvaluationError as err:
        return f"eval: {err.message}"


_N = "device.attributes['d.io'].n"
_MODEL = "device.attributes['d.io'].model"

# (expression, patterns the source must contain, patterns it must not contain)
SHAPES: list[tuple[str, list[str], list[str]]] = [
    # the driver is a STRING for certain: `+` needs no class guard on it
    ("device.driver + 'x' == 'd.iox'", [r"str\.__add__\(t\d+, K\d+\)"], [r"__class__ is STRING"]),
    # `has(...)` is TRUE or FALSE itself: `!` flips it without a call
    (f"!has({_N})", [r"= FALSE if t\d+ else TRUE"], [r"rt_not_bool"]),
    # the driver compared as it comes
    ("device.driver == 'd.io'", [re.escape("TRUE if (driver or '') == 'd.io' else FALSE")], []),
    ("device.driver != 'd.io'", [re.escape("TRUE if (driver or '') != 'd.io' else FALSE")], []),
    # a domain with a `/` is looked up by the general rule; an id with a `/` only by its qualified key
    ("device.attributes['d.io/x'].l == 5", [r"= rt_lookup\(t\d+, driver, 'd\.io/x', 'l'\)\n"], [r"if driver =="]),
    ("device.attributes['d.io']['a/b'] == 9", [r"= t\d+\.get\('d\.io/a/b', ABSENT\)\n"], [r"if driver =="]),
    # the driver's own domain: both spellings, written out
    (f"{_N} == 3", [r"if driver == 'd\.io' else t\d+\.get\('d\.io/n', ABSENT\)"],
     [r"rt_lookup\(t\d+, driver, 'd\.io', 'n'\)\n"]),
    # `includes` on a constant path reads the raw wire list
    ("device.attributes['d.io'].l.includes(7)", [r"rt_includes_raw\(t\d+, K\d+\)"], [r"rt_includes\("]),
    # `"domain" in device.attributes|capacity`: a scan of the names, not the converted device
    ("'d.io' in device.attributes", [r"rt_entries\(B, 'attributes'\)", r"rt_has_domain\(t\d+, driver, K\d+\)"],
     [r"rt_converted"]),
    ("'d.io' in device.capacity", [r"rt_entries\(B, 'capacity'\)", r"rt_has_domain\(t\d+, driver, K\d+\)"],
     [r"rt_converted"]),
]


@pytest.mark.parametrize(("expression", "present", "absent"), SHAPES)
def test_the_device_fast_path_shows_in_the_source(expression: str, present: list[str], absent: list[str]) -> None:
    assert_source(expression, present, absent)


# (expression, what the source holds exactly once): a read, a raw entry, a table fetched once per block
ONCE: list[tuple[str, str]] = [
    (f"{_N} == 3 && {_N} < 5", "rt_attribute("),
    (f"has({_N}) && {_N} > 1", "B.get('attributes')"),
    (f"has({_N}) && {_N} > 1", ".get('d.io/n', ABSENT)) is ABSENT"),
    (f"{_N} == 3 && {_MODEL} == 'abc'", "B.get('attributes')"),
    (f"{_N} == 3 && {_MODEL} == 'abc'", "rt_entries(B, 'attributes')"),
]


@pytest.mark.parametrize(("expression", "text"), ONCE)
def test_a_read_is_made_once_per_block(expression: str, text: str) -> None:
    source = celext.compile(expression).source
    assert source is not None
    assert source.count(text) == 1, source


# (expression, the answer on DEVICE with driver d.io: True/False or "eval: <the error text>")
TABLE: list[tuple[str, bool | str]] = [
    ("device.driver + 'x' == 'd.iox'", True),
    ("device.driver == 'd.io'", True),
    ("device.driver != 'd.io'", False),
    ("device.driver == 'e.io'", False),
    (f"!has({_N})", False),
    # a domain with a `/` names no entry: the wire keys are `<domain>/<id>` with a domain of DNS labels
    ("device.attributes['d.io/x'].l == 5", "eval: no such key: l"),
    ("device.attributes['d.io']['a/b'] == 9", True),
    ("device.attributes['d.io'].l.includes(7)", True),
    ("device.attributes['d.io'].l.includes(8)", False),
    ("'d.io' in device.attributes", True),
    ("'e.io' in device.attributes", False),
    ("'d.io' in device.capacity", True),
    # not the device: another value, or a comprehension variable, with an `attributes` field
    ("'d.io' in {'attributes': {'f.io': 1}}.attributes", False),
    ("[{'attributes': {'f.io': 1}}].all(x, 'd.io' in x.attributes)", False),
    ("[{'attributes': {'f.io': 1}}].all(device, 'd.io' in device.attributes)", False),
    ("[{'capacity': {'f.io': 1}}].exists(device, 'd.io' in device.capacity)", False),
]


@pytest.mark.parametrize(("expression", "expected"), TABLE)
def test_the_compiled_engine_answers_as_the_reference(expression: str, expected: bool | str) -> None:
    answers = [evaluated(expression, DEVICE, DRIVER), evaluated(expression, DEVICE, DRIVER, engine="reference")]
    assert answers == [expected] * 2


def test_has_on_an_index_step_is_a_compile_error() -> None:
    with pytest.raises(celext.CompileError) as err:
        celext.compile("has(device.attributes['d.io']['n'])")
    assert err.value.message == "invalid argument to has() macro"
