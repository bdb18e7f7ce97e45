"""The hot path's fast accept changes nothing a user sees: fast findings == precise findings, exactly.

Slices are generated clean (the fast path's case) and with one defect each near every limit the fast check
guards (names at 63/64 characters, 32/33 attributes and capacities, 48/49 attribute values, strings at
64/65 bytes, int64 edges, semver, quantities, v1beta1 `basic`, unknown fields, wrong types, the NUMA and
PCI attributes at their edges), then run through `run_rules` twice: as served, and under `precise_only()`
where every rule reads every device the precise way. Rule ids, actions, paths, messages, hints and order
must all agree.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webhook.policy import Policy
from webhook.rules.k8s import fast
from webhook.rules.k8s.fast import clean_device, precise_only
from webhook.run import run_rules

NUMA = "resource.kubernetes.io/numaNode"
PCIE = "resource.kubernetes.io/pcieRoot"
BUS = "resource.kubernetes.io/pciBusID"
DRIVER = "gpu.example.com"

# Scalars at and around every edge the fast check decides on.
INTS = st.sampled_from([0, 1, -1, 1023, 1024, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1]) | st.integers(-5, 40)
STRINGS = st.sampled_from(["", "x", "a" * 16, "a" * 17, "a" * 64, "a" * 65, "é" * 32, "é" * 33, "ü" * 16,
                           "pci0000:00", "0000:3b:00.0", "0000:3B:00.0", "0000:3b:20.0"])
VERSIONS = st.sampled_from(["1.2.3", "0.0.0-rc.1+build.5", "v1.2.3", "01.2.3", "1.2", "", "1." + "0" * 62,
                            "1." + "0" * 63, "1.2.3-" + "a" * 58])
QUANTITIES = st.sampled_from(["80Gi", "1", "0", "500m", "1e3", "x", "", "1.5Ki", "-1", "9" * 30])
KEYS = st.sampled_from([
    NUMA, PCIE, BUS, "dra.net/numaNode", f"{DRIVER}/numa", "numaNode", "numa", "model", "a" * 32, "a" * 33,
    "d" * 63 + "/x", "d" * 64 + "/x", "a/b/c", "/x", "x/", "Bad Key", "_id", "9id", "UPPER.example.com/x",
])
LIST_MEMBER = {"ints": INTS, "strings": STRINGS, "versions": VERSIONS, "bools": st.booleans()}
SCALAR_MEMBER = {"int": INTS, "string": STRINGS, "version": VERSIONS, "bool": st.booleans()}


def _attribute() -> st.SearchStrategy[Any]:
    scalar = st.sampled_from(sorted(SCALAR_MEMBER)).flatmap(lambda m: SCALAR_MEMBER[m].map(lambda v: {m: v}))
    lists = st.sampled_from(sorted(LIST_MEMBER)).flatmap(
        lambda m: st.lists(LIST_MEMBER[m], max_size=4).map(lambda v: {m: v}))
    odd = st.sampled_from([
        {}, {"int": None}, {"int": 1, "bool": True}, {"intz": 1}, {"int": 1.0}, {"int": True}, {"bool": 1},
        {"string": 5}, {"ints": [1, "2"]}, {"ints": [True]}, {"ints": []}, {"strings": [None]}, {"ints": 3},
        {"version": None, "int": 2}, [], "int", None, 5,
    ])
    return scalar | lists | odd


def _numa() -> st.SearchStrategy[Any]:
    nodes = st.integers(-1, 8) | st.sampled_from([1023, 1024])
    return (nodes.map(lambda n: {"int": n}) | st.lists(nodes, min_size=1, max_size=5).map(lambda v: {"ints": v})
            | st.sampled_from([{"string": "0"}, {"int": 1, "ints": [1]}, {"ints": [0, 2, 1]}, {"ints": [1, 1]}]))


def clean(i: int) -> dict[str, Any]:
    """A device the fast path accepts: what drivers publish, NUMA-aware."""
    node = i % 2  # devices 0 and 2 share a node (and a list): numaNode consistency has something to compare
    return {
        "name": f"gpu-{i}",
        "attributes": {
            NUMA: {"ints": [node, *sorted({node ^ 1, node ^ 2})]},
            PCIE: {"string": f"pci0000:{node:02x}"},
            BUS: {"string": f"0000:{i + 16:02x}:00.0"},
            "dra.net/numaNode": {"int": node},
            "driverVersion": {"version": "560.35.3"},
            "models": {"strings": ["a", "b"]},
            "index": {"int": i},
            "ok": {"bool": True},
        },
        "capacity": {"memory": {"value": "80Gi"}},
    }


def _name() -> st.SearchStrategy[Any]:
    return st.sampled_from(["a" * 63, "a" * 64, "Gpu-0", "gpu.0", "", "-a", "gpu-0", "é"]) | st.none() | INTS


@st.composite
def defect(draw: st.DrawFn, device: dict[str, Any]) -> dict[str, Any]:
    """`device` with one defect (or one harmless change) near a limit the fast check decides on."""
    attrs: dict[str, Any] = device["attributes"]
    kind = draw(st.sampled_from([
        "name", "attribute", "numa", "pcie", "bus", "key", "pairs", "values", "capacity", "field", "types", "list",
    ]))
    if kind == "name":
        device["name"] = draw(_name())
    elif kind == "attribute":
        attrs[draw(KEYS)] = draw(_attribute())
    elif kind == "numa":
        attrs[NUMA] = draw(_numa())
        if draw(st.booleans()):
            attrs["dra.net/numaNode"] = draw(_numa())
    elif kind == "pcie":
        attrs[PCIE] = draw(st.sampled_from([{"string": ""}, {"strings": ["a", ""]}, {"strings": []}, {"int": 1},
                                            {"string": "pci0000:00", "strings": ["x"]}, {"strings": ["x", 1]}]))
    elif kind == "bus":
        attrs[BUS] = draw(STRINGS.map(lambda s: {"string": s}) | st.sampled_from([{"int": 3}, {"strings": ["x"]}]))
    elif kind == "key":
        attrs[draw(KEYS)] = {"int": 1}
    elif kind == "pairs":  # 32 attributes and capacities, then one more
        extra = draw(st.sampled_from([32, 33])) - len(attrs) - len(device["capacity"])
        attrs.update({f"attr{k}": {"bool": True} for k in range(extra)})
    elif kind == "values":  # 48 attribute values, then one more
        others = 9  # the clean device's values besides `models`
        attrs["models"] = {"strings": [str(k) for k in range(draw(st.sampled_from([48, 49])) - others)]}
    elif kind == "capacity":
        key = draw(KEYS | st.just("memory"))
        device["capacity"][key] = draw(QUANTITIES.map(lambda q: {"value": q}) | st.sampled_from([
            {"value": 1}, {"value": None}, {}, {"value": "1", "requestPolicy": {"default": "1"}}, [], {"valu": "1"}]))
        if draw(st.booleans()):
            device["allowMultipleAllocations"] = True
    elif kind == "field":
        device[draw(st.sampled_from(["taints", "consumesCounters", "nodeName", "allNodes", "bogus", "basic",
                                     "bindingConditions"]))] = draw(st.sampled_from([[], True, "node-a", {}, None]))
    elif kind == "types":
        target = draw(st.sampled_from(["attributes", "capacity"]))
        device[target] = draw(st.sampled_from([None, [], "x", {}]))
    else:
        member = draw(st.sampled_from(sorted(LIST_MEMBER)))
        attrs["models"] = {member: draw(st.lists(LIST_MEMBER[member], min_size=0, max_size=6))}
    return device


@st.composite
def slices(draw: st.DrawFn) -> dict[str, Any]:
    count = draw(st.integers(1, 4))
    devices = [clean(i) for i in range(count)]
    for i in draw(st.lists(st.integers(0, count - 1), max_size=2, unique=True)):
        devices[i] = draw(defect(devices[i]))
    version = draw(st.sampled_from(["v1", "v1", "v1beta2", "v1beta1"]))
    if version == "v1beta1":
        devices = [{"name": d.pop("name", None), "basic": d} if isinstance(d, dict) else d for d in devices]
    spec: dict[str, Any] = {"driver": DRIVER, "pool": {"name": "node-a", "generation": 1, "resourceSliceCount": 1},
                            "devices": devices}
    spec.update(draw(st.sampled_from([{"nodeName": "node-a"}, {"perDeviceNodeSelection": True}, {"allNodes": True}])))
    return {"apiVersion": f"resource.k8s.io/{version}", "kind": "ResourceSlice",
            "metadata": {"name": "node-a-gpu"}, "spec": spec}


POLICIES = [Policy.default(), Policy.from_mapping({"kubernetes": "1.34"}),
            Policy.from_mapping({"kubernetes": "1.36", "listTypes": "disabled"}),
            Policy.from_mapping({"numaNode": {"listForm": "warn"}})]


def _seen(obj: dict[str, Any], policy: Policy) -> list[tuple[str, str, str, str, str]]:
    outcome = run_rules(copy.deepcopy(obj), policy)
    return [(f.rule, f.action.value, str(f.path), f.message, f.hint) for f in outcome.findings]


def assert_same(obj: dict[str, Any], policy: Policy) -> None:
    served = _seen(obj, policy)
    with precise_only():
        precise = _seen(obj, policy)
    assert served == precise


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(slices(), st.sampled_from(range(len(POLICIES))))
def test_fast_findings_equal_precise_findings(slice_: dict[str, Any], policy: int) -> None:
    assert_same(slice_, POLICIES[policy])


def _set(where: str, key: str, value: Any) -> Any:
    def change(device: dict[str, Any]) -> None:
        (device if where == "device" else device[where])[key] = value
    return change


# One defect (or a harmless edge) per entry, each exactly at or just past a limit: every one is checked
# deterministically, whatever hypothesis draws above.
DEFECTS = [
    *[_set("device", "name", name) for name in ["a" * 63, "a" * 64, "Gpu-0", "gpu.0", "", None, 7]],
    *[_set("attributes", "s", {"string": text}) for text in ["a" * 64, "a" * 65, "é" * 32, "é" * 33, "ü" * 16 + "a"]],
    *[_set("attributes", "v", {"version": text}) for text in ["1.2.3", "v1.2.3", "1." + "0" * 62, "1." + "0" * 63]],
    *[_set("attributes", "i", {"int": n}) for n in [2**63 - 1, 2**63, -(2**63), -(2**63) - 1, True, 1.0, None]],
    *[_set("attributes", "l", {m: v}) for m, v in [("ints", [2**63]), ("ints", [1, True]), ("ints", []),
                                                    ("strings", ["é" * 33]), ("strings", [1]), ("bools", [1]),
                                                    ("versions", ["1.0"]), ("versions", ["1.0.0"]), ("intz", [1])]],
    *[_set("attributes", key, {"int": 1}) for key in ["a" * 32, "a" * 33, "d" * 63 + "/x", "d" * 64 + "/x",
                                                       "a/b/c", "/x", "x/", "Bad Key", "UPPER.example.com/x"]],
    *[_set("attributes", NUMA, value) for value in [{"int": -1}, {"int": 1023}, {"int": 1024}, {"ints": [1, 1]},
                                                     {"ints": [0, 2, 1]}, {"ints": [0, 1024]}, {"string": "0"},
                                                     {"int": 1, "ints": [1]}, {"ints": [1, True]}, {"int": True},
                                                     {"ints": [0, 1]}, {"ints": [0, 1, 2]}, {"int": 0}, {"int": 1}]],
    *[_set("attributes", "dra.net/numaNode", value) for value in [{"int": 3}, {"int": -1}, {"string": "0"}]],
    *[_set("attributes", PCIE, value) for value in [{"string": ""}, {"strings": ["a", ""]}, {"int": 1},
                                                     {"strings": ["x", 1]}, {"string": "a", "strings": ["b"]}]],
    *[_set("attributes", BUS, value) for value in [{"string": "0000:3B:00.0"}, {"string": "0000:3b:20.0"},
                                                    {"int": 3}, {"string": "0000:3b:00.0", "bool": True}]],
    *[_set("capacity", "memory", value) for value in [{"value": "x"}, {"value": 1}, {}, {"valu": "1"},
                                                       {"value": "1", "requestPolicy": {"default": "1"}}]],
    *[_set("device", field, value) for field, value in [("taints", []), ("bogus", 1), ("basic", {}),
                                                        ("attributes", None), ("attributes", []), ("capacity", "x"),
                                                        ("allowMultipleAllocations", True), ("nodeName", "n")]],
    lambda d: d["attributes"].update({f"k{k}": {"bool": True} for k in range(23)}),  # 32 attributes + capacities
    lambda d: d["attributes"].update({f"k{k}": {"bool": True} for k in range(24)}),  # 33
    lambda d: d["attributes"].update(models={"strings": ["x"] * 39}),  # 48 values
    lambda d: d["attributes"].update(models={"strings": ["x"] * 40}),  # 49
]


@pytest.mark.parametrize("policy", [POLICIES[0], POLICIES[1]], ids=["newest", "1.34"])
@pytest.mark.parametrize("defect_at", range(len(DEFECTS)))
def test_each_defect_reported_alike(defect_at: int, policy: Policy) -> None:
    devices = [clean(0), clean(1), clean(2)]
    DEFECTS[defect_at](devices[1])
    slice_ = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "node-a-gpu"},
              "spec": {"driver": DRIVER, "nodeName": "node-a", "devices": devices,
                       "pool": {"name": "node-a", "generation": 1, "resourceSliceCount": 1}}}
    assert_same(slice_, policy)


def test_clean_devices_take_the_fast_path() -> None:
    """The generator's clean device is one the fast check accepts (else the test would compare precise twice)."""
    assert clean_device(clean(0), fast.FAST_FIELDS, 48)


@pytest.mark.parametrize(("change", "accepted"), [
    (lambda d: d, True),
    (lambda d: d.update(name="a" * 63), True),
    (lambda d: d.update(name="a" * 64), False),
    (lambda d: d["attributes"].update({f"k{k}": {"int": 1} for k in range(23)}), True),  # 8 + 23 + 1 = 32
    (lambda d: d["attributes"].update({f"k{k}": {"int": 1} for k in range(24)}), False),  # 33
    (lambda d: d["attributes"].update(models={"strings": ["x"] * 39}), True),  # 48 values
    (lambda d: d["attributes"].update(models={"strings": ["x"] * 40}), False),  # 49
    (lambda d: d["attributes"].update(s={"string": "é" * 32}), True),  # 64 bytes
    (lambda d: d["attributes"].update(s={"string": "é" * 32 + "a"}), False),  # 65 bytes
    (lambda d: d["attributes"].update(i={"int": 2**63 - 1}), True),
    (lambda d: d["attributes"].update(i={"int": 2**63}), False),
    (lambda d: d["attributes"].update(i={"ints": [-(2**63) - 1]}), False),
    (lambda d: d["attributes"].update(v={"version": "v1.0.0"}), False),
    (lambda d: d["attributes"].update({"a" * 32: {"int": 1}}), True),
    (lambda d: d["attributes"].update({"a" * 33: {"int": 1}}), False),
    (lambda d: d["capacity"].update(c={"value": "x"}), False),
    (lambda d: d.update(taints=[]), False),
    (lambda d: d["attributes"].update(b={"bool": 1}), False),
    (lambda d: d["attributes"].update(b={"ints": []}), False),
])
def test_fast_check_at_its_limits(change: Any, accepted: bool) -> None:
    device = clean(0)
    change(device)
    assert clean_device(device, fast.FAST_FIELDS, 48) is accepted


def test_verdict_tables_are_bounded() -> None:
    """Memoised verdicts never hold more than MEMO_ENTRIES texts, nor any text longer than MEMO_KEY_CHARS."""
    table = fast.Verdicts(lambda text: text.startswith("a"))
    for k in range(fast.MEMO_ENTRIES + 10):
        assert table(f"a{k}")
    assert len(table.good) + len(table.bad) <= fast.MEMO_ENTRIES
    assert table("a" * (fast.MEMO_KEY_CHARS + 1))
    assert "a" * (fast.MEMO_KEY_CHARS + 1) not in table.good
    assert table("a" * fast.MEMO_KEY_CHARS) and "a" * fast.MEMO_KEY_CHARS in table.good
    assert not table.all_good(["a1", ["unhashable"]])
    assert not table.all_good(["a1", 5])


@pytest.mark.parametrize(("count", "lists"), [(64, True), (65, True), (128, False), (129, False)])
def test_device_count_limits_alike(count: int, lists: bool) -> None:
    """64 devices once list attributes are used, 128 without: at, and one past, each limit."""
    devices = [clean(i) for i in range(count)]
    if not lists:
        for device in devices:
            device["attributes"] = {k: v for k, v in device["attributes"].items()
                                    if not any(isinstance(x, list) for x in v.values())}
    slice_ = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "node-a-gpu"},
              "spec": {"driver": DRIVER, "nodeName": "node-a", "devices": devices,
                       "pool": {"name": "node-a", "generation": 1, "resourceSliceCount": 1}}}
    over = [f for f in _seen(slice_, Policy.default()) if f[0] == "k8s-device-count"]
    assert len(over) == (count in (65, 129))
    assert_same(slice_, Policy.default())
