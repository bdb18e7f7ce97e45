"""cel-go's own cost estimators for the lists extension (version 3) and the sets extension, which the Kubernetes
base environment registers (`cel.CostEstimatorOptions`) and cel-go's coster consults before Kubernetes' library
estimator (checker/cost.go `functionCost`).

cel-go v0.26.0 ext/lists.go: `slice`, `lists.range`, `reverse` cost n + 1 + 10 (the call and ListCreateBaseCost),
`flatten(depth)` n * depth + 11, `distinct` n*n * 2 + 11, `sort` and sortBy's `@sortByAssociatedKeys` n*n * 2
(2.1 for strings and bytes) + 11, each with a result size (n; n*n for distinct and sort). ext/sets.go:
`sets.contains`/`sets.intersects` |a| * |b| + 1, `sets.equivalent` |a| * |b| * 2 + 1. An int literal argument
is read as its value (nodeAsIntValue: a negative one as 0); the DRA sizes give an attribute list 64 elements.
Each maximum below is worked out from those functions by hand (the comment shows the sum).
"""

from __future__ import annotations

import pytest

import celext
from celext.errors import CostLimitError

L = 'device.attributes["dra.net"].list'  # 4 units to read, up to 64 elements
S = 'device.attributes["dra.net"].ss'


@pytest.mark.parametrize(
    ("expression", "cost"),
    [
        # lists.range(10): 10 + 11, result 10 elements; all: 10 * (3 + 2), result 1
        ("lists.range(10).all(x, x >= 0)", (52, 72)),
        # range(4) 15; exists: 4 * (3 + 1 + (list[i] 5 + == 1)), result 1
        (f"lists.range(4).exists(i, {L}[i] == 1)", (32, 60)),
        # sort on a dyn list: the 8 list_T_sort overloads, string and bytes 64*64*2.1 + 11 = 8613; + 4 + 1 + 1
        (f"{L}.sort()[0] == 1", (17, 8619)),
        # sort's result size is 64*64 upstream (estimateListSortCost returns the n*n it costs): 8617 + 4096 * 6 + 1
        (f"{L}.sort().exists(x, x == 2)", (16, 33194)),
        # distinct: 64*64*2 + 11 = 8203, result 64*64 too: 8207 + 4096 * 6 + 1
        (f"{L}.distinct().exists(x, x == 2)", (16, 32784)),
        (f"{L}.distinct().size() == 2", (17, 8209)),
        # reverse: 64 + 11; + 4 + index 1 + == 1
        (f"{L}.reverse()[0] == 1", (17, 81)),
        # literal [1,2,3] 10; sort 9*2 + 11 = 29; + 2
        ("[1, 2, 3].sort()[0] == 1", (41, 41)),
        ('["b", "a"].sort()[0] == "a"', (32, 32)),  # 10 + (4*2.1 = 8.4 -> 9) + 11 + 1 + == 1 (1 char: 1)
        ("[1, 2, 3].sort().all(x, x > 0)", (67, 85)),  # 39 + 9 * 5 + 1 (result size 9)
        # slice(i, j): j - i elements from the literals (a negative one reads as 0), else j defaults to the size
        ("[3, 1].slice(-1, 1).size() == 0", (24, 24)),
        (f"{L}.slice(1, 3).size() == 0", (19, 19)),  # 4 + (2 + 11) + 1 + 1
        (f"{L}.slice(1, {L}.size()).size() == 0", (85, 85)),  # 4 + 5 + (63 + 11) + 2 (end unknown: 64 - 1)
        # flatten: depth * n + 11; the result size is the target's
        ("[[1], [2]].flatten().size() == 2", (45, 45)),  # 30 (three literals) + 2 + 11 + 2
        (f"dyn({L}).flatten(2).size() == 2", (18, 146)),  # 5 + 64*2 + 11 + 2
        # sets: |a| * |b| * factor + 1
        (f"sets.equivalent({L}, {S})", (9, 8201)),  # 8 + 64*64*2 + 1
        (f"sets.contains({L}, [1])", (15, 79)),  # 4 + 10 + 64 + 1
        (f"sets.intersects({L}, {S})", (9, 4105)),
        ("sets.contains([1, 2], [1])", (23, 23)),
        ("sets.equivalent([1, 2], [1])", (25, 25)),
        ("sets.contains([1], [1])", (22, 22)),
        # sortBy binds its target (cel.bind: an empty list 10, two reads 1 each): 10 + 10 + 1 + map 54 + sort 29 + 2
        ("[3, 1, 2].sortBy(x, -x)[0] == 3", (106, 106)),
        # 10 + 4 + 1 + map (1 + 10 + 64 * 14 + 1) + sort of dyn keys (64*64*2.1 + 11) + 2
        (f"{L}.sortBy(x, -x)[0] == 3", (40, 9538)),
    ],
)
def test_ext_estimates(expression: str, cost: tuple[int, int]) -> None:
    assert celext.compile(expression).cost == cost


@pytest.mark.parametrize(
    ("expression", "cost"),
    [
        # Kubernetes refuses these: 8201 per inner step, 32 * 32 steps
        (f"device.attributes.all(d, device.attributes[d].all(k, sets.equivalent({L}, {S})))", (3, 8401155)),
        # lists.range(n) with n not a literal: a list of 2^64-1 elements
        (f"lists.range({L}.size()).all(x, x >= 0)", None),
        # slice(1, 0): Go's uint64 end - start wraps
        ("[1, 2].slice(1, 0).size() == 0", None),
    ],
)
def test_ext_estimates_over_the_limit(expression: str, cost: tuple[int, int] | None) -> None:
    with pytest.raises(CostLimitError) as err:
        celext.compile(expression)
    if cost is not None:
        assert err.value.cost == cost
