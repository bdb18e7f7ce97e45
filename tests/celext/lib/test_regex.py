"""Regex: CEL's matches() and the Kubernetes find()/findAll()."""

from __future__ import annotations

import pytest

from tests.celext.outcome import outcome


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('device.driver.matches("^gpu\\\\.") && matches(device.driver, "example")', True),
        ('device.attributes["gpu.example.com"].model.find("[0-9]+") == "100"', True),
        ('"abc".find("[0-9]+") == ""', True),
        ('"123 456 789".findAll("[0-9]+") == ["123", "456", "789"]', True),
        ('"123 456 789".findAll("[0-9]+", 2) == ["123", "456"] && "1 2".findAll("[0-9]", 0) == []', True),
        ('"abc".find("(") == ""', "eval: error parsing regexp: missing ): ("),
        ("int('1'.find('[0-9]*')) < 100", True),
    ],
)
def test_regex(expression: str, expected: bool | str) -> None:
    assert outcome(expression) == expected


def test_find_answers_stay_right_when_repeated() -> None:
    """find() results are cached by (pattern, text): repeats, other texts and bad patterns keep their answers."""
    for _ in range(3):
        assert outcome('"a1b22".find("[0-9]+") == "1" && "xy".find("[0-9]+") == ""') is True
        assert outcome('"abc".find("(") == ""') == "eval: error parsing regexp: missing ): ("
