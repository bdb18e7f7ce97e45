"""Kubernetes 1.34's counter model (KEP-4815 before its 1.35 redesign), findings in full (rule, path, message, in
upstream's order: the validator's; the rule runner reports the same ones sorted by place), with
`DRAPartitionableDevices` on.

Upstream: kubernetes pkg/apis/resource/validation/validation.go of the 1.34 era (`validateResourceSliceSpec`,
`validateDevice`, `validateCounterSet`, `validateDeviceCounterConsumption`) and its validation_resourceslice_test.go
cases (`too-large-shared-counters`, `too-large-consumes-counter`, `too-many-device-counters-in-slice`,
`wrong-sharedcounterref-consumes-counter`, `wrong-counterref-consumes-counter`, `missing-counterset-consumes-counter`,
`duplicate-shared-counters`, `bad-name-shared-counters`); limits from kubernetes/api v0.34.0 resource/v1/types.go
(ResourceSliceMaxSharedCounters = 32, ResourceSliceMaxCountersPerDevice = 32,
ResourceSliceMaxDeviceCountersPerSlice = 1024). 1.35+ (`only one of sharedCounters or devices`, 8 sets, 32 counters
per set, 2 consumptions per device) stays as it was.
"""

# ruff: noqa: E501

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.webhook.rules.slice_cases import DELETE, Found, changed
from webhook.cli import main
from webhook.policy import Policy
from webhook.profiles import load_profile
from webhook.rules.k8s.slice import validate_resource_slice
from webhook.run import run_rules

ON = {"DRAPartitionableDevices": True}
D0 = "spec.devices[0]"
LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
         "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
         "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
NO_SET = "must reference a counterSet defined in the ResourceSlice sharedCounters"
NO_COUNTER = "must reference a counter defined in the ResourceSlice sharedCounters"
HINT = ("Kubernetes 1.34 checks counters within the slice: define each counter set a device consumes, and each "
        "counter it takes from it, in this slice's sharedCounters; at most 32 counters in all sets, 32 per device, "
        "1024 in all devices; use DNS-label names")


def seen(obj: dict[str, Any], release: str = "1.34", **gates: bool) -> Found:
    """The validator's findings in its (upstream's) order; the runner's are the same ones."""
    found = [(rule, str(f.path), f.message)
             for rule, f in validate_resource_slice(obj, profile=load_profile(release).with_gates({**ON, **gates}))]
    policy = Policy.default().with_profile(release, gates={**ON, **gates})
    assert sorted((f.rule, str(f.path), f.message) for f in run_rules(obj, policy).findings) == sorted(found)
    return found


def counters(n: int, prefix: str = "c", value: str = "1") -> dict[str, Any]:
    return {f"{prefix}{i}": {"value": value} for i in range(n)}


def counter_set(name: str, n: int, prefix: str = "c") -> dict[str, Any]:
    return {"name": name, "counters": counters(n, prefix)}


def consuming(name: str, *uses: tuple[str, dict[str, Any]], **fields: Any) -> dict[str, Any]:
    return {"name": name, "consumesCounters": [{"counterSet": s, "counters": c} for s, c in uses], **fields}


MIXED = {"spec.sharedCounters": [counter_set("gpu-0", 1, "memory")],
         "spec.devices": [consuming("part-0", ("gpu-0", {"memory0": {"value": "20Gi"}}))]}


def test_a_slice_with_sets_and_the_devices_consuming_them_is_valid_in_1_34_only() -> None:
    assert seen(changed(MIXED)) == []
    for release in ("1.35", "1.36", "1.37"):
        assert seen(changed(MIXED), release) == [
            ("k8s-counters", "spec", 'Invalid value: "": only one of `sharedCounters` or `devices` is allowed')]


@pytest.mark.parametrize("sets", [7, 8, 9, 32])
def test_1_34_has_no_limit_on_the_number_of_sets(sets: int) -> None:
    obj = changed({"spec.sharedCounters": [counter_set(f"set-{i}", 1) for i in range(sets)]})
    assert seen(obj) == []
    del obj["spec"]["devices"]
    assert seen(obj, "1.35") == ([] if sets <= 8 else [
        ("k8s-counters", "spec.sharedCounters", f"Too many: {sets}: must have at most 8 items")])


def test_1_34_has_no_limit_on_the_consumptions_of_a_device() -> None:
    sets = [counter_set(f"set-{i}", 1) for i in range(3)]
    dev = consuming("dev-0", *((f"set-{i}", counters(1)) for i in range(3)))
    assert seen(changed({"spec.sharedCounters": sets, "spec.devices": [dev]})) == []
    assert seen(changed({"spec.devices": [dev]}), "1.35") == [
        ("k8s-counters", f"{D0}.consumesCounters", "Too many: 3: must have at most 2 items")]


# The counters of all sets: at most 32, however they are split into sets (1.35+: 32 per set, 8 sets).
@pytest.mark.parametrize(("split", "expected"), [
    ((31,), []),
    ((32,), []),
    ((33,), [("k8s-counters", "spec.sharedCounters", "Invalid value: 33: the total number of shared counters must not exceed 32")]),
    ((16, 15), []),
    ((16, 16), []),
    ((16, 17), [("k8s-counters", "spec.sharedCounters", "Invalid value: 33: the total number of shared counters must not exceed 32")]),
    ((20, 20), [("k8s-counters", "spec.sharedCounters", "Invalid value: 40: the total number of shared counters must not exceed 32")]),
], ids=["31", "32", "33", "16+15", "16+16", "16+17", "20+20"])
def test_the_counters_of_all_sets(split: tuple[int, ...], expected: Found) -> None:
    obj = changed({"spec.sharedCounters": [counter_set(f"set-{i}", n) for i, n in enumerate(split)]})
    assert seen(obj) == expected


# The counters a device consumes, over all its consumptions: at most 32 (one set of 33 counters is also over the
# slice's 32, upstream's `too-large-consumes-counter`).
@pytest.mark.parametrize(("n", "expected"), [
    (31, []),
    (32, []),
    (33, [("k8s-counters", D0, "Invalid value: 33: the total number of counters must not exceed 32"),
          ("k8s-counters", "spec.sharedCounters", "Invalid value: 33: the total number of shared counters must not exceed 32")]),
])
def test_the_counters_of_one_device(n: int, expected: Found) -> None:
    obj = changed({"spec.sharedCounters": [counter_set("set", n)], "spec.devices": [consuming("dev-0", ("set", counters(n)))]})
    assert seen(obj) == expected


def test_the_counters_of_one_device_add_up_over_its_consumptions() -> None:
    sets = [counter_set("a", 16, "a"), counter_set("b", 16, "b")]
    fits = consuming("dev-0", ("a", counters(16, "a")), ("b", counters(16, "b")))
    assert seen(changed({"spec.sharedCounters": sets, "spec.devices": [fits]})) == []
    over = consuming("dev-0", ("a", counters(16, "a")), ("b", counters(16, "b")), ("a", counters(1, "a")))
    assert seen(changed({"spec.sharedCounters": sets, "spec.devices": [over]})) == [
        ("k8s-counters", f"{D0}.consumesCounters[2].counterSet", 'Duplicate value: "a"'),
        ("k8s-counters", D0, "Invalid value: 33: the total number of counters must not exceed 32")]


def devices_consuming(total: int) -> list[dict[str, Any]]:
    """Devices taking `total` counters from one set of 32: all 32 each, the rest from the last one."""
    full, rest = divmod(total, 32)
    devices = [consuming(f"dev-{i}", ("set", counters(32))) for i in range(full)]
    return devices + ([consuming(f"dev-{full}", ("set", counters(rest)))] if rest else [])


# The counters all devices consume: at most 1024 (upstream's `too-many-device-counters-in-slice`).
@pytest.mark.parametrize(("total", "expected"), [
    (1023, []),
    (1024, []),
    (1025, [("k8s-counters", "spec.devices", "Invalid value: 1025: the total number of counters in devices must not exceed 1024")]),
])
def test_the_counters_of_all_devices(total: int, expected: Found) -> None:
    obj = changed({"spec.sharedCounters": [counter_set("set", 32)], "spec.devices": devices_consuming(total)})
    assert seen(obj) == expected
    assert seen(obj, "1.35") == [
        ("k8s-counters", "spec", 'Invalid value: "": only one of `sharedCounters` or `devices` is allowed')]


# Every reference must name a set of the slice, and every consumed counter one of that set's counters.
REFERENCES = [
    pytest.param({"spec.devices": [consuming("dev-0", ("no-such-set", counters(1)))]},
                 [("k8s-counters", f"{D0}.consumesCounters[0].counterSet", f'Invalid value: "no-such-set": {NO_SET}')],
                 id="no sets at all"),
    pytest.param({"spec.sharedCounters": [counter_set("set", 1)],
                  "spec.devices": [consuming("dev-0", ("fake", counters(1)))]},
                 [("k8s-counters", f"{D0}.consumesCounters[0].counterSet", f'Invalid value: "fake": {NO_SET}')],
                 id="wrong-sharedcounterref-consumes-counter"),
    pytest.param({"spec.sharedCounters": [counter_set("set", 1)],
                  "spec.devices": [consuming("dev-0", ("set", {"fake": {"value": "1Gi"}, "c0": {"value": "1"}, "other": {"value": "1"}}))]},
                 [("k8s-counters", f"{D0}.consumesCounters[0].counters", f'Invalid value: "fake": {NO_COUNTER}'),
                  ("k8s-counters", f"{D0}.consumesCounters[0].counters", f'Invalid value: "other": {NO_COUNTER}')],
                 id="wrong-counterref-consumes-counter, one error per counter"),
    pytest.param({"spec.sharedCounters": [counter_set("a", 1, "a"), counter_set("b", 1, "b")],
                  "spec.devices": [consuming("dev-0", ("a", counters(1, "b")), ("b", counters(1, "b"))),
                                   consuming("dev-1", ("c", counters(1, "c")))]},
                 [("k8s-counters", f"{D0}.consumesCounters[0].counters", f'Invalid value: "b0": {NO_COUNTER}'),
                  ("k8s-counters", "spec.devices[1].consumesCounters[0].counterSet", f'Invalid value: "c": {NO_SET}')],
                 id="a counter of another set"),
    pytest.param({"spec.sharedCounters": [counter_set("set", 1)],
                  "spec.devices": [{"name": "dev-0", "consumesCounters": [{"counters": counters(1)}]}]},
                 [("k8s-counters", f"{D0}.consumesCounters[0].counterSet", "Required value"),
                  ("k8s-counters", f"{D0}.consumesCounters[0].counterSet", f'Invalid value: "": {NO_SET}')],
                 id="missing-counterset-consumes-counter"),
    pytest.param({"spec.sharedCounters": [counter_set("set", 1)],
                  "spec.devices": [{"name": "dev-0", "consumesCounters": [{"counterSet": "set"}]}]},
                 [("k8s-counters", f"{D0}.consumesCounters[0].counters", "Required value")],
                 id="missing-counter-consumes-counter"),
    pytest.param({"spec.sharedCounters": [counter_set("set", 1)],
                  "spec.devices": [consuming("dev-0", ("Bad_Set", counters(1)))]},
                 [("k8s-counters", f"{D0}.consumesCounters[0].counterSet", f'Invalid value: "Bad_Set": {NO_SET}')],
                 id="a consumed set's name has no format check of its own in 1.34"),
    pytest.param({"spec.sharedCounters": [counter_set("set", 1)],
                  "spec.devices": [consuming("dev-0", ("set", {"Bad_C": {"value": "1"}}))]},
                 [("k8s-counters", f"{D0}.consumesCounters[0].counters[Bad_C]", f'Invalid value: "Bad_C": {LABEL}'),
                  ("k8s-counters", f"{D0}.consumesCounters[0].counters", f'Invalid value: "Bad_C": {NO_COUNTER}')],
                 id="a consumed counter's name is a DNS label"),
    pytest.param({"spec.sharedCounters": [counter_set("set", 2)],
                  "spec.devices": [consuming("dev-0", ("set", counters(1)), ("set", counters(2)))]},
                 [("k8s-counters", f"{D0}.consumesCounters[1].counterSet", 'Duplicate value: "set"')],
                 id="a set consumed twice: Duplicate at counterSet"),
    pytest.param({"spec.sharedCounters": [counter_set("set", 1), counter_set("set", 2)],
                  "spec.devices": [consuming("dev-0", ("set", counters(2)))]},
                 [("k8s-counters", "spec.sharedCounters[1].name", 'Duplicate value: "set"')],
                 id="duplicate-shared-counters: the last set of a name is the one referenced"),
    pytest.param({"spec.sharedCounters": [{"name": "Bad_Name"}]},
                 [("k8s-counters", "spec.sharedCounters[0].name", f'Invalid value: "Bad_Name": {LABEL}'),
                  ("k8s-counters", "spec.sharedCounters[0].counters", "Required value")],
                 id="bad-name-shared-counters"),
    pytest.param({"spec.sharedCounters": [{"counters": counters(1)}, {"name": "s", "counters": {"Bad_C": {"value": "1"}}}]},
                 [("k8s-counters", "spec.sharedCounters[0].name", "Required value"),
                  ("k8s-counters", "spec.sharedCounters[1].counters[Bad_C]", f'Invalid value: "Bad_C": {LABEL}')],
                 id="missing-name-shared-counters, bad-countername-shared-counters"),
    pytest.param({"spec.sharedCounters": [counter_set("set", 1)],
                  "spec.devices": [{"name": "dev-0", "consumesCounters": [3, {"counterSet": 4, "counters": counters(1)}]}]},
                 [("k8s-wire-type", f"{D0}.consumesCounters[0]", "Invalid value: 3: must be of type object"),
                  ("k8s-counters", f"{D0}.consumesCounters[0].counterSet", "Required value"),
                  ("k8s-counters", f"{D0}.consumesCounters[0].counters", "Required value"),
                  ("k8s-wire-type", f"{D0}.consumesCounters[1].counterSet", "Invalid value: 4: must be of type string"),
                  ("k8s-counters", f"{D0}.consumesCounters[1].counterSet", "Required value"),
                  ("k8s-counters", f"{D0}.consumesCounters[1].counterSet", 'Duplicate value: ""')],
                 id="wrong types: read as empty, as in 1.35, but no reference checked"),
]


@pytest.mark.parametrize(("changes", "expected"), REFERENCES)
def test_references_and_sets(changes: dict[str, Any], expected: Found) -> None:
    assert seen(changed(changes)) == expected


def test_the_order_of_upstream_validate_device_and_spec() -> None:
    """Per device: taints, then its counters, then node selection; after the devices: the devices' total, the
    sets' total, then each set."""
    bad = consuming("dev-0", ("no-such-set", counters(1)), taints=[{"key": "k", "effect": "Bad"}])
    obj = changed({"spec.nodeName": DELETE, "spec.perDeviceNodeSelection": True,
                   "spec.sharedCounters": [counter_set("set", 33), {"name": "Bad_Name", "counters": counters(1)}],
                   "spec.devices": [bad, *devices_consuming(1025)[:-1], consuming("dev-x", ("set", counters(1)))]})
    found = seen(obj, DRADeviceTaints=True)
    assert found[:3] == [
        ("k8s-taints", f"{D0}.taints[0].effect", 'Unsupported value: "Bad": supported values: "NoExecute", "NoSchedule"'),
        ("k8s-counters", f"{D0}.consumesCounters[0].counterSet", f'Invalid value: "no-such-set": {NO_SET}'),
        ("k8s-node-selection", D0, "Required value: exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required "
                                   "when `perDeviceNodeSelection` is set to true in the ResourceSlice spec")]
    assert [f for f in found[3:] if f[0] == "k8s-counters"] == [
        ("k8s-counters", "spec.devices", "Invalid value: 1026: the total number of counters in devices must not exceed 1024"),
        ("k8s-counters", "spec.sharedCounters", "Invalid value: 34: the total number of shared counters must not exceed 32"),
        ("k8s-counters", "spec.sharedCounters[1].name", f'Invalid value: "Bad_Name": {LABEL}')]


def test_a_device_s_node_fields_of_the_wrong_type_come_after_its_counters() -> None:
    obj = changed({"spec.nodeName": DELETE, "spec.perDeviceNodeSelection": True,
                   "spec.devices": [consuming("dev-0", ("no-such-set", counters(1)), nodeName=5)]})
    assert seen(obj) == [
        ("k8s-counters", f"{D0}.consumesCounters[0].counterSet", f'Invalid value: "no-such-set": {NO_SET}'),
        ("k8s-wire-type", f"{D0}.nodeName", "Invalid value: 5: must be of type string"),
        ("k8s-node-selection", D0, "Required value: exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required "
                                   "when `perDeviceNodeSelection` is set to true in the ResourceSlice spec")]


def test_1_34_findings_name_its_remedy() -> None:
    policy = Policy.default().with_profile("1.34", gates=ON)
    obj = changed({"spec.devices": [consuming("dev-0", ("no-such-set", counters(1)))]})
    assert [(f.rule, str(f.path), f.hint) for f in run_rules(obj, policy).findings] == [
        ("k8s-counters", f"{D0}.consumesCounters[0].counterSet", HINT)]


def test_a_v1beta1_device_consumes_under_basic() -> None:
    obj = changed({"spec.sharedCounters": [counter_set("set", 1)],
                   "spec.devices": [{"name": "dev-0", "basic": {"consumesCounters": [{"counterSet": "x", "counters": counters(1)}]}}]},
                  "v1beta1")
    assert seen(obj) == [("k8s-counters", f"{D0}.consumesCounters[0].counterSet", f'Invalid value: "x": {NO_SET}')]


def test_with_the_gate_off_1_34_drops_the_counters_and_checks_none() -> None:
    obj = changed({"spec.devices": [consuming("dev-0", ("no-such-set", counters(1)))],
                   "spec.sharedCounters": [counter_set("set", 40)]})
    assert [(rule, path) for rule, path, _ in seen(obj, DRAPartitionableDevices=False)] == [
        ("k8s-feature-gate", "spec.sharedCounters"), ("k8s-feature-gate", f"{D0}.consumesCounters")]


def test_on_update_a_slice_that_used_counters_keeps_them_with_the_gate_off() -> None:
    old = changed(MIXED)
    new = changed({**MIXED, "spec.devices": [consuming("part-0", ("gpu-1", {"memory0": {"value": "20Gi"}}))]})
    policy = Policy.default().with_profile("1.34", gates={"DRAPartitionableDevices": False})
    assert [(f.rule, str(f.path), f.message) for f in run_rules(new, policy, old=old).findings] == [
        ("k8s-counters", f"{D0}.consumesCounters[0].counterSet", f'Invalid value: "gpu-1": {NO_SET}')]


# The audit's reproducers, through the command line.
def _yaml_counter_sets(sets: dict[str, int]) -> str:
    lines = []
    for name, n in sets.items():
        lines += [f"  - name: {name}", "    counters:"] + [f"      c{i}: {{value: '1'}}" for i in range(n)]
    return "\n".join(lines)


HEAD = """apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: gpu-slice
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
"""
REPRODUCERS = {
    "p134-mixed.yaml": HEAD + """  sharedCounters:
  - name: gpu-0
    counters:
      memory: {value: 40Gi}
  devices:
  - name: gpu-0-part-0
    consumesCounters:
    - counterSet: gpu-0
      counters:
        memory: {value: 20Gi}
""",
    "p134-nine-sets.yaml": HEAD + "  sharedCounters:\n" + _yaml_counter_sets({f"set-{i}": 1 for i in range(9)}) + "\n",
    "p134-40-counters.yaml": HEAD + "  sharedCounters:\n" + _yaml_counter_sets({"set-0": 20, "set-1": 20}) + "\n",
    "p134-bad-ref.yaml": HEAD + """  devices:
  - name: gpu-0-part-0
    consumesCounters:
    - counterSet: no-such-set
      counters:
        memory: {value: 20Gi}
""",
}


@pytest.mark.parametrize(("name", "code", "denied"), [
    ("p134-mixed.yaml", 0, None),
    ("p134-nine-sets.yaml", 0, None),
    ("p134-40-counters.yaml", 1,
     "deny k8s-counters: spec.sharedCounters: Invalid value: 40: the total number of shared counters must not exceed 32"),
    ("p134-bad-ref.yaml", 1,
     f'deny k8s-counters: spec.devices[0].consumesCounters[0].counterSet: Invalid value: "no-such-set": {NO_SET}'),
])
def test_the_audit_reproducers_through_the_cli(
    name: str, code: int, denied: str | None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / name
    path.write_text(REPRODUCERS[name], encoding="utf-8")
    assert main(["validate", "--kubernetes-version", "1.34", "--feature-gates", "DRAPartitionableDevices=true",
                 str(path)]) == code
    out = capsys.readouterr().out
    if denied is None:
        assert out.strip().endswith("1 object checked; 0 deny, 0 warnings, 0 audit"), out
    else:
        assert f"{path}:" in out and denied in out and "1 object checked; 1 deny, 0 warnings, 0 audit" in out, out
    # 1.35 with the same gate: the first two are refused, the last two pass.
    assert main(["validate", "--kubernetes-version", "1.35", "--feature-gates", "DRAPartitionableDevices=true",
                 str(path)]) == (1 - code)
    capsys.readouterr()


def test_1_34_reports_unknown_fields_in_sets_and_consumptions() -> None:
    """The decoder's unknown-field warnings in 1.34's counter model, as the 1.35+ one has them."""
    obj = changed({"spec.sharedCounters": [{**counter_set("gpu-0", 1, "memory"), "limit": 1}],
                   "spec.devices": [{**consuming("part-0", ("gpu-0", {"memory0": {"value": "1"}})),
                                     "consumesCounters": [{"counterSet": "gpu-0", "counters": {"memory0": {"value": "1"}},
                                                           "compatibilityGroups": ["a"]}]}]})
    assert [(rule, path) for rule, path, _message in seen(obj)] == [
        ("k8s-unknown-field", f"{D0}.consumesCounters[0].compatibilityGroups"),
        ("k8s-unknown-field", "spec.sharedCounters[0].limit"),
    ]
    del obj["spec"]["sharedCounters"][0]["limit"], obj["spec"]["devices"][0]["consumesCounters"][0]["compatibilityGroups"]
    assert seen(obj) == []
