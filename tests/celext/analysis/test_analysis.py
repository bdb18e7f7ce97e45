"""celext.analysis: the static facts lint reads, each with the exact span in the expression."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from celext.analysis import analyze, literal_value, parse
from celext.errors import CompileError

NUMA = 'device.attributes["resource.kubernetes.io"].numaNode'


def uses(expression: str) -> list[tuple[str, str, str]]:
    facts = analyze(expression)
    return [(u.ref.qualified, u.how, u.span.text(expression)) for u in facts.uses]


def test_equality_on_an_attribute_is_a_use_with_its_operator_and_literal() -> None:
    expression = f"{NUMA} == 4"
    facts = analyze(expression)
    (use,) = facts.uses
    assert (use.ref.qualified, use.how, use.literal) == ("resource.kubernetes.io/numaNode", "==", 4)
    assert use.operator is not None and use.operator.text(expression) == "=="
    assert use.ref.name_span.text(expression) == "numaNode"
    assert use.ref.domain_span.text(expression) == '"resource.kubernetes.io"'


def test_attribute_on_the_right_and_index_form() -> None:
    expression = '4 != device.attributes["dra.net"]["numaNode"]'
    (use,) = analyze(expression).uses
    assert (use.ref.qualified, use.how, use.attribute_left, use.literal) == ("dra.net/numaNode", "!=", False, 4)


@pytest.mark.parametrize(
    ("expression", "how"),
    [
        (f"{NUMA} < 2", "<"),
        (f"{NUMA} >= 2", ">="),
        (f"{NUMA} in [0, 1]", "in"),
        (f'{NUMA}.startsWith("x")', "method"),
        (f"{NUMA}", "bool"),
        (f"!{NUMA}", "bool"),
        (f"true && ({NUMA})", "bool"),
        (f"{NUMA} + 1 > 2", "arithmetic"),
        (f"-{NUMA} < 0", "arithmetic"),
        (f"isSemver({NUMA})", "argument"),
        (f'"a".startsWith({NUMA})', "argument"),
        (f"[0, 1].includes({NUMA})", "argument"),
        (f"strings.quote({NUMA}) == '0'", "argument"),
    ],
)
def test_each_list_fragile_form_is_a_use(expression: str, how: str) -> None:
    assert [u.how for u in analyze(expression).uses] == [how]


@pytest.mark.parametrize(
    "expression",
    [
        f"{NUMA}.includes(4)",
        f"{NUMA}.exists(n, n == 4)",
        f"4 in {NUMA}",
        f"has({NUMA})",
        'device.capacity["gpu.example.com"].memory.compareTo(quantity("1Gi")) >= 0',
        'device.driver == "gpu.example.com"',
        f"{NUMA} == [0, 1]",
        f"[0] != {NUMA}",
        f"{NUMA} + [2] == [0, 2]",
        f"cel.bind(n, {NUMA}, n.includes(0))",
        f"sets.contains({NUMA}, [0])",
        f"{NUMA}.max() < 4",
        f"{NUMA}.distinct().size() == 2",
    ],
)
def test_list_aware_and_non_attribute_forms_are_not_uses(expression: str) -> None:
    assert [u for u in analyze(expression).uses if u.ref.kind == "attributes"] == []


def test_operator_method_and_field_spans() -> None:
    expression = f"{NUMA} * 2 > 1 && isSemver({NUMA}) && {NUMA}.int == 0"
    arithmetic, argument = analyze(expression).uses[:2]
    assert (arithmetic.method, arithmetic.operator and arithmetic.operator.text(expression)) == ("*", "*")
    assert (argument.method, argument.operator and argument.operator.text(expression)) == ("isSemver", "isSemver")
    (select,) = analyze(expression).selects
    assert (select.ref.qualified, select.name, select.span.text(expression)) == (
        "resource.kubernetes.io/numaNode", "int", "int")


def test_an_operator_inside_a_comment_is_not_the_operator() -> None:
    expression = f'{NUMA} // must be == 4\n  == 4'
    (use,) = analyze(expression).uses
    assert use.operator is not None and use.operator.start == expression.rindex("==")


def test_both_attributes_of_a_comparison_are_uses() -> None:
    expression = f'{NUMA} == device.attributes["dra.net"].numaNode'
    assert [(u.ref.qualified, u.attribute_left) for u in analyze(expression).uses] == [
        ("resource.kubernetes.io/numaNode", True), ("dra.net/numaNode", False)]


def test_in_with_a_list_literal_records_the_items() -> None:
    (use,) = analyze(f"{NUMA} in [0, 1]").uses
    assert use.literals == (0, 1)


def test_the_argument_of_has_is_a_guard_not_a_use() -> None:
    facts = analyze(f'has({NUMA}) && {NUMA} == 1 && "x" in device.attributes["a.io"] && device.attributes["a.io"].x')
    assert [r.in_guard for r in facts.refs] == [True, False, False]
    assert [(u.ref.qualified, u.how) for u in facts.uses] == [("resource.kubernetes.io/numaNode", "=="),
                                                               ("a.io/x", "bool")]


def test_include_call_has_its_name_span_and_receiver() -> None:
    expression = f"{NUMA}.include(0)"
    (call,) = analyze(expression).calls
    assert call.name == "include"
    assert call.name_span.text(expression) == "include"
    assert call.ref is not None and call.ref.qualified == "resource.kubernetes.io/numaNode"
    assert call.literal_args == (0,)


def test_comprehension_cost_multiplies_known_sizes() -> None:
    ten = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"
    expression = f"{ten}.all(a, {ten}.all(b, {NUMA}.exists(c, c == a)))"
    assert analyze(expression).cost == 10 * 10 * 64
    assert analyze("lists.range(5000).all(i, i >= 0)").cost == 5000


def test_a_parse_error_is_a_compile_error() -> None:
    with pytest.raises(CompileError, match=r"^Syntax error: unexpected end of input \(line 1, column 19\)$"):
        analyze("device.attributes[")


def test_variable_free_avoids_names_in_use() -> None:
    assert analyze("[1].exists(v, v == 1)").variable_free("v") == "v1"
    assert analyze("true").variable_free("v") == "v"


def test_negative_and_hex_ints() -> None:
    facts = analyze(f"{NUMA} == -1 || {NUMA} == 0x10")
    assert [u.literal for u in facts.uses] == [-1, 16]
    assert literal_value(parse("true")) is True


def test_spans_survive_literals_whose_positions_the_lexer_drops() -> None:
    expression = f"false == {NUMA} || {NUMA} != null"
    first, second = analyze(expression).uses
    assert first.span.text(expression) == f"false == {NUMA}"
    assert first.other is not None and first.other.text(expression) == "false"
    assert second.span.text(expression) == f"{NUMA} != null"


TOKENS = [NUMA, 'device.attributes["a.io"]', '["x"]', ".m", "device", ".driver", "==", "!=", "<", " in ",
          "&&", "||", "!", "(", ")", "[", "]", ",", "1", "-2", '"s"', "true", "null", ".includes(", ".include(",
          ".exists(v, ", "v", "has(", ".startsWith(", "? ", ": ", "lists.range(3)", ".all(x, "]


@settings(deadline=None, max_examples=200)
@given(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=12))
def test_any_token_soup_is_facts_or_a_compile_error(parts: list[str]) -> None:
    expression = " ".join(parts)
    try:
        facts = analyze(expression)
    except CompileError:
        return
    for use in facts.uses:
        assert 0 <= use.span.start <= use.span.end <= len(expression)
        assert use.ref.span.text(expression).startswith("device.attributes[")


# -- two-variable comprehensions, the newer macros and optional reads ------------------------------------------

DOMAIN = 'device.attributes["resource.kubernetes.io"]'
TEN = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"


@pytest.mark.parametrize(
    "expression",
    [
        f"{NUMA}.transformList(i, v, v + 1) == [1]",
        f"{NUMA}.transformList(i, v, v > 0, v * 2).size() > 0",
        f"{NUMA}.transformMap(i, v, v + 1).size() > 0",
        f"{NUMA}.transformMapEntry(i, v, {{v: i}}).size() > 0",
        f"{NUMA}.exists_one(n, n == 0)",
        f"{NUMA}.existsOne(i, n, n == 0)",
        f"{NUMA}.map(n, n > 0, n * 2) == [2]",
        f"{NUMA}.sortBy(n, -n)[0] == 1",
    ],
)
def test_the_newer_macros_are_list_safe(expression: str) -> None:
    assert analyze(expression).uses == ()


@pytest.mark.parametrize(
    ("expression", "literals"),
    [
        (f"[0, 4].exists(i, n, {NUMA} == n)", (0, 4)),  # the second variable is the element
        (f"[0, 4].all(i, n, {NUMA} != i)", (0, 1)),  # the first is the index
        (f"[0, 4].exists_one(n, {NUMA} == n)", (0, 4)),
        (f"[0, 4].transformList(i, n, {NUMA} == n).size() > 0", (0, 4)),
    ],
)
def test_two_variable_comprehensions_range_their_variables(expression: str, literals: tuple[int, ...]) -> None:
    (use,) = analyze(expression).uses
    assert use.literals == literals


def test_two_variable_and_new_macros_multiply_the_cost() -> None:
    expression = f"{TEN}.transformList(i, a, {TEN}.exists(j, b, {NUMA}.exists_one(c, c == b)))"
    assert analyze(expression).cost == 10 * 10 * 64
    assert analyze(f"{DOMAIN}.?numaNode.optMap(n, n).hasValue()").cost == 1  # one value at most
    assert analyze(f"{TEN}.sortBy(n, -n)[0] == 1").cost == 10


@pytest.mark.parametrize(
    "expression",
    [
        f"[1, 2].map(x, {DOMAIN}.flag, x) == [1]",  # the filter of a 3-argument map
        f"[1, 2].transformList(i, x, {DOMAIN}.flag, x) == [1]",  # the filter of a 4-argument transform
        f"[1, 2].transformMap(i, x, {DOMAIN}.flag, x).size() == 1",
        f"{{'a': 1}}.existsOne(k, v, {DOMAIN}.flag)",
    ],
)
def test_filters_and_predicates_of_the_newer_macros_are_conditions(expression: str) -> None:
    assert [(u.ref.name, u.how) for u in analyze(expression).uses] == [("flag", "bool")]


def test_the_transform_of_a_transform_is_no_condition() -> None:
    assert analyze(f"[1, 2].transformList(i, x, {DOMAIN}.flag) == [true]").uses == ()


@pytest.mark.parametrize("read", [f"{DOMAIN}.?numaNode", f'{DOMAIN}[?"numaNode"]',
                                  'device.attributes[?"resource.kubernetes.io"].numaNode'])
def test_an_optional_read_is_an_attribute_ref(read: str) -> None:
    expression = f"{read}.hasValue()"
    (ref,) = analyze(expression).refs
    assert (ref.qualified, ref.optional, ref.in_guard, ref.dereferenced) == (
        "resource.kubernetes.io/numaNode", True, True, False)
    assert ref.span.text(expression) == read
    assert ref.name_span.text(expression) in ("numaNode", '"numaNode"')


def test_or_value_hands_on_the_attribute_value() -> None:
    expression = f"{DOMAIN}.?numaNode.orValue(-1) == 4"
    (use,) = analyze(expression).uses
    assert (use.how, use.literal, use.ref.optional, use.ref.dereferenced) == ("==", 4, True, False)
    assert use.unwrap is not None and (use.unwrap.method, use.unwrap.fallback_literal) == ("orValue", -1)
    assert use.operand.text(expression) == f"{DOMAIN}.?numaNode.orValue(-1)"


@pytest.mark.parametrize(
    ("expression", "how"),
    [
        (f"{DOMAIN}.?numaNode.value() != 4", "!="),
        (f'{DOMAIN}[?"flag"].orValue(false)', "bool"),
        (f'{DOMAIN}.?model.orValue("").startsWith("A")', "method"),
        (f"{DOMAIN}.?numaNode.orValue(0) + 1 > 2", "arithmetic"),
        (f"[0, 1].includes({DOMAIN}.?numaNode.value())", "argument"),
    ],
)
def test_unwrapped_optional_reads_are_uses(expression: str, how: str) -> None:
    assert [u.how for u in analyze(expression).uses] == [how]


@pytest.mark.parametrize(
    "expression",
    [
        f"{DOMAIN}.?numaNode == optional.none()",  # an optional, never a list
        f"{DOMAIN}.?numaNode.orValue(-1).includes(4)",
        f"{DOMAIN}.?numaNode.or({DOMAIN}.?other).hasValue()",
        f"{DOMAIN}.?numaNode.optMap(n, n.includes(0)).orValue(false)",
    ],
)
def test_optional_reads_that_are_not_the_value_are_not_uses(expression: str) -> None:
    facts = analyze(expression)
    assert facts.uses == () and facts.refs[0].optional


def test_value_dereferences_and_the_fallback_is_walked() -> None:
    expression = f'{DOMAIN}.?a.value() == 1 && {DOMAIN}.?b.orValue(semver("1.0.0")) == semver("1.0.0")'
    facts = analyze(expression)
    assert [(r.name, r.dereferenced) for r in facts.refs] == [("a", True), ("b", False)]
    assert [c.name for c in facts.calls] == ["semver", "semver"]


# -- size() and reads through the driver's own domain ----------------------------------------------------------

MODEL = 'device.attributes["gpu.example.com"].model'


@pytest.mark.parametrize(
    ("expression", "size_call", "unwrap"),
    [
        (f"size({MODEL}) > 3", f"size({MODEL})", None),
        (f"{MODEL}.size() > 3", f"{MODEL}.size()", None),
        (f'{DOMAIN}.?model.orValue("").size() == 0', f'{DOMAIN}.?model.orValue("").size()', "orValue"),
    ],
)
def test_size_of_an_attribute_is_a_size_use(expression: str, size_call: str, unwrap: str | None) -> None:
    """size() counts a string's characters but a list's elements: the rule decides by the attribute's type."""
    (use,) = analyze(expression).uses
    assert (use.how, use.method, use.span.text(expression)) == ("size", "size", size_call)
    assert use.operator is not None and use.operator.text(expression) == "size"
    assert (use.unwrap.method if use.unwrap else None) == unwrap


@pytest.mark.parametrize("expression", [f"size({DOMAIN}.?model) == 1", f"{DOMAIN}.?model.size() == 1",
                                        f"{MODEL}.distinct().size() == 2", f"size({DOMAIN}) > 2"])
def test_size_of_an_optional_a_domain_or_a_derived_list_is_no_use(expression: str) -> None:
    assert analyze(expression).uses == ()


DRIVER_DOMAIN = "device.attributes[device.driver]"


@pytest.mark.parametrize("read", [f"{DRIVER_DOMAIN}.numaNode", f'{DRIVER_DOMAIN}["numaNode"]',
                                  "device.attributes[(device.driver)].numaNode"])
def test_a_read_through_the_drivers_own_domain_is_an_attribute_ref(read: str) -> None:
    expression = f"{read} == 0"
    (use,) = analyze(expression).uses
    ref = use.ref
    assert (ref.by_driver, ref.domain, ref.name, ref.qualified, use.how) == (
        True, "<driver>", "numaNode", "<driver>/numaNode", "==")
    assert ref.qualified_on("dra.net") == "dra.net/numaNode"
    assert ref.span.text(expression) == read
    assert ref.domain_span.text(expression).strip("()") == "device.driver"
    (domain,) = analyze(expression).domains
    assert (domain.by_driver, domain.domain) == (True, "<driver>")


def test_driver_domain_reads_optional_guarded_and_without_an_id() -> None:
    expression = (f'has({DRIVER_DOMAIN}.a) && {DRIVER_DOMAIN}.?b.orValue(0) == 1 && '
                  f'"c" in {DRIVER_DOMAIN} && device.attributes[?device.driver].d.hasValue()')
    facts = analyze(expression)
    assert [(r.name, r.by_driver, r.in_guard, r.optional) for r in facts.refs] == [
        ("a", True, True, False), ("b", True, False, True), ("d", True, True, True)]
    assert [(u.ref.name, u.how) for u in facts.uses] == [("b", "==")]
    assert all(d.by_driver for d in facts.domains) and len(facts.domains) == 4
    literal = analyze('device.attributes["<driver>"].a == 1').refs[0]
    assert not literal.by_driver and literal.qualified_on("dra.net") == "<driver>/a"


def test_other_non_literal_domains_are_not_refs() -> None:
    assert analyze('device.attributes[device.driver + "x"].a == 1').refs == ()
    assert analyze("device.attributes[other.driver].a == 1").refs == ()


# -- cel.bind: a bound variable stands for what it is bound to ------------------------------------------------

GPU = 'device.attributes["gpu.example.com"]'
RKI = 'device.attributes["resource.kubernetes.io"]'


def test_a_variable_bound_to_a_read_is_that_read_where_it_occurs() -> None:
    expression = f"cel.bind(n, {NUMA}, n == 4)"
    facts = analyze(expression)
    (use,) = facts.uses
    assert (use.ref.qualified, use.how, use.literal, use.span.text(expression)) == (
        "resource.kubernetes.io/numaNode", "==", 4, "n == 4")
    assert use.span.start == expression.rindex("n == 4")
    assert [(r.span.text(expression), r.alias) for r in facts.refs] == [(NUMA, False), ("n", True)]
    # the alias names the read where it is bound; the domain is read there once
    assert use.ref.name_span.text(expression) == "numaNode"
    assert [d.span.text(expression) for d in facts.domains] == ['"resource.kubernetes.io"']


def test_a_read_from_a_variable_bound_to_a_domain_map_is_a_read() -> None:
    expression = f'cel.bind(a, {GPU}, a.model == "a100" && a["index"] > 1)'
    facts = analyze(expression)
    assert [(u.ref.qualified, u.how, u.span.text(expression), u.ref.alias) for u in facts.uses] == [
        ("gpu.example.com/model", "==", 'a.model == "a100"', False),
        ("gpu.example.com/index", ">", 'a["index"] > 1', False)]
    assert [d.span.text(expression) for d in facts.domains] == ['"gpu.example.com"']


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        # nested binds, a bind of a bind, a domain bound then a read bound from it
        (f"cel.bind(a, {RKI}, cel.bind(n, a.numaNode, n != 4))", [("!=", "n != 4")]),
        (f"cel.bind(m, {NUMA}, cel.bind(n, m, n < 4))", [("<", "n < 4")]),
        (f"cel.bind(n, dyn({NUMA}), n == 4)", [("==", "n == 4")]),
        # binds inside macros and macros inside binds
        (f"[0, 4].exists(x, cel.bind(n, {NUMA}, n == x))", [("==", "n == x")]),
        (f"cel.bind(n, {NUMA}, [0, 4].exists(x, x == n))", [("==", "x == n")]),
        (f"cel.bind(n, {NUMA}, n)", [("bool", "n")]),
        (f"cel.bind(n, {NUMA}, n + 1 > 2)", [("arithmetic", "n + 1")]),
        (f'cel.bind(n, {GPU}.model, n.startsWith("a"))', [("method", 'n.startsWith("a")')]),
        # shadowing: an inner bind or a macro variable of the same name hides the outer binding
        (f"cel.bind(n, {NUMA}, cel.bind(n, 1, n == 4))", []),
        (f"cel.bind(n, {NUMA}, [1, 2].exists(n, n == 4))", []),
        (f"cel.bind(n, {NUMA}, [1, 2].exists(i, n, n == 4))", []),
        (f"cel.bind(a, {RKI}, [{{'numaNode': 1}}].exists(a, a.numaNode == 4))", []),
        (f"cel.bind(n, {NUMA}, cel.bind(n, 1, n == 4) && n == 5)", [("==", "n == 5")]),
        (f"cel.bind(n, {NUMA}, [1].exists(n, n == 4) || n == 5)", [("==", "n == 5")]),
        # the initialiser is outside the variable's scope
        (f"cel.bind(n, {NUMA}, cel.bind(n, n, n == 4))", [("==", "n == 4")]),
        # a variable the bind does not name, or one bound to something else, is no attribute
        ("cel.bind(n, 4, n == 4)", []),
        (f"cel.bind(n, {GPU}.model.size(), n == 4)", [("size", f"{GPU}.model.size()")]),
    ],
)
def test_bound_uses_through_nesting_macros_and_shadowing(expression: str, expected: list[tuple[str, str]]) -> None:
    assert [(u.how, u.span.text(expression)) for u in analyze(expression).uses] == expected


def test_a_variable_bound_to_an_optional_read_is_unwrapped_where_it_occurs() -> None:
    expression = f'cel.bind(n, {RKI}.?numaNode, n.orValue(-1) == 4 && n.value() != 2)'
    facts = analyze(expression)
    first, second = facts.uses
    assert first.unwrap is not None and second.unwrap is not None
    assert (first.operand.text(expression), first.unwrap.method, first.unwrap.fallback_literal) == (
        "n.orValue(-1)", "orValue", -1)
    assert (second.operand.text(expression), second.unwrap.method) == ("n.value()", "value")
    assert [(r.span.text(expression), r.optional, r.dereferenced, r.alias) for r in facts.refs] == [
        (f"{RKI}.?numaNode", True, False, False), ("n", True, False, True), ("n", True, True, True)]


def test_a_variable_bound_to_an_unwrapped_optional_read_is_the_value() -> None:
    expression = f'cel.bind(n, {RKI}.?numaNode.orValue(-1), n == 4)'
    (use,) = analyze(expression).uses
    assert use.unwrap is not None
    assert (use.operand.text(expression), use.unwrap.method, use.unwrap.fallback_literal) == ("n", "orValue", -1)
    assert use.unwrap.fallback is not None and use.unwrap.fallback.text(expression) == "-1"
    assert not use.ref.dereferenced  # `.value()` where it is bound fails there, not at each occurrence


def test_a_variable_bound_to_a_literal_or_a_comprehension_variable_ranges_over_it() -> None:
    (use,) = analyze(f"cel.bind(k, 4, {NUMA} == k)").uses
    assert use.literals == (4,)
    (use,) = analyze(f"[0, 1].exists(x, cel.bind(k, x, {NUMA} == k))").uses
    assert use.literals == (0, 1)
    (use,) = analyze(f"cel.bind(k, [0, 1], {NUMA} == k)").uses  # a list: may equal a list attribute
    assert use.literals is None


def test_a_guard_and_a_macro_through_a_bound_variable() -> None:
    expression = f"cel.bind(a, {RKI}, has(a.numaNode) && cel.bind(ns, a.numaNode, ns.exists(v, v == 1)))"
    facts = analyze(expression)
    assert [(r.span.text(expression), r.in_guard) for r in facts.refs] == [
        ("a.numaNode", True), ("a.numaNode", False), ("ns", False)]
    assert facts.uses == ()
    (exists,) = [c for c in facts.calls if c.name == "exists"]
    assert exists.ref is not None and exists.ref.span.text(expression) == "ns"
    assert (facts.cost, facts.unbounded) == (64, ())  # an attribute's size bound, as on the read itself
