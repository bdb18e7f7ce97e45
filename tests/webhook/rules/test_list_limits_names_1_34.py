"""Four places where Kubernetes 1.34's ResourceSlice validation reports other findings than 1.35+, in full (rule,
path, message, in the validator's order; the rule runner reports the same ones sorted by place), 1.34 beside 1.35:

1. an over-limit list (devices, taints, binding conditions, validValues): 1.34's validateSlice validates every item
   and then adds `Too many` (and validateSet its duplicates after it); 1.35+ reports the `Too many` alone
   (kubernetes#135079, with declarative validation's maxItems);
2. a duplicate device name: 1.34 at `spec.devices[i].name` (validateSet's key field), 1.35+ at `spec.devices[i]`;
3. on update, 1.35+ skips a device's taints when they equal the old device's; 1.34's validateDevice has no old
   device and validates them again;
4. an empty qualified name, domain or identifier (attribute and capacity keys): 1.34 `Required value: name
   required` / `the domain must not be empty` / `the name must not be empty`; 1.35+ `Invalid value: ""`
   (kubernetes#134602; an empty name is an invalid C identifier there).

Upstream 1.34: pkg/apis/resource/validation/validation.go of the 1.34 era (`fabiendupont/kubernetes` @ 291372b7:
validateSlice, validateSet, validateDevice, validateQualifiedName; `sunya-ch/kubernetes` @ d5d06158 agrees on the
first three); 1.35: a 1.35-era copy of the same file (validateSlice/validateSet short-circuit with origin maxItems,
`Duplicate(idxPath, key)`, the `DeepEqual(oldDevice.Taints, device.Taints)` skip, `field.Invalid(fldPath, "", "the
domain must not be empty")`).
"""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

import pytest

from tests.webhook.rules.slice_cases import Found, changed
from webhook.policy import Policy
from webhook.profiles import load_profile
from webhook.rules.k8s.slice import validate_resource_slice
from webhook.run import run_rules

D0 = "spec.devices[0]"
LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
         "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
         "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
BAD_KEY = ("Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must "
           "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
           "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
C_ID = ("Invalid value: \"\": a valid C identifier must start with alphabetic character or '_', followed by a string of "
        "alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is "
        "'[A-Za-z_][A-Za-z0-9_]*')")
TAINTS = {"DRADeviceTaints": True}
BINDING = {"DRADeviceBindingConditions": True}
CAPACITY = {"DRAConsumableCapacity": True}


def seen(obj: dict[str, Any], release: str, old: dict[str, Any] | None = None, **gates: bool) -> Found:
    """The validator's findings in its (upstream's) order; on create the runner's are the same ones."""
    found = [(rule, str(f.path), f.message)
             for rule, f in validate_resource_slice(obj, old, profile=load_profile(release).with_gates(gates))]
    if old is None:
        outcome = run_rules(obj, Policy.default().with_profile(release, gates=gates))
        assert sorted((f.rule, str(f.path), f.message) for f in outcome.findings) == sorted(found)
    return found


def taint(key: str) -> dict[str, Any]:
    return {"key": key, "effect": "NoSchedule"}


def bad_taints(n: int) -> list[dict[str, Any]]:
    """`n` taints, the first with an invalid key."""
    return [taint("bad key")] + [taint(f"k{i}") for i in range(n - 1)]


# 1. Over-limit lists: every item checked first in 1.34 only.

@pytest.mark.parametrize("n", [127, 128, 129])
def test_devices_at_the_limit(n: int) -> None:
    """128 devices in both releases (1.34 has no 64-device limit): devices[0] badly named, the last one repeating
    devices[1]'s name. 1.34: the name, `Too many` over the limit, then the duplicate at `.name`."""
    devices = [{"name": "Bad"}] + [{"name": f"d{i}"} for i in range(n - 2)] + [{"name": "d0"}]
    obj = changed({"spec.devices": devices})
    name = ("k8s-device-name", f"{D0}.name", f'Invalid value: "Bad": {LABEL}')
    over = [("k8s-device-count", "spec.devices", f"Too many: {n}: must have at most 128 items")] if n > 128 else []
    assert seen(obj, "1.34") == [name, *over,
                                 ("k8s-device-name", f"spec.devices[{n - 1}].name", 'Duplicate value: "d0"')]
    assert seen(obj, "1.35") == (over if n > 128 else [
        name, ("k8s-device-name", f"spec.devices[{n - 1}]", 'Duplicate value: "d0"')])


@pytest.mark.parametrize("n", [3, 4, 5])
def test_1_34_taints_at_its_limit_of_4(n: int) -> None:
    obj = changed({"spec.devices[0].taints": bad_taints(n)})
    key = ("k8s-taints", f"{D0}.taints[0].key", BAD_KEY)
    over = [("k8s-taints", f"{D0}.taints", f"Too many: {n}: must have at most 4 items")] if n > 4 else []
    assert seen(obj, "1.34", **TAINTS) == [key, *over]
    assert seen(obj, "1.35", **TAINTS) == [key]  # 16 in 1.35


@pytest.mark.parametrize("n", [15, 16, 17])
def test_1_35_taints_at_its_limit_of_16(n: int) -> None:
    obj = changed({"spec.devices[0].taints": bad_taints(n)})
    key = ("k8s-taints", f"{D0}.taints[0].key", BAD_KEY)
    assert seen(obj, "1.34", **TAINTS) == [key, ("k8s-taints", f"{D0}.taints", f"Too many: {n}: must have at most 4 items")]
    assert seen(obj, "1.35", **TAINTS) == (
        [("k8s-taints", f"{D0}.taints", f"Too many: {n}: must have at most 16 items")] if n > 16 else [key])


@pytest.mark.parametrize("n", [3, 4, 5])
def test_binding_conditions_at_the_limit(n: int) -> None:
    obj = changed({f"{D0}.bindingConditions": ["bad key"] + [f"c{i}" for i in range(n - 1)],
                   f"{D0}.bindingFailureConditions": ["f"]})
    key = ("k8s-binding-conditions", f"{D0}.bindingConditions[0]", BAD_KEY)
    over = [("k8s-binding-conditions", f"{D0}.bindingConditions", f"Too many: {n}: must have at most 4 items")]
    assert seen(obj, "1.34", **BINDING) == ([key, *over] if n > 4 else [key])
    assert seen(obj, "1.35", **BINDING) == (over if n > 4 else [key])


@pytest.mark.parametrize("n", [9, 10, 11])
def test_valid_values_at_the_limit(n: int) -> None:
    """Sorted options 1..n-2, a repeat of n-2, then 20 (over the capacity of 10); the default 1 is among them. Over
    the limit 1.35 checks no option, so it does not find the default either."""
    values = [str(i) for i in range(1, n - 1)] + [str(n - 2), "20"]
    obj = changed({f"{D0}.allowMultipleAllocations": True,
                   f"{D0}.capacity": {"mem": {"value": "10", "requestPolicy": {"default": "1", "validValues": values}}}})
    path = f"{D0}.capacity[mem].requestPolicy.validValues"
    larger = ("k8s-capacity", f"{path}[{n - 1}]", 'Invalid value: "20": option is larger than capacity value: 10')
    repeat = ("k8s-capacity", f"{path}[{n - 2}]", f'Duplicate value: "{n - 2}"')
    over = ("k8s-capacity", path, f"Too many: {n}: must have at most 10 items")
    assert seen(obj, "1.34", **CAPACITY) == ([larger, over, repeat] if n > 10 else [larger, repeat])
    assert seen(obj, "1.35", **CAPACITY) == (
        [over, ("k8s-capacity", path, 'Invalid value: "1": default value is not valid according to the requestPolicy')]
        if n > 10 else [repeat, larger])


# 2. A duplicate device name.

def test_a_duplicate_device_name_is_reported_at_its_name_in_1_34() -> None:
    obj = changed({"spec.devices": [{"name": "gpu"}, {"name": "gpu"}, {"name": "gpu"}]})
    assert seen(obj, "1.34") == [("k8s-device-name", "spec.devices[1].name", 'Duplicate value: "gpu"'),
                                 ("k8s-device-name", "spec.devices[2].name", 'Duplicate value: "gpu"')]
    for release in ("1.35", "1.36", "1.37"):
        assert seen(obj, release) == [("k8s-device-name", "spec.devices[1]", 'Duplicate value: "gpu"'),
                                      ("k8s-device-name", "spec.devices[2]", 'Duplicate value: "gpu"')]


# 3. Unchanged taints on update.

def test_1_34_validates_the_unchanged_taints_of_a_device_on_update() -> None:
    old = changed({"spec.devices[0].taints": [taint("bad key")]})
    new = changed({"spec.devices[0].taints": [taint("bad key")], "spec.devices[0].attributes": {"a": {"int": 1}}})
    key = ("k8s-taints", f"{D0}.taints[0].key", BAD_KEY)
    assert seen(new, "1.34", old, **TAINTS) == [key]
    for release in ("1.35", "1.36", "1.37"):
        assert seen(new, release, old, **TAINTS) == []
    # changed taints: checked in both
    changed_taints = changed({"spec.devices[0].taints": [taint("bad key"), taint("k")]})
    assert seen(changed_taints, "1.34", old, **TAINTS) == [key]
    assert seen(changed_taints, "1.35", old, **TAINTS) == [key]
    # another device of the old slice (matched by name) does not exempt it
    renamed = changed({"spec.devices[0].name": "dev-1", "spec.devices[0].taints": [taint("bad key")]})
    assert seen(renamed, "1.35", old, **TAINTS) == [key]


@pytest.mark.parametrize("n", [4, 5, 16, 17])
def test_unchanged_over_limit_taints_on_update(n: int) -> None:
    """1.35 skips an unchanged list whatever its length; 1.34 reports its items and `Too many` (limit 4) again."""
    obj = changed({"spec.devices[0].taints": bad_taints(n)})
    key = ("k8s-taints", f"{D0}.taints[0].key", BAD_KEY)
    over = [("k8s-taints", f"{D0}.taints", f"Too many: {n}: must have at most 4 items")] if n > 4 else []
    assert seen(obj, "1.34", changed({"spec.devices[0].taints": bad_taints(n)}), **TAINTS) == [key, *over]
    assert seen(obj, "1.35", changed({"spec.devices[0].taints": bad_taints(n)}), **TAINTS) == []


def test_the_runner_reports_1_34_unchanged_taints_as_already_present() -> None:
    """The runner's own ratchet marks what the old slice already had (warned, not denied): 1.34 finds the taint
    again, 1.35 not at all."""
    old = changed({"spec.devices[0].taints": [taint("bad key")]})
    new = changed({"spec.devices[0].taints": [taint("bad key")], "spec.pool.generation": 1})
    found = run_rules(new, Policy.default().with_profile("1.34", gates=TAINTS), old=old).findings
    assert [(f.rule, str(f.path), f.message) for f in found] == [
        ("k8s-taints", f"{D0}.taints[0].key", BAD_KEY + " (already present before this update)")]
    assert run_rules(new, Policy.default().with_profile("1.35", gates=TAINTS), old=old).findings == []


# 4. Empty qualified names.

KEYS = [
    ("", [("Required value: name required",)], [(C_ID,)]),
    ("/", [("Required value: the domain must not be empty",), ("Required value: the name must not be empty",)],
     [('Invalid value: "": the domain must not be empty',), ('Invalid value: "": the name must not be empty',)]),
    ("/x", [("Required value: the domain must not be empty",)], [('Invalid value: "": the domain must not be empty',)]),
    ("a.example.com/", [("Required value: the name must not be empty",)],
     [('Invalid value: "": the name must not be empty',)]),
]


@pytest.mark.parametrize(("key", "in_1_34", "in_1_35"), KEYS)
def test_an_empty_part_of_an_attribute_key(key: str, in_1_34: list[tuple[str]], in_1_35: list[tuple[str]]) -> None:
    obj = changed({f"{D0}.attributes": {key: {"int": 1}}})
    at = f"{D0}.attributes[{key}]"
    assert seen(obj, "1.34") == [("k8s-qualified-name", at, m) for (m,) in in_1_34]
    assert seen(obj, "1.35") == [("k8s-qualified-name", at, m) for (m,) in in_1_35]
    # 1.36 reports key errors at the map (keyErrorPath), in 1.35's words
    assert seen(obj, "1.36") == [("k8s-qualified-name", f"{D0}.attributes", m) for (m,) in in_1_35]


@pytest.mark.parametrize(("key", "in_1_34", "in_1_35"), KEYS)
def test_an_empty_part_of_a_capacity_key(key: str, in_1_34: list[tuple[str]], in_1_35: list[tuple[str]]) -> None:
    obj = changed({f"{D0}.capacity": {key: {"value": "1"}}})
    at = f"{D0}.capacity[{key}]"
    assert seen(obj, "1.34") == [("k8s-qualified-name", at, m) for (m,) in in_1_34]
    assert seen(obj, "1.35") == [("k8s-qualified-name", at, m) for (m,) in in_1_35]


def test_a_valid_or_otherwise_invalid_key_is_worded_alike() -> None:
    """Only an empty part differs: a bad identifier is `Invalid` in both releases."""
    obj = changed({f"{D0}.attributes": {"a.example.com/x": {"int": 1}, "9x": {"int": 1}}})
    bad = ("k8s-qualified-name", f"{D0}.attributes[9x]", C_ID.replace('""', '"9x"'))
    assert seen(obj, "1.34") == seen(obj, "1.35") == [bad]


def _constraint_findings(attribute: str, release: str) -> list[tuple[str, str]]:
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c"},
             "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu.example.com"}}],
                                  "constraints": [{"matchAttribute": attribute}]}}}
    outcome = run_rules(claim, Policy.default().with_profile(release))
    return [(str(f.path), f.message) for f in outcome.findings if f.rule == "constraint-attribute-unqualified"]


AT = "spec.devices.constraints[0].matchAttribute"


@pytest.mark.parametrize(("attribute", "release", "expected"), [
    ("numaNode", "1.34", [(AT, 'Invalid value: "numaNode": must include a domain')]),
    ("numaNode", "1.35", [(AT, 'Invalid value: "numaNode": a fully qualified name must be a domain and a name '
                               'separated by a slash')]),
    ("", "1.34", [(AT, "Required value: name required")]),
    ("/numaNode", "1.34", [(AT, "Required value: the domain must not be empty")]),
    ("/numaNode", "1.35", [(AT, 'Invalid value: "": the domain must not be empty')]),
    ("resource.kubernetes.io/numaNode", "1.34", []),
    ("resource.kubernetes.io/numaNode", "1.35", []),
])
def test_a_constraint_attribute_is_worded_as_its_release_words_it(attribute: str, release: str,
                                                                   expected: list[tuple[str, str]]) -> None:
    """validateFullyQualifiedName on a claim constraint: 1.34 says `must include a domain` and `Required` for an
    empty part (validateQualifiedName), 1.35+ the fully-qualified text and `Invalid`."""
    assert _constraint_findings(attribute, release) == expected
