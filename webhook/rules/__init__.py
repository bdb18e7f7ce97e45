"""The rule catalogue: every rule module's `RULES`, by id.

The modules are listed by name (adding one is a one-line edit below); a duplicate id fails at import.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

from webhook.rules import meta as meta
from webhook.rules import numa as numa
from webhook.rules import numa_alias as numa_alias
from webhook.rules import numa_slice as numa_slice
from webhook.rules import resourceslice as resourceslice
from webhook.rules import runner as runner
from webhook.rules import selectors as selectors
from webhook.rules import standard_attrs as standard_attrs
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
)


def _catalogue(rules: Iterable[Rule]) -> Mapping[str, Rule]:
    by_id: dict[str, Rule] = {}
    for rule in rules:
        if rule.id in by_id:
            raise ImportError(f"duplicate rule id {rule.id!r} in the catalogue")
        by_id[rule.id] = rule
    return MappingProxyType(by_id)


CATALOGUE: Mapping[str, Rule] = _catalogue(rule for module in _MODULES for rule in module.RULES)

__all__ = ["CATALOGUE", "Rule", "RuleContext"]
