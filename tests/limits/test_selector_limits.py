"""CEL selector limits at limit - 1, at the limit and just past it, through the rule runner.

Upstream sources (k8s.io/api/resource/v1/types.go): CELSelectorExpressionMaxLength = 10 * 1024 (bytes, so a
multi-byte character counts for its UTF-8 length) and CELSelectorExpressionMaxCost = 1,000,000.
"""

from __future__ import annotations

import pytest

import celext
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


def nested(outer: int, inner: int, body: str = "x == y", tail: str = "") -> str:
    """Two nested comprehensions over list literals; Kubernetes' static estimate grows as outer * inner."""
    def literal(n: int) -> str:
        return "[" + ",".join(["0"] * n) + "]"
    return f"{literal(outer)}.all(x, {literal(inner)}.all(y, {body})){tail}"


# Selectors under 10 KiB whose static estimate (cel-go's checker with Kubernetes' estimators, the figure the
# API server compares with CELSelectorExpressionMaxCost) is exactly the limit - 1, the limit and the limit + 1.
AT_LIMIT_MINUS_ONE = nested(3891, 27, "x == y && y == x", " && 1 == 1")
AT_LIMIT = nested(3891, 27, "x == y && y == x", " && 1 == 1 && 2 == 2")
AT_LIMIT_PLUS_ONE = nested(1845, 88)


@pytest.mark.parametrize(("expression", "estimate"), [(AT_LIMIT_MINUS_ONE, 999_999), (AT_LIMIT, 1_000_000)])
def test_cost_up_to_one_million_is_accepted(expression: str, estimate: int) -> None:
    assert celext.compile(expression).cost[1] == estimate
    assert findings(expression) == []


def test_cost_past_one_million_is_reported() -> None:
    assert findings(AT_LIMIT_PLUS_ONE) == [(
        "selector-cost", PATH,
        "too complex, exceeds cost limit (Kubernetes' static estimate: 1,000,001 cost units, limit 1,000,000); "
        "the API server rejects this selector")]
