"""The cases the engine's differential generator aims at, as a plain table with each answer written out.

Each selector runs on the reference engine, on the compiled engine's generated Python (`matches` and
`evaluate`) and on its compact closure form (the form of trees over `celext.plan.COMPACT_NODES` nodes, forced
here), on the v1 and the v1beta1 (`basic`) wire form of one device. The answers are CEL's, so a change to an
operation both engines share (celext.runtime.ops, celext.lib) fails here as well as a change to one engine.
The whole table runs in well under a second: mutation runs reach it within their time budget, where the
hypothesis differential (tests/celext/plan/test_differential.py) takes seconds per function.
"""

from __future__ import annotations

from typing import Any

import pytest

import celext
import celext.plan
from celext.compile import prepare
from celext.selector import Selector

DRIVER = "gpu.example.com"
A = "device.attributes['gpu.example.com']"
K8S = "device.attributes['resource.kubernetes.io']"
C = "device.capacity['gpu.example.com']"
TOO_LONG = "eval: 'includes' function cannot be applied to lists longer than 48 values"

_ATTRIBUTES: dict[str, Any] = {
    "resource.kubernetes.io/numaNode": {"int": 4},
    "model": {"string": "A100-80GB"},
    "driverVersion": {"version": "1.3.0+abc"},
    "healthy": {"bool": True},
    "numas": {"ints": [6, 4, 5, 7]},
    "i48": {"ints": list(range(48))},
    "i49": {"ints": list(range(49))},
    "s49": {"strings": [f"s{i}" for i in range(49)]},
    "flags": {"bools": [True, False]},
    "versions": {"versions": ["1.0.0", "2.0.0-rc.1"]},
    "big": {"int": 9223372036854775807},
    "small": {"int": -9223372036854775808},
    "digits": {"strings": ["1", "2"]},
    "one": {"string": "1"},
}
_CAPACITY: dict[str, Any] = {"memory": {"value": "40Gi"}, "cores": {"value": "8"}}
V1: dict[str, Any] = {"name": "gpu-0", "attributes": _ATTRIBUTES, "capacity": _CAPACITY}
V1BETA1: dict[str, Any] = {"name": "gpu-0", "basic": {"attributes": _ATTRIBUTES, "capacity": _CAPACITY}}

CASES: list[tuple[str, bool | str]] = [
    # Errors absorbed by && and || (CEL's commutative logic): a decisive operand on either side wins.
    (f"{A}.missing == 1 || true", True),
    (f"true || {A}.missing == 1", True),
    (f"{A}.missing == 1 || false", "eval: no such key: missing"),
    (f"false || {A}.missing == 1", "eval: no such key: missing"),
    (f"{A}.missing == 1 && false", False),
    (f"false && {A}.missing == 1", False),
    (f"{A}.missing == 1 && true", "eval: no such key: missing"),
    (f"{A}.missing == 1 || 1 / 0 == 1", "eval: no such key: missing"),
    (f"1 / 0 == 1 && {A}.missing == 1", "eval: division by zero"),
    (f"{A}.missing == 1 || {A}.model == 'x' || {A}.healthy", True),
    (f"{A}.healthy && {A}.missing == 1 && {A}.model == 'x'", False),
    (f"{A}.healthy && {A}.model == 'A100-80GB' && {K8S}.numaNode == 4", True),
    (f"{A}.model == 'x' || {K8S}.numaNode == 3 || !{A}.healthy", False),
    (f"{A}.model || true", True),
    (f"{A}.model && true", "eval: no such overload"),
    (f"!{A}.model", "eval: no such overload"),
    (f"!!{A}.healthy", True),
    # Ternaries: only the chosen branch runs; an error or non-bool condition is the error.
    (f"{A}.healthy ? 1 / 0 == 1 : true", "eval: division by zero"),
    (f"!{A}.healthy ? 1 / 0 == 1 : true", True),
    (f"{A}.missing ? true : true", "eval: no such key: missing"),
    (f"({A}.healthy ? {K8S}.numaNode : 0) == 4", True),
    # int64 arithmetic: overflow at the edges, division and modulus by zero, truncation towards zero.
    (f"{A}.big + 1 > 0", "eval: integer overflow"),
    (f"{A}.big + 0 == 9223372036854775807", True),
    (f"{A}.small - 1 < 0", "eval: integer overflow"),
    (f"-{A}.small < 0", "eval: integer overflow"),
    (f"{A}.small / -1 < 0", "eval: integer overflow"),
    (f"{A}.big * 2 > 0", "eval: integer overflow"),
    (f"{K8S}.numaNode - 9223372036854775807 - 10 < 0", "eval: integer overflow"),
    (f"{K8S}.numaNode % 0 == 0", "eval: modulus by zero"),
    (f"{K8S}.numaNode / 0 == 0", "eval: division by zero"),
    (f"-7 / {K8S}.numaNode == -1 && -7 % {K8S}.numaNode == -3", True),
    (f"-{K8S}.numaNode == -4 && {K8S}.numaNode * 3 - 2 == 10", True),
    (f"uint({K8S}.numaNode) == 4u && double({K8S}.numaNode) / 8.0 == 0.5", True),
    (f"{K8S}.numaNode == 4.0 && {K8S}.numaNode < 4.5 && {K8S}.numaNode > 3u", True),  # heterogeneous numbers
    (f"{K8S}.numaNode < 4 || {K8S}.numaNode > 4 || {K8S}.numaNode != 4", False),
    (f"{K8S}.numaNode <= 4 && {K8S}.numaNode >= 4", True),
    # Strings.
    (f"{A}.model + '!' == 'A100-80GB!' && {A}.model.size() == 9", True),
    (f"{A}.model.startsWith('A100') && {A}.model.endsWith('GB') && {A}.model.contains('-80')", True),
    (f"{A}.model.matches('^A[0-9]+') && !{A}.model.matches('^B')", True),
    (f"{A}.model.lowerAscii() == 'a100-80gb' && {A}.model > 'A' && {A}.model < 'B'", True),
    # includes(): a match within the first 48 values is true; past them without a match it is the error.
    (f"{A}.numas.includes(5) && !{A}.numas.includes(9)", True),
    (f"{A}.i48.includes(47)", True),
    (f"{A}.i48.includes(48)", False),
    (f"{A}.i49.includes(47)", True),
    (f"{A}.i49.includes(48)", TOO_LONG),
    (f"{A}.i49.includes(-1)", TOO_LONG),
    (f"{A}.i49.includes('a')", TOO_LONG),
    (f"{A}.s49.includes('s47')", True),
    (f"{A}.s49.includes('s48')", TOO_LONG),
    (f"{A}.s49.includes(1)", TOO_LONG),
    (f"{A}.model.includes('A100-80GB') && !{A}.model.includes('A100')", True),
    (f"{A}.model.includes(1)", False),
    (f"{K8S}.numaNode.includes(4) && !{K8S}.numaNode.includes('4')", True),
    (f"{A}.flags.includes(false) && {A}.versions.includes(semver('2.0.0-rc.1'))", True),
    # includes() compares as CEL's == does: across numeric types, never a string with a number or a version.
    (f"{A}.numas.includes(5.0) && {A}.numas.includes(5u) && {K8S}.numaNode.includes(4.0)", True),
    (f"{A}.digits.includes(1) || {A}.one.includes(1) || {A}.healthy.includes(1)", False),
    (f"{A}.digits.includes('1') && {A}.one.includes('1') && {A}.healthy.includes(true)", True),
    (f"{A}.driverVersion.includes('1.3.0+abc') || {A}.model.includes(1) || {A}.numas.includes('5')", False),
    # Quantities and semantic versions.
    (f"{C}.memory.compareTo(quantity('40Gi')) == 0 && {C}.memory.compareTo(quantity('41Gi')) == -1", True),
    (f"{C}.memory.isGreaterThan(quantity('39Gi')) && !{C}.memory.isLessThan(quantity('39Gi'))", True),
    (f"{C}.memory.asInteger() == 42949672960 && {C}.cores.asApproximateFloat() == 8.0", True),
    (f"{C}.memory == quantity('40Gi')", True),
    (f"{C}.memory == quantity('40G')", False),
    (f"sign({C}.missing) == 0", "eval: no such key: missing"),
    (f"sign({C}.cores) == 1 && {C}.cores.isInteger()", True),
    (f"{A}.driverVersion.isGreaterThan(semver('1.2.9')) && {A}.driverVersion.compareTo(semver('1.3.0')) == 0",
     True),
    (f"{A}.driverVersion.isLessThan(semver('1.3.0-rc.1'))", False),
    (f"{A}.driverVersion.major() == 1 && {A}.driverVersion.minor() == 3 && {A}.driverVersion.patch() == 0", True),
    # Optional values.
    (f"{A}.?model.orValue('') == 'A100-80GB' && {A}.?nothing.orValue('none') == 'none'", True),
    (f"{A}.?nothing.hasValue()", False),
    ("device.attributes[?'other.io'].hasValue() && !device.attributes['other.io'].?model.hasValue()", True),
    (f"optional.of({A}.model).value() == 'A100-80GB' && optional.none().orValue(3) == 3", True),
    (f"{A}.?nothing.value() == 1", "eval: optional.none() dereference"),
    # has() and presence.
    (f"has({A}.model) && !has({A}.nope) && 'model' in {A} && !('nope' in {A})", True),
    ("has(device.attributes['other.io'].model)", False),
    ("device.driver == 'gpu.example.com' && device.attributes['other.io'].model == 'x'",
     "eval: no such key: model"),
    # Lists, maps and the macros.
    (f"{A}.numas[3] == 7 && 5 in {A}.numas && !(9 in {A}.numas)", True),
    (f"{A}.numas[4] == 1", "eval: index out of bounds: 4"),
    (f"{A}.numas[-1] == 7", "eval: index out of bounds: -1"),
    (f"{A}.numas.exists(n, n == 5) && {A}.numas.all(n, n > 3) && {A}.numas.exists_one(n, n > 6)", True),
    (f"{A}.numas.exists(n, n == 9) || {A}.numas.all(n, n > 4) || {A}.numas.exists_one(n, n > 5)", False),
    (f"{A}.numas.map(n, n * 2).filter(n, n > 10).size() == 2", True),
    (f"{A}.numas.map(n, n > 4, n - 4) == [2, 1, 3]", True),
    (f"{A}.numas.map(n, 10 / (n - 5)).size() == 4", "eval: division by zero"),
    (f"{A}.numas.all(n, 10 / (n - 5) > 0 || n == 5)", False),
    (f"{A}.numas.exists(n, 10 / (n - 5) > 100 || n == 5)", True),
    (f"{A}.numas.all(n, 10 / (n - 5) != 0)", "eval: division by zero"),
    (f"{A}.numas.exists_one(n, 10 / (n - 6) == 5)", "eval: division by zero"),
    (f"{A}.model.all(c, true)", "eval: got 'types.String', expected iterable type"),
    (f"cel.bind(x, {A}.numas, x.size() + x[0]) == 10", True),
    ("[1, 2, 3].all(x, x > 0) && {'a': 1}['a'] == 1 && size({'a': 1, 'b': 2}) == 2", True),
    ("{'a': 1}['b'] == 1", "eval: no such key: b"),
    (f"[{A}.model, dyn('x')].exists(s, s == 'x') && {A}.numas + [1] == [6, 4, 5, 7, 1]", True),
    # Typed operands (conversions, literals, comprehension variables over typed lists): the planner inlines
    # the checked overload behind a guard on the operands' classes.
    (f"int({K8S}.numaNode) + 1 == 5 && int({K8S}.numaNode) - int({K8S}.numaNode) == 0", True),
    (f"int({K8S}.numaNode) * 9223372036854775807 > 0", "eval: integer overflow"),
    (f"int({A}.small) - 1 < 0", "eval: integer overflow"),
    (f"int({K8S}.numaNode) / 0 == 0", "eval: division by zero"),
    (f"int({K8S}.numaNode) % 0 == 0", "eval: modulus by zero"),
    (f"int({K8S}.numaNode) % 3 == 1 && int({K8S}.numaNode) / 3 == 1", True),
    (f"int({K8S}.numaNode) < 5 && int({K8S}.numaNode) > 3 && int({K8S}.numaNode) != 5"
     f" && int({K8S}.numaNode) <= 4 && int({K8S}.numaNode) >= 4", True),
    (f"int({K8S}.numaNode) > 4 || int({K8S}.numaNode) < 4 || int({K8S}.numaNode) == 5", False),
    (f"uint({K8S}.numaNode) * 2u == 8u && uint({K8S}.numaNode) / 3u == 1u && uint({K8S}.numaNode) % 3u == 1u",
     True),
    (f"uint({K8S}.numaNode) / 0u == 0u", "eval: division by zero"),
    (f"double({K8S}.numaNode) / 0.0 > 1e308 && double({K8S}.numaNode) - 0.5 == 3.5", True),
    (f"double({K8S}.numaNode) * 2.0 == 8.0 && -double({K8S}.numaNode) < 0.0 && double({K8S}.numaNode) + 0.5 > 4.0",
     True),
    (f"string({A}.model).startsWith('A') && string({A}.model) + 'x' == 'A100-80GBx'", True),
    (f"string({A}.model) < 'B' && string({A}.model) >= 'A100' && string({A}.model).size() == 9", True),
    (f"string({A}.model) > 'B' || string({A}.model) <= 'A' || string({A}.model).endsWith('A')", False),
    (f"bool({A}.healthy) && !bool({A}.healthy) == false", True),
    ("[1, 2, 3].map(x, x * 2)[2] == 6 && [1, 2, 3].filter(x, x % 2 == 1) == [1, 3]", True),
    (f"[9223372036854775807, 1].map(x, x + int({K8S}.numaNode)).size() == 2", "eval: integer overflow"),
    ("['a', 'bb'].exists_one(s, s.size() == 2) && ['a', 'bb'].all(s, s.size() < 3)", True),
    ("[true, false].exists(b, b) && ![false].exists(b, b) && [true, false].exists_one(b, !b)", True),
    ("size([1, 2] + [3]) == 3 && [1, 2] + [3] == [1, 2, 3] && 2 in [1, 2] && !(4 in [1, 2])", True),
    ("quantity('1Gi').isLessThan(quantity('2Gi')) && semver('1.0.0').isLessThan(semver('1.0.1'))", True),
    ("quantity('2Gi').isLessThan(quantity('1Gi')) || semver('1.0.1').isLessThan(semver('1.0.0'))", False),
    # The driver, maps of attributes and capacities, index and optional forms of device reads.
    ("device.driver == 'gpu.example.com' && 'gpu.example.com' == device.driver && device.driver != 'x'", True),
    ("device.driver == 'x' || 'x' == device.driver || device.driver != 'gpu.example.com'", False),
    ("device.driver in ['a', 'gpu.example.com'] && device.driver < 'h' && device.driver.startsWith('gpu')", True),
    (f"{A}['model'] == 'A100-80GB' && {C}['memory'].isInteger() && {A}[?'model'].value() == 'A100-80GB'", True),
    (f"has({C}.memory) && !has({C}.nope) && {C}.size() == 2 && {A}.size() == 13 && {K8S}.size() == 1", True),
    (f"{A}.exists(k, k == 'model') && device.attributes.exists(d, d == 'gpu.example.com')", True),
    ("device.attributes[?'gpu.example.com'].?model.orValue('') == 'A100-80GB'", True),
    (f"[{A}.model][0] == 'A100-80GB' && {{'k': {A}.model}}.k == 'A100-80GB'", True),
    (f"{K8S}.numaNode == {A}.numas[1] && !{C}.memory.isGreaterThan({C}.memory)", True),
    (f"{A}.numas.exists(n, n == {K8S}.numaNode) && {A}.numas.filter(n, n > 4).map(n, n - 4).exists_one(m, m == 2)",
     True),
    (f"{A}.numas.all(n, n > 3 && n < 8) == true && {A}.numas.exists(n, n > 3 || 1 / 0 == 1)", True),
    # Optional and plain selects and indexes on values other than device paths (keys read at run time).
    ("{'a': 1}.?a.orValue(0) == 1 && !{'a': 1}.?b.hasValue() && {'a': 1}[?'a'].value() == 1", True),
    ("{'a': 1}[?'b'].orValue(5) == 5 && [1, 2][?1].value() == 2 && ![1, 2][?5].hasValue()", True),
    ("{'a': {'b': 2}}.?a.?b.orValue(0) == 2", True),
    (f"[10, 20, 30, 40, 50][{K8S}.numaNode] == 50 && {{'A100-80GB': 1}}[{A}.model] == 1", True),
    (f"[10, 20, 30][{K8S}.numaNode] == 50", "eval: index out of bounds: 4"),
    (f"{A}.numas.exists(n, [0, 1, 2, 3, 4, 5, 6, 7][n] == 5)", True),
    (f"{A}.numas.exists(n, {{'x': n}}.?x.orValue(0) == 5 && {{'x': n}}[?'x'].value() == 5)", True),
    (f"{A}.numas.exists(n, {{'x': n}}.x == 7 && {{'x': n}}['x'] == 7)", True),
    (f"{A}.numas.exists(n, {{'x': n}}.?y.orValue(0) == 5 || {{'x': n}}[?'y'].hasValue())", False),
    (f"{A}.healthy ? {K8S}.numaNode == 4 : false", True),
    (f"!{A}.healthy ? false : {K8S}.numaNode == 4", True),
    (f"{A}.healthy ? {K8S}.numaNode == 5 : true", False),
    (f"{A}.model ? true : false", "eval: no such overload"),
    (f"{A}.numas.exists(n, n > 6 ? n == 7 : false) && {A}.numas.all(n, n > 5 ? true : n < 6)", True),
    (f"{A}.numas.exists(n, n > 6 ? n == 8 : {A}.model ? true : false)", "eval: no such overload"),
    # A constant condition: only the chosen branch is planned, in the comprehension's scope.
    (f"{A}.numas.all(n, true ? n > 3 : false) && {A}.numas.exists(n, false ? false : n == 5)", True),
    (f"{A}.numas.exists(n, (1 == 1) ? n == 9 : true)", False),
    # has() on a value that is not a device path; an outer variable read after an inner comprehension ran.
    ("has({'a': 1}.a) && !has({'a': 1}.b)", True),
    ("[1, 2].all(x, [5].exists(y, y > x) && x < 3) && [1, 2].all(x, [5].map(y, y + x).size() == 1 && x < 3)",
     True),
    # Conditions the planner knows are booleans (driver relations, has() on device paths, allowMultipleAllocations).
    (f"(device.driver == 'gpu.example.com' ? {K8S}.numaNode : 0) == 4", True),
    (f"has({A}.nope) ? false : {A}.healthy", True),
    ("device.allowMultipleAllocations ? false : true", True),
    # Bare attribute names belong to the device's driver.
    ("device.attributes['gpu.example.com'].model == device.attributes['gpu.example.com'].model", True),
    ("device.attributes['resource.kubernetes.io'].model == 'A100-80GB'", "eval: no such key: model"),
]


def _answer(run: Any, device: Any) -> bool | str:
    try:
        return bool(run(device, DRIVER))
    except celext.EvaluationError as err:
        return f"eval: {err.message}"


def _answers(expression: str, device: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> dict[str, bool | str]:
    try:
        reference = celext.compile(expression, engine="reference")
        compiled = celext.compile(expression)
    except celext.CompileError as err:
        return {"compile": f"compile: {err.message}"}
    with monkeypatch.context() as patch:
        patch.setattr(celext.plan, "COMPACT_NODES", -1)
        compact = Selector(prepare(expression))
    assert compact.source.startswith(celext.plan.COMPACT_HEADER)
    return {"reference": _answer(reference.evaluate, device), "matches": _answer(compiled.matches, device),
            "evaluate": _answer(compiled.evaluate, device), "compact": _answer(compact.matches, device)}


@pytest.mark.parametrize("device", [V1, V1BETA1], ids=["v1", "v1beta1"])
@pytest.mark.parametrize(("expression", "expected"), CASES)
def test_each_engine_and_form_gives_cels_answer(expression: str, expected: bool | str, device: dict[str, Any],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    answers = _answers(expression, device, monkeypatch)
    assert answers == dict.fromkeys(answers, expected)


TEN = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"
# Each comprehension step charges the iteration (3) plus the size of its body (its nodes other than constants);
# `exists` stops at its first true step. (expression, cost of a full run)
COSTS: list[tuple[str, int]] = [
    (f"{TEN}.all(x, x > 0)", 10 * (3 + 2)),
    (f"{TEN}.exists(x, x > 5)", 6 * (3 + 2)),
    (f"{TEN}.exists_one(x, x == 5)", 10 * (3 + 2)),
    (f"{TEN}.map(x, x * 2).size() == 10", 10 * (3 + 3)),
    (f"{TEN}.filter(x, x > 5).size() == 5", 10 * (3 + 2)),
    (f"cel.bind(v, {TEN}, v.all(x, x > 0))", 10 * (3 + 2)),
    ("{'a': 1, 'b': 2}.all(k, k != 'c')", 2 * (3 + 2)),
    # A ternary's body: its condition and the branches (two relations on the variable); constants cost nothing.
    (f"{TEN}.all(x, x > 5 ? true : x > 0)", 10 * (3 + 4)),
    (f"{TEN}.exists(x, x > 5 ? x == 7 : false)", 7 * (3 + 4)),
    (f"{TEN}.all(x, [x][0] > 0)", 10 * (3 + 4)),
    # A call is a node of the body, `dyn()` too.
    (f"{TEN}.all(x, int(x) > 0)", 10 * (3 + 3)),
    (f"{TEN}.all(x, dyn(x) > 0)", 10 * (3 + 3)),
]


@pytest.mark.parametrize("compact", [False, True], ids=["generated", "compact"])
@pytest.mark.parametrize("offset", [-1, 0, 1])
@pytest.mark.parametrize(("expression", "cost"), COSTS)
def test_comprehension_steps_are_charged_in_both_forms(expression: str, cost: int, offset: int, compact: bool,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """At the cost limit the selector runs; one unit under it, the run is cancelled (cel-go's runtime tracker)."""
    monkeypatch.setattr(celext.plan, "COMPACT_NODES", -1 if compact else 1_000_000)
    selector = Selector(prepare(expression), cost_limit=cost + offset)
    assert selector.source.startswith(celext.plan.COMPACT_HEADER) is compact
    if offset < 0:
        with pytest.raises(celext.EvaluationError, match=r"^operation cancelled: actual cost limit exceeded$"):
            selector.matches(V1, DRIVER)
    else:
        assert selector.matches(V1, DRIVER) is True
