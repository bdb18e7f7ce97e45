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
