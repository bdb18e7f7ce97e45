"""KEP-6072 lets a driver publish numaNode as a scalar or a list, and a selector must accommodate both:
`list-only-read` (list-only reads of a NUMA attribute), `constraint-distinct-list` (distinctAttribute over
intersecting lists, with an inventory) and `constraint-distinct-numa` (the same risk without one), and the
inventory-aware wording of `list-fragile-compare` and `selector-numa-pinned`. The findings in full. Named
`test_selectors_lists_*` so mutation testing runs it first on `webhook.rules.selectors_lists`."""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import claim_with_selector, device, device_class_with_selector, slice_with
from webhook.policy import Policy
from webhook.run import run_rules

N = 'device.attributes["resource.kubernetes.io"].numaNode'
SEL = "spec.devices.requests[0].exactly.selectors[0].cel.expression"
CON = "spec.devices.constraints[0].distinctAttribute"
CPU = slice_with(device("cpus-0", numa=0), device("cpus-1", numa=1), driver="dra.cpu", name="n1-cpu", pool="n1")
GPU = slice_with(device("gpu-0", numa=[0, 1, 2, 3]), device("gpu-1", numa=[1, 0, 2, 3]), device("gpu-2", numa=[4, 5]),
                 pool="n1")
CLASSES = [device_class_with_selector('device.driver == "dra.cpu"', name="cpu"),
           device_class_with_selector('device.driver == "gpu.example.com"', name="gpu")]
INVENTORY = [CPU, GPU, *CLASSES]

Found = list[tuple[str, str, str, str | None, tuple[int, int] | None]]


def seen(obj: dict[str, Any], slices: list[Any] | None = None, policy: Policy | None = None,
         rules: tuple[str, ...] = ()) -> Found:
    found = run_rules(obj, policy or Policy.default(), slices=slices or []).findings
    return [(f.rule, str(f.path), f.message, f.hint, f.span) for f in found if not rules or f.rule in rules]


# -- list-only-read ---------------------------------------------------------------------------------------------

def _generic(what: str, name: str = "resource.kubernetes.io/numaNode") -> str:
    return (f"{what} on {name} reads it as a list; KEP-6072 lets a driver publish the scalar form (`int: N`), "
            f"where this is a runtime error (no such overload) that aborts allocation")


def _scalars(what: str, where: str) -> str:
    return (f"{what} on resource.kubernetes.io/numaNode reads it as a list, but resource.kubernetes.io/numaNode is a "
            f"scalar int on 2 {where} (e.g. dra.cpu/n1/cpus-0), where this is a runtime error (no such overload) "
            f"that aborts allocation")


def _no_rewrite(read: str = N) -> str:
    return (f"no rewrite keeps this meaning on both forms: write the selector for both (KEP-6072), e.g. with "
            f"{read}.includes(<node>), which is equality on a scalar and membership in a list")


def _includes(node: int, read: str = N) -> str:
    return f"{read}.includes({node})   (membership in a list, equality with a scalar)"


@pytest.mark.parametrize(("expression", "expected"), [
    pytest.param(f"{N}[0] == 0", [(_generic("an index `[...]`"), _no_rewrite(), (0, 52))], id="index"),
    pytest.param(f"{N} [1] == 0", [(_generic("an index `[...]`"), _no_rewrite(), (0, 52))], id="index-after-space"),
    pytest.param(f"0 in {N}", [(_generic("`in`"), _includes(0), (0, 57))], id="in"),
    pytest.param(f"-1 in {N}", [(_generic("`in`"), _includes(-1), (0, 58))], id="in-negative"),
    pytest.param(f"x in {N}".replace("x in", "[1][0] in"), [(_generic("`in`"), _no_rewrite(), (7, 62))],
                 id="in-not-a-literal"),
    # `in` is found in the parse tree: parentheses, dyn() and comments between `in` and the read change nothing
    pytest.param(f"0 in ({N})", [(_generic("`in`"), _includes(0), (0, 58))], id="in-parenthesised"),
    pytest.param(f"0 in dyn({N})", [(_generic("`in`"), _includes(0), (0, 61))], id="in-dyn"),
    pytest.param(f"0 in dyn(({N}))", [(_generic("`in`"), _includes(0), (0, 62))], id="in-dyn-parenthesised"),
    pytest.param(f"0 in // the node\n  {N}", [(_generic("`in`"), _includes(0), (0, 71))], id="in-comment-between"),
    pytest.param(f"!(1 in\n{N})", [(_generic("`in`"), _includes(1), (2, 59))], id="in-line-break"),
    pytest.param(f'"0" in {N}', [(_generic("`in`"), _no_rewrite(), (4, 59))], id="in-string-not-a-node"),
    pytest.param(f"0 in [{N}]", [], id="read-inside-the-container"),
    pytest.param(f"size({N}) == 1", [(_generic("`size()`"), _no_rewrite(), (5, 57))], id="size-function"),
    pytest.param(f"{N}.size() == 1", [(_generic("`size()`"), _no_rewrite(), (0, 52))], id="size-method"),
    pytest.param(f"{N}.exists(n, n == 0)", [(_generic("`.exists()`"), _includes(0), (53, 59))], id="exists-eq"),
    pytest.param(f"{N}.exists(n, 3 == n)", [(_generic("`.exists()`"), _includes(3), (53, 59))],
                 id="exists-eq-reversed"),
    pytest.param(f"{N}.exists(n, n > 0)", [(_generic("`.exists()`"), _no_rewrite(), (53, 59))], id="exists-gt"),
    pytest.param(f"{N}.exists(n, m == 0)", [(_generic("`.exists()`"), _no_rewrite(), (53, 59))],
                 id="exists-another-variable"),
    pytest.param(f"{N}.all(n, n < 4)", [(_generic("`.all()`"), _no_rewrite(), (53, 56))], id="all"),
    pytest.param(f"{N}.filter(n, n == 4).size() > 0", [(_generic("`.filter()`"), _no_rewrite(), (53, 59))],
                 id="filter"),
    pytest.param('device.attributes["dra.net"].numaNode.exists(n, n == 1)',
                 [(_generic("`.exists()`", "dra.net/numaNode"), _includes(1, 'device.attributes["dra.net"].numaNode'),
                   (38, 44))], id="vendor-alias"),
    pytest.param(f"{N}.includes(0)", [], id="includes-works-on-both"),
    pytest.param(f"{N} == 0", [], id="scalar-compare-is-list-fragile-compare"),
    pytest.param(f"has({N}) && {N}.includes(0)", [], id="guard"),
    pytest.param('device.attributes["resource.kubernetes.io"].?numaNode.orValue(0) == 0', [], id="optional"),
    pytest.param('device.attributes["gpu.example.com"].family[0] == "a"', [], id="not-numa"),
    pytest.param('device.attributes["gpu.example.com"].family.exists(f, f == "a")', [], id="not-numa-macro"),
    pytest.param('[0, 1].exists(n, n == 0)', [], id="a-literal-list"),
])
def test_list_only_read_without_an_inventory(expression: str,
                                             expected: list[tuple[str, str, tuple[int, int]]]) -> None:
    assert seen(claim_with_selector(expression), rules=("list-only-read",)) == [
        ("list-only-read", SEL, *e) for e in expected]


def test_list_only_read_is_a_warning_by_default() -> None:
    [finding] = [f for f in run_rules(claim_with_selector(f"0 in {N}"), Policy.default()).findings
                 if f.rule == "list-only-read"]
    assert finding.action is not None and finding.action.value == "warn"


@pytest.mark.parametrize(("device_class", "expression", "expected"), [
    pytest.param("cpu", f"{N}[0] == 0", [(_scalars("an index `[...]`", "candidate device(s)"), _no_rewrite(),
                                          (0, 52))], id="scalar-candidates-index"),
    pytest.param("cpu", f"0 in {N}", [(_scalars("`in`", "candidate device(s)"), _includes(0), (0, 57))],
                 id="scalar-candidates-in"),
    pytest.param("cpu", f"{N}.exists(n, n == 1)", [(_scalars("`.exists()`", "candidate device(s)"), _includes(1),
                                                    (53, 59))], id="scalar-candidates-exists"),
    pytest.param("gpu", f"{N}[0] == 0", [(_generic("an index `[...]`"), _no_rewrite(), (0, 52))],
                 id="list-candidates-keep-the-generic-text"),
    pytest.param("unknown", f"0 in {N}", [(_scalars("`in`", "device(s) in the inventory"), _includes(0), (0, 57))],
                 id="unknown-class-counts-the-inventory"),
    pytest.param("cpu", f"{N}.includes(0)", [], id="includes-on-scalars"),
])
def test_list_only_read_with_an_inventory(device_class: str, expression: str,
                                          expected: list[tuple[str, str, tuple[int, int]]]) -> None:
    claim = claim_with_selector(expression, device_class=device_class)
    assert seen(claim, INVENTORY, rules=("list-only-read",)) == [("list-only-read", SEL, *e) for e in expected]


# -- list-fragile-compare cites the request's candidates only -------------------------------------------------

FRAGILE_HINT = (f"{N}.includes(0)   (safe fix: draguard lint --fix; includes() needs Kubernetes with the "
                "DRAListTypeAttributes feature gate)")


@pytest.mark.parametrize(("device_class", "message"), [
    pytest.param("cpu", "`==` on resource.kubernetes.io/numaNode is silently false once the driver publishes it as "
                        "a list", id="scalar-class-gets-the-generic-text"),
    pytest.param("gpu", "`==` on resource.kubernetes.io/numaNode: resource.kubernetes.io/numaNode is a list on 3 "
                        "candidate device(s) (e.g. gpu.example.com/n1/gpu-0), where this is silently false",
                 id="list-class-counts-its-candidates"),
    pytest.param("unknown", "`==` on resource.kubernetes.io/numaNode: resource.kubernetes.io/numaNode is a list on 3 "
                            "device(s) in the inventory (e.g. gpu.example.com/n1/gpu-0), where this is silently false",
                 id="unknown-class-counts-the-inventory"),
])
def test_list_fragile_compare_cites_only_devices_the_request_can_select(device_class: str, message: str) -> None:
    claim = claim_with_selector(f"{N} == 0", device_class=device_class)
    assert seen(claim, INVENTORY, rules=("list-fragile-compare",)) == [
        ("list-fragile-compare", SEL, message, FRAGILE_HINT, (53, 55))]


# -- selector-numa-pinned: `!=` excludes, `!= -1` is the "known node" guard --------------------------------------

CONSTRAINT_HINT = ("align devices with a constraint instead: constraints: "
                   "[{matchAttribute: resource.kubernetes.io/numaNode}]")


@pytest.mark.parametrize(("expression", "expected"), [
    pytest.param(f"{N} != 4", [(
        "the selector excludes NUMA node 4 by id (resource.kubernetes.io/numaNode): node ids differ between machines, "
        "so which devices this leaves out depends on each node's layout", (0, 57))], id="not-equal-excludes"),
    pytest.param(f"{N} == 4", [(
        "the selector pins resource.kubernetes.io/numaNode to NUMA node 4: node ids differ between machines, so this "
        "claim only fits nodes with that layout", (0, 57))], id="equal-pins"),
    pytest.param(f"{N} != -1", [], id="not-unknown-is-no-pin"),
    pytest.param('device.attributes["resource.kubernetes.io"].?numaNode.orValue(-1) != -1', [],
                 id="not-unknown-with-a-default"),
])
def test_numa_pinned_wording(expression: str, expected: list[tuple[str, tuple[int, int]]]) -> None:
    assert seen(claim_with_selector(expression), rules=("selector-numa-pinned",)) == [
        ("selector-numa-pinned", SEL, message, CONSTRAINT_HINT, span) for message, span in expected]


# -- constraint-distinct-list / constraint-distinct-numa -----------------------------------------------------------

DISTINCT_NUMA = (
    "constraint-distinct-numa", CON,
    "distinctAttribute resource.kubernetes.io/numaNode: once drivers publish the KEP-6072 list form, devices on the "
    "same socket publish intersecting lists, and distinctAttribute on lists needs them pairwise disjoint (KEP-5491), "
    "so two devices of one socket can never be allocated together",
    "check with --slices (constraint-distinct-list); to spread devices over sockets, distinguish them by a "
    "per-socket attribute your drivers publish", None)
DISTINCT_LIST_HINT = ("distinctAttribute cannot separate devices whose lists intersect; use an attribute that differs "
                      "between them, or drop the constraint")


def _distinct_list(name: str, a: str, b: str, shared: str, path: str = CON) -> tuple[str, str, str, str, None]:
    return ("constraint-distinct-list", path,
            f"distinctAttribute {name} is a list on devices in the inventory whose lists intersect (e.g. {a} and {b} "
            f"share {{{shared}}}); on lists it needs pairwise disjoint values (KEP-5491), so these devices can never "
            f"be allocated together", DISTINCT_LIST_HINT, None)


GPU_PAIR = _distinct_list("resource.kubernetes.io/numaNode", "gpu.example.com/n1/gpu-0 [0, 1, 2, 3]",
                          "gpu.example.com/n1/gpu-1 [1, 0, 2, 3]", "0, 1, 2, 3")
DISTINCT = ("constraint-distinct-list", "constraint-distinct-numa")


def _claim(device_class: str = "gpu", name: str = "resource.kubernetes.io/numaNode",
           field: str = "distinctAttribute", kind: str = "ResourceClaim",
           requests: list[str] | None = None) -> dict[str, Any]:
    constraint: dict[str, Any] = {field: name}
    if requests is not None:
        constraint["requests"] = requests
    claim = claim_with_selector(device_class=device_class, kind=kind, constraints=[constraint])
    spec = claim["spec"]["spec"] if kind == "ResourceClaimTemplate" else claim["spec"]
    spec["devices"]["requests"][0]["exactly"]["count"] = 2
    return claim


# An attribute without a domain is the driver's own (gpu.example.com/numaNode here), not another domain's.
UNQUALIFIED = slice_with(device("g0", attributes={"numaNode": [0, 1]}), device("g1", attributes={"numaNode": [1, 0]}),
                         pool="n1")


@pytest.mark.parametrize(("claim", "slices", "expected"), [
    pytest.param(_claim(), None, [DISTINCT_NUMA], id="no-inventory-audit"),
    pytest.param(_claim(requests=["req-0"]), None, [DISTINCT_NUMA], id="no-inventory-named-request"),
    pytest.param(_claim(kind="ResourceClaimTemplate"), None,
                 [(DISTINCT_NUMA[0], "spec.spec.devices.constraints[0].distinctAttribute", *DISTINCT_NUMA[2:])],
                 id="no-inventory-template"),
    pytest.param(_claim(field="matchAttribute"), None, [], id="no-inventory-match-attribute"),
    pytest.param(_claim(name="gpu.example.com/links"), None, [], id="no-inventory-another-attribute"),
    pytest.param(_claim(), INVENTORY, [GPU_PAIR], id="inventory-intersecting-lists"),
    pytest.param(_claim(requests=["req-0"]), INVENTORY, [GPU_PAIR], id="inventory-named-request"),
    pytest.param(_claim(kind="ResourceClaimTemplate"), INVENTORY,
                 [(GPU_PAIR[0], "spec.spec.devices.constraints[0].distinctAttribute", *GPU_PAIR[2:])],
                 id="inventory-template"),
    pytest.param(_claim("unknown"), INVENTORY, [GPU_PAIR], id="inventory-unknown-class-takes-every-device"),
    pytest.param(_claim("cpu"), INVENTORY, [], id="inventory-scalar-candidates"),
    pytest.param(_claim(field="matchAttribute"), INVENTORY, [], id="inventory-match-attribute"),
    pytest.param(_claim(), [slice_with(device("gpu-0", numa=[0]), device("gpu-1", numa=[1]), pool="n1"), *CLASSES],
                 [], id="inventory-disjoint-lists"),
    pytest.param(_claim(), [slice_with(device("gpu-0", numa=[0, 1]), pool="n1"),
                            slice_with(device("gpu-1", numa=[1, 0]), pool="n2", name="n2-gpu"), *CLASSES],
                 [], id="inventory-intersecting-lists-in-different-pools"),
    pytest.param(_claim(name="gpu.example.com/links"),
                 [slice_with(device("g0", attributes={"gpu.example.com/links": ["a", "b"]}),
                             device("g1", attributes={"gpu.example.com/links": ["b", "c"]}), pool="n1"), *CLASSES],
                 [_distinct_list("gpu.example.com/links", "gpu.example.com/n1/g0 [a, b]",
                                 "gpu.example.com/n1/g1 [b, c]", "b")], id="inventory-string-lists"),
    pytest.param(_claim(name="gpu.example.com/numaNode"), [UNQUALIFIED, *CLASSES],
                 [_distinct_list("gpu.example.com/numaNode", "gpu.example.com/n1/g0 [0, 1]",
                                 "gpu.example.com/n1/g1 [1, 0]", "0, 1")], id="inventory-driver-domain-unqualified"),
    pytest.param(_claim(name="other.example.com/numaNode"), [UNQUALIFIED, *CLASSES], [],
                 id="inventory-another-domain-than-the-driver"),
])
def test_distinct_attribute_over_lists(claim: dict[str, Any], slices: list[Any] | None, expected: Found) -> None:
    assert seen(claim, slices, rules=DISTINCT) == expected


def test_distinct_attribute_follows_the_requests_the_constraint_names() -> None:
    """Two requests: the constraint names only the cpu one (scalars), so the GPUs' lists do not matter."""
    claim = _claim("cpu", requests=["req-0"])
    claim["spec"]["devices"]["requests"].append({"name": "req-1", "exactly": {"deviceClassName": "gpu"}})
    assert seen(claim, INVENTORY, rules=DISTINCT) == []
    claim["spec"]["devices"]["constraints"][0]["requests"] = ["req-0", "req-1"]
    assert seen(claim, INVENTORY, rules=DISTINCT) == [GPU_PAIR]
    del claim["spec"]["devices"]["constraints"][0]["requests"]
    assert seen(claim, INVENTORY, rules=DISTINCT) == [GPU_PAIR]


def test_distinct_rules_are_silent_without_list_types() -> None:
    policy = Policy.from_mapping({"listTypes": "disabled"})
    assert seen(_claim(), None, policy, rules=DISTINCT) == []
    assert seen(_claim(), INVENTORY, policy, rules=DISTINCT) == []


def test_distinct_rules_default_actions() -> None:
    actions = {f.rule: f.action.value if f.action else None for slices in ([], INVENTORY)
               for f in run_rules(_claim(), Policy.default(), slices=slices).findings}
    assert actions == {"constraint-distinct-numa": "audit", "constraint-distinct-list": "warn"}


@pytest.mark.parametrize(("expression", "what", "span"), [
    (f"sets.contains({N}, [4])", "`sets.contains()`", (14, 14 + len(N))),
    (f"sets.intersects([4], {N})", "`sets.intersects()`", (21, 21 + len(N))),
    (f"{N} + [1] == [4, 1]", "`+` with a list", (0, len(N))),
    (f"[1] + {N} == [1, 4]", "`+` with a list", (6, 6 + len(N))),
])
def test_list_only_reads_through_the_sets_library_and_concatenation(expression: str, what: str,
                                                                      span: tuple[int, int]) -> None:
    """The sets library and `+ [..]` take lists only: on a scalar numaNode each is `no such overload`."""
    import celext

    assert [(rule, message, found_span) for rule, _p, message, _h, found_span in
            seen(claim_with_selector(expression), rules=("list-only-read",))] == [
        ("list-only-read", _generic(what), span)]
    scalar = {"name": "d", "attributes": {"resource.kubernetes.io/numaNode": {"int": 4}}}
    with pytest.raises(celext.EvaluationError, match="no such overload"):
        celext.compile(expression).evaluate(scalar, "gpu.example.com")


def test_arithmetic_on_a_scalar_is_not_a_list_only_read() -> None:
    assert seen(claim_with_selector(f"{N} + 1 == 5"), rules=("list-only-read",)) == []
    # an index before `+` is an element, not a list literal
    indexed = f'device.attributes["gpu.example.com"].counts[0] + {N} == 5'
    assert seen(claim_with_selector(indexed), rules=("list-only-read",)) == []


# -- one comparison, one finding ----------------------------------------------------------------------------------

def test_an_attribute_compared_with_itself_is_one_finding_and_two_attributes_are_two() -> None:
    """Both operands of `x == x` are the same read at the same `==`: one finding, not the same line twice."""
    same = seen(device_class_with_selector(f"{N} == {N}"), rules=("list-fragile-compare",))
    assert [(message, span) for _rule, _path, message, _hint, span in same] == [
        ("`==` on resource.kubernetes.io/numaNode is silently false once the driver publishes it as a list",
         (53, 55))]
    other = 'device.attributes["dra.example.com"].socket'
    two = seen(device_class_with_selector(f"{N} == {other}"), rules=("list-fragile-compare",))
    assert sorted(message.split(" is ")[0] for _rule, _path, message, _hint, _span in two) == [
        "`==` on dra.example.com/socket", "`==` on resource.kubernetes.io/numaNode"]


# -- -1 is no NUMA node ---------------------------------------------------------------------------------------------

NEVER = ("the selector looks for resource.kubernetes.io/numaNode -1, which no device publishes (KEP-6072: a device "
         "without NUMA affinity omits the attribute), so this test never matches")
NEVER_HINT = '!has(device.attributes["resource.kubernetes.io"].numaNode) selects devices without NUMA affinity'


def _pinned(*nodes: int) -> str:
    return (f"the selector pins resource.kubernetes.io/numaNode to NUMA node {', '.join(map(str, nodes))}: node ids "
            f"differ between machines, so this claim only fits nodes with that layout")


@pytest.mark.parametrize(("expression", "expected"), [
    pytest.param(f"{N} == -1", [(NEVER, (0, 58))], id="equals"),
    pytest.param(f"-1 == {N}", [(NEVER, (0, 58))], id="equals-left"),
    pytest.param(f"{N} in [-1, 0]", [(NEVER, (0, 63)), (_pinned(0), (0, 63))], id="in"),
    pytest.param(f"{N}.includes(-1)", [(NEVER, (0, 65))], id="includes"),
    pytest.param(f"{N} == 0", [(_pinned(0), (0, 57))], id="a node"),
    pytest.param(f"{N} != -1", [], id="the known-node guard"),
    pytest.param('device.attributes["gpu.nvidia.com"].numaNode == -1', [], id="a vendor's unknown"),
    pytest.param('device.attributes["resource.kubernetes.io"].?numaNode.orValue(-1) == -1', [],
                 id="absent, through a fallback"),
    pytest.param(f"(has({N}) ? {N} : -1) == -1", [], id="absent, through a ternary"),
    pytest.param('device.attributes["resource.kubernetes.io"].?numaNode.orValue(-1) == 2', [(_pinned(2), (0, 70))],
                 id="a node, through a fallback"),
])
def test_minus_one_is_no_node(expression: str, expected: list[tuple[str, tuple[int, int]]]) -> None:
    found = seen(device_class_with_selector(expression), rules=("selector-numa-pinned",))
    assert [(message, span) for _rule, _path, message, _hint, span in found] == expected
    assert all(hint == (NEVER_HINT if message == NEVER else
                        "align devices with a constraint instead: constraints: "
                        "[{matchAttribute: resource.kubernetes.io/numaNode}]")
               for _rule, _path, message, hint, _span in found)


# -- selector-attribute-missing skips other drivers' devices only where the selector is false on them -----------

def test_a_driver_guard_changes_no_attribute_missing_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    """A selector requiring driver `a` is not evaluated on driver `b`'s converting devices (false there), but a `b`
    device that does not convert still is (its error comes before the selector runs): the findings are those of
    the selector evaluated on every candidate."""
    import celext.selector
    a = slice_with(device("a-0", attributes={"model": "x"}), device("a-1"), driver="a.example.com", name="a", pool="a")
    b = slice_with(device("b-0"), device("b-1", attributes={"model": {"version": "not-a-version"}}),
                   driver="b.example.com", name="b", pool="b")
    claim = claim_with_selector('device.driver == "a.example.com" && device.attributes["a.example.com"].model == "x"',
                                device_class="unknown")
    guarded = seen(claim, [a, b], rules=("selector-attribute-missing",))
    monkeypatch.setattr(celext.selector.Selector, "required_driver", property(lambda _self: None))
    everywhere = seen(claim, [dict(a), dict(b)], rules=("selector-attribute-missing",))  # a fresh inventory
    assert guarded == everywhere
    assert [message for _rule, _path, message, _hint, _span in guarded] == [
        # a-1 lacks it; b-1's conversion error names `model` too (it fails before the selector runs, on any driver)
        "a.example.com/model is absent on 2 of 4 candidate device(s) (e.g. a.example.com/a/a-1): "
        "`device.attributes[\"a.example.com\"].model` fails there with no such key, which aborts allocation for the "
        "claim"]
