"""A `draguard.io/ignore` annotation without a reason (naming no rule, or one) and naming two unknown rules. The findings in full through `run_rules`. Named `test_meta_suppression*` so mutation
testing runs it first on `webhook.rules.meta`."""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

import pytest

from tests.webhook.rules.release_cases import findings_of
from tests.webhook.rules.slice_cases import Found

CASES = [
    pytest.param({"metadata.annotations": {"draguard.io/ignore": ":"}}, 'v1',
                 [('suppression-reason-missing', 'metadata.annotations[draguard.io/ignore]', 'draguard.io/ignore names no rule without a reason, so it suppresses nothing', 'write "<rule>[,<rule>]: <reason>", e.g. "numa-node-order: why this is fine"')],
                 id='a suppression naming no rule and no reason'),
    pytest.param({"metadata.annotations": {"draguard.io/ignore": "numa-node-range"}}, 'v1',
                 [('suppression-reason-missing', 'metadata.annotations[draguard.io/ignore]', 'draguard.io/ignore names numa-node-range without a reason, so it suppresses nothing', 'write "<rule>[,<rule>]: <reason>", e.g. "numa-node-range: why this is fine"')],
                 id='a suppression naming a rule and no reason'),
    pytest.param({"metadata.annotations": {"draguard.io/ignore": "no-such-rule,other-rule: because"}}, 'v1',
                 [('suppression-reason-missing', 'metadata.annotations[draguard.io/ignore]', 'draguard.io/ignore names unknown rule no-such-rule, other-rule', 'use rule ids from `draguard rules` (or the README rule catalogue)')],
                 id='a suppression naming two unknown rules'),
]


@pytest.mark.parametrize(("changes", "version", "expected"), CASES)
def test_in_full(changes: dict[str, Any], version: str, expected: Found) -> None:
    assert findings_of(changes, version) == expected
