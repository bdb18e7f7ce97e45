"""The `--fix` rewrites are safe: on a scalar attribute the fixed selector gives the same answer as the
original, and on a list attribute it gives the membership answer the author meant."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import celext
from tests.builders import attr, claim_with_selector
from webhook.fix import apply_to_value
from webhook.policy import Policy
from webhook.rules.base import RuleContext
from webhook.rules.selectors_lists import RULES

FRAGILE = RULES[0]
DRIVER = "gpu.example.com"
READ = f'device.attributes["{DRIVER}"].a'
# The driver's own domain: the same attribute on a device of DRIVER; the rewrite keeps the read as written.
READS = st.sampled_from([READ, "device.attributes[device.driver].a", 'device.attributes[device.driver]["a"]'])
SCALARS = st.one_of(st.integers(-3, 3), st.sampled_from(["x", "y", "it's"]), st.booleans())


def cel_literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value)


def fixed(expression: str) -> str:
    findings = list(FRAGILE.check(claim_with_selector(expression), RuleContext(Policy.default())))
    edits = [f.fix for f in findings if f.fix is not None and f.fix.safe]
    assert edits, expression
    return apply_to_value(expression, edits)


def matches(expression: str, value: Any) -> bool:
    device = {"name": "d", "attributes": {"a": attr(value)}}
    return celext.compile(expression).matches(device, DRIVER)


@settings(deadline=None, max_examples=120)
@given(value=SCALARS, other=SCALARS, op=st.sampled_from(["==", "!="]), left=st.booleans(), read=READS)
def test_equality_rewrite_keeps_scalar_meaning(value: Any, other: Any, op: str, left: bool, read: str) -> None:
    expression = f"{read} {op} {cel_literal(other)}" if left else f"{cel_literal(other)} {op} {read}"
    rewritten = fixed(expression)
    if type(value) is type(other):  # mixed types are an error or false upstream; not the fix's concern
        assert matches(rewritten, value) == matches(expression, value)
    if op == "==" and isinstance(value, int) and not isinstance(value, bool) and type(other) is int:
        assert matches(rewritten, [value, other]) is True  # a list holding the value matches


@settings(deadline=None, max_examples=60)
@given(value=st.integers(-3, 3), items=st.lists(st.integers(-3, 3), min_size=1, max_size=4), read=READS)
def test_in_list_rewrite_keeps_scalar_meaning(value: int, items: list[int], read: str) -> None:
    expression = f"{read} in [{', '.join(map(str, items))}]"
    rewritten = fixed(expression)
    assert matches(rewritten, value) == matches(expression, value) == (value in items)
    assert matches(rewritten, [9, value]) == (value in items)


@settings(deadline=None, max_examples=20)
@given(value=st.booleans(), negate=st.booleans(), read=READS)
def test_bool_rewrite_keeps_scalar_meaning(value: bool, negate: bool, read: str) -> None:
    expression = f"!{read}" if negate else read
    rewritten = fixed(expression)
    assert matches(rewritten, value) == matches(expression, value)
    assert matches(rewritten, [False, True]) == (not negate)


@settings(deadline=None, max_examples=60)
@given(items=st.lists(st.integers(-3, 3), min_size=1, max_size=3), value=st.integers(-3, 3),
       op=st.sampled_from(["==", "!="]), read=READS)
def test_comparison_with_a_comprehension_variable(items: list[int], value: int, op: str, read: str) -> None:
    macro = "exists" if op == "==" else "all"
    expression = f"[{', '.join(map(str, items))}].{macro}(n, {read} {op} n)"
    rewritten = fixed(expression)
    assert matches(rewritten, value) == matches(expression, value)
    assert matches(rewritten, [value]) == matches(expression, value)


INT_READ = f'device.attributes["{DRIVER}"].i'
BOOL_READ = f'device.attributes["{DRIVER}"].b'
OWN_INT_READ, OWN_BOOL_READ = "device.attributes[device.driver].i", 'device.attributes[device.driver]["b"]'
LEAVES = st.sampled_from([
    f"{INT_READ} == 4", f"0 != {INT_READ}", f"{INT_READ} in [0, 5]", f"[4, 5].exists(n, {INT_READ} == n)",
    BOOL_READ, f"!{BOOL_READ}", f"{BOOL_READ} == true", f"{BOOL_READ} != false",
    f"{OWN_INT_READ} == 4", f"5 != {OWN_INT_READ}", f"{OWN_INT_READ} in [4]", OWN_BOOL_READ, f"!{OWN_BOOL_READ}",
])
CONDITIONS = st.recursive(LEAVES, lambda inner: st.one_of(
    st.tuples(inner, inner).map(lambda t: f"{t[0]} && {t[1]}"),
    st.tuples(inner, inner).map(lambda t: f"({t[0]} || {t[1]})"),
    inner.map(lambda t: f"!({t})"),
    st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} ? {t[1]} : {t[2]})"),
), max_leaves=5)


def evaluate(expression: str, i: Any, b: Any) -> bool:
    device = {"name": "d", "attributes": {"i": attr(i), "b": attr(b)}}
    return celext.compile(expression).matches(device, DRIVER)


@settings(deadline=None, max_examples=80)
@given(expression=CONDITIONS)
def test_rewrites_inside_any_boolean_structure(expression: str) -> None:
    """Whatever the nesting: the same answer on scalars and on one-element lists, no error on longer lists,
    and nothing left to fix."""
    rewritten = fixed(expression)
    for i in (0, 4, 5):
        for b in (True, False):
            assert evaluate(rewritten, i, b) == evaluate(expression, i, b) == evaluate(rewritten, [i], [b])
    assert isinstance(evaluate(rewritten, [0, 4], [True, False]), bool)
    assert list(FRAGILE.check(claim_with_selector(rewritten), RuleContext(Policy.default()))) == []


OPT_READS = st.sampled_from([f'device.attributes["{DRIVER}"].?a', "device.attributes[device.driver].?a",
                             'device.attributes[?device.driver]["a"]'])


def matches_or_absent(expression: str, value: Any) -> bool | str:
    """The answer on a device publishing `value` (absent when None), or the error's text."""
    attributes = {} if value is None else {"a": attr(value)}
    try:
        return celext.compile(expression).matches({"name": "d", "attributes": attributes}, DRIVER)
    except celext.EvaluationError as err:
        return str(err)


@settings(deadline=None, max_examples=120)
@given(value=st.one_of(st.none(), SCALARS), fallback=SCALARS, other=SCALARS,
       form=st.sampled_from(["{read} == {other}", "{other} != {read}", "{read} in [{other}, 9]", "{read}"]),
       optional=OPT_READS)
def test_or_value_rewrite_keeps_meaning_with_the_attribute_present_or_absent(
        value: Any, fallback: Any, other: Any, form: str, optional: str) -> None:
    # A list literal mixing types does not compile upstream (homogeneous aggregate literals).
    assume(form != "{read} in [{other}, 9]" or type(other) is int)
    read = f"{optional}.orValue({cel_literal(fallback)})"
    expression = form.format(read=read, other=cel_literal(other))
    findings = list(FRAGILE.check(claim_with_selector(expression), RuleContext(Policy.default())))
    if form == "{read}" and not isinstance(fallback, bool):
        assert [f.fix for f in findings] == [None]  # `"x".includes(true)` would hide the error of `"x"`
        return
    rewritten = fixed(expression)
    compared = True if form == "{read}" else other  # a condition: the value is compared with true
    if value is None or type(value) is type(compared):
        assert matches_or_absent(rewritten, value) == matches_or_absent(expression, value)
    if form != "{other} != {read}":
        assert matches_or_absent(rewritten, [compared]) is True  # a list holding the value matches


def safe_fixes(expression: str) -> list[str]:
    findings = list(FRAGILE.check(claim_with_selector(expression), RuleContext(Policy.default())))
    return [apply_to_value(expression, [f.fix]) for f in findings if f.fix is not None and f.fix.safe]


NUMA = 'device.attributes["resource.kubernetes.io"].numaNode'
OTHER = 'device.attributes["dra.net"].numaNode'


def test_a_variable_that_may_hold_a_list_is_not_rewritten_to_includes() -> None:
    """`x == m` where m is another attribute (cel.bind, a comprehension over a map) or a list: includes(m) is
    false on two equal lists, where == is true; only a variable over a literal list of scalars is rewritten."""
    for expression in (f"cel.bind(m, {OTHER}, {NUMA} == m)", f'device.attributes["dra.net"].exists(m, {NUMA} == m)',
                       f"[[4, 5], [6, 7]].exists(l, {NUMA} == l)", f"cel.bind(l, [4, 5], {NUMA} == l)"):
        assert safe_fixes(expression) == [], expression
        assert list(FRAGILE.check(claim_with_selector(expression), RuleContext(Policy.default()))), expression
    assert safe_fixes(f"[0, 1].exists(n, {NUMA} == n)") == [f"[0, 1].exists(n, {NUMA}.includes(n))"]


def test_two_equal_lists_show_why() -> None:
    device = {"name": "d", "attributes": {"resource.kubernetes.io/numaNode": {"ints": [4, 5]},
                                          "dra.net/numaNode": {"ints": [4, 5]}}}
    original = celext.compile(f"cel.bind(m, {OTHER}, {NUMA} == m)")
    rewritten = celext.compile(f"cel.bind(m, {OTHER}, {NUMA}.includes(m))")
    assert (original.matches(device, DRIVER), rewritten.matches(device, DRIVER)) == (True, False)


def test_dyn_is_seen_through() -> None:
    """dyn(x) hands x on unchanged: `dyn(x) == 4` is as fragile as `x == 4`, and its fix keeps the answer."""
    assert safe_fixes(f"dyn({NUMA}) == 4") == [f"dyn({NUMA}).includes(4)"]
    for value in (4, 5, [4, 5]):
        device = {"name": "d", "attributes": {"resource.kubernetes.io/numaNode": attr(value)}}
        fixed_matches = celext.compile(f"dyn({NUMA}).includes(4)").matches(device, DRIVER)
        assert fixed_matches is (value == 4 or (isinstance(value, list) and 4 in value))
    method = 'dyn(device.attributes["gpu.example.com"].model).startsWith("A")'
    (finding,) = FRAGILE.check(claim_with_selector(method), RuleContext(Policy.default()))
    assert "`.startsWith()` on gpu.example.com/model" in finding.message


def test_the_known_numa_node_guard_is_not_fragile() -> None:
    """`!= -1` ("has a known NUMA node"): on a list it is true, as meant; other attributes and values still warn."""
    for expression in (f"{NUMA} != -1", 'device.attributes["resource.kubernetes.io"].?numaNode.orValue(-1) != -1'):
        assert list(FRAGILE.check(claim_with_selector(expression), RuleContext(Policy.default()))) == [], expression
    for expression in (f"{NUMA} != 0", 'device.attributes["gpu.example.com"].count != -1', f"{NUMA} == -1"):
        assert list(FRAGILE.check(claim_with_selector(expression), RuleContext(Policy.default()))), expression


def test_index_of_on_a_list_is_said_to_look_for_an_element() -> None:
    """Kubernetes' lists library has indexOf()/lastIndexOf(): on a list the call is no error, it looks for the
    whole argument as an element (so a substring search is silently -1)."""
    model = 'device.attributes["gpu.example.com"].model'
    for method in ("indexOf", "lastIndexOf"):
        (finding,) = FRAGILE.check(claim_with_selector(f'{model}.{method}("A") >= 0'), RuleContext(Policy.default()))
        assert f"`.{method}()` on gpu.example.com/model silently looks for an element instead of a substring" \
            in finding.message
        device = {"name": "d", "attributes": {"model": {"strings": ["A100", "H100"]}}}
        assert celext.compile(f'{model}.{method}("A") >= 0').matches(device, DRIVER) is False
    (finding,) = FRAGILE.check(claim_with_selector(f'{model}.startsWith("A")'), RuleContext(Policy.default()))
    assert "is a runtime error" in finding.message


def test_a_ternary_operand_is_compared_as_its_branch() -> None:
    """`(has(x) ? x : -1) == 4`, the guard idiom from before optional reads: the branch is the attribute value,
    so the comparison is as fragile as `x == 4`; no automatic fix (it would have to go into the branch)."""
    guarded = f"(has({NUMA}) ? {NUMA} : -1) == 4"
    (finding,) = FRAGILE.check(claim_with_selector(guarded), RuleContext(Policy.default()))
    assert "`==` on resource.kubernetes.io/numaNode (through a ternary) is silently false" in finding.message
    assert finding.fix is None
    assert finding.hint.startswith(f"compare in the branch, where the value is read: ... ? {NUMA}.includes(<value>)")
    assert 'device.attributes["resource.kubernetes.io"].?numaNode.orValue(<default>).includes(<value>)' in finding.hint
    scalar = {"name": "d", "attributes": {"resource.kubernetes.io/numaNode": {"int": 4}}}
    listed = {"name": "d", "attributes": {"resource.kubernetes.io/numaNode": {"ints": [4, 5]}}}
    selector = celext.compile(guarded)
    assert (selector.matches(scalar, DRIVER), selector.matches(listed, DRIVER)) == (True, False)
    model = 'device.attributes["gpu.example.com"].model'
    ordered = f'(has({model}) ? {model} : "") > "A"'
    (finding,) = FRAGILE.check(claim_with_selector(ordered), RuleContext(Policy.default()))
    assert "`>` on gpu.example.com/model (through a ternary) is a runtime error" in finding.message
    assert ".model.exists(v, v > ...)" in finding.hint
    # A ternary used as a condition keeps the branch's own fix (the branch is the condition's value).
    condition = 'has(device.attributes["gpu.example.com"].rdma) ? device.attributes["gpu.example.com"].rdma : false'
    assert safe_fixes(condition) == [condition.replace(".rdma : false", ".rdma.includes(true) : false")]


def test_no_fix_where_equality_with_a_published_version_is_an_error() -> None:
    """cel-go's Semver.Equal fails on another type: `<version> == "1.2.3"` is a runtime error where
    `.includes("1.2.3")` is silently false, and so is `semver("1.2.3") == <string>`. Where the inventory shows
    that, the finding fixes nothing; `!=`, the reversed order and no inventory keep the fix (same answers)."""
    from tests.builders import device, slice_with

    ver = f'device.attributes["{DRIVER}"].driverVersion'
    model = f'device.attributes["{DRIVER}"].model'
    inventory = [slice_with(device("gpu-0", attributes={f"{DRIVER}/driverVersion": {"version": "1.2.3"},
                                                        f"{DRIVER}/model": "1.2.3"}))]
    device_ = {"name": "d", "attributes": {"driverVersion": {"version": "1.2.3"}, "model": {"string": "1.2.3"}}}
    note = ("(no safe fix: on a version `==` with another type is a runtime error where includes() is false; "
            'compare a version with semver("...") and a string with a string)')
    for expression, fix in ((f'{ver} == "1.2.3"', f'{ver}.includes("1.2.3")'),
                            (f'semver("1.2.3") == {model}', f'{model}.includes(semver("1.2.3"))')):
        with pytest.raises(celext.EvaluationError):
            celext.compile(expression).evaluate(device_, DRIVER)
        assert celext.compile(fix).evaluate(device_, DRIVER) is False
        (finding,) = FRAGILE.check(claim_with_selector(expression), RuleContext(Policy.default(), slices=inventory))
        assert finding.fix is None
        assert finding.hint is not None and finding.hint.endswith(note)
    for expression in (f'{ver} != "1.2.3"', f'"1.2.3" == {ver}', f'{model} == semver("1.2.3")',
                       f'{ver} == semver("1.2.3")'):
        (finding,) = FRAGILE.check(claim_with_selector(expression), RuleContext(Policy.default(), slices=inventory))
        assert finding.fix is not None, expression
        rewritten = apply_to_value(expression, [finding.fix])
        assert celext.compile(rewritten).evaluate(device_, DRIVER) == celext.compile(expression).evaluate(
            device_, DRIVER), expression
    (finding,) = FRAGILE.check(claim_with_selector(f'{ver} == "1.2.3"'), RuleContext(Policy.default()))
    assert finding.fix is not None  # without an inventory the attribute's type is unknown


RKI = 'device.attributes["resource.kubernetes.io"]'


@pytest.mark.parametrize(
    ("expression", "rewritten"),
    [
        (f"cel.bind(n, {NUMA}, n == 4)", f"cel.bind(n, {NUMA}, n.includes(4))"),
        (f"cel.bind(n, {NUMA}, 4 != n)", f"cel.bind(n, {NUMA}, !n.includes(4))"),
        (f"cel.bind(n, {NUMA}, n in [4, 5])", f"cel.bind(n, {NUMA}, [4, 5].exists(v, n.includes(v)))"),
        (f"cel.bind(a, {RKI}, a.numaNode == 4)", f"cel.bind(a, {RKI}, a.numaNode.includes(4))"),
        (f"cel.bind(a, {RKI}, cel.bind(n, a.numaNode, n == 4))",
         f"cel.bind(a, {RKI}, cel.bind(n, a.numaNode, n.includes(4)))"),
        (f"[4, 5].exists(x, cel.bind(n, {NUMA}, n == x))", f"[4, 5].exists(x, cel.bind(n, {NUMA}, n.includes(x)))"),
        (f"cel.bind(n, {NUMA}, [4, 5].exists(x, x == n))", f"cel.bind(n, {NUMA}, [4, 5].exists(x, n.includes(x)))"),
        (f"cel.bind(k, 4, {NUMA} == k)", f"cel.bind(k, 4, {NUMA}.includes(k))"),
        (f"cel.bind(n, {NUMA}, cel.bind(n, 4, n == 4) && n == 4)",
         f"cel.bind(n, {NUMA}, cel.bind(n, 4, n == 4) && n.includes(4))"),
        (f"cel.bind(n, {NUMA}, [4].exists(n, n == 4) && n == 4)",
         f"cel.bind(n, {NUMA}, [4].exists(n, n == 4) && n.includes(4))"),
        (f"cel.bind(n, {RKI}.?numaNode, n.orValue(-1) == 4)",
         f"cel.bind(n, {RKI}.?numaNode, n.orValue(-1).includes(4))"),
        (f"cel.bind(n, {RKI}.?numaNode.orValue(-1), n == 4)",
         f"cel.bind(n, {RKI}.?numaNode.orValue(-1), n.includes(4))"),
    ],
)
@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_cel_bind_rewrites_keep_meaning_on_a_scalar_and_match_membership_on_a_list(
        expression: str, rewritten: str, engine: str) -> None:
    """`--fix` rewrites the variable's occurrence in its own text (`n == 4` -> `n.includes(4)`); both engines give
    the original's answer where the attribute is a scalar (or absent, for an optional read) and the membership
    answer where it is a list."""
    assert safe_fixes(expression) == [rewritten]
    assert list(FRAGILE.check(claim_with_selector(rewritten), RuleContext(Policy.default()))) == []
    negated = "!=" in expression

    def answer(text: str, value: Any) -> bool:
        attributes = {} if value is None else {"resource.kubernetes.io/numaNode": attr(value)}
        return celext.compile(text, engine).evaluate({"name": "d", "attributes": attributes}, DRIVER)

    for value in (3, 4, 5, *([None] if "?" in expression else [])):
        assert answer(rewritten, value) == answer(expression, value), value
    for value in ([0, 4], [5, 1], [1, 2]):
        member = any(node in value for node in ((4, 5) if "[4, 5]" in expression else (4,)))
        assert answer(rewritten, value) is (member != negated), value
        assert answer(expression, value) is negated  # `list == 4` is false: what the finding is about
