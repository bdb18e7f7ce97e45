"""numaNode rules on one device: type, range, duplicates, order, list form."""

from __future__ import annotations

import pytest

from tests.builders import device, slice_with
from tests.webhook.rules.conftest import Check
from webhook.policy import Policy

NUMA = "spec.devices[0].attributes[resource.kubernetes.io/numaNode]"


@pytest.mark.parametrize("value", [4, [4, 5, 6, 7], [0], 1023])
def test_well_formed_numa_node_passes_every_numa_rule(check: Check, value: object) -> None:
    for rule in ("numa-node-type", "numa-node-range", "numa-node-duplicates", "numa-node-order"):
        assert check(rule, slice_with(numa=value)) == []


def test_string_numa_node_is_the_wrong_type(check: Check) -> None:
    assert check("numa-node-type", slice_with(numa={"string": "0"})) == [
        (NUMA, "resource.kubernetes.io/numaNode is a string value; it must be int or ints")]


def test_two_wrong_members_are_named_together(check: Check) -> None:
    assert check("numa-node-type", slice_with(numa={"string": "0", "versions": ["1.0.0"]})) == [
        (NUMA, "resource.kubernetes.io/numaNode is a string and a versions value; it must be int or ints")]


def test_negative_scalar_is_out_of_range(check: Check) -> None:
    assert check("numa-node-range", slice_with(numa=-1)) == [(f"{NUMA}.int", "numaNode -1 is negative")]


def test_negative_list_entry_is_reported_at_its_index(check: Check) -> None:
    assert check("numa-node-range", slice_with(numa=[6, -1])) == [(f"{NUMA}.ints[1]", "numaNode -1 is negative")]


def test_node_1024_is_out_of_range(check: Check) -> None:
    assert check("numa-node-range", slice_with(numa=[0, 1024])) == [
        (f"{NUMA}.ints[1]", "numaNode 1024 must be below 1024")]


def test_range_hint_says_to_omit_an_unknown_node() -> None:
    from webhook.run import run_rules

    [finding] = [f for f in run_rules(slice_with(numa=-1), Policy.default()).findings if f.rule == "numa-node-range"]
    assert finding.hint.startswith("omit the attribute while the NUMA node is unknown")


def test_duplicate_node_in_list(check: Check) -> None:
    assert check("numa-node-duplicates", slice_with(numa=[4, 5, 4])) == [
        (f"{NUMA}.ints[2]", "numaNode 4 appears twice in the list (also at index 0)")]


def test_order_after_physical_node_must_ascend(check: Check) -> None:
    assert check("numa-node-order", slice_with(numa=[4, 7, 5, 6])) == [
        (f"{NUMA}.ints[2]", "numaNode list [4, 7, 5, 6] is not ascending after the physical node (7 comes before 5); "
                            "KEP-6072 gives those nodes no order, so this is style only")]


def test_physical_node_first_may_be_larger_than_the_rest(check: Check) -> None:
    assert check("numa-node-order", slice_with(numa=[1, 0, 2])) == []


def test_order_is_off_by_default_and_a_style_check_when_enabled() -> None:
    """KEP-6072: the nodes after the physical one are "unordered and equal-weight" (its own example is
    [6, 4, 5, 7]), so the order is style: off by default, reported at the action the policy gives it."""
    from webhook.run import run_rules

    assert run_rules(slice_with(numa=[4, 7, 5]), Policy.default()).findings == []
    assert run_rules(slice_with(numa=[6, 4, 5, 7]), Policy.default()).findings == []
    outcome = run_rules(slice_with(numa=[4, 7, 5]), Policy.from_mapping({"rules": {"numa-node-order": "warn"}}))
    assert [(f.rule, f.action.value if f.action else None, f.hint) for f in outcome.findings] == [
        ("numa-node-order", "warn",
         "for stable diffs, publish the others ascending (as draguard topology prints them): [4, 5, 7]")]


def test_list_form_is_allowed_by_default() -> None:
    from webhook.run import run_rules

    assert run_rules(slice_with(numa=[0, 1]), Policy.default()).findings == []


@pytest.mark.parametrize("form", ["warn", "deny"])
def test_list_form_policy_reports_lists(form: str) -> None:
    from webhook.run import run_rules

    policy = Policy.from_mapping({"numaNode": {"listForm": form}})
    [finding] = run_rules(slice_with(numa=[0, 1]), policy).findings
    assert (finding.rule, finding.action.value if finding.action else None, str(finding.path)) == (
        "numa-node-list-form", form, f"{NUMA}.ints")
    assert finding.message == (
        f"numaNode is a list, but policy numaNode.listForm is {form}: this cluster's scheduler does not apply "
        "list semantics yet")


def test_list_form_policy_accepts_scalars(check: Check) -> None:
    assert check("numa-node-list-form", slice_with(numa=3), Policy.from_mapping({"numaNode": {"listForm": "deny"}})) \
        == []


def test_devices_without_numa_are_ignored(check: Check) -> None:
    assert check("numa-node-type", slice_with(device("gpu-0", attributes={"model": "a100"}))) == []
