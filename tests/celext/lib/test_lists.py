"""Kubernetes lists library and cel-go lists extension."""

from __future__ import annotations

import pytest

from tests.celext.outcome import outcome


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("[1, 2, 3].isSorted() && ![3, 1].isSorted() && [].isSorted()", True),
        ('dyn(["a", "b"]).isSorted()', True),
        ('[dyn(1), dyn("a")].isSorted()', True),  # lists.go passes over Compare's error
        ("[1, 2, 3].sum() == 6 && [1.5, 2.5].sum() == 4.0 && [].sum() == 0", True),
        ("[3, 1, 2].min() == 1 && [3, 1, 2].max() == 3", True),
        ("[].min() == 1", "eval: min called on empty list"),
        ("[].max() == 1", "eval: max called on empty list"),
        ("[6, 4, 5, 7].indexOf(5) == 2 && [1, 2, 1].lastIndexOf(1) == 2 && [1].indexOf(9) == -1", True),
        ('device.attributes["gpu.example.com"].numas.indexOf(4) == 1', True),
        ("[1, 2, 3, 4].slice(1, 3) == [2, 3]", True),
        # (literal bounds 2, 1 are refused by the cost estimate: cel-go's uint64 end - start wraps)
        ("[1, 2].slice(2, dyn(1)) == []",
         "eval: cannot slice(2, 1), start index must be less than or equal to end index"),
        ("[1, 2].slice(0, 3) == []", "eval: cannot slice(0, 3), list is length 2"),
        ("[dyn([dyn(1), dyn([2])]), dyn([3])].flatten() == [dyn(1), dyn([2]), dyn(3)] && "
         "[dyn([dyn(1), dyn([2])])].flatten(2) == [1, 2]", True),
        ("[dyn(1), dyn(1), dyn(2), dyn(1.0)].distinct() == [1, 2]", True),
        ("[1, 2, 3].reverse() == [3, 2, 1]", True),
        ('[3, 1, 2].sort() == [1, 2, 3] && ["b", "a"].sort() == ["a", "b"]', True),
        ('[dyn(1), dyn("a")].sort() == []', "eval: list elements must have the same type"),
        ("lists.range(3) == [0, 1, 2] && lists.range(0) == []", True),
        ("[3, 1].sortBy(x, x) == [1, 3]", True),
    ],
)
def test_lists(expression: str, expected: bool | str) -> None:
    assert outcome(expression) == expected


def test_sorting_a_versions_attribute_fails_as_upstream() -> None:
    """A list attribute is dyn, so sort() compiles; a semver has no order in cel-go's sense (no Compare method)."""
    device = {"name": "gpu-0", "attributes": {"versions": {"versions": ["1.2.0", "1.0.0"]}, "ints": {"ints": [3, 1]}}}
    assert outcome('device.attributes["gpu.example.com"].versions.sort().size() == 2', device) == (
        "eval: list elements must be comparable")
    assert outcome('device.attributes["gpu.example.com"].ints.sort() == [1, 3]', device) is True
