"""The ResourceSlice rules that CEL can express, as ValidatingAdmissionPolicies the API server runs itself.

`build(policy)` is a pure function from a draguard `Policy` to Kubernetes objects: one
ValidatingAdmissionPolicy and one ValidatingAdmissionPolicyBinding per action the policy uses for these
rules (a binding's `validationActions` apply to every validation of its policy, so deny, warn and audit rules
cannot share a policy):

    deny  -> validationActions [Deny]    the write is rejected
    warn  -> validationActions [Warn]    an HTTP Warning on the response (kubectl prints it)
    audit -> validationActions [Audit]   an audit annotation, the write goes through
    off   -> the rule is left out

Covered (draguard's own rules; Kubernetes validates none of these attributes' values): numa-node-type,
numa-node-range, numa-node-duplicates and numa-node-list-form on `resource.kubernetes.io/numaNode`; the vendor
alias rules numa-node-alias-mismatch, numa-node-alias-type and numa-node-standard-missing for the policy's alias
list; pcie-root-type and pci-bus-id-format on `resource.kubernetes.io/pcieRoot` and `pciBusID`. Each rule is one
variable listing the names of the devices that break it, so the message can name the first one. The expressions
use only standard CEL (`all`, `exists`, `exists_one`, `filter`, `map`, `matches`), so they mean the same to the
API server and to cel-python (the tests evaluate them there against the webhook's own decisions).

The `draguard.io/ignore` annotation suppresses a rule exactly as it does for the webhook (`run.py`: the rule id
before the first colon, a non-blank reason after it), matched with one RE2 pattern per rule.

Not expressible, and left to the webhook: list order after the physical node (no index access in standard CEL
macros), consistency between the devices of one slice, selector analysis (celext).

Every object declares the profile it targets (annotations `draguard.io/kubernetes-version` and
`draguard.io/feature-gates`: every DRA gate of that release with its value). Releases before 1.36 have no
list attributes. The API server would still accept and run the expressions, which read `ints` and `strings` (in
admission CEL `object` is dynamically typed, and `has()` of a field the object lacks is false), but the policy's
type checking against that release's schema would report every list read as an undefined field
(`status.typeChecking`): `build` refuses such a release, a choice of draguard's.

Ratcheting is approximated: in the deny policy a device whose checked part is unchanged from the old object's
device of the same name is not judged again (the webhook demotes such findings to warnings; a binding cannot
demote).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from msgspec import Struct

from webhook.findings import Action
from webhook.policy import Policy
from webhook.rules import LIST_FORM_RULE
from webhook.suppress import ANNOTATION as IGNORE_ANNOTATION

NUMA = "resource.kubernetes.io/numaNode"
PCIE_ROOT = "resource.kubernetes.io/pcieRoot"
PCI_BUS_ID = "resource.kubernetes.io/pciBusID"
MAX_NODE = 1024  # maxNUMANodes in the KEP-6072 helper; the webhook's numa-node-range uses the same bound
# domain:bus:device.function in lower-case hex, as sysfs names it (the webhook's pci-bus-id-format pattern)
PCI_ADDRESS = r"^[0-9a-f]{4}:[0-9a-f]{2}:[01][0-9a-f]\.[0-7]$"
NAME_PREFIX = "draguard-resourceslices"
GENERATED_BY = "draguard policy vap"
VALIDATION_ACTIONS = {Action.DENY: "Deny", Action.WARN: "Warn", Action.AUDIT: "Audit"}
MEMBERS = ("int", "bool", "string", "version", "ints", "bools", "strings", "versions")


class Scope(Struct, frozen=True):
    """The devices a check looks at: the variable listing them, the CEL test for a device `d`, and the part of a
    device that must be unchanged from the old object's namesake for the deny policy to ratchet."""

    variable: str
    present: str
    compared: str
    setup: tuple[tuple[str, str], ...] = ()  # (name, expression) of variables `present` reads, defined first


class Check(Struct, frozen=True):
    """One rule as CEL: `bad` is true for a device `d` in `scope` that breaks the rule."""

    rule: str
    variable: str
    scope: Scope
    bad: str
    message: str


def _attr(name: str) -> str:
    """CEL: the attribute `name` of device `d`."""
    return f'd.attributes["{name}"]'


def _has_other_than(name: str, *allowed: str) -> str:
    """CEL: attribute `name` of `d` sets a union member outside `allowed`."""
    return " || ".join(f"has({_attr(name)}.{m})" for m in MEMBERS if m not in allowed)


def _attribute_scope(name: str, variable: str) -> Scope:
    return Scope(variable, f'has(d.attributes) && "{name}" in d.attributes', f'attributes["{name}"]')


_NUMA = _attribute_scope(NUMA, "numaDevices")
_PCIE = _attribute_scope(PCIE_ROOT, "pcieRootDevices")
_BUS = _attribute_scope(PCI_BUS_ID, "pciBusIDDevices")
_N, _P, _B = _attr(NUMA), _attr(PCIE_ROOT), _attr(PCI_BUS_ID)

CHECKS: tuple[Check, ...] = (
    Check(
        "numa-node-type",
        "numaNodeType",
        _NUMA,
        _has_other_than(NUMA, "int", "ints"),
        f"{NUMA} must be int or ints; publish the physical NUMA node as int: N, or the KEP-6072 list as ints",
    ),
    Check(
        "numa-node-range",
        "numaNodeRange",
        _NUMA,
        f"(has({_N}.int) ? [{_N}.int] : has({_N}.ints) ? {_N}.ints : []).exists(n, n < 0 || n >= {MAX_NODE})",
        f"every numaNode value must be >= 0 and below {MAX_NODE}; omit the attribute while the NUMA node is "
        "unknown instead of publishing -1",
    ),
    # Quadratic in the list length, but bounded: at most 48 values per device and 64 devices once any device has a
    # list (ResourceSliceMaxAttributeValuesPerDevice, ResourceSliceMaxDevicesWithAdvancedFeatures) is about 150,000
    # comparisons, well inside the API server's runtime CEL cost limit of 1,000,000 per expression.
    Check(
        "numa-node-duplicates",
        "numaNodeDuplicates",
        _NUMA,
        f"has({_N}.ints) && !{_N}.ints.all(n, {_N}.ints.exists_one(m, m == n))",
        "a numaNode list names a NUMA node more than once; list each node once, the physical node first",
    ),
    Check(
        LIST_FORM_RULE,
        "numaNodeListForm",
        _NUMA,
        f"has({_N}.ints)",
        "numaNode is published as a list (ints) but the policy of this cluster (numaNode.listForm) expects the "
        "scalar int: publish the physical NUMA node as int: N until the scheduler applies list semantics",
    ),
    Check(
        "pcie-root-type",
        "pcieRootType",
        _PCIE,
        f'{_has_other_than(PCIE_ROOT, "string", "strings")} || (has({_P}.string) && {_P}.string == "") '
        f'|| (has({_P}.strings) && {_P}.strings.exists(s, s == ""))',
        f"{PCIE_ROOT} must be a non-empty string or string list; publish the root complex name (pci0000:00), "
        "or omit the attribute when it is unknown",
    ),
    Check(
        "pci-bus-id-format",
        "pciBusIDFormat",
        _BUS,
        f'!has({_B}.string) || {_has_other_than(PCI_BUS_ID, "string")} || !{_B}.string.matches(r"{PCI_ADDRESS}")',
        f"{PCI_BUS_ID} must be a string with the PCI address dddd:bb:dd.f in lower-case hex, as sysfs names it "
        "(0000:3b:00.0)",
    ),
)


def _alias_pairs(configured: Sequence[str]) -> str:
    """CEL: `[qualified key, bare key or ""]` per vendor NUMA alias of this slice (webhook/rules/numa_alias.py).

    The policy's aliases, then `<driver>/numaNode` and `<driver>/numa`. A bare key counts when the alias's domain
    is the slice's driver (Kubernetes gives an unqualified key the driver's domain); both are checked when both are
    set. "" is never an attribute name (the API server rejects it).
    """
    driver = "variables.driver"
    pairs = []
    for name in dict.fromkeys(a for a in configured if a != NUMA):
        domain, _, ident = name.partition("/")
        pairs.append(f'["{name}", {driver} == "{domain}" ? "{ident}" : ""]')
    # The standard attribute is no alias of itself, should a driver be called resource.kubernetes.io.
    own = f'{driver} != "" && {driver} + "/numaNode" != "{NUMA}"'
    pairs.append(f'{own} ? [{driver} + "/numaNode", "numaNode"] : ["", ""]')
    pairs.append(f'{driver} != "" ? [{driver} + "/numa", "numa"] : ["", ""]')
    return "[" + ", ".join(pairs) + "]"


def alias_checks(configured: Sequence[str]) -> tuple[Check, ...]:
    """The vendor-alias rules for the policy's alias list: devices that publish any alias are in scope."""
    published = "p[0] in d.attributes || p[1] in d.attributes"
    scope = Scope(
        "aliasDevices",
        f"has(d.attributes) && variables.aliasKeys.exists(p, {published})",
        "attributes",
        setup=(
            ("driver", 'has(object.spec.driver) ? object.spec.driver : ""'),
            ("aliasKeys", _alias_pairs(configured)),
        ),
    )
    # Both spellings when both are set, as the webhook checks each (CEL files them under one key and keeps
    # whichever the Go map yields last).
    aliases = "(" + " + ".join(f"variables.aliasKeys.filter(p, p[{i}] in d.attributes).map(p, d.attributes[p[{i}]])"
                               for i in (0, 1)) + ")"
    physical = (
        f'("{NUMA}" in d.attributes ? (has({_N}.int) ? [{_N}.int] : '
        f"has({_N}.ints) && size({_N}.ints) > 0 ? [{_N}.ints[0]] : []) : [])"
    )
    return (
        Check(
            "numa-node-alias-mismatch",
            "numaNodeAliasMismatch",
            scope,
            # Only a usable physical node is compared (as the webhook does); numa-node-range reports a bad one.
            f"{physical}.exists(n, n >= 0 && n < {MAX_NODE} && "
            f"{aliases}.exists(a, has(a.int) && a.int >= 0 && a.int != n))",
            f"a vendor NUMA alias differs from the physical node in {NUMA}; publish the same physical node in both",
        ),
        Check(
            "numa-node-alias-type",
            "numaNodeAliasType",
            scope,
            f"{aliases}.exists(a, !has(a.int) || a.int < 0)",
            "a vendor NUMA alias is not a non-negative int; publish int: N, and omit the alias while the node is "
            "unknown",
        ),
        Check(
            "numa-node-standard-missing",
            "numaNodeStandardMissing",
            scope,
            f'!("{NUMA}" in d.attributes) && {aliases}.exists(a, has(a.int) && a.int >= 0)',
            f"the device publishes a vendor NUMA alias but not {NUMA}, so cross-driver matchAttribute cannot see "
            "its NUMA node; also publish the standard attribute (KEP-6072)",
        ),
    )


def checks_for(policy: Policy) -> tuple[Check, ...]:
    """Every check this module can express for `policy` (the alias rules depend on its alias list)."""
    return CHECKS + alias_checks(policy.aliases)


_IGNORE = (
    f'has(object.metadata.annotations) && "{IGNORE_ANNOTATION}" in object.metadata.annotations ? '
    f'object.metadata.annotations["{IGNORE_ANNOTATION}"] : ""'
)


def _devices(scope: Scope, *, old: bool = False) -> dict[str, str]:
    """The variable listing the devices in `scope` (of the old object, on UPDATE, when `old`)."""
    if old:
        name = "old" + scope.variable[0].upper() + scope.variable[1:]
        guard, source = 'request.operation == "UPDATE" && has(oldObject.spec.devices)', "oldObject.spec.devices"
    else:
        name, guard, source = scope.variable, "has(object.spec.devices)", "object.spec.devices"
    return {"name": name, "expression": f"{guard} ? {source}.filter(d, {scope.present}) : []"}


def _unchanged(scope: Scope) -> str:
    """CEL: device `d` has a namesake in the old object with the same `scope.compared` (ratcheting)."""
    old = _devices(scope, old=True)["name"]
    return f"variables.{old}.exists(o, o.name == d.name && o.{scope.compared} == d.{scope.compared})"


def covered_rules(policy: Policy) -> dict[str, Action]:
    """The rules this module expresses that the catalogue knows, with the policy's action for each."""
    from webhook.rules import CATALOGUE

    return {check.rule: policy.action(check.rule) for check in checks_for(policy) if check.rule in CATALOGUE}


def build(policy: Policy) -> list[dict[str, Any]]:
    """Every ValidatingAdmissionPolicy, then every binding, for the rules the policy does not switch off."""
    from webhook.errors import DraguardError

    profile = policy.profile
    if not profile.has_field("attribute.ints"):
        raise DraguardError(f"policy vap: Kubernetes {profile.version} has no list attributes (ints, strings), which "
                            "the generated expressions read: its type checking would warn on each of them; target "
                            "1.36 or later, or use the webhook")
    annotations = {
        "draguard.io/generated-by": GENERATED_BY,
        "draguard.io/kubernetes-version": profile.version,
        "draguard.io/feature-gates": ",".join(f"{g}={str(v).lower()}" for g, v in profile.gate_values().items()),
    }
    actions = covered_rules(policy)
    policies: list[dict[str, Any]] = []
    bindings: list[dict[str, Any]] = []
    for action in (Action.DENY, Action.WARN, Action.AUDIT):
        checks = [check for check in checks_for(policy) if actions.get(check.rule) is action]
        if not checks:
            continue
        name = f"{NAME_PREFIX}-{action.value}"
        policies.append(_policy(name, checks, annotations, ratchet=action is Action.DENY))
        bindings.append(_binding(name, action, annotations))
    return policies + bindings


def _metadata(name: str, annotations: dict[str, str]) -> dict[str, Any]:
    return {
        "name": name,
        "labels": {"app.kubernetes.io/name": "draguard", "app.kubernetes.io/component": "admission-policy"},
        "annotations": dict(annotations),
    }


def _policy(name: str, checks: Sequence[Check], annotations: dict[str, str], *, ratchet: bool) -> dict[str, Any]:
    scopes = list(dict.fromkeys(check.scope for check in checks))
    setup = dict(item for scope in scopes for item in scope.setup)
    variables = [{"name": name, "expression": expression} for name, expression in setup.items()]
    variables += [_devices(scope) for scope in scopes] + [{"name": "ignore", "expression": _IGNORE}]
    if ratchet:
        variables += [_devices(scope, old=True) for scope in scopes]
    for check in checks:
        bad = f"({check.bad}) && !{_unchanged(check.scope)}" if ratchet else check.bad
        found = f"variables.{check.scope.variable}.filter(d, {bad}).map(d, d.name)"
        suppressed = f'variables.ignore.matches(r"{_suppression_pattern(check.rule)}")'
        variables.append({"name": check.variable, "expression": f"{suppressed} ? [] : {found}"})
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": _metadata(name, annotations),
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


def _binding(name: str, action: Action, annotations: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": _metadata(name, annotations),
        "spec": {"policyName": name, "validationActions": [VALIDATION_ACTIONS[action]]},
    }
