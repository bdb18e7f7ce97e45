"""Findings in full (rule, field path, message, in the runner's order) for small ResourceSlices that each break
one thing: how values are quoted in messages (Go's JSON and strconv.Quote). Fast through `run_rules`, so mutation testing runs them first on
`webhook.rules.k8s.errors` (tests/mutation); the messages are upstream's (k8s.io/kubernetes pkg/apis/resource/validation).
"""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

import pytest

from tests.webhook.rules.slice_cases import Found, case

CASES = [
    pytest.param({'spec.nodeName': 'a\x80b\xa0c\u2028\ud800'}, 'v1',
                 [('k8s-node-selection', 'spec.nodeName', 'Invalid value: "a\\u0080b\\u00a0c\\u2028\\ud800": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')', 'set exactly one; booleans must be true or left out')],
                 id='quote control characters'),
    pytest.param({'spec.pool.generation': {'b': 1, 'a': [1.5, None]}}, 'v1',
                 [('k8s-wire-type', 'spec.pool.generation', 'Invalid value: {"a":[1.5,null],"b":1}: must be of type integer', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='quote map value'),
    pytest.param({'metadata.name': 'Bad_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'}, 'v1',
                 [('k8s-object-meta', 'metadata.name', 'Invalid value: "Bad_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')', 'use a lower-case DNS subdomain as the name, like `node-1-gpu.example.com`'), ('k8s-object-meta', 'metadata.name', 'Invalid value: "Bad_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx": must be no more than 253 characters', 'use a lower-case DNS subdomain as the name, like `node-1-gpu.example.com`')],
                 id='quote long value'),
]


@pytest.mark.parametrize(("changes", "version", "expected"), CASES)
def test_errors_findings_in_full(changes: dict[str, Any], version: str, expected: Found) -> None:
    assert case(changes, version) == expected

