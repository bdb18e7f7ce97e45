"""The Kubernetes regex library at its edges: findAll's limit below, at and past the number of matches, and
a bad pattern in each function."""

from __future__ import annotations

import pytest

from tests.celext.lib.engines import ENGINES, outcome_on

# A constant pattern is compiled with the program, as the Kubernetes regex library's OptimizeRegex does.
_REFUSED = "program instantiation failed: error parsing regexp: "


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('"a1b2c3".findAll("[0-9]", 1) == ["1"] && "a1b2c3".findAll("[0-9]", 2) == ["1", "2"]', True),
        ('"a1b2c3".findAll("[0-9]", 3) == ["1", "2", "3"] && "a1b2c3".findAll("[0-9]", 4) == ["1", "2", "3"]', True),
        ('"a1b2c3".findAll("[0-9]", -1) == ["1", "2", "3"] && "a1b2c3".findAll("[0-9]", -2) == ["1", "2", "3"]', True),
        ('"abc".findAll("(") == []', f"compile: {_REFUSED}missing closing ): `(`"),
        ('"abc".findAll("(", 1) == []', f"compile: {_REFUSED}missing closing ): `(`"),
        ('"abc".findAll("(", 0) == []', f"compile: {_REFUSED}missing closing ): `(`"),  # the pattern is read first
        ('"abc".find("[") == ""', f"compile: {_REFUSED}missing closing ]: `[`"),
        ('"aXbX".find("X") == "X" && "ab".find("X") == ""', True),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_regex_edges(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression) == expected
