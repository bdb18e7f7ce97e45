"""The Kubernetes regex library at its edges: findAll's limit below, at and past the number of matches, and
a bad pattern in each function."""

from __future__ import annotations

import pytest

from tests.celext.lib.engines import ENGINES, outcome_on


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('"a1b2c3".findAll("[0-9]", 1) == ["1"] && "a1b2c3".findAll("[0-9]", 2) == ["1", "2"]', True),
        ('"a1b2c3".findAll("[0-9]", 3) == ["1", "2", "3"] && "a1b2c3".findAll("[0-9]", 4) == ["1", "2", "3"]', True),
        ('"a1b2c3".findAll("[0-9]", -1) == ["1", "2", "3"] && "a1b2c3".findAll("[0-9]", -2) == ["1", "2", "3"]', True),
        ('"abc".findAll("(") == []', "eval: error parsing regexp: missing ): ("),
        ('"abc".findAll("(", 1) == []', "eval: error parsing regexp: missing ): ("),
        ('"abc".findAll("(", 0) == []', "eval: error parsing regexp: missing ): ("),  # the pattern is read first
        ('"abc".find("[") == ""', "eval: error parsing regexp: missing ]: ["),
        ('"aXbX".find("X") == "X" && "ab".find("X") == ""', True),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_regex_edges(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression) == expected
