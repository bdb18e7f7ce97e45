"""selector-compile against the policy's release and gates: what that API server's environment for new
expressions lacks, although celext (the newest environment for stored ones) compiles it.

- `includes()` is declared only with DRAListTypeAttributes (KEP-5491, alpha in 1.36): a 1.34/1.35 API server, or a
  1.36+ one with the gate off, refuses a selector using it with cel-go's `undeclared reference to 'includes'`
  (k8s.io/dynamic-resource-allocation cel/compile.go; upstream test `includes-function-undeclared-error`);
- `device.allowMultipleAllocations` exists only with DRAConsumableCapacity (alpha, off in 1.34/1.35; beta, on from
  1.36): `undefined field 'allowMultipleAllocations'` without it.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import claim_with_selector
from webhook.policy import Policy
from webhook.rules.base import RuleContext
from webhook.rules.selectors import RULES

RULE = next(rule for rule in RULES if rule.id == "selector-compile")
NUMA = 'device.attributes["resource.kubernetes.io"].numaNode'
UNDECLARED = "compilation failed: undeclared reference to 'includes' (in container '')"
UNDEFINED = "compilation failed: undefined field 'allowMultipleAllocations'"


def found(expression: str, **policy: Any) -> list[tuple[str, str]]:
    """(message, the text the finding's span covers) per selector-compile finding."""
    ctx = RuleContext(Policy.from_mapping(policy), ())
    return [(f.message, expression[f.span[0]:f.span[1]] if f.span else "")
            for f in RULE.check(claim_with_selector(expression), ctx)]


@pytest.mark.parametrize(("policy", "refused"), [
    ({"kubernetes": "1.34"}, True),
    ({"kubernetes": "1.35"}, True),
    ({"kubernetes": "1.36"}, False),  # draguard's listTypes default: the gate on
    ({"kubernetes": "1.37"}, False),
    ({"kubernetes": "1.36", "featureGates": {"DRAListTypeAttributes": False}}, True),
    ({"kubernetes": "1.37", "listTypes": "disabled"}, True),
    ({"kubernetes": "1.37", "featureGates": {"DRAListTypeAttributes": True}}, False),
])
def test_includes_compiles_only_where_the_release_declares_it(policy: dict[str, Any], refused: bool) -> None:
    assert found(f"{NUMA}.includes(1)", **policy) == ([(UNDECLARED, "includes")] if refused else [])


def test_one_finding_per_selector_however_many_includes() -> None:
    assert found(f"{NUMA}.includes(1) || {NUMA}.includes(2)", kubernetes="1.35") == [(UNDECLARED, "includes")]


def test_a_selector_without_includes_compiles_on_every_release() -> None:
    for version in ("1.34", "1.35", "1.36", "1.37"):
        assert found(f"{NUMA} == 1", kubernetes=version) == []


@pytest.mark.parametrize(("policy", "refused"), [
    ({"kubernetes": "1.34"}, True),
    ({"kubernetes": "1.35"}, True),
    ({"kubernetes": "1.35", "featureGates": {"DRAConsumableCapacity": True}}, False),
    ({"kubernetes": "1.36"}, False),
    ({"kubernetes": "1.36", "featureGates": {"DRAConsumableCapacity": False}}, True),
])
def test_allow_multiple_allocations_needs_consumable_capacity(policy: dict[str, Any], refused: bool) -> None:
    expression = "device.allowMultipleAllocations"
    assert found(expression, **policy) == ([(UNDEFINED, "allowMultipleAllocations")] if refused else [])


def test_the_name_in_a_string_is_not_the_field() -> None:
    assert found('device.driver == "allowMultipleAllocations"', kubernetes="1.35") == []


def test_a_non_bool_result_is_reported_in_the_dra_compilers_words() -> None:
    """cel/compile.go reports the result type without the "compilation failed: " of cel-go's issues."""
    assert found("1 + 1", kubernetes="1.37") == [("must evaluate to bool or the unknown type, not int", "1")]
    assert found("1 +", kubernetes="1.37")[0][0].startswith("compilation failed: ")
