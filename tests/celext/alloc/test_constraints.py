"""matchAttribute / distinctAttribute set semantics: the KEP-6072 stories and upstream's list-attributes-* cases."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from celext.alloc.constraints import (
    DistinctAttribute,
    MatchAttribute,
    ValueSet,
    attribute_as_set,
    check_distinct,
    check_match,
    lookup_attribute,
    make_constraint,
    render_attribute,
)

NUMA = "resource.kubernetes.io/numaNode"


def ints(*values: int) -> dict[str, Any]:
    return {"ints": list(values)}


def one(value: int) -> dict[str, Any]:
    return {"int": value}


def strings(*values: str) -> dict[str, Any]:
    return {"strings": list(values)}


# --- KEP-6072 user stories -------------------------------------------------------------------

def test_cpu_scalar_4_matches_nic_list_6_4_5_7() -> None:
    assert check_match(NUMA, [one(4), ints(6, 4, 5, 7)]) is None


def test_cpu_scalar_0_does_not_match_nic_list_6_4_5_7() -> None:
    assert check_match(NUMA, [one(0), ints(6, 4, 5, 7)]) == (
        f"{NUMA} [6, 4, 5, 7] of device example.com/pool/device-1 (request request-1) has nothing in common "
        f"with {{0}}, the values shared by example.com/pool/device-0 0"
    )


def test_nps4_cross_quadrant_gpu_and_nic_share_the_quadrant() -> None:
    tracker = MatchAttribute(NUMA, frozenset())
    gpu = {"attributes": {NUMA: ints(5, 4, 6, 7)}}
    assert tracker.add("gpu", "gpu.example.com/p/gpu-5", gpu, "gpu.example.com") is None
    assert tracker.add("nic", "dra.net/p/nic-6", {"attributes": {NUMA: ints(6, 4, 5, 7)}}, "dra.net") is None
    assert tracker.common == ValueSet("int", frozenset({4, 5, 6, 7}))
    # A CPU in the same quadrant narrows the common set to its own node.
    assert tracker.add("cpu", "dra.cpu/p/cpu-4", {"attributes": {NUMA: one(4)}}, "dra.cpu") is None
    assert str(tracker.common) == "{4}"


def test_nps4_gpu_does_not_match_nic_of_the_other_socket() -> None:
    assert check_match(NUMA, [ints(5, 4, 6, 7), ints(1, 0, 2, 3)]) is not None


def test_three_pairwise_overlapping_lists_with_empty_common_intersection_do_not_match() -> None:
    assert check_match(NUMA, [ints(1, 2), ints(2, 3)]) is None
    assert check_match(NUMA, [ints(2, 3), ints(3, 1)]) is None
    assert check_match(NUMA, [ints(1, 2), ints(3, 1)]) is None
    assert check_match(NUMA, [ints(1, 2), ints(2, 3), ints(3, 1)]) == (
        f"{NUMA} [3, 1] of device example.com/pool/device-2 (request request-2) has nothing in common with {{2}}, "
        "the values shared by example.com/pool/device-0 [1, 2], example.com/pool/device-1 [2, 3]"
    )


# --- upstream allocator cases (list-attributes-*) ------------------------------------------

@pytest.mark.parametrize(
    ("values", "ok"),
    [
        ([{"string": "v1"}, {"string": "v1"}], True),
        ([strings("v1", "v2", "v3"), strings("v2", "v3", "v4")], True),
        ([strings("v1", "v2"), strings("v2", "v3"), strings("v3", "v1")], False),
        ([strings("v1", "v2"), strings("v3", "v4")], False),
        ([{"string": "v1"}, strings("v1", "v2")], True),
        ([{"string": "v1"}, strings("v2", "v3")], False),
        ([ints(0, 1, 2), ints(1, 2, 3)], True),
        ([{"bools": [True, False]}, {"bools": [True]}], True),
        ([{"versions": ["1.0.0", "2.0.0"]}, {"versions": ["2.0.0", "3.0.0"]}], True),
        ([{}, strings()], False),  # empty attribute / empty list: unknown type, constraint fails
        ([one(1), {"string": "1"}], False),  # type mismatch is no intersection
        ([{"version": "1.0.0+a"}, {"version": "1.0.0+b"}], False),  # versions compare as strings
    ],
)
def test_match_attribute_list_semantics(values: list[dict[str, Any]], ok: bool) -> None:
    assert (check_match("dra.example.com/attr", values) is None) is ok


@pytest.mark.parametrize(
    ("values", "ok"),
    [
        ([strings("v1", "v2"), strings("v3", "v4")], True),
        ([strings("v1", "v2", "v3"), strings("v2", "v4", "v5")], False),
        ([{"string": "v1"}, strings("v1", "v2")], False),
        ([one(1), one(2), one(3)], True),
        ([one(1), one(2), one(1)], False),
        ([ints(0, 1), ints(2, 3), ints(4, 1)], False),  # pairwise: the third clashes with the first
        ([one(1), {"string": "1"}], True),  # type mismatch: disjoint
    ],
)
def test_distinct_attribute_list_semantics(values: list[dict[str, Any]], ok: bool) -> None:
    assert (check_distinct("dra.example.com/attr", values) is None) is ok


def test_distinct_pairwise_message_names_both_devices() -> None:
    assert check_distinct(NUMA, [ints(0, 1), ints(2, 3), ints(4, 1)]) == (
        f"{NUMA} [4, 1] of device example.com/pool/device-2 (request request-2) shares {{1}} with [0, 1] of "
        "device example.com/pool/device-0"
    )


# --- scalar (pre-list) semantics: a list fails closed ------------------------------------------

def test_scalar_semantics_equal_scalars_match() -> None:
    assert check_match(NUMA, [one(4), one(4)], "scalar") is None
    assert check_match(NUMA, [one(4), one(5)], "scalar") == (
        f"{NUMA} 5 of device example.com/pool/device-1 (request request-1) differs from 4 of device "
        "example.com/pool/device-0"
    )


def test_scalar_semantics_a_later_list_fails_closed() -> None:
    assert check_match(NUMA, [one(4), ints(6, 4, 5, 7)], "scalar") == (
        f"{NUMA} of device example.com/pool/device-1 is the list [6, 4, 5, 7]; without list semantics a list "
        "value cannot match (fails closed)"
    )


def test_scalar_semantics_a_first_list_is_accepted_alone_but_nothing_matches_it() -> None:
    assert check_match(NUMA, [ints(4)], "scalar") is None
    assert check_match(NUMA, [ints(4), one(4)], "scalar") == (
        f"{NUMA} 4 of device example.com/pool/device-1 (request request-1) differs from [4] of device "
        "example.com/pool/device-0 (a list: fails closed without list semantics)"
    )


def test_scalar_semantics_distinct() -> None:
    assert check_distinct(NUMA, [one(1), one(2)], "scalar") is None
    assert check_distinct(NUMA, [one(1), one(1)], "scalar") is not None
    assert check_distinct(NUMA, [one(1), ints(2, 3)], "scalar") is not None  # a new list is refused
    assert check_distinct(NUMA, [ints(1, 2), one(1)], "scalar") is None  # a stored list never duplicates


# --- lookup, qualification, backtracking ---------------------------------------------------------

def test_unqualified_names_belong_to_the_driver_domain() -> None:
    device = {"attributes": {"numaNode": one(3)}}
    assert lookup_attribute(device, "gpu.amd.com", "gpu.amd.com/numaNode") == one(3)
    assert lookup_attribute(device, "gpu.amd.com", "dra.net/numaNode") is None


def test_exact_key_wins_over_the_unqualified_id() -> None:
    device = {"attributes": {"numaNode": one(3), "gpu.amd.com/numaNode": one(5)}}
    assert lookup_attribute(device, "gpu.amd.com", "gpu.amd.com/numaNode") == one(5)


def test_missing_attribute_fails_the_match() -> None:
    tracker = MatchAttribute(NUMA, frozenset({"gpu"}))
    problem = tracker.add("gpu", "d/p/gpu-0", {"attributes": {}}, "d")
    assert problem == f"device d/p/gpu-0 (request gpu) has no attribute {NUMA}"


def test_requests_not_named_are_not_constrained_and_subrequests_follow_their_parent() -> None:
    tracker = MatchAttribute(NUMA, frozenset({"gpu", "nic/vf"}))
    assert tracker.add("cpu", "d/p/x", {"attributes": {}}, "d") is None
    assert tracker.applies("gpu/large") and tracker.applies("nic/vf") and not tracker.applies("nic/pf")


def test_remove_keeps_the_narrowed_intersection_until_no_device_is_left() -> None:
    # upstream matchAttributeConstraint.remove only counts down (numDevices--): the set stays narrowed
    tracker = MatchAttribute(NUMA, frozenset())
    tracker.add("a", "d/p/a", {"attributes": {NUMA: ints(0, 1, 2)}}, "d")
    tracker.add("b", "d/p/b", {"attributes": {NUMA: ints(2)}}, "d")
    tracker.remove("b")
    assert str(tracker.common) == "{0, 1, 2}"  # what the placed devices share (reported on a fit)
    problem = tracker.add("c", "d/p/c", {"attributes": {NUMA: ints(0)}}, "d")
    assert str(problem) == (
        f"{NUMA} [0] of device d/p/c (request c) has nothing in common with {{2}}, the values shared by d/p/a "
        "[0, 1, 2], d/p/b [2] (d/p/b taken back by the search; the allocator keeps the set they narrowed while "
        "devices of this constraint remain placed)")
    assert tracker.stale_rejections == 1
    tracker.remove("a")  # no device left: the next one starts a new set
    assert tracker.add("c", "d/p/c", {"attributes": {NUMA: ints(0)}}, "d") is None


def test_scalar_match_keeps_the_first_value_while_devices_remain() -> None:
    tracker = MatchAttribute(NUMA, frozenset(), "scalar")
    tracker.add("a", "d/p/a", {"attributes": {NUMA: one(1)}}, "d")
    tracker.add("b", "d/p/b", {"attributes": {NUMA: one(1)}}, "d")
    tracker.remove("b")
    assert tracker.add("c", "d/p/c", {"attributes": {NUMA: one(2)}}, "d") is not None
    tracker.remove("a")
    assert tracker.add("c", "d/p/c", {"attributes": {NUMA: one(2)}}, "d") is None


@pytest.mark.parametrize("semantics", ["list", "scalar"])
def test_distinct_keeps_one_value_per_request_and_remove_forgets_it(semantics: Any) -> None:
    # upstream distinctAttributeConstraint: attributes[requestName] holds the last device of each request;
    # remove deletes that request's entry entirely
    tracker = DistinctAttribute(NUMA, frozenset(), semantics)
    tracker.add("a", "d/p/a", {"attributes": {NUMA: one(0)}}, "d")
    assert tracker.add("a", "d/p/b", {"attributes": {NUMA: one(1)}}, "d") is None
    assert tracker.add("a", "d/p/c", {"attributes": {NUMA: one(0)}}, "d") is None  # only checked against 1
    tracker.remove("a")  # forgets request a altogether, though d/p/a and d/p/b stay placed
    assert tracker.add("a", "d/p/e", {"attributes": {NUMA: one(1)}}, "d") is None
    assert tracker.add("b/x", "d/p/f", {"attributes": {NUMA: one(1)}}, "d") is not None  # vs a's last: 1
    assert tracker.add("b/x", "d/p/g", {"attributes": {NUMA: one(0)}}, "d") is None


def test_distinct_accepts_any_first_device() -> None:
    tracker = DistinctAttribute(NUMA, frozenset())
    assert tracker.add("a", "d/p/a", {"attributes": {NUMA: {}}}, "d") is None  # no usable value, but first
    assert tracker.add("b", "d/p/b", {"attributes": {NUMA: one(0)}}, "d") is None  # unreadable value skipped


def test_make_constraint_reads_the_wire_form() -> None:
    made = make_constraint({"matchAttribute": NUMA, "requests": ["gpu", "nic"]}, "scalar")
    assert isinstance(made, MatchAttribute) and made.requests == {"gpu", "nic"} and made.semantics == "scalar"
    assert isinstance(make_constraint({"distinctAttribute": NUMA}, "list"), DistinctAttribute)
    assert make_constraint({"requests": ["gpu"]}, "list") is None


def test_attribute_as_set_prefers_non_empty_lists_and_rejects_bad_types() -> None:
    assert attribute_as_set({"ints": [], "int": 3}) == ValueSet("int", frozenset({3}))
    assert attribute_as_set({"ints": ["3"]}) is None
    assert attribute_as_set({"int": True}) is None
    assert render_attribute({"bools": [True, False]}) == "[true, false]"


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sets(st.integers(0, 7), min_size=1, max_size=4), min_size=1, max_size=5))
def test_match_is_a_non_empty_common_intersection_in_any_order(sets: list[set[int]]) -> None:
    expected = bool(set.intersection(*sets))
    values = [ints(*sorted(s)) for s in sets]
    assert (check_match(NUMA, values) is None) is expected
    assert (check_match(NUMA, list(reversed(values))) is None) is expected


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sets(st.integers(0, 7), min_size=1, max_size=3), min_size=1, max_size=5))
def test_distinct_is_pairwise_disjointness(sets: list[set[int]]) -> None:
    expected = all(not (a & b) for i, a in enumerate(sets) for b in sets[i + 1:])
    assert (check_distinct(NUMA, [ints(*sorted(s)) for s in sets]) is None) is expected
