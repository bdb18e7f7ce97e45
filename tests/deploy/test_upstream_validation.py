"""The admission objects draguard ships, against the API server's own validation, which the OpenAPI schema check
(tests/deploy/test_render.py) cannot see: limits, enums, uniqueness and wildcard rules.

The checks mirror kubernetes/kubernetes pkg/apis/admissionregistration/validation/validation.go
(`validateValidatingWebhook`, `validateRuleWithOperations`, `validateResources`, `validateMatchConditions`,
`validateAdmissionReviewVersions`, `validateValidatingAdmissionPolicySpec`, `validateValidation`,
`validateVariable`, `validateValidationActions`) with its limits and messages; each limit is tested at limit-1,
limit and limit+1 below. Fields the API server defaults (namespaceSelector, objectSelector) are not required here.
CEL compilation is not mirrored: tests/deploy/test_base.py and tests/webhook/test_vap.py evaluate the expressions.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from tests.deploy.kustomize import BASE, KUSTOMIZATIONS, VAP, Obj, manifests, render

MAX_MATCH_CONDITIONS = 64
TIMEOUT_RANGE = (1, 30)
ACCEPTED_REVIEW_VERSIONS = ("v1", "v1beta1")
_DNS1123_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN = re.compile(rf"{_DNS1123_LABEL}(\.{_DNS1123_LABEL})*")
_DNS1035_LABEL = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
_QUALIFIED_NAME_PART = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_CEL_IDENTIFIER = re.compile(r"[_a-zA-Z][_a-zA-Z0-9]*")


def _fully_qualified(name: str) -> list[str]:
    """utilvalidation.IsFullyQualifiedName: a DNS subdomain with at least three segments."""
    if not name:
        return ["Required value"]
    if len(name) > 253 or not _DNS1123_SUBDOMAIN.fullmatch(name):
        return ["a lowercase RFC 1123 subdomain"]
    if len(name.split(".")) < 3:
        return ["should be a domain with at least three segments separated by dots"]
    return []


def _qualified_name(name: str) -> bool:
    """apivalidation.ValidateQualifiedName: [prefix/]name, the name at most 63 characters."""
    prefix, _, part = name.rpartition("/")
    if prefix and (len(prefix) > 253 or not _DNS1123_SUBDOMAIN.fullmatch(prefix)):
        return False
    return 0 < len(part) <= 63 and bool(_QUALIFIED_NAME_PART.fullmatch(part))


def _alone(values: list[str], wildcard: str = "*") -> bool:
    return not (len(values) > 1 and wildcard in values)


def _resources(resources: list[str]) -> list[str]:
    errors = [] if resources else ["resources: Required value"]
    whole, subs = set(), set()
    plain = False  # as upstream: the last resource without a subresource decides (`x` set it, `*` clears it)
    for resource in resources:
        if not resource:
            errors.append("resources[]: Required value")
            continue
        res, _, sub = resource.partition("/")
        if "/" not in resource:
            plain = resource != "*"
        else:
            if res in whole:
                errors.append(f"if '{res}/*' is present, must not specify {resource}")
            if sub in subs:
                errors.append(f"if '*/{sub}' is present, must not specify {resource}")
            if sub == "*":
                whole.add(res)
            if res == "*":
                subs.add(sub)
    if len(resources) > 1 and "*/*" in resources:
        errors.append("if '*/*' is present, must not specify other resources")
    if "*" in resources and plain:
        errors.append("if '*' is present, must not specify other resources without subresources")
    return errors


def rule_errors(rule: Obj) -> list[str]:
    errors = []
    operations = rule.get("operations", [])
    if not operations or not _alone(operations):
        errors.append("operations: Required, and '*' alone")
    errors += [f"operations: {o} not supported" for o in operations
               if o not in ("*", "CREATE", "UPDATE", "DELETE", "CONNECT")]
    for field in ("apiGroups", "apiVersions"):
        if not rule.get(field) or not _alone(rule[field]):
            errors.append(f"{field}: Required, and '*' alone")
    errors += ["apiVersions[]: Required value" for v in rule.get("apiVersions", []) if not v]
    errors += _resources(rule.get("resources", []))
    if rule.get("scope", "*") not in ("Cluster", "Namespaced", "*"):
        errors.append(f"scope: {rule['scope']} not supported")
    return errors


def match_condition_errors(conditions: list[Obj]) -> list[str]:
    errors = []
    if len(conditions) > MAX_MATCH_CONDITIONS:
        errors.append(f"matchConditions: Too many: {len(conditions)}: must have at most {MAX_MATCH_CONDITIONS} items")
    names: set[str] = set()
    for condition in conditions:
        if not condition.get("expression", "").strip():
            errors.append("matchConditions[].expression: Required value")
        name = condition.get("name", "")
        if not _qualified_name(name):
            errors.append(f"matchConditions[].name: Invalid value: {name!r}")
        elif name in names:
            errors.append(f"matchConditions[].name: Duplicate value: {name!r}")
        names.add(name)
    return errors


def webhook_configuration_errors(config: Obj) -> list[str]:
    """What the API server's validation of a ValidatingWebhookConfiguration refuses (CREATE)."""
    errors: list[str] = []
    names: set[str] = set()
    for hook in config.get("webhooks", []):
        name = hook.get("name", "")
        errors += [f"{name}: name: {e}" for e in _fully_qualified(name)]
        if name and name in names:
            errors.append(f"{name}: name: Duplicate value")
        names.add(name)
        for rule in hook.get("rules", []):
            errors += [f"{name}: rules: {e}" for e in rule_errors(rule)]
        if hook.get("failurePolicy", "Fail") not in ("Ignore", "Fail"):
            errors.append(f"{name}: failurePolicy: not supported")
        if hook.get("matchPolicy", "Equivalent") not in ("Exact", "Equivalent"):
            errors.append(f"{name}: matchPolicy: not supported")
        if hook.get("sideEffects") not in ("None", "NoneOnDryRun"):  # required; Some/Unknown refused since v1
            errors.append(f"{name}: sideEffects: must specify one of None, NoneOnDryRun")
        timeout = hook.get("timeoutSeconds", 10)
        if not TIMEOUT_RANGE[0] <= timeout <= TIMEOUT_RANGE[1]:
            errors.append(f"{name}: timeoutSeconds: the timeout value must be between 1 and 30 seconds")
        versions = hook.get("admissionReviewVersions", [])
        if len(set(versions)) != len(versions) or not all(_DNS1035_LABEL.fullmatch(v) for v in versions):
            errors.append(f"{name}: admissionReviewVersions: duplicate or invalid version")
        if not set(versions) & set(ACCEPTED_REVIEW_VERSIONS):
            errors.append(f"{name}: admissionReviewVersions: must include at least one of v1, v1beta1")
        client = hook.get("clientConfig", {})
        if ("url" in client) == ("service" in client):
            errors.append(f"{name}: clientConfig: exactly one of url or service is required")
        service = client.get("service", {})
        if service and (not service.get("path", "/").startswith("/") or not 1 <= service.get("port", 443) <= 65535):
            errors.append(f"{name}: clientConfig.service: invalid path or port")
        errors += [f"{name}: {e}" for e in match_condition_errors(hook.get("matchConditions", []))]
    return errors


def admission_policy_errors(obj: Obj) -> list[str]:
    """What the API server's validation of a ValidatingAdmissionPolicy or its binding refuses."""
    spec: dict[str, Any] = obj["spec"]
    errors: list[str] = []
    if obj["kind"] == "ValidatingAdmissionPolicyBinding":
        actions = spec.get("validationActions", [])
        if not spec.get("policyName"):
            errors.append("policyName: Required value")
        if not actions or len(set(actions)) != len(actions) or not set(actions) <= {"Deny", "Warn", "Audit"}:
            errors.append("validationActions: at least one, each once, of Deny, Warn, Audit")
        if {"Deny", "Warn"} <= set(actions):
            errors.append("validationActions: must not contain both Deny and Warn")
        return errors
    if spec.get("failurePolicy") not in ("Ignore", "Fail"):
        errors.append("failurePolicy: Required, Ignore or Fail")
    constraints = spec.get("matchConstraints")
    if not constraints or not constraints.get("resourceRules"):
        errors.append("matchConstraints.resourceRules: Required value")
    else:
        if constraints.get("matchPolicy", "Equivalent") not in ("Exact", "Equivalent"):
            errors.append("matchConstraints.matchPolicy: not supported")
        for rule in constraints["resourceRules"]:
            errors += [f"resourceRules: {e}" for e in rule_errors(rule)]
    errors += match_condition_errors(spec.get("matchConditions", []))
    for variable in spec.get("variables", []):
        if not _CEL_IDENTIFIER.fullmatch(variable.get("name", "")):
            errors.append(f"variables[].name: {variable.get('name')!r} is not a valid CEL identifier")
        if not variable.get("expression", "").strip():
            errors.append("variables[].expression: Required value")
    if not spec.get("validations") and not spec.get("auditAnnotations"):
        errors.append("validations or auditAnnotations must contain at least one item")
    for validation in spec.get("validations", []):
        if not validation.get("expression", "").strip():
            errors.append("validations[].expression: Required value")
        message = validation.get("message", "")
        if message and (not message.strip() or "\n" in message.strip() or "\r" in message.strip()):
            errors.append("validations[].message: must be non-empty and must not contain line breaks")
        if "messageExpression" in validation and not validation["messageExpression"].strip():
            errors.append("validations[].messageExpression: must be non-empty if specified")
        if validation.get("reason", "Invalid") not in ("Forbidden", "Invalid", "RequestEntityTooLarge"):
            errors.append(f"validations[].reason: {validation['reason']} not supported")
    return errors


# --- what draguard ships ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(n for n in KUSTOMIZATIONS if n not in ("vap", "audit")))
def test_every_rendered_webhook_configuration_passes_the_api_servers_validation(name: str) -> None:
    configs = [o for o in render(KUSTOMIZATIONS[name]) if o["kind"] == "ValidatingWebhookConfiguration"]
    assert len(configs) == 1
    assert webhook_configuration_errors(configs[0]) == []


def test_every_admission_policy_and_binding_passes_the_api_servers_validation() -> None:
    objects = manifests(VAP)
    assert {o["kind"] for o in objects} == {"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"}
    assert {o["metadata"]["name"]: admission_policy_errors(o) for o in objects} == {
        o["metadata"]["name"]: [] for o in objects}


# --- the checks above, at their limits ------------------------------------------------------------------------


def _base_config() -> Obj:
    (config,) = [o for o in manifests(BASE) if o["kind"] == "ValidatingWebhookConfiguration"]
    return copy.deepcopy(config)


@pytest.mark.parametrize(("timeout", "valid"), [(0, False), (1, True), (2, True), (29, True), (30, True),
                                                 (31, False)])
def test_timeout_seconds_is_between_1_and_30(timeout: int, valid: bool) -> None:
    config = _base_config()
    config["webhooks"][0]["timeoutSeconds"] = timeout
    assert (webhook_configuration_errors(config) == []) is valid


@pytest.mark.parametrize(("count", "valid"), [(MAX_MATCH_CONDITIONS - 1, True), (MAX_MATCH_CONDITIONS, True),
                                               (MAX_MATCH_CONDITIONS + 1, False)])
def test_at_most_64_match_conditions(count: int, valid: bool) -> None:
    config = _base_config()
    config["webhooks"][0]["matchConditions"] = [{"name": f"c-{i}", "expression": "true"} for i in range(count)]
    assert (webhook_configuration_errors(config) == []) is valid


@pytest.mark.parametrize(("length", "valid"), [(62, True), (63, True), (64, False)])
def test_a_match_condition_name_is_a_qualified_name_of_at_most_63_characters(length: int, valid: bool) -> None:
    config = _base_config()
    config["webhooks"][0]["matchConditions"][0]["name"] = "c" * length
    assert (webhook_configuration_errors(config) == []) is valid


def test_match_condition_names_are_unique_within_a_webhook() -> None:
    config = _base_config()
    conditions = config["webhooks"][0]["matchConditions"]
    conditions.append(dict(conditions[0]))
    assert webhook_configuration_errors(config) == ["resourceslices.draguard.io: matchConditions[].name: "
                                                    "Duplicate value: 'has-devices'"]


@pytest.mark.parametrize(("name", "valid"), [("draguard.io", False), ("resourceslices.draguard.io", True),
                                             ("a.resourceslices.draguard.io", True), ("Slices.draguard.io", False)])
def test_a_webhook_name_is_fully_qualified_with_at_least_three_segments(name: str, valid: bool) -> None:
    config = _base_config()
    config["webhooks"][0]["name"] = name
    assert (webhook_configuration_errors(config) == []) is valid


def test_webhook_names_are_unique() -> None:
    config = _base_config()
    config["webhooks"][1]["name"] = config["webhooks"][0]["name"]
    assert webhook_configuration_errors(config) == ["resourceslices.draguard.io: name: Duplicate value"]


@pytest.mark.parametrize(("change", "valid"), [
    ({"sideEffects": "Some"}, False),
    ({"sideEffects": "NoneOnDryRun"}, True),
    ({"admissionReviewVersions": ["v2"]}, False),
    ({"admissionReviewVersions": ["v1", "v1"]}, False),
    ({"failurePolicy": "Deny"}, False),
    ({"matchPolicy": "Fuzzy"}, False),
])
def test_enumerations_of_a_webhook(change: Obj, valid: bool) -> None:
    config = _base_config()
    config["webhooks"][0].update(change)
    assert (webhook_configuration_errors(config) == []) is valid


@pytest.mark.parametrize(("field", "values", "valid"), [
    ("resources", ["*", "resourceslices"], False),
    ("resources", ["*", "resourceclaims/status"], True),
    ("resources", ["resourceslices", "*"], True),  # upstream's order quirk: the last plain resource decides
    ("resources", ["*/*", "resourceslices"], False),
    ("resources", ["resourceclaims/*", "resourceclaims/status"], False),
    ("apiVersions", ["*", "v1"], False),
    ("apiVersions", ["v1", ""], False),
    ("operations", ["*", "CREATE"], False),
    ("operations", ["PATCH"], False),
    ("scope", "Global", False),
])
def test_rule_wildcards_and_enumerations(field: str, values: Any, valid: bool) -> None:
    config = _base_config()
    config["webhooks"][0]["rules"][0][field] = values
    assert (webhook_configuration_errors(config) == []) is valid


@pytest.mark.parametrize(("actions", "valid"), [(["Deny"], True), (["Warn", "Audit"], True), ([], False),
                                                (["Deny", "Warn"], False), (["Audit", "Audit"], False),
                                                (["Reject"], False)])
def test_binding_validation_actions(actions: list[str], valid: bool) -> None:
    binding = next(o for o in manifests(VAP) if o["kind"] == "ValidatingAdmissionPolicyBinding")
    binding = copy.deepcopy(binding)
    binding["spec"]["validationActions"] = actions
    assert (admission_policy_errors(binding) == []) is valid


@pytest.mark.parametrize(("change", "valid"), [
    ({"reason": "Unauthorized"}, False),
    ({"reason": "Forbidden"}, True),
    ({"message": "two\nlines"}, False),
    ({"messageExpression": " "}, False),
])
def test_policy_validation_fields(change: Obj, valid: bool) -> None:
    policy = copy.deepcopy(next(o for o in manifests(VAP) if o["kind"] == "ValidatingAdmissionPolicy"))
    policy["spec"]["validations"][0].update(change)
    assert (admission_policy_errors(policy) == []) is valid


@pytest.mark.parametrize(("name", "valid"), [("numaNodeType", True), ("_x1", True), ("numa-node", False),
                                             ("1x", False)])
def test_policy_variable_names_are_cel_identifiers(name: str, valid: bool) -> None:
    policy = copy.deepcopy(next(o for o in manifests(VAP) if o["kind"] == "ValidatingAdmissionPolicy"))
    policy["spec"]["variables"].append({"name": name, "expression": "1"})
    assert (admission_policy_errors(policy) == []) is valid
