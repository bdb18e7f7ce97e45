"""The selector rule family: each rule's failing and passing case, with exact path, message and span."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.builders import claim_with_selector, device, device_class_with_selector, slice_with
from webhook.findings import Finding
from webhook.fix import apply_to_value
from webhook.policy import Policy
from webhook.rules import CATALOGUE
from webhook.rules.base import RuleContext
from webhook.rules.selectors import RULES

NUMA = 'device.attributes["resource.kubernetes.io"].numaNode'
SEL0 = "spec.devices.requests[0].exactly.selectors[0].cel.expression"


def findings(rule_id: str, obj: dict[str, Any], *, slices: tuple[Any, ...] = (),
             policy: Policy | None = None) -> list[Finding]:
    rule = CATALOGUE[rule_id]
    return list(rule.check(obj, RuleContext(policy or Policy.default(), slices)))


def check(rule_id: str, obj: dict[str, Any], **kw: Any) -> list[tuple[str, str, str]]:
    """(path, message, the text the span covers) per finding."""
    out = []
    for f in findings(rule_id, obj, **kw):
        expression = _value(obj, str(f.path))
        covered = expression[f.span[0]:f.span[1]] if f.span and isinstance(expression, str) else ""
        out.append((str(f.path), f.message, covered))
    return out


def _value(obj: dict[str, Any], path: str) -> Any:
    from webhook.manifests import value_at as _value_at
    from webhook.rules.selectors_sites import sites

    ctx = RuleContext(Policy.default())
    for site in sites(obj, ctx):
        if str(site.path) == path:
            return site.expression
    return _value_at(obj, _parse_path(path))


def _parse_path(path: str) -> Any:
    import re

    from webhook.fieldpath import FieldPath

    out = FieldPath()
    for name, index in re.findall(r"([A-Za-z]+)|\[(\d+)\]", path):
        out = out.child(name) if name else out.index(int(index))
    return out


def test_every_rule_of_the_family_is_in_the_catalogue_and_tested_here() -> None:
    source = Path(__file__).read_text(encoding="utf-8")
    for rule in RULES:
        assert CATALOGUE[rule.id] is rule
        assert f'"{rule.id}"' in source, f"no test names {rule.id}"


# -- list-fragile-compare -------------------------------------------------------------------------


def test_equality_is_fragile_with_a_safe_includes_fix() -> None:
    obj = claim_with_selector(f"{NUMA} == 4")
    (finding,) = findings("list-fragile-compare", obj)
    assert str(finding.path) == SEL0
    assert finding.message == ("`==` on resource.kubernetes.io/numaNode is silently false once the driver "
                               "publishes it as a list")
    assert finding.fix is not None and finding.fix.safe
    assert finding.fix.replacement == f"{NUMA}.includes(4)"
    assert check("list-fragile-compare", obj)[0][2] == "=="


@pytest.mark.parametrize(
    ("expression", "message_start", "replacement"),
    [
        (f'{NUMA} != 4', "`!=` on resource.kubernetes.io/numaNode is silently true", f"!{NUMA}.includes(4)"),
        (f'4 == {NUMA}', "`==` on", f"{NUMA}.includes(4)"),
        (f'{NUMA} in [0, 1]', "`in` on", f"[0, 1].exists(v, {NUMA}.includes(v))"),
        ('device.attributes["dra.net"].rdma', "dra.net/rdma used as a condition is a runtime error",
         ".includes(true)"),
        ('device.attributes["gpu.example.com"].model.startsWith("A1")',
         "`.startsWith()` on gpu.example.com/model is a runtime error", None),
        (f'{NUMA} < 2', "`<` on resource.kubernetes.io/numaNode is a runtime error", None),
        (f'[0, 4].exists(n, {NUMA} == n)', "`==` on", f"{NUMA}.includes(n)"),
        (f'[0, 4].all(n, n != {NUMA})', "`!=` on", f"!{NUMA}.includes(n)"),
        (f'{NUMA} + 1 == 2', "`+` on resource.kubernetes.io/numaNode is a runtime error", None),
        (f'-{NUMA} < 0', "`-` on resource.kubernetes.io/numaNode is a runtime error", None),
        ('isSemver(device.attributes["gpu.example.com"].driver)',
         "gpu.example.com/driver passed to `isSemver()` is a runtime error", None),
        ('semver("1.0.0").isLessThan(device.attributes["gpu.example.com"].driverVersion)',
         "gpu.example.com/driverVersion passed to `isLessThan()` is a runtime error", None),
        (f'[0, 4].includes({NUMA})',
         "resource.kubernetes.io/numaNode passed to `includes()` is silently false", None),
    ],
)
def test_fragile_forms(expression: str, message_start: str, replacement: str | None) -> None:
    assert_fragile(expression, message_start, replacement)


def assert_fragile(expression: str, message_start: str, replacement: str | None) -> None:
    """One list-fragile-compare finding on `expression`, its message, and its safe fix (None: a hint only)."""
    (finding,) = findings("list-fragile-compare", claim_with_selector(expression))
    assert finding.message.startswith(message_start)
    if replacement is None:
        assert finding.fix is None
    else:
        assert finding.fix is not None and finding.fix.replacement == replacement


def test_no_fix_that_would_move_code_behind_a_comment() -> None:
    (finding,) = findings("list-fragile-compare", claim_with_selector(f"{NUMA} // node\n== 4"))
    assert finding.fix is None
    assert finding.hint == f"compare with includes(): {NUMA}.includes(<value>)"


def test_both_attributes_of_a_comparison_are_reported_without_a_fix() -> None:
    expression = 'device.attributes["gpu.example.com"].model == device.attributes["gpu.example.com"].other'
    found = findings("list-fragile-compare", claim_with_selector(expression))
    assert [(f.message.split(" is ")[0], f.fix) for f in found] == [
        ("`==` on gpu.example.com/model", None), ("`==` on gpu.example.com/other", None)]


@pytest.mark.parametrize(
    "expression",
    [f"{NUMA}.includes(4)", f"4 in {NUMA}", f"{NUMA}.exists(n, n < 2)", 'device.driver == "x.io"',
     'device.capacity["x.io"].memory.compareTo(quantity("1Gi")) > 0',
     f"{NUMA} == [0, 1]", f"[0] != {NUMA}", f"{NUMA} + [2] == [0, 2]", f"size({NUMA}) == 2",
     f"{NUMA}.exists(n, n == 0)"],
)
def test_list_aware_selectors_pass(expression: str) -> None:
    assert check("list-fragile-compare", claim_with_selector(expression)) == []


def test_inventory_names_the_devices_that_publish_a_list() -> None:
    slices = (slice_with(device("gpu-0", numa=[0, 1])),)
    (finding,) = findings("list-fragile-compare", claim_with_selector(f"{NUMA} == 0"), slices=slices)
    assert finding.message == (
        "`==` on resource.kubernetes.io/numaNode: resource.kubernetes.io/numaNode is a list on 1 device(s) in "
        "the inventory (e.g. gpu.example.com/pool-0/gpu-0), where this is silently false")


def test_no_list_fragility_on_a_cluster_without_list_types() -> None:
    policy = Policy.from_mapping({"listTypes": "disabled"})
    assert check("list-fragile-compare", claim_with_selector(f"{NUMA} == 0"), policy=policy) == []


def test_template_and_device_class_and_first_available_paths() -> None:
    template = claim_with_selector(f"{NUMA} == 0", kind="ResourceClaimTemplate")
    assert check("list-fragile-compare", template)[0][0] == "spec.spec." + SEL0.removeprefix("spec.")
    klass = device_class_with_selector("true", f"{NUMA} == 0")
    assert check("list-fragile-compare", klass)[0][0] == "spec.selectors[1].cel.expression"
    claim = claim_with_selector()
    claim["spec"]["devices"]["requests"][0] = {
        "name": "r", "firstAvailable": [{"name": "a", "deviceClassName": "c", "selectors": [
            {"cel": {"expression": "true"}}, {"cel": {"expression": f"{NUMA} == 0"}}]}]}
    assert check("list-fragile-compare", claim)[0][0] == (
        "spec.devices.requests[0].firstAvailable[0].selectors[1].cel.expression")


# -- selector-includes-spelling, selector-compile, selector-required, selector-too-long, selector-cost ----


def test_include_spelling_is_denied_with_a_rename_fix() -> None:
    obj = claim_with_selector(f"{NUMA}.include(0)")
    (finding,) = findings("selector-includes-spelling", obj)
    assert finding.fix is not None and (finding.fix.replacement, finding.fix.safe) == ("includes", True)
    assert check("selector-includes-spelling", obj)[0][2] == "include"
    assert check("selector-includes-spelling", claim_with_selector(f"{NUMA}.includes(0)")) == []


def test_syntax_error_points_into_the_expression() -> None:
    ((path, message, _covered),) = check("selector-compile", claim_with_selector("device.driver == "))
    assert path == SEL0
    assert message.startswith("compilation failed: ")
    assert check("selector-compile", claim_with_selector('device.driver == "a.io"')) == []


def test_type_error_is_reported_with_cel_gos_text_at_its_operator() -> None:
    expression = 'device.capacity["gpu.example.com"].memory == "40Gi"'
    ((path, message, covered),) = check("selector-compile", claim_with_selector(expression))
    assert (path, message, covered) == (
        SEL0, "compilation failed: found no matching overload for '_==_' applied to '(kubernetes.Quantity, string)'",
        "=")


@pytest.mark.parametrize(("expression", "message", "covered"), [
    ('device.driver.matches("(")', "compilation failed: invalid matches argument", '"'),  # at the literal
    ('device.driver.find(")") == ""',  # no position upstream: the start of the expression
     "program instantiation failed: error parsing regexp: unexpected ): `)`", "d"),
])
def test_a_constant_pattern_kubernetes_refuses_is_reported_in_its_words(expression: str, message: str,
                                                                       covered: str) -> None:
    assert check("selector-compile", claim_with_selector(expression)) == [(SEL0, message, covered)]
    assert check("selector-compile", claim_with_selector('device.driver.matches("^gpu[.]")')) == []


def test_expression_beside_cel_is_required_value_at_cel() -> None:
    obj = claim_with_selector()
    obj["spec"]["devices"]["requests"][0]["exactly"]["selectors"] = [{"cel": None, "expression": "true"}]
    assert check("selector-required", obj) == [
        ("spec.devices.requests[0].exactly.selectors[0].cel",
         "Required value (`expression` sits beside `cel` instead of under it: indent it below `cel:`)", "")]
    assert check("selector-required", claim_with_selector("true")) == []


def test_too_long() -> None:
    long = " || ".join(['device.driver == "a.io"'] * 500)
    assert check("selector-too-long", claim_with_selector(long)) == [
        (SEL0, "Too long: may not be more than 10240 bytes", "")]
    assert check("selector-too-long", claim_with_selector("true")) == []


def test_nested_comprehensions_over_the_cost_limit() -> None:
    ten = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"
    expression = "true"
    for var in "abcdefg":
        expression = f"{ten}.all({var}, {expression})"
    ((_path, message, _),) = check("selector-cost", claim_with_selector(expression))
    assert message == ("too complex, exceeds cost limit (Kubernetes' static estimate: 45,555,551 cost units, limit "
                       "1,000,000); the API server rejects this selector")
    assert check("selector-cost", claim_with_selector(f"{ten}.all(a, {ten}.all(b, true))")) == []


# -- selector-attribute-reference, selector-literal-invalid ------------------------------------------------


def test_qualified_name_as_domain_index() -> None:
    obj = claim_with_selector("device.attributes['dra.net/isSriovVf']")
    ((_p, message, covered),) = check("selector-attribute-reference", obj)
    assert covered == "'dra.net/isSriovVf'"
    assert "the index is a domain" in message


def test_wire_type_key_and_domain_without_dot() -> None:
    result = check("selector-attribute-reference", claim_with_selector("device.attributes['type'].string == 'x'"))
    assert [covered for _p, _m, covered in result] == ["string", "'type'"]
    assert check("selector-attribute-reference", claim_with_selector(f"{NUMA}.includes(1)")) == []


@pytest.mark.parametrize(("field", "what"), [("int", "a wire-format type key"), ("IntValue", "a Go struct field"),
                                             ("value", "a field")])
def test_a_field_of_an_attribute_value_fails_on_every_device(field: str, what: str) -> None:
    import celext

    expression = f'device.attributes["dra.net"].numaNode.{field} == 0'
    ((_p, message, covered),) = check("selector-attribute-reference", claim_with_selector(expression))
    assert covered == field
    assert message.startswith(f"`.{field}` reads {what} of the value of dra.net/numaNode; ")
    # as cel-go's refQualify fails: a scalar has no keys, a list wants an index
    for value, error in (({"int": 0}, f"no such key: {field}"),
                         ({"ints": [0]}, "unsupported index type 'string' in list")):
        with pytest.raises(celext.EvaluationError, match=f"^{re.escape(error)}$"):
            celext.compile(expression).matches({"name": "d", "attributes": {"dra.net/numaNode": value}}, "dra.net")


def test_template_placeholder_in_a_quantity_literal() -> None:
    obj = claim_with_selector("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('{{ .Mem }}Gi')) >= 0")
    ((_p, message, covered),) = check("selector-literal-invalid", obj)
    assert covered == "'{{ .Mem }}Gi'"
    assert message.startswith("quantity('{{ .Mem }}Gi') fails on every device: ")
    assert check("selector-literal-invalid", claim_with_selector("quantity('1Gi') == quantity('1Gi')")) == []


# -- NUMA names, constraints ---------------------------------------------------------------------------------


def test_vendor_numa_in_a_selector_and_a_constraint() -> None:
    obj = claim_with_selector('device.attributes["dra.cpu"].numaNodeID.includes(0)',
                              constraints=[{"requests": ["req-0"], "matchAttribute": "dra.net/numaNode"}])
    result = check("selector-vendor-numa", obj)
    assert [(p, c) for p, _m, c in result] == [
        (SEL0, 'device.attributes["dra.cpu"].numaNodeID'), ("spec.devices.constraints[0].matchAttribute", "")]
    assert result[1][1] == (
        "matchAttribute dra.net/numaNode is a vendor NUMA name: only devices whose driver publishes this alias carry "
        "it (each driver picks its own aliases), so the constraint cannot place a device of a driver that does not; "
        "KEP-6072 standardises resource.kubernetes.io/numaNode for every driver")
    [constraint] = [f for f in findings("selector-vendor-numa", obj) if f.span is None]
    assert constraint.hint == ("matchAttribute: resource.kubernetes.io/numaNode (once all drivers the claim uses "
                               "publish it)")
    standard = claim_with_selector(f"{NUMA}.includes(0)",
                                   constraints=[{"matchAttribute": "resource.kubernetes.io/numaNode"}])
    assert check("selector-vendor-numa", standard) == []


# -- list-only-read, constraint-distinct-list, constraint-distinct-numa (in full: test_selectors_lists_numa_forms.py)


def test_list_only_read_of_numa_node() -> None:
    obj = claim_with_selector(f"0 in {NUMA}", f"{NUMA}.includes(0)")
    assert [(p, c) for p, _m, c in check("list-only-read", obj)] == [(SEL0, f"0 in {NUMA}")]
    scalars = (slice_with(device("cpu-0", numa=0)),)
    [(_p, message, _c)] = check("list-only-read", claim_with_selector(f"{NUMA}[0] == 0"), slices=scalars)
    assert "is a scalar int on 1 device(s) in the inventory (e.g. gpu.example.com/pool-0/cpu-0)" in message


def test_distinct_attribute_on_numa_node() -> None:
    obj = claim_with_selector(constraints=[{"distinctAttribute": "resource.kubernetes.io/numaNode"}])
    path = "spec.devices.constraints[0].distinctAttribute"
    assert [p for p, _m, _c in check("constraint-distinct-numa", obj)] == [path]
    lists = (slice_with(device("gpu-0", numa=[0, 1]), device("gpu-1", numa=[1, 0])),)
    assert check("constraint-distinct-numa", obj, slices=lists) == []
    assert [p for p, _m, _c in check("constraint-distinct-list", obj, slices=lists)] == [path]
    assert check("constraint-distinct-list", obj) == []
    disjoint = (slice_with(device("gpu-0", numa=[0]), device("gpu-1", numa=[1])),)
    assert check("constraint-distinct-list", obj, slices=disjoint) == []


FULLY_QUALIFIED = "a fully qualified name must be a domain and a name separated by a slash"


def test_unqualified_constraint_attribute() -> None:
    obj = claim_with_selector(constraints=[{"distinctAttribute": "interfaceName"}])
    assert check("constraint-attribute-unqualified", obj) == [
        ("spec.devices.constraints[0].distinctAttribute", f'Invalid value: "interfaceName": {FULLY_QUALIFIED}', "")]
    ok = claim_with_selector(constraints=[{"distinctAttribute": "dra.net/interfaceName"}])
    assert check("constraint-attribute-unqualified", ok) == []


def test_pinned_numa_node_is_audit() -> None:
    assert CATALOGUE["selector-numa-pinned"].default.value == "audit"
    result = check("selector-numa-pinned", claim_with_selector(f"{NUMA}.includes(1)"))
    assert [m for _p, m, _c in result] == [
        "the selector pins resource.kubernetes.io/numaNode to NUMA node 1: node ids differ between machines, so "
        "this claim only fits nodes with that layout"]
    assert check("selector-numa-pinned", claim_with_selector('device.attributes["x.io"].model == "a"')) == []


@pytest.mark.parametrize("expression", [
    f"{NUMA} in [0, 1]", f"[0, 1].exists(v, {NUMA}.includes(v))", f"[0, 1].exists(n, {NUMA} == n)",
    f"[0, 1].exists(n, n == {NUMA})",
])
def test_pinned_through_a_list_literal_before_and_after_the_fix(expression: str) -> None:
    """`--fix` turns `x in [0, 1]` into `[0, 1].exists(v, x.includes(v))`: still pinned to the same nodes."""
    ((_p, message, _c),) = check("selector-numa-pinned", claim_with_selector(expression))
    assert message.startswith("the selector pins resource.kubernetes.io/numaNode to NUMA node 0, 1: ")


def test_a_shadowed_comprehension_variable_ranges_over_the_inner_list() -> None:
    expression = f"[0, 1].exists(n, [2].exists(n, {NUMA} == n))"
    ((_p, message, _c),) = check("selector-numa-pinned", claim_with_selector(expression))
    assert "to NUMA node 2: " in message
    assert check("selector-numa-pinned", claim_with_selector(f"{NUMA}.exists(n, n == n)")) == []


# -- selector-attribute-missing (needs an inventory) ---------------------------------------------------------


def test_missing_attribute_on_some_candidate_devices() -> None:
    slices = (slice_with(device("gpu-0", numa=0), device("gpu-1")),)
    obj = claim_with_selector(f"{NUMA}.includes(0)")
    assert check("selector-attribute-missing", obj) == []  # no inventory, no opinion
    ((_p, message, covered),) = check("selector-attribute-missing", obj, slices=slices)
    assert covered == NUMA
    assert message.startswith("resource.kubernetes.io/numaNode is absent on 1 of 2 candidate device(s) "
                              "(e.g. gpu.example.com/pool-0/gpu-1)")
    guarded = claim_with_selector(f"has({NUMA}) && {NUMA}.includes(0)")
    assert check("selector-attribute-missing", guarded, slices=slices) == []
    short_circuit = claim_with_selector(f"!has({NUMA}) || {NUMA}.includes(0)")
    assert check("selector-attribute-missing", short_circuit, slices=slices) == []


def test_a_guard_that_does_not_protect_the_read_is_no_guard() -> None:
    slices = (slice_with(device("gpu-0", numa=0), device("gpu-1")),)
    for expression in (f"has({NUMA}) || {NUMA}.includes(0)", f"{NUMA}.includes(0) || has({NUMA})"):
        ((_p, message, covered),) = check("selector-attribute-missing", claim_with_selector(expression),
                                          slices=slices)
        assert (covered, message.split(" (e.g.")[0]) == (
            NUMA, "resource.kubernetes.io/numaNode is absent on 1 of 2 candidate device(s)")


# -- selector-type-mismatch (needs an inventory) -------------------------------------------------------------

TYPED = (slice_with(device("gpu-0", attributes={"model": "A100", "index": 0, "driverVersion": {"version": "1.2.3"}}),
                    device("gpu-1", attributes={"model": ["T4", "L4"], "index": [1, 2]})),)
GPU = 'device.attributes["gpu.example.com"]'


@pytest.mark.parametrize(
    ("expression", "covered", "message_end"),
    [
        (f"{GPU}.model == 4", "==", "`==` with an int value never matches it, so this is always false"),
        (f"{GPU}.model.includes(4)", "includes", "`includes()` with an int value never matches it, so this is "
                                                 "always false"),
        (f'{GPU}.index != "0"', "!=", "`!=` with a string value never matches it, so this is always true"),
        (f'{GPU}.index in ["0", "1"]', "in", "`in` with a string value never matches it, so this is always false"),
        (f'{GPU}.driverVersion == "1.2.3"', "==", "`==` with a string value never matches it, so this is a runtime "
                                                  "error (no such overload) that aborts allocation"),
        (f'semver("1.2.3") == {GPU}.model', "==", "`==` with a version value never matches it, so this is a runtime "
                                                  "error (no such overload) that aborts allocation"),
        # cel-go: only Semver.Equal fails on another type; `!=` negates a non-true answer, String.Equal is false
        (f'{GPU}.driverVersion != "1.2.3"', "!=", "`!=` with a string value never matches it, so this is always true"),
        (f'"1.2.3" == {GPU}.driverVersion', "==", "`==` with a string value never matches it, so this is always false"),
        (f'{GPU}.model == semver("1.2.3")', "==", "`==` with a version value never matches it, so this is always "
                                                  "false"),
        (f'{GPU}.driverVersion in ["1.2.3"]', "in", "`in` with a string value never matches it, so this is always "
                                                    "false"),
    ],
)
def test_a_literal_of_a_type_the_devices_never_publish(expression: str, covered: str, message_end: str) -> None:
    obj = claim_with_selector(expression)
    assert check("selector-type-mismatch", obj) == []  # no inventory, no opinion
    ((_p, message, where),) = check("selector-type-mismatch", obj, slices=TYPED)
    assert where == covered
    assert message.endswith(message_end)


def test_type_mismatch_names_the_published_type_and_suggests_semver() -> None:
    (finding,) = findings("selector-type-mismatch", claim_with_selector(f'{GPU}.driverVersion == "1.2.3"'),
                          slices=TYPED)
    assert finding.message.startswith("gpu.example.com/driverVersion is a version on every candidate device that "
                                      "publishes it (1); ")
    assert finding.hint == 'a version attribute equals only a version: compare with semver("1.2.3")'


@pytest.mark.parametrize("expression", [
    f'{GPU}.model == "A100"', f"{GPU}.model.includes(\"T4\")", f"{GPU}.index in [0, \"1\"]",
    f'{GPU}.driverVersion == semver("1.2.3")', f"{GPU}.unknown == 4", f"{GPU}.index == {GPU}.model",
])
def test_matching_or_unknown_types_pass(expression: str) -> None:
    assert check("selector-type-mismatch", claim_with_selector(expression), slices=TYPED) == []


SOUP = [NUMA, 'device.attributes["dra.net"]', '["numaNode"]', ".model", "device.driver", "==", "!=", "<", " in ",
        "&&", "||", "!", "(", ")", "[0, 1]", "4", '"A100"', "true", ".includes(", ".include(", ")", "has(",
        ".startsWith(", 'quantity("1Gi")', "device.attributes['a/b']", ".int", ".exists(v, v == 1)"]


@settings(deadline=None, max_examples=150)
@given(st.lists(st.sampled_from(SOUP), min_size=1, max_size=10))
def test_no_selector_rule_raises_on_any_expression(parts: list[str]) -> None:
    obj = claim_with_selector(" ".join(parts), constraints=[{"matchAttribute": "numa"}])
    slices = (slice_with(device("gpu-0", numa=[0, 1], attributes={"model": "A100"}), device("gpu-1")),)
    for rule in RULES:
        for finding in rule.check(obj, RuleContext(Policy.default(), slices)):
            assert finding.message and str(finding.path).startswith("spec.devices.")



@pytest.mark.parametrize(("name", "messages"), [
    # validateFullyQualifiedName = validateQualifiedName + a domain: each part is checked too
    ("dra.net/my-attr", ['Invalid value: "my-attr": a valid C identifier must start with alphabetic character or '
                         "'_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or "
                         "'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')"]),
    ("/numaNode", ['Invalid value: "": the domain must not be empty']),
    ("dra.net/", ['Invalid value: "": the name must not be empty']),
    ("numa-node", ['Invalid value: "numa-node": a valid C identifier must start with alphabetic character or '
                   "'_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or "
                   "'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')",
                   f'Invalid value: "numa-node": {FULLY_QUALIFIED}']),
    ("dra.net/" + "a" * 32, []),  # the identifier at its 32-byte limit
    ("dra.net/" + "a" * 33, ["Too long: may not be more than 32 bytes"]),
])
def test_a_constraint_attribute_is_a_valid_fully_qualified_name(name: str, messages: list[str]) -> None:
    obj = claim_with_selector(constraints=[{"matchAttribute": name}])
    assert [m for _path, m, _hint in check("constraint-attribute-unqualified", obj)] == messages



# -- constraint-request-unknown ----------------------------------------------------------------------

REF = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"


def _claim_with_refs(constraint_refs: list[Any], config_refs: list[Any] | None = None,
                     kind: str = "ResourceClaim") -> dict[str, Any]:
    claim = claim_with_selector(kind=kind)
    devices = claim["spec"]["devices"] if kind == "ResourceClaim" else claim["spec"]["spec"]["devices"]
    devices["requests"] = [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}},
                           {"name": "nic", "firstAvailable": [{"name": "fast", "deviceClassName": "nic"}]}]
    devices["constraints"] = [{"requests": constraint_refs, "matchAttribute": NUMA_STANDARD}]
    if config_refs is not None:
        devices["config"] = [{"requests": config_refs, "opaque": {"driver": "gpu.example.com", "parameters": {}}}]
    return claim


NUMA_STANDARD = "resource.kubernetes.io/numaNode"


def test_constraints_and_config_name_requests_and_subrequests_of_the_claim() -> None:
    """validation.go validateRequestNameRef: `<request>` or `<request>/<subrequest>`, each part a DNS-1123 label,
    naming one that exists (a request with alternatives may be named alone)."""
    assert check("constraint-request-unknown", _claim_with_refs(["gpu", "nic", "nic/fast"], ["gpu", "nic/fast"])) == []
    found = check("constraint-request-unknown", _claim_with_refs(["gpus", "nic/slow", "gpu/fast", "a/b/c"], ["cpu"]))
    assert found == [
        ("spec.devices.constraints[0].requests[0]", f'Invalid value: "gpus": {REF}', ""),
        ("spec.devices.constraints[0].requests[1]", f'Invalid value: "nic/slow": {REF}', ""),
        ("spec.devices.constraints[0].requests[2]", f'Invalid value: "gpu/fast": {REF}', ""),
        ("spec.devices.constraints[0].requests[3]", f'Invalid value: "a/b/c": {REF}', ""),
        ("spec.devices.config[0].requests[0]", f'Invalid value: "cpu": {REF}', ""),
    ]


def test_a_request_name_that_is_no_label_is_told_so_and_not_found() -> None:
    found = check("constraint-request-unknown", _claim_with_refs(["Bad_Name"]))
    assert [message.split(":")[1].strip() for _path, message, _ in found] == ['"Bad_Name"', '"Bad_Name"']
    assert "a lowercase RFC 1123 label" in found[0][1] and found[1][1].endswith(REF)


def test_request_refs_in_a_template_and_non_strings_left_to_the_decoder() -> None:
    template = _claim_with_refs(["gpu", 7, "x"], kind="ResourceClaimTemplate")
    assert check("constraint-request-unknown", template) == [
        ("spec.spec.devices.constraints[0].requests[2]", f'Invalid value: "x": {REF}', "")]


# -- every rule through cel.bind: a bound variable is the read (or domain map) it is bound to ---------------------

RKI = 'device.attributes["resource.kubernetes.io"]'


def spans(rule_id: str, expression: str, **kw: Any) -> list[tuple[int, int] | None]:
    return [f.span for f in findings(rule_id, claim_with_selector(expression), **kw)]


@pytest.mark.parametrize(
    ("expression", "occurrence", "message_start", "replacement"),
    [
        (f"cel.bind(n, {NUMA}, n == 4)", "n == 4", "`==` on resource.kubernetes.io/numaNode is silently false",
         "n.includes(4)"),
        (f"cel.bind(n, {NUMA}, 4 != n)", "4 != n", "`!=` on resource.kubernetes.io/numaNode", "!n.includes(4)"),
        (f"cel.bind(n, {NUMA}, n in [0, 1])", "n in [0, 1]", "`in` on", "[0, 1].exists(v, n.includes(v))"),
        (f'cel.bind(a, {GPU}, a.model == "a100")', 'a.model == "a100"', "`==` on gpu.example.com/model",
         'a.model.includes("a100")'),
        (f'cel.bind(a, {GPU}, cel.bind(m, a["model"], m != "a100"))', 'm != "a100"', "`!=` on gpu.example.com/model",
         '!m.includes("a100")'),
        (f"[0, 1].exists(x, cel.bind(n, {NUMA}, n == x))", "n == x", "`==` on", "n.includes(x)"),
        (f"cel.bind(n, {NUMA}, [0, 1].exists(x, x == n))", "x == n", "`==` on", "n.includes(x)"),
        ('cel.bind(b, device.attributes["dra.net"].rdma, b)', "b", "dra.net/rdma used as a condition",
         "b.includes(true)"),
        (f"cel.bind(n, {RKI}.?numaNode, n.orValue(-1) == 4)", "n.orValue(-1) == 4",
         "`==` on resource.kubernetes.io/numaNode (read with `.orValue()`)", "n.orValue(-1).includes(4)"),
        (f"cel.bind(n, {RKI}.?numaNode.orValue(-1), n == 4)", "n == 4",
         "`==` on resource.kubernetes.io/numaNode (read with `.orValue()`)", "n.includes(4)"),
        # no safe fix: ordering, a fallback that includes() would test differently, a bound list literal
        (f"cel.bind(n, {NUMA}, n < 2)", "n < 2", "`<` on resource.kubernetes.io/numaNode is a runtime error", None),
        (f"cel.bind(n, {RKI}.?numaNode.orValue({GPU}.index), n == 4)", "n == 4", "`==` on", None),
        (f"cel.bind(k, [0, 1], cel.bind(n, {NUMA}, n == k))", "n == k", "`==` on", None),
    ],
)
def test_list_fragile_compare_through_cel_bind(expression: str, occurrence: str, message_start: str,
                                               replacement: str | None) -> None:
    """The finding is on the variable's occurrence (not on the read where it is bound), and so is the fix."""
    (finding,) = findings("list-fragile-compare", claim_with_selector(expression))
    assert finding.message.startswith(message_start)
    start = expression.rindex(occurrence)
    assert finding.span is not None and start <= finding.span[0] < finding.span[1] <= start + len(occurrence)
    if replacement is None:
        assert finding.fix is None
    else:
        assert finding.fix is not None and finding.fix.safe
        assert start <= finding.fix.start <= finding.fix.end <= start + len(occurrence)
        fixed = apply_to_value(expression, [finding.fix])
        assert fixed == expression[:start] + replacement + expression[start + len(occurrence):]


@pytest.mark.parametrize("expression", [
    f"cel.bind(n, {NUMA}, n.includes(4))",
    f"cel.bind(n, {NUMA}, cel.bind(n, 1, n == 4))",  # the inner n is an int
    f"cel.bind(n, {NUMA}, [1, 2].exists(n, n == 4))",  # the macro's n
    f"cel.bind(n, {NUMA}, [1, 2].all(i, n, n != 4))",
    f"cel.bind(a, {GPU}, [{{'model': 'x'}}].exists(a, a.model == 'a100'))",
    f"cel.bind(a, {GPU}, cel.bind(a, {{'model': 'x'}}, a.model == 'a100'))",
    f"cel.bind(n, {NUMA}, n == [4])",
    f"cel.bind(n, {RKI}.?numaNode, n.hasValue())",
])
def test_cel_bind_forms_that_are_not_list_fragile(expression: str) -> None:
    import celext

    celext.compile(expression)  # (a valid selector: no finding for another reason)
    assert check("list-fragile-compare", claim_with_selector(expression)) == []


@pytest.mark.parametrize(
    ("expression", "covered", "hint_start"),
    [
        (f"cel.bind(ns, {NUMA}, 4 in ns)", "4 in ns", "ns.includes(4)   (membership"),
        (f"cel.bind(a, {RKI}, 4 in a.numaNode)", "4 in a.numaNode", "a.numaNode.includes(4)   (membership"),
        (f"cel.bind(ns, {NUMA}, ns.exists(v, v == 1))", "exists", "ns.includes(1)   (membership"),
        (f"cel.bind(ns, {NUMA}, ns[0] == 1)", "ns", "no rewrite keeps this meaning on both forms: write the "
                                                   "selector for both (KEP-6072), e.g. with ns.includes(<node>)"),
        (f"cel.bind(ns, {NUMA}, size(ns) > 1)", "ns", "no rewrite"),
    ],
)
def test_list_only_read_through_cel_bind(expression: str, covered: str, hint_start: str) -> None:
    (finding,) = findings("list-only-read", claim_with_selector(expression))
    assert "on resource.kubernetes.io/numaNode reads it as a list" in finding.message
    assert finding.span is not None and finding.span[0] > expression.index(", ")  # in the body, not the read
    assert expression[finding.span[0]:finding.span[1]] == covered
    assert finding.hint.startswith(hint_start)


@pytest.mark.parametrize("expression", [
    f"cel.bind(ns, {NUMA}, ns.includes(4))",
    f"cel.bind(ns, {NUMA}, cel.bind(ns, [1], 4 in ns))",
    f"cel.bind(ns, {NUMA}, [[1]].exists(ns, 4 in ns))",
    f"cel.bind(ns, {RKI}.?numaNode, ns.hasValue())",
])
def test_cel_bind_forms_that_are_not_list_only_reads(expression: str) -> None:
    import celext

    celext.compile(expression)  # (a valid selector: no finding for another reason)
    assert check("list-only-read", claim_with_selector(expression)) == []


def test_numa_pinned_through_cel_bind_is_on_the_comparison() -> None:
    for expression, covered in ((f"cel.bind(n, {NUMA}, n == 4)", "n == 4"),
                                (f"cel.bind(n, {NUMA}, n.includes(4))", "n.includes(4)"),
                                (f"cel.bind(k, 4, {NUMA} == k)", f"{NUMA} == k"),
                                (f"cel.bind(a, {RKI}, a.numaNode in [4, 5])", "a.numaNode in [4, 5]")):
        ((_p, message, where),) = check("selector-numa-pinned", claim_with_selector(expression))
        assert where == covered
        assert message.startswith("the selector pins resource.kubernetes.io/numaNode to NUMA node 4")
    assert check("selector-numa-pinned", claim_with_selector(f"cel.bind(n, {NUMA}, n != -1)")) == []


def test_type_mismatch_through_cel_bind() -> None:
    for expression, covered in ((f"cel.bind(a, {GPU}, a.model == 4)", "=="),
                                (f"cel.bind(m, {GPU}.model, m.includes(4))", "includes")):
        ((_p, message, where),) = check("selector-type-mismatch", claim_with_selector(expression), slices=TYPED)
        assert where == covered
        assert message.startswith("gpu.example.com/model is a string on every candidate device that publishes it "
                                  "(2); `==` with an int value never matches it" if covered == "==" else
                                  "gpu.example.com/model is a string on every candidate device that publishes it "
                                  "(2); `includes()` with an int value")
    assert check("selector-type-mismatch", claim_with_selector(f'cel.bind(a, {GPU}, a.model == "A100")'),
                 slices=TYPED) == []


def test_missing_attribute_read_through_cel_bind() -> None:
    slices = (slice_with(device("gpu-0", numa=0), device("gpu-1")),)
    ((_p, message, covered),) = check("selector-attribute-missing",
                                      claim_with_selector(f"cel.bind(a, {RKI}, a.numaNode.includes(0))"),
                                      slices=slices)
    assert covered == "a.numaNode"
    assert message == ("resource.kubernetes.io/numaNode is absent on 1 of 2 candidate device(s) (e.g. "
                       "gpu.example.com/pool-0/gpu-1): `a.numaNode` fails there with no such key, which aborts "
                       "allocation for the claim")
    # a variable bound to a plain read: the read fails where it is bound (once, not at each occurrence)
    ((_p, _m, covered),) = check("selector-attribute-missing",
                                 claim_with_selector(f"cel.bind(n, {NUMA}, n.includes(0) || n.includes(1))"),
                                 slices=slices)
    assert covered == NUMA
    # an optional read bound to a variable fails where its value is taken
    (finding,) = findings("selector-attribute-missing",
                          claim_with_selector(f"cel.bind(n, {RKI}.?numaNode, n.value().includes(0))"), slices=slices)
    assert "`n.value()` fails there with optional.none() dereference" in finding.message
    assert finding.hint == "guard the read: n.hasValue() && ..., or give a default: n.orValue(<default>)"
    for guarded in (f"cel.bind(a, {RKI}, has(a.numaNode) && a.numaNode.includes(0))",
                    f"cel.bind(n, {RKI}.?numaNode, n.hasValue() && n.value().includes(0))",
                    f"cel.bind(n, {RKI}.?numaNode, n.orValue(-1).includes(0))"):
        assert check("selector-attribute-missing", claim_with_selector(guarded), slices=slices) == [], guarded


def test_vendor_numa_and_attribute_reference_through_cel_bind_once_per_read() -> None:
    vendor = 'device.attributes["dra.net"]'
    bound_read = f"cel.bind(n, {vendor}.numaNode, n.includes(0) || n.includes(1))"
    assert [c for _p, _m, c in check("selector-vendor-numa", claim_with_selector(bound_read))] == [
        f"{vendor}.numaNode"]
    bound_domain = f"cel.bind(a, {vendor}, a.numaNode.includes(0))"
    assert [c for _p, _m, c in check("selector-vendor-numa", claim_with_selector(bound_domain))] == ["a.numaNode"]
    wire = check("selector-attribute-reference", claim_with_selector(f"cel.bind(n, {GPU}.int, n == 1 || n == 2)"))
    assert [c for _p, _m, c in wire] == ["int"]
    ((_p, message, covered),) = check("selector-attribute-reference",
                                      claim_with_selector(f"cel.bind(a, {GPU}, a.int == 1)"))
    assert (covered, message.split(", so ")[1]) == ("int", "`a.int` fails with no such key")


BOUND_CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: bound
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        selectors:
        - cel:
            expression: cel.bind(n, device.attributes["resource.kubernetes.io"].numaNode, n == 4)
        - cel:
            expression: cel.bind(a, device.attributes["gpu.example.com"], a.model == "A100" && cel.bind(a, 1, a == 1))
        - cel:
            expression: |
              cel.bind(ns, device.attributes["resource.kubernetes.io"].numaNode,
                4 in ns || cel.bind(n, device.attributes["resource.kubernetes.io"].?numaNode, n.orValue(-1) == 4))
"""


def test_draguard_lint_and_fix_follow_cel_bind(tmp_path: Path) -> None:
    """The installed `draguard lint` on a YAML file: findings at the variables' lines and columns, then `--fix`
    rewrites each occurrence in the variable's own text, and a second run finds nothing left to fix."""
    import subprocess
    import sys

    draguard = Path(sys.executable).with_name("draguard")
    claim = tmp_path / "claim.yaml"
    claim.write_text(BOUND_CLAIM, encoding="utf-8")

    def lint(*argv: str) -> tuple[int, list[str], str]:
        done = subprocess.run([str(draguard), "lint", *argv, claim.name], capture_output=True, text=True,
                              check=False, timeout=120, cwd=tmp_path)
        return done.returncode, [line.split(": spec.")[0] for line in done.stdout.splitlines()
                                 if line.startswith("claim.yaml:")], done.stderr

    code, located, _err = lint()
    assert code == 1
    assert located == ["claim.yaml:13:91: audit selector-numa-pinned", "claim.yaml:13:93: warn list-fragile-compare",
                       "claim.yaml:15:83: warn list-fragile-compare", "claim.yaml:19:17: warn list-only-read",
                       "claim.yaml:19:95: audit selector-numa-pinned", "claim.yaml:19:109: warn list-fragile-compare"]
    code, _located, err = lint("--fix")
    assert err.splitlines() == [
        "draguard: fixed claim.yaml:13:91: n == 4 → n.includes(4)",
        'draguard: fixed claim.yaml:15:75: a.model == "A100" → a.model.includes("A100")',
        "draguard: fixed claim.yaml:19:95: n.orValue(-1) == 4 → n.orValue(-1).includes(4)"]
    assert claim.read_text(encoding="utf-8") == BOUND_CLAIM.replace("n == 4)", "n.includes(4))").replace(
        'a.model == "A100"', 'a.model.includes("A100")').replace("n.orValue(-1) == 4", "n.orValue(-1).includes(4)")
    code, located, _err = lint()
    assert located == ["claim.yaml:13:91: audit selector-numa-pinned", "claim.yaml:19:17: warn list-only-read",
                       "claim.yaml:19:95: audit selector-numa-pinned"]  # `4 in ns`: no rewrite keeps its meaning
    slices = tmp_path / "slices.yaml"
    slices.write_text(json.dumps(slice_with(device("gpu-0", numa=4, attributes={"model": "A100"}), device("gpu-1"))),
                      encoding="utf-8")
    _code, located, _err = lint("--slices", str(slices))
    assert "claim.yaml:15:75: warn selector-attribute-missing" in located  # `a.model`, absent on gpu-1
