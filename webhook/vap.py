"""The numaNode rules that CEL can express, as a ValidatingAdmissionPolicy the API server runs itself.

`build(policy)` is a pure function from a draguard `Policy` to Kubernetes objects: one
ValidatingAdmissionPolicy and one ValidatingAdmissionPolicyBinding per action the policy uses for these
rules (a binding's `validationActions` apply to every validation of its policy, so deny, warn and audit rules
cannot share a policy):

    deny  -> validationActions [Deny]    the write is rejected
    warn  -> validationActions [Warn]    an HTTP Warning on the response (kubectl prints it)
    audit -> validationActions [Audit]   an audit annotation, the write goes through
    off   -> the rule is left out

Covered (draguard's own rules; Kubernetes has no numaNode validation): numa-node-type, numa-node-range,
numa-node-duplicates and numa-node-list-form, over `resource.kubernetes.io/numaNode` of every device. Each rule
is one variable listing the names of the devices that break it, so the message can name the first one. The
expressions use only standard CEL macros (`all`, `exists`, `exists_one`, `filter`, `map`), so they mean the
same to the API server and to cel-python (the tests evaluate them there against the webhook's own decisions).

The `draguard.io/ignore` annotation suppresses a rule exactly as it does for the webhook (`run.py`: the rule id
before the first colon, a non-blank reason after it), matched with one RE2 pattern per rule.

Not expressible, and left to the webhook: list order after the physical node, vendor-alias agreement, per-slice
consistency, selector analysis (celext). Ratcheting is approximated: in the deny policy a device whose numaNode
attribute is unchanged from the old object's device of the same name is not judged again (the webhook demotes
such findings to warnings; a binding cannot demote).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from webhook.findings import Action
from webhook.policy import LIST_FORM_RULE, Policy
from webhook.rules.meta import IGNORE_ANNOTATION

NUMA = "resource.kubernetes.io/numaNode"
MAX_NODE = 1024  # maxNUMANodes in the KEP-6072 helper; the webhook's numa-node-range uses the same bound
NAME_PREFIX = "draguard-numa-node"
GENERATED_BY = "draguard policy vap"
VALIDATION_ACTIONS = {Action.DENY: "Deny", Action.WARN: "Warn", Action.AUDIT: "Audit"}

_ATTR = f'd.attributes["{NUMA}"]'
_VALUES = f"(has({_ATTR}.int) ? [{_ATTR}.int] : has({_ATTR}.ints) ? {_ATTR}.ints : [])"
_OTHER_MEMBERS = ("bool", "string", "version", "bools", "strings", "versions")


@dataclass(frozen=True, slots=True)
class Check:
    """One rule as CEL: `bad` is true for a device `d` (one that has the numaNode attribute) breaking the rule."""

    rule: str
    variable: str
    bad: str
    message: str


CHECKS: tuple[Check, ...] = (
    Check(
        "numa-node-type",
        "numaNodeType",
        " || ".join(f"has({_ATTR}.{member})" for member in _OTHER_MEMBERS),
        f"{NUMA} must be int or ints; publish the physical NUMA node as int: N, or the KEP-6072 list as ints",
    ),
    Check(
        "numa-node-range",
        "numaNodeRange",
        f"{_VALUES}.exists(n, n < 0 || n >= {MAX_NODE})",
        f"every numaNode value must be >= 0 and below {MAX_NODE}; omit the attribute while the NUMA node is "
        "unknown instead of publishing -1",
    ),
    Check(
        "numa-node-duplicates",
        "numaNodeDuplicates",
        f"has({_ATTR}.ints) && !{_ATTR}.ints.all(n, {_ATTR}.ints.exists_one(m, m == n))",
        "a numaNode list names a NUMA node more than once; list each node once, the physical node first",
    ),
    Check(
        LIST_FORM_RULE,
        "numaNodeListForm",
        f"has({_ATTR}.ints)",
        "numaNode is published as a list (ints) but the policy of this cluster (numaNode.listForm) expects the "
        "scalar int: publish the physical NUMA node as int: N until the scheduler applies list semantics",
    ),
)

_NUMA_DEVICES = (
    f'has(object.spec.devices) ? object.spec.devices.filter(d, has(d.attributes) && "{NUMA}" in d.attributes) : []'
)
_OLD_NUMA_DEVICES = (
    'request.operation == "UPDATE" && has(oldObject.spec.devices) ? '
    f'oldObject.spec.devices.filter(d, has(d.attributes) && "{NUMA}" in d.attributes) : []'
)
_IGNORE = (
    f'has(object.metadata.annotations) && "{IGNORE_ANNOTATION}" in object.metadata.annotations ? '
    f'object.metadata.annotations["{IGNORE_ANNOTATION}"] : ""'
)
_UNCHANGED = f'variables.oldNumaDevices.exists(o, o.name == d.name && o.attributes["{NUMA}"] == {_ATTR})'


def covered_rules(policy: Policy) -> dict[str, Action]:
    """The rules this module expresses that the catalogue knows, with the policy's action for each."""
    from webhook.rules import CATALOGUE

    return {check.rule: policy.action(check.rule) for check in CHECKS if check.rule in CATALOGUE}


def build(policy: Policy) -> list[dict[str, Any]]:
    """Every ValidatingAdmissionPolicy, then every binding, for the rules the policy does not switch off."""
    actions = covered_rules(policy)
    policies: list[dict[str, Any]] = []
    bindings: list[dict[str, Any]] = []
    for action in (Action.DENY, Action.WARN, Action.AUDIT):
        checks = [check for check in CHECKS if actions.get(check.rule) is action]
        if not checks:
            continue
        name = f"{NAME_PREFIX}-{action.value}"
        policies.append(_policy(name, checks, ratchet=action is Action.DENY))
        bindings.append(_binding(name, action))
    return policies + bindings


def _metadata(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "labels": {"app.kubernetes.io/name": "draguard", "app.kubernetes.io/component": "admission-policy"},
        "annotations": {"draguard.io/generated-by": GENERATED_BY},
    }


def _policy(name: str, checks: Sequence[Check], *, ratchet: bool) -> dict[str, Any]:
    variables = [{"name": "numaDevices", "expression": _NUMA_DEVICES}, {"name": "ignore", "expression": _IGNORE}]
    if ratchet:
        variables.append({"name": "oldNumaDevices", "expression": _OLD_NUMA_DEVICES})
    for check in checks:
        bad = f"({check.bad}) && !{_UNCHANGED}" if ratchet else check.bad
        found = f"variables.numaDevices.filter(d, {bad}).map(d, d.name)"
        suppressed = f'variables.ignore.matches(r"{_suppression_pattern(check.rule)}")'
        variables.append({"name": check.variable, "expression": f"{suppressed} ? [] : {found}"})
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": _metadata(name),
        "spec": {
            # Fail: an evaluation error (none is expected; the cost is bounded by the 64-device limit) is
            # handled by the binding's validationActions instead of being silently admitted.
            "failurePolicy": "Fail",
            "matchConstraints": {
                # Equivalent: writes through v1beta1/v1beta2 are converted to v1, the shape these expressions read.
                "matchPolicy": "Equivalent",
                "resourceRules": [
                    {
                        "apiGroups": ["resource.k8s.io"],
                        "apiVersions": ["v1"],
                        "operations": ["CREATE", "UPDATE"],
                        "resources": ["resourceslices"],
                    }
                ],
            },
            "variables": variables,
            "validations": [_validation(check) for check in checks],
        },
    }


def _validation(check: Check) -> dict[str, Any]:
    found = f"variables.{check.variable}"
    more = f'(size({found}) > 1 ? " (and " + string(size({found}) - 1) + " more)" : "")'
    return {
        "expression": f"size({found}) == 0",
        "message": f"{check.rule}: {check.message}",
        "messageExpression": f"{_quote(check.rule + ': device ')} + {found}[0] + {more} + "
        f"{_quote(': ' + check.message)}",
        "reason": "Invalid",
    }


# What Python's str.strip() removes (str.isspace), as an RE2 class body: RE2's \s knows only [\t\n\f\r ].
# CEL string literals in the expressions use double quotes, so the YAML can quote them without escapes.
_SPACE = r"\t\n\x0b\f\r\x1c-\x20\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}"


def _suppression_pattern(rule: str) -> str:
    """RE2 for "the ignore annotation names `rule` before its first colon, and a reason follows" (run.py's parse)."""
    assert re.fullmatch(r"[a-z0-9-]+", rule), rule  # kebab-case ids need no escaping (used in a raw CEL string)
    return rf"^(?:[^:]*,)?[{_SPACE}]*{rule}[{_SPACE}]*(?:,[^:]*)?:(?s:.*)[^{_SPACE}]"


def _quote(text: str) -> str:
    """`text` as a CEL double-quoted string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _binding(name: str, action: Action) -> dict[str, Any]:
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": _metadata(name),
        "spec": {"policyName": name, "validationActions": [VALIDATION_ACTIONS[action]]},
    }
