"""The Kubernetes lists library (`sum`, `min`, `max`, `isSorted`, `indexOf`, `lastIndexOf`) on lists whose element
type is wrong or mixed, as Kubernetes answers (k8s.io/apiserver/pkg/cel/library/lists.go run by cel-go).

At compile time a list of a known element type outside `summableTypes` / `comparableTypes` is cel-go's
`found no matching overload` (the texts of apiextensions-apiserver's schema/cel validation_test.go "lists" case).
At run time cel-go picks the overload by the list's first element (common/types/types.go
`defaultIsAssignableRuntimeType`), so a first element of another type is `no such overload: sum(list)`
(common/decls/decls.go `MaybeNoSuchOverload`); a later element is met by the chosen overload's own code:
`sum` adds with the accumulator's `Add` (`no such overload`, `integer overflow`), `min`/`max`/`isSorted`
refuse an element that is not a `traits.Comparer` but pass over a failed `Compare`.
List literals stay homogeneous (Kubernetes' HomogeneousAggregateLiterals), so mixed lists are built from
`dyn(...)` elements or come from list attributes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.celext.lib.engines import ENGINES, outcome_on

A = 'device.attributes["gpu.example.com"]'
DEVICE: dict[str, Any] = {
    "name": "gpu-0",
    "attributes": {
        "s": {"strings": ["a", "b"]},
        "b": {"bools": [True, False]},
        "i": {"ints": [3, 1, 2]},
        "v": {"versions": ["1.0.0", "2.0.0"]},
    },
}
NO_SUM = "eval: no such overload: sum(list)"


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        # list attributes: the dispatch sees a list of strings, bools or versions at run time
        (f'{A}.s.sum() == "ab"', NO_SUM),
        (f"{A}.b.sum() == true", NO_SUM),
        (f"{A}.v.sum().major() == 3", NO_SUM),
        (f'{A}.s.min() == "a" && {A}.s.max() == "b" && {A}.s.isSorted()', True),
        (f"{A}.b.min() == false && {A}.b.max() == true && !{A}.b.isSorted()", True),
        (f"{A}.i.sum() == 6 && {A}.i.min() == 1 && {A}.i.max() == 3 && !{A}.i.isSorted()", True),
        (f'{A}.v.max().isGreaterThan(semver("1.0.0"))', "eval: no such overload: max(list)"),  # no Comparer
        (f'{A}.v.min().isLessThan(semver("3.0.0"))', "eval: no such overload: min(list)"),
        (f"{A}.v.isSorted()", "eval: no such overload: isSorted(list)"),
        (f'{A}.v.indexOf(semver("2.0.0")) == 1 && {A}.v.lastIndexOf(semver("1.0.0")) == 0', True),
        (f'{A}.s.indexOf(1) == -1 && {A}.s.lastIndexOf("b") == 1', True),
        # dyn lists: the first element picks the overload; an empty one takes the first (int)
        ('dyn(["a"]).sum() == "a"', NO_SUM),
        ('dyn(["a", "b"]).max() == "b"', True),
        ("[dyn(true)].sum() == true", NO_SUM),
        ('[dyn(b"a")].sum() == b"a"', NO_SUM),
        ("[dyn([1])].sum() == [1]", NO_SUM),
        ('[dyn(timestamp("2020-01-01T00:00:00Z"))].sum() == timestamp("2020-01-01T00:00:00Z")', NO_SUM),
        ("[dyn([1])].max() == [1]", "eval: no such overload: max(list)"),
        ("[dyn({})].isSorted()", "eval: no such overload: isSorted(list)"),
        ('[dyn(semver("1.0.0"))].min() == 1', "eval: no such overload: min(list)"),
        ('[dyn(quantity("1")), dyn(1)].sum() == 1', NO_SUM),
        ("[null].max() == null", "eval: no such overload: max(list)"),  # compiles (null fits duration)
        ("[null].sum() == null", NO_SUM),
        ("dyn([]).sum() == 0 && dyn([1, 2]).sum() == 3 && dyn([1.0, 2.0]).sum() == 3.0 && [].sum() == 0", True),
        ("dyn([]).max() == 0", "eval: max called on empty list"),
        ("dyn([]).min() == 0", "eval: min called on empty list"),
        ("dyn([]).isSorted() && [dyn(1)].isSorted()", True),
        ('dyn("a").sum() == 1', "eval: no such overload: sum(string)"),
        ("dyn(1).max() == 1", "eval: no such overload: max(int)"),
        # a later element of another type: sum's Add fails ...
        ("[dyn(1), dyn(2.0)].sum() == 3.0", "eval: no such overload"),
        ("[dyn(1.0), dyn(2)].sum() == 3.0", "eval: no such overload"),
        ("[dyn(1u), dyn(2)].sum() == 3u", "eval: no such overload"),
        ('[dyn(1), dyn("a")].sum() == 1', "eval: no such overload"),
        ("[dyn(1), dyn(null)].sum() == 1", "eval: no such overload"),
        ('[dyn(1), dyn(quantity("1"))].sum() == 1', "eval: no such overload"),
        ('(dyn(["a"]) + dyn([1])).sum() == 1', NO_SUM),
        ("(dyn([2u]) + dyn([1])).sum() == 3u", "eval: no such overload"),
        # ... except a duration meeting a timestamp (Duration.Add gives a timestamp, which adds durations)
        ('[dyn(duration("1s")), dyn(timestamp("2020-01-01T00:00:00Z")), dyn(duration("1s"))].sum()'
         ' == timestamp("2020-01-01T00:00:02Z")', True),
        ('[dyn(duration("1s")), dyn(timestamp("2020-01-01T00:00:00Z")), dyn(timestamp("2020-01-01T00:00:00Z"))]'
         '.sum() == timestamp("2020-01-01T00:00:00Z")', "eval: no such overload"),
        ('[dyn(duration("1s")), dyn(timestamp("9999-12-31T23:59:59Z"))].sum() == timestamp("2020-01-01T00:00:00Z")',
         "eval: timestamp overflow"),
        # ... min, max and isSorted pass over a comparison that fails, and refuse an element with no order
        ('[dyn(1), dyn("a")].max() == 1 && [dyn(1), dyn("a")].min() == 1', True),
        ('[dyn("a"), dyn(1)].max() == "a" && [dyn("a"), dyn(1)].min() == "a"', True),
        ('[dyn(1), dyn("a")].isSorted() && [dyn(2), dyn("a"), dyn(1)].isSorted()', True),
        ('[dyn(2), dyn(1), dyn("a")].isSorted()', False),  # decided before the string
        ("[dyn(true), dyn(1)].max() == true && [dyn(1), dyn(true)].min() == 1", True),
        ("[dyn(1), dyn(2.0)].max() == 2.0 && [dyn(2.0), dyn(1)].min() == 1", True),  # numbers compare across
        ("[dyn(1u), dyn(2)].max() == 2 && (dyn([2u]) + dyn([3])).max() == 3", True),
        ("[dyn(3u), dyn(2.5)].isSorted()", False),
        ("[dyn(1), dyn({})].min() == 1", "eval: no such overload"),
        ("[dyn(1), dyn([1])].isSorted()", "eval: no such overload"),
        ('[dyn(1), dyn(semver("1.0.0"))].max() == 1', "eval: no such overload"),
        ("[dyn(2), dyn(1), dyn({})].isSorted()", False),
        # NaN: Double.Compare's error is passed over like any other
        ("[1.0, 0.0/0.0, 0.5].isSorted()", True),
        ("[1.0, 0.0/0.0, 2.0].max() == 2.0 && [1.0, 0.0/0.0].min() == 1.0", True),
        ("[0.0/0.0, 1.0].max() != [0.0/0.0, 1.0].max()", True),  # a NaN first stays
        # sum starts from the overload's zero: 0.0 + -0.0 is +0.0
        ("1.0 / [-0.0].sum() > 0.0 && 1.0 / dyn([-0.0, -0.0]).sum() > 0.0", True),
        # indexOf / lastIndexOf: one overload (list(A)), Equal of each element, an error is not a match
        ("dyn([1]).indexOf(1.0) == 0 && [dyn(1.0), dyn(1u)].lastIndexOf(1) == 1", True),
        ('[dyn(semver("1.0.0"))].indexOf(1) == -1 && [1, 2].lastIndexOf(dyn(semver("1.0.0"))) == -1', True),
        # statically typed: cel-go's checker refuses the element type
        ('["a", "b"].sum() == "c"', "compile: found no matching overload for 'sum' applied to 'list(string).()'"),
        ("[true].sum()", "compile: found no matching overload for 'sum' applied to 'list(bool).()'"),
        ('[timestamp("2020-01-01T00:00:00Z")].sum() == timestamp("2020-01-01T00:00:00Z")',
         "compile: found no matching overload for 'sum' applied to 'list(google.protobuf.Timestamp).()'"),
        ("[[1], [2]].min() == [1]", "compile: found no matching overload for 'min' applied to 'list(list(int)).()'"),
        ("[{'a': 1}, {'b': 2}].max() == {'b': 2}",
         "compile: found no matching overload for 'max' applied to 'list(map(string, int)).()'"),
        ('[semver("1.0.0")].isSorted()',
         "compile: found no matching overload for 'isSorted' applied to 'list(kubernetes.Semver).()'"),
        ('[1].indexOf("a") == -1', "compile: found no matching overload for 'indexOf' applied to 'list(int).(string)'"),
        ("[1].lastIndexOf(1.0) == -1",
         "compile: found no matching overload for 'lastIndexOf' applied to 'list(int).(double)'"),
        ("dyn([1, 2.0]).max() == 2.0", "compile: expected type 'int' but found 'double'"),  # literal, not dyn
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_lists_on_wrong_or_mixed_elements(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression, DEVICE) == expected


INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        # int: 2^63-2, 2^63-1 (the limit), 2^63, 2^63+1; checked at every step, in list order
        (f"[{INT64_MAX - 2}, 1].sum() == {INT64_MAX - 1}", True),
        (f"[{INT64_MAX - 1}, 1].sum() == {INT64_MAX}", True),
        (f"[{INT64_MAX}, 1].sum() == 0", "eval: integer overflow"),
        (f"[{INT64_MAX}, 2].sum() == 0", "eval: integer overflow"),
        (f"[{INT64_MAX}, 1, -1].sum() == {INT64_MAX}", "eval: integer overflow"),
        (f"[{INT64_MAX}, -1, 1].sum() == {INT64_MAX}", True),
        (f"[-{INT64_MAX}, -1].sum() == -{INT64_MAX + 1}", True),
        (f"[-{INT64_MAX}, -2].sum() == 0", "eval: integer overflow"),
        # uint: 2^64-2, 2^64-1 (the limit), 2^64, 2^64+1
        (f"[{UINT64_MAX - 2}u, 1u].sum() == {UINT64_MAX - 1}u", True),
        (f"[{UINT64_MAX - 1}u, 1u].sum() == {UINT64_MAX}u", True),
        (f"[{UINT64_MAX}u, 1u].sum() == 0u", "eval: unsigned integer overflow"),
        (f"[{UINT64_MAX}u, 2u].sum() == 0u", "eval: unsigned integer overflow"),
        # duration: int64 nanoseconds (2562047h47m16.854775807s); Duration.Add's error is addInt64Checked's
        ('[duration("2562047h"), duration("47m16.854774s")].sum() == duration("2562047h47m16.854774s")', True),
        ('[duration("2562047h"), duration("47m16.854775s")].sum() == duration("2562047h47m16.854775s")', True),
        ('[duration("2562047h47m16.854775s"), duration("1us")].sum() == duration("0s")', "eval: integer overflow"),
        ('[duration("2562047h"), duration("2562047h")].sum() == duration("0s")', "eval: integer overflow"),
        ('[duration("-2562047h"), duration("-2562047h")].sum() == duration("0s")', "eval: integer overflow"),
        # double: no overflow error, IEEE infinity
        ("[1.7976931348623157e308, 1.7976931348623157e308].sum() == 1.0 / 0.0", True),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_sum_at_its_limits(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression) == expected
