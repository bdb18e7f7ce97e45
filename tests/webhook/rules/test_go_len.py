"""Go's len() of a wire string, and the name checks on strings Python cannot encode as UTF-8 (YAML and JSON let a lone
surrogate through; the API server's decoder reads it as U+FFFD, three bytes)."""

from __future__ import annotations

import pytest

from webhook.rules.k8s.decode import go_len
from webhook.rules.k8s.names import LABEL_ERROR, is_dns1123_label, is_qualified_name, max_len_error


@pytest.mark.parametrize(("text", "length"), [
    ("", 0), ("a", 1), ("é", 2), ("\u20ac", 3), ("\U0001f600", 4), ("\ud800", 3), ("a\udfffb", 5),
])
def test_go_len_counts_utf8_bytes(text: str, length: int) -> None:
    assert go_len(text) == length


@pytest.mark.parametrize(("text", "errors"), [
    ("a" * 62 + "\ud800", [max_len_error(63), LABEL_ERROR]),  # 65 bytes
    ("a" * 60 + "\ud800", [LABEL_ERROR]),  # 63 bytes: at the limit
    ("a" * 61 + "\ud800", [max_len_error(63), LABEL_ERROR]),  # 64 bytes
])
def test_a_label_with_a_lone_surrogate_is_judged_not_raised(text: str, errors: list[str]) -> None:
    assert is_dns1123_label(text) == errors


def test_a_qualified_name_with_a_lone_surrogate_is_judged() -> None:
    assert is_qualified_name("\ud800") != []
