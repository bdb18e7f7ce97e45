"""The Kubernetes quantity CEL library."""

from __future__ import annotations

import pytest

from celext.quantity import FORMAT_ERROR, NUMERIC_ERROR
from tests.celext.outcome import outcome

M = 'device.capacity["gpu.example.com"].memory'


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        (f'{M}.compareTo(quantity("16Gi")) >= 0', True),
        (f'{M}.isGreaterThan(quantity("40Gi"))', False),
        (f'{M} == quantity("40960Mi")', True),
        ('quantity("1Gi").isGreaterThan(quantity("1000M"))', True),
        ('quantity("200M").compareTo(quantity("0.2G")) == 0', True),
        ('quantity("1.5").isInteger()', False),
        ('quantity("1k").isInteger() && quantity("1k").asInteger() == 1000', True),
        ('quantity("1.5").asInteger() == 1', "eval: cannot convert value to integer"),
        ('quantity("100m").asApproximateFloat() == 0.1', True),
        ('quantity("50k").add(quantity("20k")) == quantity("70k")', True),
        ('quantity("50k").add(20) == quantity("50020")', True),
        ('quantity("50k").sub(20000) == quantity("30k")', True),
        ('sign(quantity("-1")) == -1 && sign(quantity("0")) == 0', True),
        # a global function upstream (cel.Overload, not MemberOverload): the member spelling does not compile
        ('quantity("1").sign() == 1', "compile: found no matching overload for 'sign' applied to "
                                      "'kubernetes.Quantity.()'"),
        # AsApproximateFloat64: the unscaled value times Go's math.Pow10, not the correctly rounded decimal
        ('quantity("0.3").asApproximateFloat() == 0.30000000000000004', True),
        ('quantity("1.2").asApproximateFloat() == 1.2000000000000002 && quantity("3e-5").asApproximateFloat() '
         '== 3.0000000000000004e-5', True),
        ('quantity("12345678901234567890").asApproximateFloat() == 1.234567890123457e19', True),  # inf.Dec, scale 9
        ('quantity("99Ei").asApproximateFloat() == 9.223372036854776e18', True),  # capped at 2^63-1, scale 0
        # int64Amount.Add hands back the other operand when one is zero, scale and all
        ('quantity("5").add(quantity("0.0")).isInteger() && quantity("1k").add(quantity("0m")).asInteger() == 1000',
         True),
        ('quantity("0.5").sub(quantity("0.5")).add(quantity("1")).isInteger()', True),
        ('quantity("0").sub(quantity("1m")).isInteger()', False),  # -1m, at milli scale
        ('quantity("1m").add(quantity("1")).isInteger()', False),  # 1001m
        ('isQuantity("1Gi") && !isQuantity("1GiB")', True),
        ('quantity("1x") == quantity("1")', f"eval: {FORMAT_ERROR}"),
        # no digit: zero on the int64 fast path (`Ti`), refused past it (`Pi`, `e-10`: inf.Dec SetString)
        ('isQuantity("Ti") && isQuantity(".e-9") && !isQuantity("Pi") && !isQuantity(".e-10")', True),
        ('sign(quantity("-Ei")) == 0', f"eval: {NUMERIC_ERROR}"),
        (f'{M}.compareTo(dyn(semver("1.0.0"))) == 0',
         "eval: no such overload: compareTo(kubernetes.Quantity, kubernetes.Semver)"),
        (f"dyn({M}) == 42949672960", "eval: no such overload"),  # apiserver pkg/cel/quantity.go Quantity.Equal
        ('device.capacity["other.example.com"].memory.isGreaterThan(quantity("1"))', "eval: no such key: memory"),
    ],
)
def test_quantity_library(expression: str, expected: bool | str) -> None:
    assert outcome(expression) == expected


Q = 'quantity("1")'


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        # add()/sub() return a *cel.Quantity upstream (library/quantity.go), and cel.Quantity.Equal takes only the
        # value type: on the right of == (or in an `in` item's place) the result is `no such overload` there
        (f'{Q}.add(0) == {Q}', True),
        (f'{Q}.sub(0) == {Q}', True),
        (f'{Q} == {Q}.add(0)', "eval: no such overload"),
        (f'{Q} == {Q}.sub(quantity("0"))', "eval: no such overload"),
        (f'{Q}.add(0) == {Q}.add(0)', "eval: no such overload"),
        (f'{M} == {Q}.add(quantity("40Gi")).sub(1)', "eval: no such overload"),
        # everything else takes the pointer as the quantity it holds
        (f'{Q}.add(1).isGreaterThan({Q}) && {Q}.isLessThan({Q}.add(1)) && {Q}.add({Q}.add(1)).compareTo({Q}) == 1',
         True),
        (f'{Q}.add(1).add(1).asInteger() == 3 && sign({Q}.sub(2)) == -1', True),
        # baseList.Contains asks the item's Equal; only true counts (an error is not a match)
        (f'{Q}.add(0) in [{Q}]', True),
        (f'{Q} in [{Q}.add(0)]', False),
        (f'[{Q}.add(0)] == [{Q}] && [{Q}] == [{Q}.add(0)]', True),  # baseList.Equal: only a false pair decides
    ],
)
@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_add_and_sub_results_compare_as_upstream_pointers_do(engine: str, expression: str,
                                                             expected: bool | str) -> None:
    assert outcome(expression, engine=engine) == expected
