"""The allocation search behind `draguard explain`, with a stand-in selector engine.

Selectors here are tiny Python predicates keyed by their text, so these tests pin the search
(pool order, count, All, firstAvailable, constraints, node selection, errors) independently of CEL.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from celext.alloc.explain import ClaimResult, NodeResult, explain, explain_on_node
from celext.alloc.pools import Node, nodes_of
from celext.errors import EvaluationError

NUMA = "resource.kubernetes.io/numaNode"
Wire = dict[str, Any]


def numa(value: int | list[int]) -> Wire:
    return {"ints": value} if isinstance(value, list) else {"int": value}


def dev(name: str, node: int | list[int] | None = None, **extra: Any) -> Wire:
    attributes = {NUMA: numa(node)} if node is not None else {}
    return {"name": name, "attributes": attributes, **extra}


def rslice(driver: str, devices: list[Wire], *, node: str | None = "n1", pool: str | None = None,
           name: str | None = None, generation: int = 1, count: int = 1, **spec: Any) -> Wire:
    body: Wire = {"driver": driver, "devices": devices,
                  "pool": {"name": pool or node or "shared", "generation": generation, "resourceSliceCount": count}}
    if node is not None:
        body["nodeName"] = node
    body.update(spec)
    return {"kind": "ResourceSlice", "metadata": {"name": name or f"{driver}-{node}"}, "spec": body}


def dclass(name: str, *expressions: str) -> Wire:
    return {"kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": e}} for e in expressions]}}


CLASSES = {c: dclass(c, f"driver:{c}") for c in ("gpu.example.com", "dra.net", "dra.cpu")}


def matcher(expression: str, device: Mapping[str, Any], driver: str) -> bool:
    """`driver:X`, `name:X`, `numa:N` (scalar equality), `boom` (runtime error)."""
    kind, _, arg = expression.partition(":")
    if kind == "driver":
        return driver == arg
    if kind == "name":
        return bool(device["name"] == arg)
    if kind == "numa":
        return bool(device["attributes"].get(NUMA) == {"int": int(arg)})
    if kind == "boom":
        raise EvaluationError("no such key: numaNode")
    raise AssertionError(expression)


def request(name: str, cls: str, *selectors: str, **exactly: Any) -> Wire:
    body: Wire = {"deviceClassName": cls, **exactly}
    if selectors:
        body["selectors"] = [{"cel": {"expression": s}} for s in selectors]
    return {"name": name, "exactly": body}


def claim(*requests: Wire, constraints: list[Wire] | None = None, kind: str = "ResourceClaim") -> Wire:
    devices = {"requests": list(requests), "constraints": constraints or []}
    if kind == "ResourceClaimTemplate":
        return {"kind": kind, "metadata": {"name": "t"}, "spec": {"spec": {"devices": devices}}}
    return {"kind": kind, "metadata": {"name": "c", "namespace": "ns"}, "spec": {"devices": devices}}


def on_n1(obj: Wire, slices: list[Wire], **kw: Any) -> NodeResult:
    return explain_on_node(obj, kw.pop("classes", CLASSES), slices, Node("n1"), matcher=kw.pop("m", matcher), **kw)


def picked(result: NodeResult) -> list[tuple[str, str]]:
    return [(p.request, p.device.name) for p in result.picks]


MATCH_ALL = [{"matchAttribute": NUMA}]
GPU_NIC_CPU = (request("gpu", "gpu.example.com"), request("nic", "dra.net"), request("cpu", "dra.cpu"))
NPS4 = [
    rslice("gpu.example.com", [dev("gpu-1", [1, 0, 2, 3]), dev("gpu-5", [5, 4, 6, 7])]),
    rslice("dra.net", [dev("nic-6", [6, 4, 5, 7])]),
    rslice("dra.cpu", [dev("cpu-0", 0), dev("cpu-4", 4)]),
]


def test_nps4_cross_quadrant_allocation_and_common_numa_set() -> None:
    result = on_n1(claim(*GPU_NIC_CPU, constraints=MATCH_ALL), NPS4)
    assert result.status == "fits"
    # gpu-1 is tried first and abandoned once no NIC shares its quadrant: exact backtracking.
    assert picked(result) == [("gpu", "gpu-5"), ("nic", "nic-6"), ("cpu", "cpu-4")]
    assert result.numa == "{4}"
    assert result.common == ((f"matchAttribute {NUMA}", "{4}"),)


def test_scalar_semantics_fail_closed_on_list_values() -> None:
    result = on_n1(claim(*GPU_NIC_CPU, constraints=MATCH_ALL), NPS4, semantics="scalar")
    assert result.status == "no-fit"
    assert result.reason == (
        f"constraint #0 (matchAttribute {NUMA}): {NUMA} of device dra.net/n1/nic-6 is the list [6, 4, 5, 7]; "
        "without list semantics a list value cannot match (fails closed)"
    )
    assert result.details == (
        f"candidates for gpu ({NUMA}): gpu-1 [1, 0, 2, 3], gpu-5 [5, 4, 6, 7]",
        f"candidates for nic ({NUMA}): nic-6 [6, 4, 5, 7]",
        f"candidates for cpu ({NUMA}): cpu-0 0, cpu-4 4",
    )


def test_cpu_on_node_0_cannot_join_a_nic_on_quadrant_4() -> None:
    slices = [rslice("dra.net", [dev("nic-6", [6, 4, 5, 7])]), rslice("dra.cpu", [dev("cpu-0", 0)])]
    result = on_n1(claim(request("nic", "dra.net"), request("cpu", "dra.cpu"), constraints=MATCH_ALL), slices)
    assert result.status == "no-fit"
    assert result.reason == (
        f"constraint #0 (matchAttribute {NUMA}): {NUMA} 0 of device dra.cpu/n1/cpu-0 (request cpu) has nothing "
        "in common with {4, 5, 6, 7}, the values shared by dra.net/n1/nic-6 [6, 4, 5, 7]"
    )


def _wide(last: int | None) -> tuple[Wire, list[Wire]]:
    """Three requests with 15 candidates each on NUMA node 0, then one whose only device is on `last`:
    3,375 combinations to try before the last request can fail."""
    drivers = [f"d{i}.example.com" for i in range(4)]
    slices = [rslice(d, [dev(f"x{k}", [0]) for k in range(15)]) for d in drivers[:3]]
    slices.append(rslice(drivers[3], [dev("last", None if last is None else [last])]))
    return claim(*(request(f"r{i}", d) for i, d in enumerate(drivers)), constraints=MATCH_ALL), slices


def test_a_long_search_first_checks_whether_the_constraint_is_hopeless() -> None:
    obj, slices = _wide(7)
    classes = {d: dclass(d, f"driver:{d}") for d in (f"d{i}.example.com" for i in range(4))}
    result = on_n1(obj, slices, classes=classes)
    assert result.status == "no-fit"
    assert result.reason == (f"constraint #0 (matchAttribute {NUMA}): no value is shared by the candidates of every "
                             "request: r0 offers {0}; r1 offers {0}; r2 offers {0}; r3 offers {7}")
    assert result.details[-1] == f"candidates for r3 ({NUMA}): last [7]"
    assert result.steps == 2001  # the probe, not the 3,375+ placements of the exhaustive search
    # when it is not hopeless, the full search runs again and decides exactly as before
    obj, slices = _wide(0)
    fits = on_n1(obj, slices, classes=classes)
    assert fits.status == "fits" and fits.steps == 4
    assert on_n1(*_wide(7), classes=classes, max_steps=2000).status == "bound"
    absent = on_n1(*_wide(None), classes=classes)
    assert absent.reason == f"constraint #0 (matchAttribute {NUMA}): no candidate of request r3 has a usable {NUMA}"


def test_errors_and_short_requests_are_reported_as_the_search_reports_them() -> None:
    slices = [rslice("dra.net", [dev("nic-6", [6, 4, 5, 7])]), rslice("dra.cpu", [dev("cpu-0", 0)])]
    # a selector error the search meets aborts the claim, even though no value is shared
    boom = on_n1(claim(request("nic", "dra.net"), request("cpu", "dra.cpu", "boom"), constraints=MATCH_ALL), slices)
    assert boom.status == "error"
    # allocationMode All with a violated constraint aborts upstream
    every = on_n1(claim(request("nic", "dra.net"), request("cpu", "dra.cpu", allocationMode="All"),
                        constraints=MATCH_ALL), slices)
    assert every.status == "error"
    # a request without candidates stays the first reason
    none = on_n1(claim(request("nic", "dra.net", "name:nic-9"), request("cpu", "dra.cpu"), constraints=MATCH_ALL),
                 slices)
    assert none.reason == "request nic: no device matches"
    # scalar semantics search as before (the first device is accepted whatever its value)
    scalar = on_n1(claim(request("nic", "dra.net"), request("cpu", "dra.cpu"), constraints=MATCH_ALL), slices,
                   semantics="scalar")
    assert scalar.status == "no-fit" and scalar.steps > 0


def test_pairwise_overlap_without_a_common_node_does_not_fit() -> None:
    slices = [rslice("dra.cpu", [dev("a", [1, 2]), dev("b", [2, 3]), dev("c", [3, 1])])]
    result = on_n1(claim(request("cpu", "dra.cpu", count=3), constraints=MATCH_ALL), slices)
    assert result.status == "no-fit"
    assert result.reason.endswith("has nothing in common with {2}, the values shared by dra.cpu/n1/a [1, 2], "
                                  "dra.cpu/n1/b [2, 3]")


def test_request_without_candidates_is_the_first_reason() -> None:
    result = on_n1(claim(request("gpu", "gpu.example.com", "name:gpu-9"), *GPU_NIC_CPU[1:]), NPS4)
    assert result.status == "no-fit"
    assert result.reason == "request gpu: no device matches"
    assert result.details == (
        "request gpu: 5 device(s) on this node; 2 pass class gpu.example.com; 0 of those pass the request's selectors",
    )


def test_count_takes_combinations_in_pool_order_and_distinct_is_pairwise() -> None:
    slices = [rslice("dra.cpu", [dev("c0", [0, 1]), dev("c1", [1, 2]), dev("c2", [2, 3]), dev("c3", [4])])]
    distinct = [{"distinctAttribute": NUMA, "requests": ["cpu"]}]
    result = on_n1(claim(request("cpu", "dra.cpu", count=3), constraints=distinct), slices)
    assert picked(result) == [("cpu", "c0"), ("cpu", "c2"), ("cpu", "c3")]
    too_many = on_n1(claim(request("cpu", "dra.cpu", count=4), constraints=distinct), slices)
    assert too_many.status == "no-fit"
    assert too_many.reason.startswith(f"constraint #0 (distinctAttribute {NUMA}): ")


def test_not_enough_devices_for_count() -> None:
    result = on_n1(claim(request("cpu", "dra.cpu", count=3)), NPS4)
    assert result.reason == "request cpu: not enough matching devices"
    assert result.details[-1] == "request cpu: 2 candidate(s), count 3"


def test_allocation_mode_all_takes_every_candidate() -> None:
    result = on_n1(claim(request("cpu", "dra.cpu", allocationMode="All")), NPS4)
    assert picked(result) == [("cpu", "cpu-0"), ("cpu", "cpu-4")]


def test_allocation_mode_all_with_a_violated_constraint_aborts_as_upstream() -> None:
    result = on_n1(claim(request("cpu", "dra.cpu", allocationMode="All"), constraints=MATCH_ALL), NPS4)
    assert result.status == "error"
    assert result.reason == ("claim ns/c, request cpu: cannot add device dra.cpu/n1/cpu-4 because a claim "
                             "constraint would not be satisfied")


def test_first_available_tries_subrequests_in_order() -> None:
    first_available = {"name": "gpu", "firstAvailable": [
        {"name": "big", "deviceClassName": "gpu.example.com", "count": 3},
        {"name": "one", "deviceClassName": "gpu.example.com", "selectors": [{"cel": {"expression": "numa:9"}}]},
        {"name": "any", "deviceClassName": "gpu.example.com"},
    ]}
    nic = request("nic", "dra.net")
    result = on_n1(claim(first_available, nic, constraints=[{"matchAttribute": NUMA, "requests": ["gpu/any", "nic"]}]),
                   NPS4)
    assert picked(result) == [("gpu/any", "gpu-5"), ("nic", "nic-6")]


def test_cel_runtime_error_aborts_the_claim_with_the_allocator_message() -> None:
    classes = {**CLASSES, "dra.cpu": dclass("dra.cpu", "driver:dra.cpu", "boom")}
    result = on_n1(claim(request("cpu", "dra.cpu")), NPS4, classes=classes)
    assert result.status == "error"
    assert result.reason == (
        "class dra.cpu: selector #1 on device dra.cpu/n1/cpu-0: CEL runtime error: no such key: numaNode. consider "
        "using CEL optional chaining (.? followed by orValue()) or guarding the check with has() for optional fields"
    )


def test_request_selector_error_names_the_claim() -> None:
    result = on_n1(claim(request("cpu", "dra.cpu", "boom")), NPS4)
    assert result.reason.startswith("claim ns/c: selector #0 on device dra.cpu/n1/cpu-0: CEL runtime error: ")


def test_missing_class_refuses_the_claim_everywhere() -> None:
    result = explain(claim(request("gpu", "nvidia")), CLASSES, NPS4, [Node("n1")], matcher=matcher)
    assert result == ClaimResult("ResourceClaim ns/c", error=(
        'claim ns/c, request gpu: could not retrieve device class nvidia: deviceclass.resource.k8s.io "nvidia" '
        "not found"))


def test_templates_are_explained_like_claims() -> None:
    result = explain(claim(*GPU_NIC_CPU, constraints=MATCH_ALL, kind="ResourceClaimTemplate"), CLASSES, NPS4,
                     [Node("n1")], matcher=matcher)
    assert result.claim == "ResourceClaimTemplate t" and result.fits


def test_node_sees_own_all_nodes_and_selected_slices_only() -> None:
    slices = [
        rslice("dra.cpu", [dev("other")], node="n2"),
        rslice("dra.cpu", [dev("everywhere")], node=None, pool="a", allNodes=True),
        rslice("dra.cpu", [dev("rack-1")], node=None, pool="b", nodeSelector={"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "rack", "operator": "In", "values": ["1"]}]}]}),
        rslice("dra.cpu", [dev("mine", nodeName="n1"), dev("theirs", nodeName="n2")], node=None, pool="c",
               perDeviceNodeSelection=True),
    ]
    every = claim(request("cpu", "dra.cpu", allocationMode="All"))
    result = explain_on_node(every, CLASSES, slices, Node("n1", {"rack": "1"}), matcher=matcher)
    assert picked(result) == [("cpu", "everywhere"), ("cpu", "rack-1"), ("cpu", "mine")]
    unlabelled = explain_on_node(every, CLASSES, slices, Node("n1"), matcher=matcher)
    assert picked(unlabelled) == [("cpu", "everywhere"), ("cpu", "mine")]


def test_only_the_newest_pool_generation_counts_and_incomplete_pools_are_skipped() -> None:
    slices = [
        rslice("dra.cpu", [dev("old")], name="s-old", generation=1),
        rslice("dra.cpu", [dev("new")], name="s-new", generation=2),
        rslice("dra.net", [dev("half")], count=2),
    ]
    result = on_n1(claim(request("cpu", "dra.cpu"), request("more", "dra.cpu")), slices)
    assert result.reason == "the requests compete for the same devices: no way to give each its own"
    assert result.details[1:] == ("request cpu: 1 candidate(s)", "request more: 1 candidate(s)")
    assert on_n1(claim(request("cpu", "dra.cpu")), slices).picks[0].device.name == "new"
    assert result.details[0] == "pool dra.net/n1 is incomplete (1 of 2 slices): skipped"


def test_work_bound_stops_the_search_with_a_clear_message() -> None:
    slices = [rslice("dra.cpu", [dev(f"c{i}", i % 8) for i in range(24)])]
    impossible = claim(request("cpu", "dra.cpu", count=4), constraints=[{"distinctAttribute": NUMA}, *MATCH_ALL])
    result = on_n1(impossible, slices, max_steps=100)
    assert result.status == "bound"
    assert result.reason == ("search stopped after 100 placement attempts (the work bound) without an answer; "
                             "narrow the selectors or raise --max-steps")


def test_shareable_devices_serve_several_requests() -> None:
    slices = [rslice("dra.cpu", [dev("pool-0", 0, allowMultipleAllocations=True)])]
    result = on_n1(claim(request("a", "dra.cpu"), request("b", "dra.cpu")), slices)
    assert picked(result) == [("a", "pool-0"), ("b", "pool-0")]


def test_nodes_come_from_node_objects_and_slices() -> None:
    node_a = {"kind": "Node", "metadata": {"name": "a", "labels": {"x": "1"}}}
    nodes = nodes_of([rslice("dra.cpu", [], node="b")], [node_a])
    assert nodes == [Node("a", {"x": "1"}), Node("b", {})]
    assert nodes_of([], []) == [Node("", {})]


@pytest.mark.parametrize("semantics", ["list", "scalar"])
def test_scalar_only_inventory_behaves_the_same_under_both_semantics(semantics: Any) -> None:
    slices = [rslice("dra.net", [dev("nic-0", 0), dev("nic-1", 1)]), rslice("dra.cpu", [dev("cpu-1", 1)])]
    result = on_n1(claim(request("nic", "dra.net"), request("cpu", "dra.cpu"), constraints=MATCH_ALL), slices,
                   semantics=semantics)
    assert picked(result) == [("nic", "nic-1"), ("cpu", "cpu-1")]




# --- exactness: the search agrees with a literal port of upstream's allocateOne ------------------------
# The oracle used to be brute force over every assignment (∩ ≠ ∅, pairwise disjoint). Upstream is not that:
# matchAttribute's remove only counts down, so a set narrowed by a device taken back stays narrowed, and
# distinctAttribute keeps one value per request. The oracle below ports upstream's state transitions as
# written (allocator_experimental.go matchAttributeConstraint, constraint.go distinctAttributeConstraint);
# brute force still bounds it: upstream can only refuse more under matchAttribute, accept more under distinct.

def _upstream(counts: list[int], pools: list[list[set[int]]], match: bool) -> bool:
    state: dict[str, Any] = {"n": 0, "inter": set(), "attrs": {}}

    def add(request: int, values: set[int]) -> bool:
        if state["n"] == 0:
            if match:
                state["inter"] = set(values)
            else:
                state["attrs"][request] = values
            state["n"] = 1
            return True
        if match:
            if not state["inter"] & values:
                return False
            state["inter"] &= values  # updateToIntersection, in place
        else:
            if any(values & other for other in state["attrs"].values()):
                return False
            state["attrs"][request] = values
        state["n"] += 1
        return True

    def remove(request: int) -> None:
        if not match:
            state["attrs"].pop(request, None)
        state["n"] -= 1

    def one(request: int, placed: int, start: int) -> bool:
        if request == len(counts):
            return True
        if placed == counts[request]:
            return one(request + 1, 0, 0)
        for i in range(start, len(pools[request])):
            if add(request, pools[request][i]):
                if one(request, placed + 1, i + 1):
                    return True
                remove(request)
        return False

    return one(0, 0, 0)


def _brute_force(counts: list[int], pools: list[list[set[int]]], match: bool, distinct: bool) -> bool:
    """Whether some choice of distinct devices per request satisfies the constraints as sets."""
    from itertools import combinations, product

    choices = [list(combinations(range(len(pool)), n)) for pool, n in zip(pools, counts, strict=True)]
    for pick in product(*choices):
        chosen = [pools[r][i] for r, idx in enumerate(pick) for i in idx]
        if match and not set.intersection(*chosen):
            continue
        if distinct and any(a & b for k, a in enumerate(chosen) for b in chosen[k + 1:]):
            continue
        return True
    return False


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 3), st.lists(st.sets(st.integers(0, 4), min_size=1, max_size=3),
                                                    min_size=0, max_size=5)), min_size=1, max_size=3),
    st.booleans(),
)
def test_search_is_exact(requests: list[tuple[int, list[set[int]]]], match: bool) -> None:
    drivers = [f"d{r}.example.com" for r in range(len(requests))]
    slices = [rslice(drv, [dev(f"x{i}", sorted(values)) for i, values in enumerate(pool)])
              for drv, (_, pool) in zip(drivers, requests, strict=True)]
    classes = {drv: dclass(drv, f"driver:{drv}") for drv in drivers}
    constraints = [{"matchAttribute": NUMA}] if match else [{"distinctAttribute": NUMA}]
    obj = claim(*(request(f"r{r}", drv, count=n) for r, (drv, (n, _)) in enumerate(zip(drivers, requests,
                                                                                          strict=True))),
                constraints=constraints)
    result = explain_on_node(obj, classes, slices, Node("n1"), matcher=matcher)
    counts, pools = [n for n, _ in requests], [pool for _, pool in requests]
    fits = result.status == "fits"
    assert fits is _upstream(counts, pools, match)
    as_sets = _brute_force(counts, pools, match, not match)
    assert (as_sets or not fits) if match else (fits or not as_sets)


def test_all_devices_with_an_incomplete_pool_aborts_as_upstream() -> None:
    slices = [rslice("dra.cpu", [dev("a")], count=2)]
    result = on_n1(claim(request("cpu", "dra.cpu", allocationMode="All")), slices)
    assert result.status == "error"
    assert result.reason == ("claim ns/c, request cpu: asks for all devices, but resource pool dra.cpu/n1 is "
                             "currently being updated")


def test_upstream_distinct_case_picks_the_disjoint_pair() -> None:
    """Upstream allocator test: strings [v1,v2], [v2,v3], [v3,v4], count 2 -> allocated (the first and third)."""
    attr = "dra.cpu/group"
    slices = [rslice("dra.cpu", [{"name": n, "attributes": {attr: {"strings": v}}} for n, v in
                                 (("a", ["v1", "v2"]), ("b", ["v2", "v3"]), ("c", ["v3", "v4"]))])]
    result = on_n1(claim(request("cpu", "dra.cpu", count=2), constraints=[{"distinctAttribute": attr}]), slices)
    assert picked(result) == [("cpu", "a"), ("cpu", "c")]
    scalar = on_n1(claim(request("cpu", "dra.cpu", count=2), constraints=[{"distinctAttribute": attr}]), slices,
                   semantics="scalar")
    assert scalar.status == "no-fit"  # pre-list: a second device with a list value is refused


MEMORY = [rslice("dra.cpu", [{
    "name": "memory-0", "allowMultipleAllocations": True, "attributes": {NUMA: {"int": 0}},
    "capacity": {"size": {"value": "128Gi", "requestPolicy": {"default": "1Mi",
                                                               "validRange": {"min": "4Ki", "step": "4Ki"}}}},
}])]


def size(name: str, amount: str) -> Wire:
    return request(name, "dra.cpu", capacity={"requests": {"size": amount}})


def test_shares_of_one_device_add_up_to_its_capacity() -> None:
    assert picked(on_n1(claim(size("a", "64Gi"), size("b", "64Gi")), MEMORY)) == [("a", "memory-0"), ("b", "memory-0")]
    third = on_n1(claim(size("a", "64Gi"), size("b", "64Gi"), size("c", "4Ki")), MEMORY)
    assert third.status == "no-fit"
    assert third.reason == "the requests compete for the same devices: no way to give each its own"


def test_a_request_larger_than_any_device_says_so() -> None:
    result = on_n1(claim(size("mem", "256Gi")), MEMORY)
    assert result.reason == "request mem: no matching device has room for the requested capacity"
    assert result.details == ("dra.cpu/n1/memory-0: size: needs 256Gi, the device has 128Gi",)


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["", "x", "dra.cpu", "All", NUMA, "4Ki"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["name", "exactly", "firstAvailable", "deviceClassName", "count", "allocationMode",
                         "selectors", "capacity", "requests", "matchAttribute", "distinctAttribute", "devices",
                         "attributes", "pool", "driver", "nodeName", "allNodes", "spec", "int", "ints"]),
        inner, max_size=4),
    max_leaves=12,
)


def test_a_request_with_no_alternatives_is_an_error_not_an_exception() -> None:
    """`firstAvailable: []` (hypothesis found it): the claim is reported, the device-count check does not crash."""
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c"},
             "spec": {"devices": {"requests": [{"name": "r", "firstAvailable": []}]}}}
    result = explain(claim, [], [], [Node("n1")], matcher=lambda e, d, drv: True, max_steps=100)
    assert result.error == ("claim c, request r: exactly one of `exactly` or `firstAvailable` is required: the API "
                            "server refuses this claim")


@pytest.mark.parametrize(("api_version", "request_", "error"), [
    ("resource.k8s.io/v1", {"name": "r", "deviceClassName": "gpu"},  # the v1beta1 layout in v1: dropped
     "claim c, request r: exactly one of `exactly` or `firstAvailable` is required (deviceClassName sits on the "
     "request itself, the v1beta1 layout): the API server refuses this claim"),
    ("resource.k8s.io/v1beta1", {"name": "r", "exactly": {"deviceClassName": "gpu"}},  # the v1 layout in v1beta1
     "claim c, request r: missing device class name (unsupported request type?)"),
    ("resource.k8s.io/v1beta1", {"name": "r", "deviceClassName": "gpu"}, ""),
    ("resource.k8s.io/v1beta2", {"name": "r", "exactly": {"deviceClassName": "gpu"}}, ""),
])
def test_a_request_is_read_in_the_layout_of_its_api_version(api_version: str, request_: Wire, error: str) -> None:
    claim = {"apiVersion": api_version, "kind": "ResourceClaim", "metadata": {"name": "c"},
             "spec": {"devices": {"requests": [request_]}}}
    classes = {"gpu": {"kind": "DeviceClass", "metadata": {"name": "gpu"}, "spec": {}}}
    slices = [rslice("gpu.example.com", [dev("g", 0)])]
    result = explain(claim, classes, slices, [Node("n1")], matcher=lambda e, d, drv: True, max_steps=100)
    assert result.error == error


@settings(max_examples=150, deadline=None)
@given(requests=JSONISH, constraints=JSONISH, devices=JSONISH)
def test_malformed_objects_never_escape_as_exceptions(requests: Any, constraints: Any, devices: Any) -> None:
    obj = {"kind": "ResourceClaim", "metadata": {"name": "c"},
           "spec": {"devices": {"requests": requests, "constraints": constraints}}}
    slices = [{"kind": "ResourceSlice", "metadata": {"name": "s"},
               "spec": {"driver": "dra.cpu", "nodeName": "n1", "devices": devices}}, rslice("dra.cpu", [dev("c", 0)])]
    result = explain(obj, CLASSES, slices, [Node("n1")], matcher=lambda e, d, drv: True, max_steps=1000)
    assert isinstance(result, ClaimResult)
