"""The compact form's own fast paths (celext.plan.closures), now every selector's first tier: `!` over a bool
negates in place, and `"domain" in device.attributes` reads the entries' names. Both give the general path's
answers (tests/celext/plan/test_forms_mutants.py), so these tests pin that the general path is not taken: a
fast path lost would keep every answer and cost the whole-device conversion or a reference-engine call per
evaluation."""

from __future__ import annotations

from collections.abc import Iterator
from types import MappingProxyType
from typing import Any

import pytest

import celext
from celext.compile import prepare
from celext.errors import UnsupportedError
from celext.plan import closures, plan
from celext.runtime import ops, wire
from celext.syntax.rewrite import TOO_EXPANDED
from tests.celext.syntax.test_rewrite import nested_binds

DRIVER = "d.io"
DEVICE = {"name": "g", "attributes": {"d.io/on": {"bool": True}, "d.io/n": {"int": 3}, "e.io/x": {"int": 1}},
          "capacity": {"d.io/mem": {"value": "1Gi"}}}
BARE = {"name": "b", "attributes": {"on": {"bool": False}}}  # the driver's own domain, spelled bare
PROXIED = {"name": "p", "attributes": MappingProxyType({"d.io/on": {"bool": True}})}


def _compact(expression: str) -> Any:
    function = plan(prepare(expression), compact=True).function
    return lambda device, driver=DRIVER: function(device, driver, 1_000_000)


def _reference(expression: str, device: dict[str, Any], driver: str = DRIVER) -> Any:
    try:
        return celext.compile(expression, engine="reference").evaluate(device, driver)
    except celext.EvaluationError as err:
        return err.message


def _plain(value: Any) -> Any:
    return str(value) if isinstance(value, Exception) else bool(value)


@pytest.fixture
def no_conversion(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """The whole-device conversion the general path takes for a bare `device`: recorded, then done."""
    seen: list[Any] = []
    real = wire.converted

    def converted(device: Any, driver: str) -> Any:
        seen.append(device)
        return real(device, driver)

    monkeypatch.setattr(wire, "converted", converted)
    yield seen


@pytest.mark.parametrize(("expression", "device", "driver", "expected"), [
    ("'d.io' in device.attributes", DEVICE, DRIVER, True),
    ("'e.io' in device.attributes", DEVICE, DRIVER, True),
    ("'f.io' in device.attributes", DEVICE, DRIVER, False),
    ("'d.io' in device.capacity", DEVICE, DRIVER, True),
    ("'e.io' in device.capacity", DEVICE, DRIVER, False),
    ("'d.io' in device.attributes", BARE, DRIVER, True),  # a bare name files under the driver's domain
    ("'d.io' in device.attributes", BARE, "x.io", False),
    ("'x.io' in device.attributes", BARE, "x.io", True),
    ("'d.io' in device.capacity", BARE, DRIVER, False),  # no capacity map at all
    ("'d.io' in device.attributes", PROXIED, DRIVER, True),  # a map that is not a dict (read as a Mapping)
    ("'f.io' in device.attributes", PROXIED, DRIVER, False),
])
def test_domain_membership_reads_the_names_not_the_device(no_conversion: list[Any], expression: str,
                                                          device: dict[str, Any], driver: str,
                                                          expected: bool) -> None:
    assert _plain(_compact(expression)(device, driver)) is expected
    assert no_conversion == []
    assert _reference(expression, device, driver) is expected


@pytest.mark.parametrize(("expression", "expected"), [
    ("device.driver in device.attributes", True),  # not a constant on the left: the general path
    ("'d.io' in {'d.io': 1}", True),  # not a device table on the right
])
def test_other_membership_takes_the_general_path(expression: str, expected: bool) -> None:
    assert _plain(_compact(expression)(DEVICE)) is expected
    assert _reference(expression, DEVICE) is expected


def test_a_device_table_read_otherwise_is_converted(no_conversion: list[Any]) -> None:
    assert _plain(_compact("device.driver in device.attributes")(DEVICE)) is True
    assert no_conversion  # the bare `device` the general path reads


@pytest.fixture
def unary_calls(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """ops.unary (the general `!`/`-`, which builds a tree for the reference engine): its calls recorded."""
    seen: list[Any] = []
    real = ops.unary

    def unary(operator: str, value: Any) -> Any:
        seen.append((operator, value))
        return real(operator, value)

    monkeypatch.setattr(ops, "unary", unary)
    return seen


@pytest.mark.parametrize(("expression", "expected"), [
    ("!device.attributes['d.io'].on", False),
    ("!!device.attributes['d.io'].on", True),
    ("!!!device.attributes['d.io'].on", False),
    ("!!!!device.attributes['d.io'].on", True),
    ("!('f.io' in device.attributes)", True),
])
def test_not_over_a_bool_negates_in_place(unary_calls: list[Any], expression: str, expected: bool) -> None:
    assert _plain(_compact(expression)(DEVICE)) is expected
    assert unary_calls == []
    assert _reference(expression, DEVICE) is expected


@pytest.mark.parametrize(("expression", "calls"), [
    ("!device.attributes['d.io'].n", 1),
    ("!(!device.attributes['d.io'].n)", 1),  # refused by the first application
    ("!device.attributes['d.io'].nosuch", 1),  # an error value goes to the general operator, which passes it on
])
def test_not_over_anything_else_takes_the_general_operator(unary_calls: list[Any], expression: str,
                                                           calls: int) -> None:
    answer = _plain(_compact(expression)(DEVICE))
    assert answer == _reference(expression, DEVICE) and isinstance(answer, str)
    assert len(unary_calls) >= calls and all(op == "unary_not" for op, _value in unary_calls)


@pytest.fixture
def arith_calls(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """ops.arith (the general `+ - * / %`, a reference-engine call per operation): its calls recorded."""
    seen: list[Any] = []
    real = ops.arith

    def arith(operator: str, left: Any, right: Any) -> Any:
        seen.append(operator)
        return real(operator, left, right)

    monkeypatch.setattr(ops, "arith", arith)
    return seen


INT64_MAX = 2**63 - 1


@pytest.mark.parametrize(("expression", "expected"), [
    ("device.attributes['d.io'].n + 4 == 7", True),
    ("device.attributes['d.io'].n - 5 == -2", True),
    ("device.attributes['d.io'].n * -3 == -9", True),
    (f"device.attributes['d.io'].n + {INT64_MAX - 3} == {INT64_MAX}", True),  # the int64 bound itself
    (f"-{INT64_MAX - 2} - device.attributes['d.io'].n == -{INT64_MAX} - 1", True),  # the int64 minimum itself
])
def test_int_arithmetic_in_range_is_the_builtin(arith_calls: list[Any], expression: str, expected: bool) -> None:
    assert _plain(_compact(expression)(DEVICE)) is expected
    assert arith_calls == []
    assert _reference(expression, DEVICE) is expected


@pytest.mark.parametrize(("expression", "operator"), [
    (f"device.attributes['d.io'].n + {INT64_MAX - 2} > 0", "addition_add"),  # one past int64: overflow
    (f"-{INT64_MAX} - device.attributes['d.io'].n - 0 < 0", "addition_sub"),
    (f"device.attributes['d.io'].n * {INT64_MAX // 2} > 0", "multiplication_mul"),
    ("device.attributes['d.io'].n / 2 == 1", "multiplication_div"),  # no fast path: truncation, zero divisors
    ("device.attributes['d.io'].n % 2 == 1", "multiplication_mod"),
    ("device.attributes['d.io'].n + 1.0 > 0.0", "addition_add"),  # not two ints (no implicit conversion)
    ("device.attributes['d.io'].nosuch + 1 > 0", "addition_add"),  # an error value is passed on
])
def test_other_arithmetic_takes_the_general_operator(arith_calls: list[Any], expression: str,
                                                     operator: str) -> None:
    answer = _plain(_compact(expression)(DEVICE))
    assert answer == _reference(expression, DEVICE)
    assert operator in arith_calls


def nested_doubling(levels: int, body: str) -> str:
    """`cel.bind(a0, 1, cel.bind(a1, a0 + a0, ...body))`: each binding used twice by the next, so substituting
    each use doubles the tree per level (a{levels - 1} is 2 ** (levels - 1))."""
    text = body
    for i in reversed(range(levels)):
        text = f"cel.bind(a{i}, {'1' if i == 0 else f'a{i - 1} + a{i - 1}'}, {text})"
    return text


def test_a_binding_is_computed_once_per_evaluation(arith_calls: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """The compact form computes a shared initialiser once (cel-go evaluates a binding once): the 2 ** 12 - 1
    additions of the substituted tree are 12 computed, each the builtin (none overflows)."""
    computed: list[int] = []
    from celext.plan import closures

    real = closures._INT_ARITHMETIC["addition_add"]

    def add(a: int, b: int) -> int:
        computed.append(a)
        return real(a, b)

    monkeypatch.setitem(closures._INT_ARITHMETIC, "addition_add", add)
    text = nested_doubling(13, "a12 == 4096 && [1, 2].all(x, a12 > x)")
    assert _plain(_compact(text)(DEVICE)) is True
    assert len(computed) == 12 and arith_calls == []


@pytest.mark.parametrize(("expression", "expected"), [
    # an initialiser reading a comprehension variable: computed again for each value, reused within one
    ("[1, 2, 3].all(x, cel.bind(y, x * 10, y + y == 20 * x))", True),
    ("[1, 2, 3].map(x, cel.bind(y, x + 1, [y, y])) == [[2, 2], [3, 3], [4, 4]]", True),
    ("[[1], [2]].all(l, cel.bind(y, l[0], l.all(z, z == y)))", True),
    # the same value object twice in a row still gives the right answer
    ("cel.bind(o, 5, [o, o, 6].filter(x, cel.bind(y, x + 1, y + y == 12)) == [o, o])", True),
    # an unused initialiser that would fail is not evaluated; a used one fails where it is read
    ("cel.bind(a, 1 / 0, cel.bind(b, a + a, true))", True),
    ("cel.bind(a, 1 / 0, cel.bind(b, a + a, b == b))", "division by zero"),
    # an initialiser failing for one value of the variable it reads, absorbed or not by the quantifier
    ("[0, 1].exists(x, cel.bind(y, 1 / x, y == y))", True),
    ("[0, 1].all(x, cel.bind(y, 1 / x, y == y))", "division by zero"),
    # a comprehension variable the body rebinds is renamed: the initialiser keeps reading the outer one
    ("[1, 2].all(x, cel.bind(y, x, [3, 4].exists(x, y + x == 5)))", True),
    ("[1, 2, 3].filter(x, cel.bind(t, x % 2 == 1, t && t)) == [1, 3]", True),
    # a device read bound once, used inside and outside a comprehension, and a failing read never used
    ("cel.bind(d, device.attributes['d.io'].n, d + d == 6 && [1, 2].exists(x, d + x == 5))", True),
    ("cel.bind(d, device.attributes['d.io'].missing, [1].exists(x, x == 1) || d == 1)", True),
    # bindings around and inside the bodies of two-variable macros and transforms (celext.plan.closures._macro)
    ("cel.bind(x, [1, 2], x.transformList(i, v, v * 2) == [2, 4] && x.size() == 2)", True),
    ("cel.bind(x, 1 / 0, [1].transformList(i, v, v) == [1] || x == 1)", True),  # an unread error stays unread
    ("cel.bind(x, 1 / 0, [1].transformList(i, v, x) == [1])", "division by zero"),
    ("[1, 2].transformList(i, v, cel.bind(y, v * 10, [y, y])) == [[10, 10], [20, 20]]", True),
    ("[1, 2].all(o, cel.bind(y, o * 10, [1, 2].transformList(i, v, y + v) == [y + 1, y + 2]))", True),
    ("cel.bind(y, [1], {'k': y}.transformMap(k, v, v + y) == {'k': [1, 1]})", True),
])
def test_shared_initialisers_keep_the_reference_answers(expression: str, expected: Any) -> None:
    assert _plain(_compact(expression)(DEVICE)) == expected
    assert _reference(expression, DEVICE) == expected


def test_a_comprehension_step_charges_a_shared_initialiser_once() -> None:
    """Each step charges its body's cost with a binding's initialiser counted once (cel-go evaluates it once):
    counted at each of its 2 ** 19 uses, the first step would exceed the 1,000,000 cost limit."""
    text = "[1, 2, 3].all(x, " + nested_doubling(20, "a19 > x") + ")"
    assert celext.compile(text).evaluate(DEVICE, DRIVER) is True
    assert _plain(_compact(text)(DEVICE)) is True


def test_an_initialiser_used_in_a_chain_is_built_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """`cel.bind(a, x1 && ... && x100, a && a && ...)`: the chain's operands are the uses of `a`, not its own
    operands spliced in at each use (200 uses made 20,000 operands, 0.2 s to build)."""
    built: list[Any] = []
    real = closures._device

    def device(path: Any) -> Any:
        built.append(path)
        return real(path)

    monkeypatch.setattr(closures, "_device", device)
    reads = " && ".join(f"device.attributes['d.io'].n != {i}" for i in range(10, 110))
    text = f"cel.bind(a, {reads}, " + " && ".join(["a"] * 200) + " && (a) && ((a) || false))"
    assert _plain(_compact(text)(DEVICE)) is True
    assert _plain(_compact(text.replace("!= 10 ", "!= 3 "))(DEVICE)) is False  # n is 3
    assert len(built) == 2 * 100  # two selectors, one read closure per operand of the initialiser


def test_a_subtree_left_to_the_reference_engine_is_refused_past_its_expansion_limit() -> None:
    """The guard of `_fallback`: only an identifier that names no variable reaches it from a checked
    expression, but a subtree holding bindings would be walked at each of their uses by the reference engine,
    so one past its limit is refused, and one within it runs."""
    tree = prepare(nested_binds(12, 4)).tree  # 4 ** 11 uses of the innermost binding
    with pytest.raises(UnsupportedError) as refused:
        closures._Builder(closures.shared_subtrees(tree))._fallback(tree, {})
    assert refused.value.message == TOO_EXPANDED
    tree = prepare(nested_binds(4, 3)).tree
    run = closures._Builder(closures.shared_subtrees(tree))._fallback(tree, {})
    assert _plain(run(closures.Frame(DEVICE, DRIVER, DEVICE, ops.Budget(1_000_000)))) is True
