"""The planner specialised on checked types (celext.plan.typed) and cel.bind's lazy initialiser."""

from __future__ import annotations

from typing import Any

import pytest

import celext
from celext.overloads import BY_ID, OVERLOADS

DEVICE: dict[str, Any] = {"attributes": {"s": {"string": "A100"}, "n": {"int": 3}, "v": {"version": "1.2.3"},
                                          "nan": {"string": "NaN"}, "z": {"string": "-0.0"}, "t": {"bool": True},
                                          "u": {"string": "é"}}}
NAN, ZERO = 'double(device.attributes["gpu.io"].nan)', 'double(device.attributes["gpu.io"].z)'
TRUE_, TEXT = 'bool(device.attributes["gpu.io"].t)', 'string(device.attributes["gpu.io"].u)'


def _both(expression: str, device: dict[str, Any] = DEVICE, driver: str = "gpu.io") -> bool | str:
    answers: set[bool | str] = set()
    for engine in ("compiled", "reference"):
        try:
            answers.add(celext.compile(expression, engine=engine).evaluate(device, driver))
        except celext.EvaluationError as err:
            answers.add(f"error: {err.message}")
    assert len(answers) == 1, (expression, answers)
    return answers.pop()


def test_the_one_overload_table_carries_the_code_templates() -> None:
    templated = {o.id for o in OVERLOADS if o.template}
    assert {"less_int64", "greater_equals_string", "less_bool", "less_double", "starts_with_string",
            "contains_string", "size_string", "size_list", "logical_not", "add_string"} <= templated
    assert BY_ID["quantity_is_greater_than"].template is not None  # compared on the exact Decimal value
    assert BY_ID["semver_compare_to"].template is not None  # compared on the precedence tuple
    assert BY_ID["quantity_add"].template is None  # called through its reference implementation


@pytest.mark.parametrize(("expression", "inlined"), [
    ('size(device.driver) > 3 && device.driver.startsWith("gpu")', ["str.__len__", "str.startswith"]),
    ('string(device.attributes["gpu.io"].s) + "x" == "A100x"', ["str.__add__", "str.__eq__"]),
    ('int(device.attributes["gpu.io"].n) <= 3', ["int.__le__"]),
    ('!device.allowMultipleAllocations', ["FALSE if"]),
])
def test_checked_operations_are_inlined_and_agree(expression: str, inlined: list[str]) -> None:
    source = celext.compile(expression).source
    assert source is not None
    for code in inlined:
        assert code in source
    assert _both(expression) is True


def test_certain_operands_need_no_guard() -> None:
    source = celext.compile("size(device.driver) > 3").source
    assert source is not None and ".__class__ is" not in source


@pytest.mark.parametrize(("expression", "expected"), [
    ('int(device.attributes["gpu.io"].missing) < 4', "error: no such key: missing"),
    ('string(device.attributes["gpu.io"].n) < "4"', True),
    ("size(dyn([1, 2])) == 2", True),
    ('dyn(device.attributes["gpu.io"].s) < "B"', True),  # dyn operands take the general dispatch
    ('"日本" > "A"', True),
    ("9223372036854775807 > 1", True),
    (f"{NAN} < 1.0", "error: NaN values cannot be ordered"),  # cel-go Double.Compare
    (f"{NAN} >= 1.0", "error: NaN values cannot be ordered"),
    (f"{ZERO} < 0.0", False),
    (f"{ZERO} <= 0.0", True),
    (f"{TRUE_} > false", True),
    (f"{TRUE_} != true", False),
    (f"uint({TRUE_} ? 2 : 1) > 1u", True),
    (f"{TEXT}.size() == 1 && size({TEXT}) == 1", True),
    (f'{TEXT} > "z"', True),
])
def test_guarded_paths_keep_cel_semantics(expression: str, expected: bool | str) -> None:
    assert _both(expression) == expected


@pytest.mark.parametrize(("expression", "expected"), [
    ("cel.bind(x, 1 / 0, true)", True),  # cel-go initialises the binding lazily, on its first use
    ("cel.bind(x, 1 / 0, false || true)", True),
    ('cel.bind(x, device.attributes["gpu.io"].missing, x == 1)', "error: no such key: missing"),
    ('cel.bind(x, device.attributes["gpu.io"].missing, has(device.attributes["gpu.io"].s))', True),
    ("cel.bind(x, [1, 2], x.exists(y, y == 2) && size(x) == 2)", True),
    ("cel.bind(x, 1, cel.bind(y, x + 1, cel.bind(x, 10, y == 2)))", True),
])
def test_bind_initialisers_are_lazy_as_in_cel_go(expression: str, expected: bool | str) -> None:
    assert _both(expression) == expected


def test_bind_initialiser_keeps_its_own_variables() -> None:
    assert _both("[1].exists(y, cel.bind(x, y, [2].exists(y, x == 1)))") is True


# Quantities and versions read from a device, so the comparison runs in the generated code (on two constants
# it is folded at compile time).
LIBRARY_DEVICE: dict[str, Any] = {
    "capacity": {"ki": {"value": "1Ki"}, "n1024": {"value": "1024"}, "k1": {"value": "1k"}, "half": {"value": "0.5"},
                 "milli": {"value": "500m"}, "zero": {"value": "0"}, "negzero": {"value": "-0"},
                 "huge": {"value": "1e999"}, "tiny": {"value": "0.0000000001"}, "nano": {"value": "1n"}},
    "attributes": {"rel": {"version": "1.0.0"}, "build": {"version": "1.0.0+build.5"},
                   "rc1": {"version": "1.0.0-rc.1"}, "alpha": {"version": "1.0.0-alpha"},
                   "alpha1": {"version": "1.0.0-alpha.1"}, "alphabeta": {"version": "1.0.0-alpha.beta"},
                   "beta2": {"version": "1.0.0-beta.2"}, "beta11": {"version": "1.0.0-beta.11"},
                   "num": {"version": "1.0.0-1"}, "big": {"version": "18446744073709551615.0.0"}},
}
Q = 'device.capacity["gpu.io"].{}'
V = 'device.attributes["gpu.io"].{}'


@pytest.mark.parametrize(("left", "method", "right", "expected"), [
    ("ki", "compareTo", "n1024", 0),  # 1Ki is 1024 exactly
    ("ki", "isGreaterThan", "n1024", False),
    ("ki", "isLessThan", "n1024", False),
    ("ki", "isGreaterThan", "k1", True),  # 1024 > 1000
    ("k1", "compareTo", "ki", -1),
    ("half", "compareTo", "milli", 0),  # 0.5 == 500m
    ("zero", "compareTo", "negzero", 0),
    ("huge", "isGreaterThan", "ki", True),
    ("tiny", "compareTo", "nano", 0),  # rounded up to nano precision, as upstream
    ("nano", "isGreaterThan", "zero", True),
])
def test_quantity_comparisons_run_on_exact_values(left: str, method: str, right: str, expected: object) -> None:
    expression = f"{Q.format(left)}.{method}({Q.format(right)}) == {str(expected).lower()}"
    source = celext.compile(expression).source
    assert source is not None and ".value " in source and ".__class__ is QUANTITY" in source
    assert _both(expression, LIBRARY_DEVICE) is True


@pytest.mark.parametrize(("left", "method", "right", "expected"), [
    ("rel", "compareTo", "1.0.0+other", 0),  # build metadata never counts
    ("rel", "isGreaterThan", "1.0.0-rc.1", True),  # a release after its pre-releases
    ("rc1", "isLessThan", "1.0.0", True),
    ("alpha", "isLessThan", "1.0.0-alpha.1", True),  # a longer list of equal identifiers sorts after
    ("alpha1", "isLessThan", "1.0.0-alpha.beta", True),  # numeric before alphanumeric
    ("beta2", "isLessThan", "1.0.0-beta.11", True),  # numbers by value, not as text
    ("beta11", "isGreaterThan", "1.0.0-beta.2", True),
    ("num", "isLessThan", "1.0.0-alpha", True),
    ("alphabeta", "compareTo", "1.0.0-beta.2", -1),
    ("big", "isGreaterThan", "18446744073709551614.99.99", True),
    ("beta11", "compareTo", "1.0.0-beta.11", 0),
    ("build", "compareTo", "1.0.0", 0),
])
def test_semver_comparisons_follow_precedence(left: str, method: str, right: str, expected: object) -> None:
    expression = f'{V.format(left)}.{method}(semver("{right}")) == {str(expected).lower()}'
    source = celext.compile(expression).source
    assert source is not None and ".key " in source and ".__class__ is SEMVER" in source
    assert _both(expression, LIBRARY_DEVICE) is True


@pytest.mark.parametrize(("expression", "expected"), [
    (f'{V.format("missing")}.isGreaterThan(semver("1.0.0"))', "error: no such key: missing"),
    (f'{Q.format("missing")}.compareTo({Q.format("ki")}) == 0', "error: no such key: missing"),
    (f'{V.format("ki")}.isGreaterThan(semver("1.0.0"))', "error: no such key: ki"),
    (f'{V.format("rel")}.isGreaterThan({Q.format("ki")})',
     "error: no such overload: isGreaterThan(kubernetes.Semver, kubernetes.Quantity)"),
    (f'{V.format("beta11")}.minor() == 0 && {V.format("rel")}.patch() == 0', True),
])
def test_library_templates_keep_errors(expression: str, expected: bool | str) -> None:
    assert _both(expression, LIBRARY_DEVICE) == expected


def test_driver_is_compared_as_a_plain_string() -> None:
    source = celext.compile('device.driver == "gpu.io"').source
    assert source is not None and "(driver or '') == 'gpu.io'" in source
    assert _both('device.driver == "gpu.io"') is True
    assert _both('device.driver != "gpu.io"', driver="") is True
