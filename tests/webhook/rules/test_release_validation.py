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


INT64_MAX = 2**63 - 1


def stepped(default: str, minimum: str, step: str, value: str = "100E") -> dict[str, Any]:
    policy = {"default": default, "validRange": {"min": minimum, "step": step}}
    return slice_with(device("d", allowMultipleAllocations=True,
                             capacity={"mem": {"value": value, "requestPolicy": policy}}))


@pytest.mark.parametrize(("bound", "refused"), [(INT64_MAX - 1, False), (INT64_MAX, False), (INT64_MAX + 1, True)])
def test_an_integer_range_above_int64_is_refused_in_1_37(bound: int, refused: bool) -> None:
    """kubernetes#140666: Quantity.Value() wraps a bound above MaxInt64, so 1.37 refuses it (and then checks no step
    multiple); each of default, min and step at the bound."""
    text = str(bound)
    expected = [("k8s-capacity", f"{POLICY}.{name}",
                 f'Invalid value: "{text}": must not be larger than 9223372036854775807')
                for name in ("default", "min", "step")] if refused else []
    if not refused:  # one step past min still within the capacity; the default min + 0 steps
        assert seen(stepped(text, text, "1", "20E"), "1.37") == []
        return
    assert seen(stepped(text, text, text), "1.37") == expected


@pytest.mark.parametrize(("release", "refused"), [("1.36", False), ("1.37", True)])
def test_an_integer_range_below_zero_is_refused_from_1_37(release: str, refused: bool) -> None:
    found = seen(stepped("-1", "-3", "2"), release, DRAConsumableCapacity=True)
    assert found == ([("k8s-capacity", f"{POLICY}.default", 'Invalid value: "-1": must be greater than or equal to 0'),
                      ("k8s-capacity", f"{POLICY}.min", 'Invalid value: "-3": must be greater than or equal to 0')]
                     if refused else [])
    assert seen(stepped("2", "0", "2"), release, DRAConsumableCapacity=True) == []  # zero: the lowest bound


def test_int64_bounds_need_a_step_and_an_integer_range() -> None:
    """The guard sits on the integer step path: no step, no guard; a fractional range takes the milli path."""
    no_step = slice_with(device("d", allowMultipleAllocations=True, capacity={"mem": {
        "value": "100E", "requestPolicy": {"default": "-1", "validRange": {"min": "-3"}}}}))
    assert seen(no_step, "1.37") == []
    assert seen(stepped("-0.5", "-1.5", "0.5"), "1.37") == []


@pytest.mark.parametrize(("release", "options", "repeated"), [
    ("1.36", ["1", "1.0"], "1"), ("1.37", ["1", "1.0"], None),  # 1.37: AsDec().String() keeps the written scale
    ("1.37", ["500m", "0.5"], None), ("1.37", ["1k", "1000"], "1000"), ("1.37", ["2", "2e0"], "2"),
    ("1.37", ["1Ei", "1024Pi"], "1152921504606846976.000000000"),  # past the int64 fast path: inf.Dec at nano scale
])
def test_valid_values_are_keyed_as_the_release_keys_them(
    release: str, options: list[str], repeated: str | None
) -> None:
    """validValues uniqueness: quantityKeyInt (Value()) up to 1.36 and with DRAFractionalCapacityRange off;
    quantityKeyAsDec (inf.Dec's text) in 1.37, so equal values of another scale are no duplicates."""
    policy = {"default": options[0], "validValues": options}
    obj = slice_with(device("d", allowMultipleAllocations=True,
                            capacity={"mem": {"value": "8Ei", "requestPolicy": policy}}))
    expected = [("k8s-capacity", f"{D0}.capacity[mem].requestPolicy.validValues[1]",
                 f'Duplicate value: "{repeated}"')]
    assert seen(obj, release, DRAConsumableCapacity=True) == (expected if repeated else [])


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
