"""The generated form's fast paths, as `Selector.source` shows them (the design in celext/plan/__init__.py):
constants folded, the driver compared as a plain string, the driver's own attributes read by dict lookups once
per block, `includes` on the raw wire list, typed overloads inlined behind a class guard. A mutant that drops a
fast path still answers right (the general path runs), so only the source tells; answers are pinned in
test_forms_mutants.py."""

from __future__ import annotations

import re

import pytest

import celext
from tests.celext.outcome import assert_source

_N = "device.attributes['d.io'].n"
_MODEL = "device.attributes['d.io'].model"

# (expression, patterns the source must contain, patterns it must not contain)
SHAPES: list[tuple[str, list[str], list[str]]] = [
    ("1 + 2 == 3", [r"\n    budget = None\n    return K\d+\n"], [r"rt_arith", r"rt_invoke", r"BUDGET"]),
    ("[1, 2].exists(x, x == 2)", [r"\n    budget = BUDGET\(limit\)\n"], []),
    ("size('abc') == 3", [r"\n    return K\d+\n"], [r"rt_invoke"]),
    (f"int({_MODEL}) == 7", [r"rt_invoke\('int', \[t\d+\]\)"], []),  # (int('x') is refused when compiled)
    ("device.driver == 'd.io'", [re.escape("TRUE if (driver or '') == 'd.io' else FALSE")], []),
    ("device.driver != 'd.io'", [re.escape("TRUE if (driver or '') != 'd.io' else FALSE")], []),
    ("device.driver < 'e.io'", [], [re.escape("(driver or '')")]),
    (f"{_N} + 1 == 4", [r"int\.__add__\(t\d+, K\d+\)"], []),
    (f"{_N} - 1 == 2", [r"int\.__sub__\(t\d+, K\d+\)"], []),
    (f"{_MODEL}.startsWith('a')", [r"str\.startswith\(t\d+, K\d+\)", r"__class__ is STRING"], []),
    ("device.capacity['d.io'].mem.compareTo(quantity('1Gi')) == 0",
     [r"B\.get\('capacity'\)", r"rt_capacity\(", r"__class__ is QUANTITY"], [r"B\.get\('attributes'\)"]),
    ("device.attributes['d.io'].l.includes(7)", [r"rt_includes_raw\(t\d+, K\d+\)", r"rt_no_key\('l'\)"],
     [r"rt_includes\("]),
    ("device.attributes['d.io'].l.includes('x')", [r"rt_includes_raw\("], []),
    (f"device.attributes['d.io'].l.includes({_N})", [r"rt_includes\("], [r"rt_includes_raw"]),
    ("device.attributes['d.io/x'].l.includes(7)", [r"rt_lookup\(t\d+, driver, 'd.io/x', 'l'\)"], []),
    ("'d.io' in device.attributes", [r"rt_has_domain\(t\d+, driver, K\d+\)"], []),
    ("'d.io' in device.capacity", [r"rt_entries\(B, 'capacity'\)", r"rt_has_domain\("], []),
    (f"has({_N}) && !has(device.attributes['e.io'].n)", [r"= FALSE if t\d+ else TRUE"], [r"rt_not_bool"]),
    ("!device.allowMultipleAllocations", [r"= FALSE if t\d+ else TRUE"], [r"rt_not_bool"]),
    ("[device][0].driver == 'd.io'", [re.escape("rt_converted(device, driver)")], [r"rt_subtree"]),
    ("device.allowMultipleAllocations == true", [re.escape("B.get('allowMultipleAllocations') is True")], []),
]


@pytest.mark.parametrize(("expression", "present", "absent"), SHAPES)
def test_the_fast_path_shows_in_the_source(expression: str, present: list[str], absent: list[str]) -> None:
    assert_source(expression, present, absent)


@pytest.mark.parametrize(("expression", "decoded"), [
    (f"{_N} == 3 && {_N} < 5", 1),
    (f"{_N} == 3 && has({_N}) && {_MODEL} == 'abc'", 2),
    (f"has({_N}) && {_N} > 1", 1),
])
def test_a_table_and_an_entry_are_read_once_per_block(expression: str, decoded: int) -> None:
    source = celext.compile(expression).source
    assert source is not None
    assert source.count("B.get('attributes')") == 1, source
    assert source.count(", 'd.io', 'n')") == 1, source  # the raw entry of `n`: looked up once
    assert source.count("rt_attribute(") == decoded, source
    device = {"attributes": {"d.io/n": {"int": 3}, "d.io/model": {"string": "abc"}}}
    assert celext.compile(expression).evaluate(device, "d.io") is True
    assert celext.compile(expression, engine="reference").evaluate(device, "d.io") is True
