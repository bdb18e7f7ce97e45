"""`check(rule_id, obj)`: one rule's findings as (path, message) pairs, through the real runner."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from webhook.policy import Policy
from webhook.run import run_rules

Check = Callable[..., list[tuple[str, str]]]


def findings_of(rule_id: str, obj: dict[str, Any], policy: Policy | None = None,
                old: dict[str, Any] | None = None) -> list[tuple[str, str]]:
    """The findings `rule_id` reports on `obj` (the rule forced on), sorted by path."""
    policy = policy or Policy.default()
    if policy.action(rule_id).value == "off":
        policy = Policy.from_mapping({"rules": {rule_id: "warn"}})
    outcome = run_rules(obj, policy, old=old)
    return [(str(f.path), f.message) for f in outcome.findings if f.rule == rule_id]


@pytest.fixture
def check() -> Check:
    return findings_of
