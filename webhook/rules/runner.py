"""Findings the rule runner itself reports, listed in the catalogue so a policy can set their actions.

Their checks find nothing: `webhook.run` reports them when a rule raises (`rule-error`) or when an object
costs more than the request budget (`budget-exceeded`). Both deny by default (fail closed): an object no rule
could check is not admitted as if it had been checked. Neither is suppressed by `draguard.io/ignore` nor
ratcheted on UPDATE, since the object itself would otherwise switch the check off.
"""

from __future__ import annotations

from collections.abc import Iterator

from webhook.findings import Action, Finding
from webhook.rules.base import DRA_KINDS, Rule, RuleContext
from webhook.wire import Obj

RULE_ERROR = "rule-error"
BUDGET_EXCEEDED = "budget-exceeded"


def _reported_by_the_runner(obj: Obj, ctx: RuleContext) -> Iterator[Finding]:
    return iter(())


RULES = (
    Rule(
        RULE_ERROR,
        kinds=DRA_KINDS,
        default=Action.DENY,
        summary="every rule ran to the end on the object (a rule that raised could not check it: fail closed)",
        remediation="report the finding's message as a draguard bug; meanwhile simplify the object (e.g. selector "
                    "nesting) or set `rule-error` to warn in the policy",
        check=_reported_by_the_runner,
    ),
    Rule(
        BUDGET_EXCEEDED,
        kinds=DRA_KINDS,
        default=Action.DENY,
        summary="checking the object stays within the per-request budget (distinct selectors, CPU and wall time)",
        remediation="split the object (fewer, shorter selectors) or raise the budget with `draguard serve "
                    "--max-selectors/--max-cpu/--deadline`",
        check=_reported_by_the_runner,
    ),
)
