"""Where releases' validation.go report the same problem at another path, or check one thing more: each case
on the releases on both sides of the change (the profiles' `validation:` block).

- a map key's own errors (attributes, capacity, counters): at `map[key]` up to 1.35, at the map since 1.36
  (validateMap's `validateKey(key, fldPath)`); the key in the path shortened in the middle as in any path;
- validRange `default is less than min` / `more than max`: at `.min` / `.max` up to 1.36, at `.default` in 1.37;
- validRange `step`: `must be greater than zero` in 1.37; before, a negative step passes (a zero one is still
  refused: the server divides by it, kubernetes#139653);
- taint effects: `None` since 1.35.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import device, slice_with
from webhook.policy import Policy
from webhook.run import run_rules

D0 = "spec.devices[0]"


def seen(obj: dict[str, Any], release: str, **gates: bool) -> list[tuple[str, str, str]]:
    policy = Policy.default().with_profile(release, gates=gates)
    return [(f.rule, str(f.path), f.message) for f in run_rules(obj, policy).findings]


C_IDENTIFIER = ("a valid C identifier must start with alphabetic character or '_', followed by a string of "
                "alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for "
                "validation is '[A-Za-z_][A-Za-z0-9_]*')")


@pytest.mark.parametrize(("release", "at"), [
    ("1.34", f"{D0}.attributes[my-attr]"), ("1.35", f"{D0}.attributes[my-attr]"),
    ("1.36", f"{D0}.attributes"), ("1.37", f"{D0}.attributes")])
def test_an_attribute_key_error_is_at_the_key_until_1_36(release: str, at: str) -> None:
    obj = slice_with(device("d", attributes={"my-attr": 1}))
    assert seen(obj, release) == [("k8s-qualified-name", at, f'Invalid value: "my-attr": {C_IDENTIFIER}')]


@pytest.mark.parametrize(("release", "at"), [("1.35", f"{D0}.capacity[my-mem]"), ("1.36", f"{D0}.capacity")])
def test_a_capacity_key_error_is_at_the_key_until_1_36(release: str, at: str) -> None:
    obj = slice_with(device("d", capacity={"my-mem": "1Gi"}))
    assert seen(obj, release) == [("k8s-qualified-name", at, f'Invalid value: "my-mem": {C_IDENTIFIER}')]


def test_a_long_key_is_shortened_in_the_path_as_upstream_does() -> None:
    key = "a" * 40  # over the 32-byte identifier limit, under the 96 characters a path keeps
    long_key = "x.example.com/" + "b" * 100  # over 96: the middle becomes `...`
    obj = slice_with(device("d", attributes={key: 1, long_key: 2}))
    paths = {path for _rule, path, _message in seen(obj, "1.35")}
    assert paths == {f"{D0}.attributes[{key}]",
                     f"{D0}.attributes[{long_key[:47]}...{long_key[-46:]}]"}
    assert {path for _rule, path, _message in seen(obj, "1.36")} == {f"{D0}.attributes"}


@pytest.mark.parametrize(("release", "at"), [
    ("1.35", "spec.sharedCounters[0].counters[Bad_Name]"), ("1.37", "spec.sharedCounters[0].counters")])
def test_a_counter_key_error_is_at_the_key_until_1_36(release: str, at: str) -> None:
    obj = slice_with(sharedCounters=[{"name": "set", "counters": {"Bad_Name": {"value": "1"}}}])
    del obj["spec"]["devices"]
    found = seen(obj, release, DRAPartitionableDevices=True)
    assert [(rule, path) for rule, path, _message in found] == [("k8s-counters", at)]
    assert found[0][2].startswith('Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of')


def ranged(default: str, minimum: str, maximum: str | None = None, step: str | None = None) -> dict[str, Any]:
    valid_range = {"min": minimum} | ({"max": maximum} if maximum else {}) | ({"step": step} if step else {})
    policy = {"default": default, "validRange": valid_range}
    return slice_with(device("d", allowMultipleAllocations=True,
                             capacity={"mem": {"value": "10", "requestPolicy": policy}}))


POLICY = f"{D0}.capacity[mem].requestPolicy.validRange"


@pytest.mark.parametrize(("release", "below", "above"), [
    ("1.34", "min", "max"), ("1.36", "min", "max"), ("1.37", "default", "default")])
def test_a_default_outside_the_range_is_at_the_bound_until_1_37(release: str, below: str, above: str) -> None:
    gates = {"DRAConsumableCapacity": True}
    assert seen(ranged("1", "2"), release, **gates) == [
        ("k8s-capacity", f"{POLICY}.{below}", 'Invalid value: "1": default is less than min: 2')]
    assert seen(ranged("6", "2", "5"), release, **gates) == [
        ("k8s-capacity", f"{POLICY}.{above}", 'Invalid value: "6": default is more than max: 5')]
    assert seen(ranged("2", "2", "5"), release, **gates) == []  # the limits themselves: no finding


@pytest.mark.parametrize(("release", "refused"), [("1.35", False), ("1.36", False), ("1.37", True)])
def test_a_negative_step_is_refused_from_1_37(release: str, refused: bool) -> None:
    expected = [("k8s-capacity", f"{POLICY}.step", 'Invalid value: "-2": must be greater than zero')]
    assert seen(ranged("2", "2", step="-2"), release, DRAConsumableCapacity=True) == (expected if refused else [])


@pytest.mark.parametrize("release", ["1.35", "1.36", "1.37"])
def test_a_zero_step_is_refused_in_every_release(release: str) -> None:
    assert seen(ranged("2", "2", step="0"), release, DRAConsumableCapacity=True) == [
        ("k8s-capacity", f"{POLICY}.step", 'Invalid value: "0": must be greater than zero')]
    assert seen(ranged("2", "2", step="1"), release, DRAConsumableCapacity=True) == []


@pytest.mark.parametrize(("release", "supported"), [
    ("1.34", '"NoExecute", "NoSchedule"'), ("1.35", None), ("1.37", None)])
def test_the_none_taint_effect_arrives_in_1_35(release: str, supported: str | None) -> None:
    obj = slice_with(device("d", taints=[{"key": "example.com/k", "effect": "None"}]))
    found = seen(obj, release, DRADeviceTaints=True)
    if supported is None:
        assert found == []
    else:
        assert found == [("k8s-taints", f"{D0}.taints[0].effect",
                          f'Unsupported value: "None": supported values: {supported}')]
