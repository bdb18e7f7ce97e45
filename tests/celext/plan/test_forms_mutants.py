"""Both forms of the compiled engine (generated source, compact closures) on one table of selectors, each
answer derived by hand from CEL's rules and checked against the reference engine too. Fast (milliseconds a
case), so the mutation run's budget reaches them: they pin the emitters' constant folding, fallbacks and
calls, the compact form's builder and its device body (v1, v1beta1 `basic`, a read-only mapping)."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import pytest

import celext
from celext.compile import prepare
from celext.plan import COMPACT_HEADER, COMPACT_NODES, larger_than, plan
from celext.reference.evaluator import CostLimitExceeded

DRIVER = "d.io"
_ATTRIBUTES = {"d.io/model": {"string": "abc"}, "d.io/n": {"int": 3}, "d.io/on": {"bool": True},
               "d.io/v": {"version": "1.2.3"},
               "d.io/l": {"ints": [1, 7]}, "e.io/x": {"int": 7}}
_CAPACITY = {"d.io/mem": {"value": "2Gi"}}
DEVICES: dict[str, Any] = {
    "v1": {"name": "g", "attributes": _ATTRIBUTES, "capacity": _CAPACITY},
    "v1beta1": {"name": "g", "basic": {"attributes": _ATTRIBUTES, "capacity": _CAPACITY}},
    "proxy": MappingProxyType({"name": "g", "attributes": _ATTRIBUTES, "capacity": _CAPACITY}),
}
# 100 ones added: a tree above COMPACT_NODES, so `(E) && PAD` runs in the compact form with E's answer.
PAD = "(" + " + ".join(["1"] * 100) + ") == 100"

# (expression, the answer: True/False or "eval: <the error text>")
TABLE: list[tuple[str, bool | str]] = [
    # constants and parentheses (folded at generation time)
    ("true", True),
    ("false", False),
    ("(((true)))", True),
    ("1 == 1", True),
    ("1 + 2 == 3", True),
    ("10 - 4 == 6", True),
    ("'a' + 'b' == 'ab'", True),
    ("[1] + [2] == [1, 2]", True),
    ("9223372036854775807 + 1 > 0", "eval: integer overflow"),
    ("-9223372036854775807 - 2 < 0", "eval: integer overflow"),
    ("2.5 + 0.5 == 3.0", True),
    ("1u + 2u == 3u", True),
    ("size('abc') == 3", True),
    ("'abc'.startsWith('ab')", True),
    ("'abc'.substring(1, 2) == 'b'", True),
    ("int('12') == 12", True),
    ("int(['x'][0]) == 1", "eval: type conversion error from 'string' to 'int'"),  # (int('x') is refused)
    ("string(12) == '12'", True),
    ("dyn(1) == 1", True),
    ("[int] == [int]", True),  # a type name: not the device (which equals itself)
    ("[int] == [uint]", False),
    ("[double(1)] == [1.0]", True),
    ("{'a': 1}['a'] == 1", True),
    ("{'a': 1}['b'] == 1", "eval: no such key: b"),
    ("[1, 2][1] == 2", True),
    ("[1, 2][2] == 2", "eval: index out of bounds: 2"),
    ("[].size() == 0", True),
    ("[[1]][0][0] == 1", True),
    ("[?optional.of(1), ?optional.none()].size() == 1", True),
    ("[?optional.of(1), ?optional.of(2)] == [1, 2]", True),
    # the device: paths, the whole value, member calls on its attributes
    ("device.driver == 'd.io'", True),
    ("device.allowMultipleAllocations", False),
    ("!device.allowMultipleAllocations", True),
    ("device.driver == 'e.io'", False),
    ("device.driver != 'd.io'", False),
    ("device.driver < 'e.io'", True),
    ("device.driver >= 'e.io'", False),
    ("device.driver > 'd'", True),
    ("device.attributes['d.io'].l.includes(7)", True),
    ("device.attributes['d.io'].l.includes(8)", False),
    ("device.attributes['d.io'].l.includes(device.attributes['d.io'].n)", False),
    ("device.attributes['d.io'].nosuch.includes(7)", "eval: no such key: nosuch"),
    ("'d.io' in device.capacity", True),
    ("'e.io' in device.capacity", False),
    ("[device][0].driver == 'd.io'", True),
    ("[device.driver, 'x'][0] == 'd.io'", True),
    ("device.attributes['d.io'].n == 3", True),
    ("device.attributes['d.io'].n + 1 == 4", True),
    ("device.attributes['d.io'].n - 1 == 2", True),
    ("device.attributes['d.io'].n + 9223372036854775805 > 0", "eval: integer overflow"),
    ("device.attributes['d.io'].model + 'd' == 'abcd'", True),
    ("device.attributes['d.io'].on", True),
    ("!device.attributes['d.io'].on", False),
    ("!!device.attributes['d.io'].on", True),
    ("!!!device.attributes['d.io'].on", False),
    ("!device.attributes['d.io'].n", "eval: no such overload"),  # `!` on a non-bool: the general operator
    ("!(!device.attributes['d.io'].n)", "eval: no such overload"),
    ("!!device.attributes['d.io'].n == 3", True),  # cel-go's parser drops an even run of `!`: the int itself
    ("!device.attributes['d.io'].nosuch", "eval: no such key: nosuch"),  # an error passes through `!`
    ("!('e.io' in device.capacity)", True),
    ("--device.attributes['d.io'].n == 3", True),  # a run of one operator: applied twice, or once when odd
    ("---device.attributes['d.io'].n == -3", True),
    ("device.attributes['d.io'].nosuch == 3", "eval: no such key: nosuch"),
    ("device.attributes['e.io'].x == 7", True),
    ("'d.io' in device.attributes", True),
    ("'f.io' in device.attributes", False),
    ("device.attributes['d.io'].model.startsWith('ab')", True),
    ("device.attributes['d.io'].model.startsWith('b')", False),
    ("device.attributes['d.io'].model.endsWith('c')", True),
    ("device.attributes['d.io'].model.contains('bc')", True),
    ("device.attributes['d.io'].model.size() == 3", True),
    ("size(device.attributes['d.io'].model) == 3", True),
    ("device.attributes['d.io'].model.substring(1, 2) == 'b'", True),
    ("device.attributes['d.io'].model.substring(1, 9) == 'b'",
     "eval: index out of range: 9"),
    ("device.attributes['d.io'].model.indexOf('c', 1) == 2", True),
    ("device.attributes['d.io'].model.replace('b', 'x') == 'axc'", True),
    ("device.attributes['d.io'].model.matches('^a.c$')", True),
    ("device.attributes['d.io'].v.isGreaterThan(semver('1.2.0'))", True),
    ("device.attributes['d.io'].v.compareTo(semver('1.2.3')) == 0", True),
    ("device.capacity['d.io'].mem.isGreaterThan(quantity('1Gi'))", True),
    ("device.capacity['d.io'].mem.compareTo(quantity('2Gi')) == 0", True),
    ("device.attributes['d.io'].n.startsWith('a')", "eval: no such overload: startsWith(int, string)"),
    ("device.attributes['d.io'].model.indexOf(1) == 0",
     "eval: no such overload: indexOf(string, int)"),
    ("[1, 2, 3].exists(x, x == device.attributes['d.io'].n)", True),
    ("[1, 2].all(x, x < device.attributes['d.io'].n)", True),
    ("[1, 2, 3].filter(x, x > 1).size() == 2", True),
    ("[1, 2].map(x, x + device.attributes['d.io'].n) == [4, 5]", True),
]


def _answer(selector: celext.Selector, device: Any) -> bool | str:
    try:
        return selector.evaluate(device, DRIVER)
    except celext.EvaluationError as err:
        return f"eval: {err.message}"


@pytest.mark.parametrize("device", sorted(DEVICES))
@pytest.mark.parametrize(("expression", "expected"), TABLE)
def test_both_forms_and_the_reference_give_the_hand_derived_answer(expression: str, expected: bool | str,
                                                                  device: str) -> None:
    wire = DEVICES[device]
    generated = celext.compile(expression)
    assert generated.source is not None and not generated.source.startswith(COMPACT_HEADER)
    padded = f"({expression}) && {PAD}"
    compact = celext.compile(padded)
    assert compact.source is not None and compact.source.startswith(COMPACT_HEADER)
    assert _answer(generated, wire) == expected
    assert _answer(compact, wire) == expected
    assert _answer(celext.compile(expression, engine="reference"), wire) == expected
    assert _answer(celext.compile(padded, engine="reference"), wire) == expected


def test_the_pad_keeps_the_answer_and_forces_the_compact_form() -> None:
    assert larger_than(prepare(PAD).tree, COMPACT_NODES)
    assert not larger_than(prepare("1 + 2 == 3").tree, COMPACT_NODES)


@pytest.mark.parametrize("compact", [False, True])
def test_a_bad_basic_reads_as_an_empty_body_in_the_function(compact: bool) -> None:
    # The caller (Selector.evaluate) refuses such a device first; the function itself must not trip on it.
    function = plan(prepare("device.attributes['d.io'].n == 3"), compact=compact).function
    bad_basics = ({"basic": "x", "attributes": _ATTRIBUTES}, {"basic": ["x"], "attributes": _ATTRIBUTES})
    for bad in (*bad_basics, ["x"], None):
        result = function(bad, DRIVER, 1000)
        assert str(result) == "no such key: n", result


@pytest.mark.parametrize("compact", [False, True])
def test_a_comprehension_charges_the_budget_in_both_forms(compact: bool) -> None:
    prepared = prepare("[1, 2, 3].map(x, [x, x].map(y, y + 1)).size() == 3")
    function = plan(prepared, compact=compact).function
    assert function(DEVICES["v1"], DRIVER, 10_000) is not None
    assert bool(function(DEVICES["v1"], DRIVER, 10_000)) is True
    with pytest.raises(CostLimitExceeded, match=r"^operation cancelled: actual cost limit exceeded$"):
        function(DEVICES["v1"], DRIVER, 1)
