"""numaNode rules at their edges: the range's lower bound (0) and upper bound (maxNUMANodes = 1024 in the
KEP-6072 helper, k8s.io/dynamic-resource-allocation/deviceattribute/numa_linux.go), list order with repeated
values, and the shortest list the order rule looks at."""

from __future__ import annotations

import pytest

from tests.builders import NUMA, slice_with
from webhook.policy import Policy
from webhook.run import run_rules

PATH = f"spec.devices[0].attributes[{NUMA}]"


ORDER_ON = Policy.from_mapping({"rules": {"numa-node-order": "warn"}})  # a style check, off by default
STYLE = "; KEP-6072 gives those nodes no order, so this is style only"


def findings(numa: object, policy: Policy | None = None) -> list[tuple[str, str, str]]:
    outcome = run_rules(slice_with(numa=numa), policy or Policy.default())
    return [(f.rule, str(f.path), f.message) for f in outcome.findings]


@pytest.mark.parametrize(("node", "expected"), [
    (-1, [("numa-node-range", f"{PATH}.int", "numaNode -1 is negative")]),
    (0, []),
    (1, []),
    (1022, []),
    (1023, []),
    (1024, [("numa-node-range", f"{PATH}.int", "numaNode 1024 must be below 1024")]),
])
def test_range_bounds(node: int, expected: list[tuple[str, str, str]]) -> None:
    assert findings(node) == expected


def test_range_bounds_inside_a_list() -> None:
    assert findings([1023, 0, 1024]) == [("numa-node-range", f"{PATH}.ints[2]", "numaNode 1024 must be below 1024")]


def test_repeated_values_in_ascending_order_are_duplicates_not_an_order_problem() -> None:
    assert findings([0, 1, 1, 2]) == [
        ("numa-node-duplicates", f"{PATH}.ints[2]", "numaNode 1 appears twice in the list (also at index 1)")]


def test_equal_neighbours_after_a_descent_report_the_descent_only() -> None:
    assert findings([0, 3, 2, 2], ORDER_ON) == [
        ("numa-node-order", f"{PATH}.ints[2]",
         "numaNode list [0, 3, 2, 2] is not ascending after the physical node (3 comes before 2)" + STYLE),
        ("numa-node-duplicates", f"{PATH}.ints[3]", "numaNode 2 appears twice in the list (also at index 2)")]


@pytest.mark.parametrize(("numa", "expected"), [
    ([0, 2], []),  # two entries: nothing after the physical node to order
    ([0, 2, 1], [("numa-node-order", f"{PATH}.ints[2]",
                  "numaNode list [0, 2, 1] is not ascending after the physical node (2 comes before 1)" + STYLE)]),
    ([0, 1, 2], []),
])
def test_order_needs_three_entries(numa: list[int], expected: list[tuple[str, str, str]]) -> None:
    assert findings(numa, ORDER_ON) == expected
    assert findings(numa) == []  # off by default
