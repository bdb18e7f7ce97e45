"""CEL selector limits at limit - 1, at the limit and just past it, through the rule runner.

Upstream sources (k8s.io/api/resource/v1/types.go): CELSelectorExpressionMaxLength = 10 * 1024 (bytes, so a
multi-byte character counts for its UTF-8 length) and CELSelectorExpressionMaxCost = 1,000,000.
"""

from __future__ import annotations

import pytest

from tests.builders import device_class_with_selector
from webhook.policy import Policy
from webhook.run import run_rules

PATH = "spec.selectors[0].cel.expression"
PREFIX = 'device.driver == "'


def findings(expression: str) -> list[tuple[str, str, str]]:
    outcome = run_rules(device_class_with_selector(expression), Policy.default())
    return [(f.rule, str(f.path), f.message) for f in outcome.findings]


def of_bytes(size: int, char: str = "a") -> str:
    """A valid selector of exactly `size` UTF-8 bytes (`char` is 1 or 2 bytes; the rest is ASCII padding)."""
    room = size - len(PREFIX) - 1
    width = len(char.encode())
    body = char * (room // width) + "a" * (room % width)
    expression = PREFIX + body + '"'
    assert len(expression.encode()) == size
    return expression


@pytest.mark.parametrize("char", ["a", "é"])
@pytest.mark.parametrize("size", [10 * 1024 - 1, 10 * 1024])
def test_expression_up_to_10_kib_is_accepted(size: int, char: str) -> None:
    assert findings(of_bytes(size, char)) == []


@pytest.mark.parametrize("char", ["a", "é"])
def test_expression_of_10_kib_plus_one_byte_is_too_long(char: str) -> None:
    expression = of_bytes(10 * 1024 + 1, char)
    if char == "é":
        assert len(expression) < 10 * 1024  # fewer characters than the limit: bytes are what counts
    assert findings(expression) == [("selector-too-long", PATH, "Too long: may not be more than 10240 bytes")]


def nested(outer: int, inner: int) -> str:
    """Two nested comprehensions over list literals: draguard's estimate is outer * inner."""
    def literal(n: int) -> str:
        return "[" + ",".join(["0"] * n) + "]"
    return f"{literal(outer)}.all(x, {literal(inner)}.all(y, x == y))"


# 1,000,001 = 101 * 9901 needs a literal too long for a selector; 1,000,005 = 409 * 2445 is the nearest
# cost above the limit that two list literals within 10 KiB can reach.
@pytest.mark.parametrize(("outer", "inner"), [(999, 1001), (1000, 1000)])
def test_cost_up_to_one_million_is_accepted(outer: int, inner: int) -> None:
    assert findings(nested(outer, inner)) == []


def test_cost_past_one_million_is_reported() -> None:
    assert findings(nested(409, 2445)) == [(
        "selector-cost", PATH,
        "nested comprehensions visit up to 1,000,005 elements (draguard's estimate from list literals and the "
        "Kubernetes size bounds); the API server rejects selectors estimated above 1,000,000 and evaluation stops "
        "at that cost")]
