"""cel-go sets extension, called by its dotted names."""

from __future__ import annotations

import pytest

from tests.celext.outcome import outcome


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("sets.contains([1, 2, 3], [3, 1]) && !sets.contains([1], [2]) && sets.contains([1], [])", True),
        ("sets.equivalent([1, 2], [2, 1, 1]) && !sets.equivalent([1], [1, 2])", True),
        ("sets.intersects([1], [1, 2]) && !sets.intersects([1], [2]) && sets.intersects([1], [dyn(1.0)])", True),
        ('sets.contains(device.attributes["gpu.example.com"].numas, [4, 6])', True),
        ("sets.union([1], [2]) == [1, 2]", "compile: undeclared reference to 'sets' (in container '')"),
    ],
)
def test_sets(expression: str, expected: bool | str) -> None:
    assert outcome(expression) == expected
