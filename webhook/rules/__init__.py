"""The rule catalogue: every rule module's `RULES`, by id.

The modules are listed by name (adding one is a one-line edit below); a duplicate id fails at import. The
policy (`webhook.policy`) sits below the rules and names none of them: once built, the catalogue is bound to
it (`bind_rules`) as the `RuleBook` a policy file's rule ids are checked against and default actions come from.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType

from webhook.findings import Action
from webhook.policy import Policy, bind_rules
from webhook.rules import meta as meta
from webhook.rules import numa as numa
from webhook.rules import numa_alias as numa_alias
from webhook.rules import numa_slice as numa_slice
from webhook.rules import resourceslice as resourceslice
from webhook.rules import runner as runner
from webhook.rules import selectors as selectors
from webhook.rules import standard_attrs as standard_attrs
from webhook.rules import topology as topology
from webhook.rules.base import Rule, RuleContext

# One import line per module (`as` keeps the lines apart); adding a module is that line plus one here.
_MODULES = (
    resourceslice,
    numa,
    numa_alias,
    numa_slice,
    standard_attrs,
    meta,
    selectors,
    runner,
    topology,
)
LIST_FORM_RULE = "numa-node-list-form"


def list_form_action(policy: Policy) -> Action:
    """numa-node-list-form follows the policy's numaNode.listForm (allow = off) unless its `rules:` names it."""
    return Action.OFF if policy.list_form == "allow" else Action(policy.list_form)


# Rules whose default action is one of the policy's options rather than a fixed one.
_OPTION_ACTIONS: Mapping[str, Callable[[Policy], Action]] = {LIST_FORM_RULE: list_form_action}


def _catalogue(rules: Iterable[Rule]) -> Mapping[str, Rule]:
    by_id: dict[str, Rule] = {}
    for rule in rules:
        if rule.id in by_id:
            raise ImportError(f"duplicate rule id {rule.id!r} in the catalogue")
        by_id[rule.id] = rule
    return MappingProxyType(by_id)


class Book:
    """The catalogue as the policy sees it (`webhook.policy.RuleBook`): known ids and default actions."""

    def __init__(self, rules: Mapping[str, Rule]) -> None:
        self.rules = rules

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in self.rules

    def default_action(self, rule_id: str, policy: Policy) -> Action:
        follow = _OPTION_ACTIONS.get(rule_id)
        if follow is not None:
            return follow(policy)
        rule = self.rules.get(rule_id)
        return rule.default if rule is not None else Action.WARN  # an id no rule has: never asked by the runner


CATALOGUE: Mapping[str, Rule] = _catalogue(rule for module in _MODULES for rule in module.RULES)
if LIST_FORM_RULE not in CATALOGUE:
    raise ImportError(f"{LIST_FORM_RULE}, whose action follows numaNode.listForm, is not in the catalogue")
BOOK = Book(CATALOGUE)  # what loaders pass to `Policy.load(..., rules=BOOK)`
bind_rules(BOOK)

__all__ = ["BOOK", "CATALOGUE", "LIST_FORM_RULE", "Book", "Rule", "RuleContext", "list_form_action"]
