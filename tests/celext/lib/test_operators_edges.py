"""Operators and library functions at their limits, on both engines: duration and timestamp ranges to the
nanosecond, includes() at 48 values, list slices at 0, Go's quoting around U+0080."""

from __future__ import annotations

import pytest

from tests.celext.lib.engines import ENGINES, outcome_on

GPU = 'device.attributes["gpu.example.com"]'
MAX = 'duration("2562047h47m16s")'  # + 854775807ns: the largest duration cel-go holds (2^63-1 nanoseconds)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        (f'{MAX} + duration("854774us") > duration("0s") && {MAX} + duration("854775us") > duration("0s")', True),
        (f'{MAX} + duration("854776us") > duration("0s")', "eval: integer overflow"),  # cel-go addInt64Checked
        (f'{MAX} + duration("854775806ns") > duration("0s") && {MAX} + duration("854775807ns") > duration("0s")',
         True),
        (f'{MAX} + duration("854775808ns") > duration("0s")', "eval: integer overflow"),
        ('duration("-2562047h47m16s") - duration("854775808ns") < duration("0s")', True),  # -2^63 nanoseconds
        ('duration("-2562047h47m16s") - duration("854775809ns") < duration("0s")', "eval: integer overflow"),
        ('duration("-2562047h47m16s") - duration("854775us") < duration("0s")', True),
        ('duration("-2562047h47m16s") - duration("854776us") < duration("0s")', "eval: integer overflow"),
        ('timestamp("9999-12-31T00:00:00Z") - timestamp("0001-01-01T00:00:00Z") > duration("0s")',
         "eval: integer overflow"),  # subtractTimeChecked: past int64 nanoseconds
        ('timestamp("2262-04-11T23:47:16Z") - timestamp("1970-01-01T00:00:00Z") > duration("0s")', True),
        ('timestamp("2262-04-11T23:47:17Z") - timestamp("1970-01-01T00:00:00Z") > duration("0s")',
         "eval: integer overflow"),  # a second past 2^63-1 nanoseconds
        ('timestamp("2262-04-11T23:47:16.854775807Z") - timestamp("1970-01-01T00:00:00Z") > duration("0s")', True),
        ('timestamp("2262-04-11T23:47:16.854775808Z") - timestamp("1970-01-01T00:00:00Z") > duration("0s")',
         "eval: integer overflow"),  # one nanosecond past 2^63-1
        ('timestamp("9999-12-31T23:59:59.999999998Z") + duration("1ns") > timestamp("2000-01-01T00:00:00Z")', True),
        ('timestamp("9999-12-31T23:59:59.999999999Z") + duration("1ns") > timestamp("2000-01-01T00:00:00Z")',
         "eval: timestamp overflow"),
        ('timestamp("0001-01-01T00:00:00.000000001Z") - duration("1ns") < timestamp("2000-01-01T00:00:00Z")', True),
        ('timestamp("0001-01-01T00:00:00.000000001Z") - duration("2ns") < timestamp("2000-01-01T00:00:00Z")',
         "eval: timestamp overflow"),
        ('timestamp("9999-12-31T23:59:58Z") + duration("1s") > timestamp("2000-01-01T00:00:00Z")', True),
        ('timestamp("9999-12-31T23:59:59Z") + duration("1s") > timestamp("2000-01-01T00:00:00Z")',
         "eval: timestamp overflow"),
        ('timestamp("0001-01-01T00:00:01Z") - duration("1s") < timestamp("2000-01-01T00:00:00Z")', True),
        ('timestamp("0001-01-01T00:00:00Z") - duration("1s") < timestamp("2000-01-01T00:00:00Z")',
         "eval: timestamp overflow"),
        (f"{GPU}.long.includes(47) && !{GPU}.numas.includes(9)", True),
        (f"{GPU}.long.includes(48)", "eval: 'includes' function cannot be applied to lists longer than 48 values"),
        ("[].sum() == 0 && [1, 2].slice(0, 0) == []", True),
        ('"%s".format([["\\u007f"]]) == "[\\"\\\\x7f\\"]" && "%s".format([["\\u0080"]]) == "[\\"\\\\u0080\\"]"', True),
        ('"%s".format([["\\uffff"]]) == "[\\"\\\\uffff\\"]"', True),
        # cel-go moduloInt64Checked: only int64's least value % -1 overflows
        ("-9223372036854775808 % -1 == 0", "eval: integer overflow"),
        ("dyn(-9223372036854775808) % dyn(-1) == 0", "eval: integer overflow"),
        ("-9223372036854775807 % -1 == 0 && -9223372036854775808 % 1 == 0 && -9223372036854775808 % -2 == 0", True),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_operators_edges(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression) == expected


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("expression", "expected"), [
    ("size([1, 2] + [3]) == 3", True),  # the limit less one
    ("size([1, 2] + [3, 4]) == 4", True),  # the limit itself
    ("size([1, 2] + [3, 4, 5]) == 5",
     "eval: list concatenation of 2 and 3 elements exceeds celext's limit of 4 (draguard's own limit)"),
    ("[1, 2, 3] + [4, 5] == [] || true", True),  # an error value, absorbed as any other
])
def test_list_concatenation_has_a_limit(monkeypatch: pytest.MonkeyPatch, engine: str, expression: str,
                                        expected: object) -> None:
    """cel-go concatenates without copying (so its estimator lets doubling bindings through); celext copies, and
    refuses a result over celext.lib.operators.MAX_CONCATENATED elements (4 here) instead of running out of
    memory."""
    from celext.lib import operators

    monkeypatch.setattr(operators, "MAX_CONCATENATED", 4)
    assert outcome_on(engine, expression) == expected


def test_doubling_bindings_of_a_list_stop_at_the_limit() -> None:
    """40 levels of `b = a + a` (cel-go's estimate: a few hundred): an error at 2 ** 20 elements, not 2 ** 40."""
    text = "cel.bind(a0, [1], " + "".join(f"cel.bind(a{i}, a{i - 1} + a{i - 1}, " for i in range(1, 40)) \
        + "size(a39) > 0" + ")" * 40
    assert outcome_on("compiled", text) == ("eval: list concatenation of 1,048,576 and 1,048,576 elements exceeds "
                                            "celext's limit of 1,048,576 (draguard's own limit)")


def _nested(levels: int, body: str) -> str:
    """`cel.bind(a0, [1], cel.bind(a1, [a0, a0], ...body))`: each level's list holds the previous one twice."""
    return "cel.bind(a0, [1], " + "".join(f"cel.bind(a{i}, [a{i - 1}, a{i - 1}], " for i in range(1, levels)) \
        + body + ")" * levels


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("expression", "expected"), [
    (_nested(6, "a5 == a5 && [a5] == [a5] && dyn(a5) != a4"), True),
    ("cel.bind(n, [0.0 / 0.0], n == n)", False),  # NaN is not equal to itself, however often it is compared
    ("cel.bind(n, [0.0 / 0.0], [n, n] != [n, n])", True),
    ("cel.bind(m, {'k': [1, 2]}, [m, m] == [m, {'k': [1, 2]}])", True),
])
def test_equality_of_shared_values(engine: str, expression: str, expected: object) -> None:
    assert outcome_on(engine, expression) == expected


def test_equality_of_deeply_shared_lists_compares_each_pair_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """2 ** (levels - 1) element pairs if each were compared at every place it is held (cel-go's baseList.Equal
    compares them all); one pair of lists per level here."""
    from celext.lib import operators

    compared: list[object] = []
    real = operators._aggregate_equal

    def aggregate(a: object, b: object, pairs: dict[tuple[int, int], object]) -> object:
        compared.append(a)
        return real(a, b, pairs)  # type: ignore[arg-type]

    monkeypatch.setattr(operators, "_aggregate_equal", aggregate)
    assert outcome_on("compiled", _nested(20, "a19 == a19")) is True
    assert len(compared) == 20  # a19 .. a0, each compared with itself once
    assert outcome_on("compiled", _nested(60, "a59 == a59 && a59.exists(x, x == x)")) is True


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("expression", "expected"), [
    # Values in cel-go's error texts are Go's `%v` of them: their String() where their Go type has one
    # (time.Time's, time.Duration's, a list's, a map's), else the Go value (types.Null is an int32, bytes a []byte)
    ('[dyn(optional.none()), dyn({"k": [dyn(b"x"), dyn(2.5)]})].unwrapOpt() == []',
     "eval: value {k: [[120], 2.5]} is not optional"),  # baseMap.String, baseList.String
    ('[dyn(optional.none()), dyn(duration("3601.5s"))].unwrapOpt() == []', "eval: value 1h0m1.5s is not optional"),
    ('[dyn(optional.none()), dyn(duration("0.0015s"))].unwrapOpt() == []', "eval: value 1.5ms is not optional"),
    ("[dyn(optional.none()), dyn(null)].unwrapOpt() == []", "eval: value 0 is not optional"),
    ('[dyn(optional.none()), dyn(b"hi")].unwrapOpt() == []', "eval: value [104 105] is not optional"),
    ('[dyn(optional.none()), dyn(timestamp(0))].unwrapOpt() == []',
     "eval: value 1970-01-01 00:00:00 +0000 UTC is not optional"),
    ('[dyn(optional.none()), dyn(timestamp("2024-01-01T10:00:00.50-00:30"))].unwrapOpt() == []',
     "eval: value 2024-01-01 10:00:00.5 -0030 -0030 is not optional"),  # a fixed zone without a name
    ("[1, 1].transformMapEntry(i, v, {dyn(null): i}) == {}", "eval: insert failed: key 0 already exists"),
    ('[1, 1].transformMapEntry(i, v, {dyn(duration("1h")): i}) == {}',
     "eval: insert failed: key 1h0m0s already exists"),
    ('{"a": 1}[dyn(1e6)] == 1 || {"a": 1}[dyn(true)] == 1', "eval: no such key: 1e+06"),
    # a key cel-go makes no qualifier of (newQualifier: strings, ints, uints, bools, doubles), named by its Go type
    ('cel.bind(k, [null], {"a": 1}[dyn(k[0])] == 1)', "eval: invalid qualifier type: types.Null"),
    ('cel.bind(k, [[1] + [2]], [1][dyn(k[0])] == 1)', "eval: invalid qualifier type: *types.concatList"),
    ('cel.bind(k, [{}], {"a": 1}[?dyn(k[0])].hasValue())', "eval: invalid qualifier type: *types.baseMap"),
    ('cel.bind(k, [optional.of(1)], {"a": 1}[dyn(k[0])] == 1)', "eval: invalid qualifier type: *types.Optional"),
    ('{"a": 1}[dyn(quantity("1"))] == 1', "eval: invalid qualifier type: cel.Quantity"),
    ('[1][dyn(cidr("10.0.0.0/8"))] == 1', "eval: invalid qualifier type: cel.CIDR"),
    ('cel.bind(k, [timestamp(0)], device.attributes[dyn(k[0])] == {})',
     "eval: invalid qualifier type: types.Timestamp"),
])
def test_errors_print_values_as_go_does(engine: str, expression: str, expected: str) -> None:
    assert outcome_on(engine, expression) == expected
