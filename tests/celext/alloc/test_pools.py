"""celext.alloc.pools.slice_devices: the devices of ResourceSlices among parsed documents."""

from __future__ import annotations

import pytest

from celext.alloc.pools import Node, node_selector_matches, slice_devices


def test_slice_devices_unpacks_lists_and_skips_other_objects() -> None:
    one = {"kind": "ResourceSlice", "spec": {"driver": "a", "devices": [{"name": "a0"}, "junk", {"name": "a1"}]}}
    two = {"kind": "ResourceSlice", "spec": {"driver": "b", "devices": [{"name": "b0"}]}}
    documents = [None, "text", {"kind": "DeviceClass"}, one, {"kind": "List", "items": [two, {"kind": "Node"}]},
                 {"kind": "ResourceSlice", "spec": 5}]
    assert [(d["name"], driver) for d, driver in slice_devices(documents)] == [("a0", "a"), ("a1", "a"), ("b0", "b")]


@pytest.mark.parametrize(("label", "operator", "bound", "matches"), [
    ("10", "Gt", "5", True), ("5", "Gt", "5", False), ("4", "Lt", "5", True), ("+6", "Gt", "5", True),
    ("-6", "Lt", "-5", True), ("1_0", "Gt", "5", False), (" 10", "Gt", "5", False), ("10 ", "Gt", "5", False),
    ("\u0661\u0660", "Gt", "5", False), ("10", "Gt", "5_0", False), ("9223372036854775807", "Gt", "5", True),
    ("9223372036854775808", "Gt", "5", False),
])
def test_gt_and_lt_read_numbers_as_go_parse_int(label: str, operator: str, bound: str, matches: bool) -> None:
    """labels.Requirement.Matches parses both sides with strconv.ParseInt(v, 10, 64): no underscores, spaces,
    other scripts' digits or values past int64 (each is a legal label value that then matches nothing)."""
    selector = {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "example.com/gen", "operator": operator, "values": [bound]}]}]}
    assert node_selector_matches(selector, Node("n1", {"example.com/gen": label})) is matches
