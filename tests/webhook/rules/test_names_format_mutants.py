"""The name validators' texts and edges as upstream gives them: RegexError with and without examples, label
values at 63/64 bytes, and how a long map key is shortened in a field path (`truncate_if_too_long`) at its
limit and one past it. Named `test_names_*` so mutation testing runs it first on `webhook.rules.k8s.names`."""

from __future__ import annotations

import pytest

from webhook.rules.k8s.names import LABEL_VALUE_ERROR, is_valid_label_value, regex_error, truncate_if_too_long


def test_regex_error() -> None:
    assert regex_error("m", "f") == "m (regex used for validation is 'f')"
    assert regex_error("m", "f", "a") == "m (e.g. 'a', regex used for validation is 'f')"
    assert regex_error("m", "f", "a", "b") == "m (e.g. 'a',  or 'b', regex used for validation is 'f')"


@pytest.mark.parametrize(("value", "errors"), [
    ("a" * 63, []), ("a" * 64, ["must be no more than 63 bytes"]),
    ("a" * 62 + "!", [LABEL_VALUE_ERROR]), ("a" * 63 + "!", ["must be no more than 63 bytes", LABEL_VALUE_ERROR]),
])
def test_label_values_at_the_limit(value: str, errors: list[str]) -> None:
    assert is_valid_label_value(value) == errors


def test_a_label_value_of_63_characters_in_64_bytes_is_too_long() -> None:
    assert is_valid_label_value("a" * 62 + "é") == ["must be no more than 63 bytes", LABEL_VALUE_ERROR]


@pytest.mark.parametrize(("text", "limit", "shown"), [
    ("a" * 63, 63, "a" * 63),
    ("x" * 30 + "abcd" + "y" * 30, 63, "x" * 30 + "..." + "y" * 30),
    ("x" * 31 + "ab" + "y" * 31, 63, "x" * 30 + "..." + "y" * 30),
    ("x" * 30 + "abc" + "y" * 30, 62, "x" * 30 + "..." + "y" * 29),
    ("a" * 16, 5, "a" * 16),
    ("x" * 8 + "ab" + "y" * 7, 5, "x" * 7 + "..." + "y" * 6),
])
def test_truncate_if_too_long(text: str, limit: int, shown: str) -> None:
    assert truncate_if_too_long(text, limit) == shown
