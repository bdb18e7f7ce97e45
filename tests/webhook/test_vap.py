"""The generated ValidatingAdmissionPolicy: schema-valid, and its CEL agrees with the webhook's own rules.

The policy's expressions are evaluated with cel-python the way the API server evaluates them: `object` and
`oldObject` bound to the request's objects, `variables` filled in order. The agreement tests compare, per rule,
the devices the policy names with the devices `run_rules` reports, on every ResourceSlice in the corpus and on
builder-made and hypothesis-made slices.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import celpy
import kubernetes_validate
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.builders import NUMA, device, slice_with
from webhook import cli
from webhook.findings import Action
from webhook.manifests import load_paths
from webhook.policy import Policy
from webhook.rules import CATALOGUE, LIST_FORM_RULE
from webhook.run import run_rules
from webhook.vap import MAX_NODE, PCI_BUS_ID, PCIE_ROOT, build, checks_for

REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / "deploy" / "vap" / "validatingadmissionpolicy.yaml"
COVERED = [check.rule for check in checks_for(Policy.default()) if check.rule in CATALOGUE]
VARIABLE = {check.rule: check.variable for check in checks_for(Policy.default())}
_DEVICE_INDEX = re.compile(r"^spec\.devices\[(\d+)\]")

Obj = dict[str, Any]


# --- cel-python as the API server ------------------------------------------------------------------------


# Built at import: celpy raises the recursion limit when its first Environment is made, which hypothesis
# warns about when it happens inside one of its tests.
_ENV = celpy.Environment()


@functools.cache
def _program(expression: str) -> Any:
    return _ENV.program(_ENV.compile(expression))


def evaluate(policy_obj: Obj, obj: Obj, old: Obj | None = None) -> dict[str, Any]:
    """Variables in order, then every validation: returns variables plus `failed` (rule ids) and `messages`."""
    operation = "UPDATE" if old is not None else "CREATE"
    activation: dict[str, Any] = {
        "object": celpy.json_to_cel(obj),
        "oldObject": celpy.json_to_cel(old) if old is not None else None,
        "request": celpy.json_to_cel({"operation": operation}),
    }
    variables: dict[str, Any] = {}
    for variable in policy_obj["spec"]["variables"]:
        activation["variables"] = celpy.json_to_cel({}) if not variables else celpy.celtypes.MapType(variables)
        variables[celpy.celtypes.StringType(variable["name"])] = _program(variable["expression"]).evaluate(activation)
    activation["variables"] = celpy.celtypes.MapType(variables)
    failed, messages = [], []
    for validation in policy_obj["spec"]["validations"]:
        if not bool(_program(validation["expression"]).evaluate(activation)):
            failed.append(validation["message"].split(":", 1)[0])
            messages.append(str(_program(validation["messageExpression"]).evaluate(activation)))
    return {"variables": {str(k): [str(n) for n in v] for k, v in variables.items()}, "failed": failed,
            "messages": messages}  # fmt: skip


def _policies(policy: Policy) -> dict[str, Obj]:
    return {o["metadata"]["name"]: o for o in build(policy) if o["kind"] == "ValidatingAdmissionPolicy"}


def _all(action: str) -> Policy:
    rules = {rule: action for rule in COVERED if rule != LIST_FORM_RULE}
    list_form = action if action in ("warn", "deny") else "allow"
    return Policy.from_mapping({"rules": rules, "numaNode": {"listForm": list_form}}, f"all-{action}")


ALL_DENY = _all("deny")


def vap_devices(obj: Obj, old: Obj | None = None, policy: Policy = ALL_DENY) -> dict[str, list[str]]:
    """Rule id -> names of the devices the generated policies flag."""
    found: dict[str, list[str]] = {}
    for policy_obj in _policies(policy).values():
        variables = evaluate(policy_obj, obj, old)["variables"]
        for rule, variable in VARIABLE.items():
            if variable in variables:
                found[rule] = sorted(set(variables[variable]))
    return found


def webhook_devices(obj: Obj, old: Obj | None = None, policy: Policy = ALL_DENY, *, denied_only: bool = False
                    ) -> dict[str, list[str]]:  # fmt: skip
    """Rule id -> names of the devices `run_rules` reports (only denied findings when asked)."""
    names = [d.get("name") for d in obj["spec"].get("devices", [])]
    found: dict[str, set[str]] = {rule: set() for rule in COVERED}
    for finding in run_rules(obj, policy, old=old).findings:
        if finding.rule in found and (not denied_only or finding.action is Action.DENY):
            match = _DEVICE_INDEX.match(str(finding.path))
            assert match, f"{finding.rule} reported {finding.path}, outside spec.devices"
            found[finding.rule].add(str(names[int(match.group(1))]))
    return {rule: sorted(devices) for rule, devices in found.items()}


# --- objects --------------------------------------------------------------------------------------------


def _as_v1(obj: Obj) -> Obj:
    """What the API server hands a policy matching v1 under matchPolicy Equivalent: v1beta1 `basic` lifted."""
    if obj.get("apiVersion") != "resource.k8s.io/v1beta1":
        return obj
    spec = dict(obj.get("spec", {}))
    spec["devices"] = [
        {"name": d.get("name"), **(d.get("basic") or {})} for d in spec.get("devices", []) if isinstance(d, dict)
    ]
    return {**obj, "apiVersion": "resource.k8s.io/v1", "spec": spec}


def _decodable(obj: Obj) -> bool:
    """Only objects the API server can decode into its Go types reach admission; k8s-wire-type says which."""
    assert "k8s-wire-type" in CATALOGUE, "the decodability check relies on the k8s-wire-type rule"
    return not any(f.rule == "k8s-wire-type" for f in run_rules(obj, Policy.default()).findings)


@functools.cache
def _corpus_slices(corpus: Path) -> list[tuple[str, Obj]]:
    # Only files that mention the kind: parsing the other five sixths of the corpus took half this test's time.
    files = [p for p in sorted(corpus.rglob("*")) if p.is_file() and b"ResourceSlice" in p.read_bytes()]
    loaded = load_paths([str(p) for p in files])
    return [
        (f"{Path(m.source).relative_to(corpus)}#{m.document}", _as_v1(dict(m.obj)))
        for m in loaded.manifests
        if m.obj.get("kind") == "ResourceSlice"
        and str(m.obj.get("apiVersion", "")).startswith("resource.k8s.io/")
        and isinstance(m.obj.get("spec"), Mapping)
    ]


# --- the generated objects ---------------------------------------------------------------------------------


def test_default_policy_gives_each_action_one_policy_and_one_binding() -> None:
    objects = build(Policy.default())
    kinds = [(o["kind"], o["metadata"]["name"]) for o in objects]
    assert kinds == [
        ("ValidatingAdmissionPolicy", "draguard-resourceslices-deny"),
        ("ValidatingAdmissionPolicy", "draguard-resourceslices-warn"),
        ("ValidatingAdmissionPolicyBinding", "draguard-resourceslices-deny"),
        ("ValidatingAdmissionPolicyBinding", "draguard-resourceslices-warn"),
    ]
    assert objects[2]["spec"] == {"policyName": "draguard-resourceslices-deny", "validationActions": ["Deny"]}
    assert objects[3]["spec"] == {"policyName": "draguard-resourceslices-warn", "validationActions": ["Warn"]}
    for policy_obj, action in ((objects[0], Action.DENY), (objects[1], Action.WARN)):
        rules = [v["message"].split(":", 1)[0] for v in policy_obj["spec"]["validations"]]
        assert rules == [r for r in COVERED if Policy.default().action(r) is action]


def test_validation_actions_mirror_the_policy_file_and_off_rules_are_left_out() -> None:
    policy = Policy.from_mapping({"rules": {"numa-node-type": "warn", "numa-node-range": "audit"}})
    objects = build(policy)
    bindings = {o["metadata"]["name"]: o["spec"]["validationActions"] for o in objects if "Binding" in o["kind"]}
    rules = {
        o["metadata"]["name"]: [v["message"].split(":", 1)[0] for v in o["spec"]["validations"]]
        for o in objects
        if o["kind"] == "ValidatingAdmissionPolicy"
    }
    assert bindings["draguard-resourceslices-warn"] == ["Warn"]
    assert bindings["draguard-resourceslices-audit"] == ["Audit"]
    assert "numa-node-type" in rules["draguard-resourceslices-warn"]
    assert rules["draguard-resourceslices-audit"] == ["numa-node-range"]
    off = Policy.from_mapping({"rules": {"numa-node-type": "off"}})
    assert all(
        not v["message"].startswith("numa-node-type:") for o in build(off) for v in o["spec"].get("validations", [])
    )


def _rules_by_policy(policy: Policy) -> dict[str, list[str]]:
    return {
        o["metadata"]["name"]: [v["message"].split(":", 1)[0] for v in o["spec"]["validations"]]
        for o in build(policy)
        if o["kind"] == "ValidatingAdmissionPolicy"
    }


@pytest.mark.parametrize("form", ["warn", "deny"])
def test_list_form_follows_numa_node_list_form(form: str) -> None:
    assert all(LIST_FORM_RULE not in rules for rules in _rules_by_policy(Policy.default()).values())
    rules = _rules_by_policy(Policy.from_mapping({"numaNode": {"listForm": form}}))
    assert [name for name, ids in rules.items() if LIST_FORM_RULE in ids] == [f"draguard-resourceslices-{form}"]


def test_alias_rules_read_the_policy_alias_list() -> None:
    obj = slice_with(device("gpu-0", numa=1, attributes={"acme.io/socketNuma": 0}))
    policy = Policy.from_mapping({"numaNode": {"aliases": ["acme.io/socketNuma"]}})
    assert vap_devices(obj, policy=Policy.default())["numa-node-alias-mismatch"] == []
    assert webhook_devices(obj, policy=policy)["numa-node-alias-mismatch"] == ["gpu-0"]
    assert vap_devices(obj, policy=policy)["numa-node-alias-mismatch"] == ["gpu-0"]


@pytest.mark.parametrize("action", ["deny", "warn", "audit"])
def test_generated_objects_are_schema_valid_for_kubernetes_1_37(action: str) -> None:
    for obj in build(_all(action)):
        kubernetes_validate.validate(obj, "1.37.0", strict=True)


def test_every_expression_compiles_and_messages_are_one_line() -> None:
    for policy_obj in _policies(ALL_DENY).values():
        spec = policy_obj["spec"]
        for expression in [v["expression"] for v in spec["variables"]] + [
            e for v in spec["validations"] for e in (v["expression"], v["messageExpression"])
        ]:
            _program(expression)
        for validation in spec["validations"]:
            assert "\n" not in validation["message"] and len(validation["message"]) < 256


def test_committed_deploy_vap_is_what_the_default_policy_generates(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["policy", "vap"]) == 0
    assert COMMITTED.read_text(encoding="utf-8") == capsys.readouterr().out, (
        "deploy/vap is stale: run `draguard policy vap > deploy/vap/validatingadmissionpolicy.yaml`"
    )


# --- agreement with the webhook ----------------------------------------------------------------------------


def test_agrees_with_the_webhook_on_every_corpus_resourceslice(corpus: Path) -> None:
    slices = [(where, obj) for where, obj in _corpus_slices(corpus) if _decodable(obj)]
    assert len(slices) >= 50  # the corpus has 58 slices; a loader regression must not pass as "agrees on none"
    disagreements = {
        where: (vap, hook) for where, obj in slices if (vap := vap_devices(obj)) != (hook := webhook_devices(obj))
    }
    assert disagreements == {}


def test_corpus_has_slices_that_publish_the_standard_numa_node(corpus: Path) -> None:
    # The agreement above is only worth something if some corpus devices carry the attribute.
    with_numa = [
        obj
        for _, obj in _corpus_slices(corpus)
        if any(NUMA in (d.get("attributes") or {}) for d in obj["spec"].get("devices") or [] if isinstance(d, dict))
    ]
    assert len(with_numa) >= 5


BAD_AND_GOOD = [
    pytest.param(slice_with(numa=4), {}, id="int"),
    pytest.param(slice_with(numa=[4, 5, 6, 7]), {}, id="ints"),
    pytest.param(slice_with(numa=-1), {"numa-node-range": ["dev-0"]}, id="negative"),
    pytest.param(slice_with(numa=MAX_NODE), {"numa-node-range": ["dev-0"]}, id="too-large"),
    pytest.param(slice_with(numa=MAX_NODE - 1), {}, id="largest"),
    pytest.param(slice_with(numa=[0, -1]), {"numa-node-range": ["dev-0"]}, id="negative-in-list"),
    pytest.param(slice_with(numa="0"), {"numa-node-type": ["dev-0"]}, id="string"),
    pytest.param(slice_with(numa={"bools": [True]}), {"numa-node-type": ["dev-0"]}, id="bools"),
    pytest.param(slice_with(numa={"version": "1.0.0"}), {"numa-node-type": ["dev-0"]}, id="version"),
    pytest.param(slice_with(numa=[4, 5, 4]), {"numa-node-duplicates": ["dev-0"]}, id="duplicate"),
    pytest.param(
        slice_with(device("gpu-0", numa=-1), device("gpu-1", numa=3), device("gpu-2", numa="x")),
        {"numa-node-range": ["gpu-0"], "numa-node-type": ["gpu-2"]},
        id="several-devices",
    ),
    pytest.param(
        slice_with(device("cpu-0", attributes={"dra.net/numaNode": -1})),
        {"numa-node-alias-type": ["cpu-0"]},
        id="negative-vendor-alias-only",
    ),
    pytest.param(
        slice_with(device("cpu-0", numa=[1, 0], attributes={"dra.net/numaNode": 1})),
        {},
        id="alias-matches-physical-node",
    ),
    pytest.param(
        slice_with(device("cpu-0", numa=1, attributes={"dra.net/numaNode": 0})),
        {"numa-node-alias-mismatch": ["cpu-0"]},
        id="alias-mismatch",
    ),
    pytest.param(
        slice_with(device("cpu-0", numa=-1, attributes={"dra.net/numaNode": 0})),
        {"numa-node-range": ["cpu-0"]},
        id="alias-beside-an-out-of-range-physical-node-is-no-mismatch",
    ),
    pytest.param(
        slice_with(device("gpu-0", numa=[2, 3], attributes={"numa": 3})),
        {"numa-node-alias-mismatch": ["gpu-0"]},
        id="unqualified-driver-alias-mismatch",
    ),
    pytest.param(
        slice_with(device("nic-0", attributes={"dra.net/numaNode": 1})),
        {"numa-node-standard-missing": ["nic-0"]},
        id="standard-missing",
    ),
    pytest.param(
        slice_with(device("nic-0", numa=0, attributes={"dra.memory/numaNode": "0"})),
        {"numa-node-alias-type": ["nic-0"]},
        id="string-alias",
    ),
    pytest.param(
        slice_with(device("nic-0", attributes={PCIE_ROOT: "pci0000:00", PCI_BUS_ID: "0000:3b:00.0"})), {}, id="pci-good"
    ),
    pytest.param(
        slice_with(device("nic-0", attributes={PCIE_ROOT: ["pci0000:00", "pci0000:80"]})), {}, id="pcie-root-list"
    ),
    pytest.param(
        slice_with(device("nic-0", attributes={PCIE_ROOT: ""})), {"pcie-root-type": ["nic-0"]}, id="pcie-root-empty"
    ),
    pytest.param(
        slice_with(device("nic-0", attributes={PCIE_ROOT: ["pci0000:00", ""]})),
        {"pcie-root-type": ["nic-0"]},
        id="pcie-root-empty-entry",
    ),
    pytest.param(
        slice_with(device("nic-0", attributes={PCIE_ROOT: 0})), {"pcie-root-type": ["nic-0"]}, id="pcie-root-int"
    ),
    pytest.param(
        slice_with(device("nic-0", attributes={PCI_BUS_ID: "0000:3B:00.0"})),
        {"pci-bus-id-format": ["nic-0"]},
        id="pci-bus-id-upper-case",
    ),
    pytest.param(
        slice_with(device("nic-0", attributes={PCI_BUS_ID: ["0000:3b:00.0"]})),
        {"pci-bus-id-format": ["nic-0"]},
        id="pci-bus-id-list",
    ),
    pytest.param(
        slice_with(device("nic-0", attributes={PCI_BUS_ID: "0000:3b:20.0"})),
        {"pci-bus-id-format": ["nic-0"]},
        id="pci-bus-id-device-out-of-range",
    ),
]


def _rule_test_objects() -> list[Obj]:
    """Every `slice_with(...)` the rule tests of the covered rules build from literals, harvested from their source.

    The calls are evaluated with the builders alone; one that needs a test's local variable is left out.
    """
    import ast

    from tests import builders

    namespace = {name: getattr(builders, name) for name in ("slice_with", "device", "attr", "NUMA", "DRIVER")}
    found: dict[str, Obj] = {}
    rule_tests = REPO / "tests" / "webhook" / "rules"
    for path in sorted([*rule_tests.glob("test_numa*.py"), *rule_tests.glob("test_standard_attr*.py")]):
        source = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "slice_with":
                try:
                    obj = eval(ast.get_source_segment(source, node) or "", {"__builtins__": {}}, dict(namespace))
                except (NameError, TypeError):
                    continue
                found[json.dumps(obj, sort_keys=True)] = obj
    return list(found.values())


def test_agrees_with_the_webhook_on_the_rule_tests_own_objects() -> None:
    objects = _rule_test_objects()
    assert len(objects) >= 10  # the numaNode rule tests build dozens; finding none means the harvest broke
    disagreements = [(obj["spec"]["devices"], vap, hook) for obj in objects if (vap := vap_devices(obj)) != (
        hook := webhook_devices(obj))]  # fmt: skip
    assert disagreements == []


@pytest.mark.parametrize(("obj", "expected"), BAD_AND_GOOD)
def test_agrees_with_the_webhook_on_rule_test_objects(obj: Obj, expected: dict[str, list[str]]) -> None:
    vap, hook = vap_devices(obj), webhook_devices(obj)
    assert vap == hook
    lists = [d["name"] for d in obj["spec"]["devices"] if "ints" in d.get("attributes", {}).get(NUMA, {})]
    assert {rule: devices for rule, devices in vap.items() if devices} == {
        rule: devices for rule, devices in {**expected, LIST_FORM_RULE: lists}.items() if rule in COVERED and devices
    }


def test_a_denied_slice_gets_a_message_naming_the_rule_and_the_first_device() -> None:
    obj = slice_with(device("gpu-0", numa=4), device("gpu-1", numa=-1), device("gpu-2", numa=MAX_NODE))
    result = evaluate(_policies(ALL_DENY)["draguard-resourceslices-deny"], obj)
    assert result["failed"] == ["numa-node-range"]
    assert result["messages"] == [
        "numa-node-range: device gpu-1 (and 1 more): every numaNode value must be >= 0 and below 1024; "
        "omit the attribute while the NUMA node is unknown instead of publishing -1"
    ]


@pytest.mark.parametrize(
    ("ignore", "flagged"),
    [
        ("numa-node-range: the BIOS reports no affinity", []),
        ("numa-node-type, numa-node-range: known", []),
        ("numa-node-range", ["dev-0"]),  # no reason: nothing is suppressed
        ("numa-node-type: another rule", ["dev-0"]),
    ],
)
def test_ignore_annotation_suppresses_like_the_webhook(ignore: str, flagged: list[str]) -> None:
    obj = slice_with(numa=-1, annotations={"draguard.io/ignore": ignore})
    assert vap_devices(obj)["numa-node-range"] == webhook_devices(obj)["numa-node-range"] == flagged


def test_update_keeping_an_old_violation_is_not_denied_like_the_webhook() -> None:
    old = slice_with(device("gpu-0", numa=-1), device("gpu-1", numa=2))
    new = slice_with(device("gpu-0", numa=-1), device("gpu-1", numa=-1))
    assert vap_devices(new, old)["numa-node-range"] == ["gpu-1"]
    assert webhook_devices(new, old, denied_only=True)["numa-node-range"] == ["gpu-1"]
    # The webhook still warns about gpu-0; a binding cannot demote, so the deny policy stays silent about it.
    assert webhook_devices(new, old)["numa-node-range"] == ["gpu-0", "gpu-1"]


_NODE = st.one_of(st.integers(-2, 3), st.integers(MAX_NODE - 2, MAX_NODE + 1), st.integers(4, 64))
_NUMA_ATTRIBUTE = st.one_of(
    _NODE.map(lambda n: {"int": n}),
    st.lists(_NODE, min_size=1, max_size=6).map(lambda ns: {"ints": ns}),
    st.lists(st.integers(0, 3), min_size=2, max_size=6).map(lambda ns: {"ints": ns}),
    st.sampled_from([{"string": "0"}, {"bool": True}, {"version": "1.0.0"}, {"strings": ["0"]}, {"bools": [False]}]),
)
_PCIE_ATTRIBUTE = st.sampled_from(
    [{"string": "pci0000:00"}, {"string": ""}, {"strings": ["pci0000:00", "pci0000:80"]}, {"strings": ["", "x"]},
     {"int": 0}, {"string": "pci0000:00", "int": 1}]
)  # fmt: skip
_BUS_ATTRIBUTE = st.one_of(
    st.sampled_from([{"strings": ["0000:3b:00.0"]}, {"int": 3}, {"string": "0000:3b:00.0", "bool": True}]),
    st.from_regex(r"[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-3][0-9a-fA-F]\.[0-9]", fullmatch=True).map(
        lambda text: {"string": text}
    ),
)
_ALIAS_KEY = st.sampled_from(
    ["dra.net/numaNode", "dra.cpu/numaNodeID", "numaNode", "numa", "numaNodeID", "gpu.example.com/numa",
     "dra.cpu/numaNode", "acme.io/numaNode"]
)  # fmt: skip
_ALIAS_VALUE = st.one_of(
    st.integers(-1, 3).map(lambda n: {"int": n}), st.sampled_from([{"string": "0"}, {"ints": [0]}])
)
_DEVICE_ATTRIBUTES = st.one_of(
    st.none(),
    _NUMA_ATTRIBUTE.map(lambda a: {NUMA: a}),
    _NUMA_ATTRIBUTE.map(lambda a: {NUMA: a, "dra.net/numaNode": {"int": 0}}),
    st.tuples(st.one_of(st.none(), _NUMA_ATTRIBUTE), st.dictionaries(_ALIAS_KEY, _ALIAS_VALUE, max_size=3)).map(
        lambda na: {**na[1], **({NUMA: na[0]} if na[0] is not None else {})}
    ),
    st.tuples(_PCIE_ATTRIBUTE, _BUS_ATTRIBUTE).map(lambda ab: {PCIE_ROOT: ab[0], PCI_BUS_ID: ab[1]}),
)


_IGNORE = st.one_of(
    st.none(),
    st.sampled_from(
        [
            "numa-node-range: firmware reports -1 on this board",
            "numa-node-type,numa-node-duplicates: vendor quirk",
            " numa-node-type , numa-node-range :\u3000why",
            "numa-node-range",
            "numa-node-range:  \x0b",
            "numa-node-ranges: not this rule",
            "numa-node-list-form: lists are fine here",
            "pci-bus-id-format,pcie-root-type: vendor naming",
            "numa-node-alias-mismatch: firmware quirk",
        ]
    ),
    st.text(alphabet=st.sampled_from(list("numa-node-rangetyp,: \t\x0b\u3000x")), max_size=40),
)


@st.composite
def _slices(draw: st.DrawFn) -> Obj:
    attributes = draw(st.lists(_DEVICE_ATTRIBUTES, min_size=1, max_size=4))
    ignore = draw(_IGNORE)
    devices = []
    for i, attrs in enumerate(attributes):
        entry: Obj = {"name": f"dev-{i}"}
        if attrs is not None:
            entry["attributes"] = attrs
        devices.append(entry)
    driver = draw(st.sampled_from(["gpu.example.com", "dra.net", "dra.cpu", "resource.kubernetes.io"]))
    annotations = None if ignore is None else {"draguard.io/ignore": ignore}
    return slice_with(*devices, driver=driver, annotations=annotations)


@settings(max_examples=50, deadline=None)
@given(_slices())
def test_agrees_with_the_webhook_on_random_slices(obj: Obj) -> None:
    assert vap_devices(obj) == webhook_devices(obj)


@st.composite
def _updates(draw: st.DrawFn) -> tuple[Obj, Obj, bool]:
    """`(old, new, touched)`: the old slice keeps each device, changes its attributes, or lacks it (at the end,
    so indices and names stay aligned as the webhook's path-based ratchet needs); `touched` when one changed."""
    new = draw(_slices())
    old_devices, touched = [], False
    for entry in new["spec"]["devices"]:
        fate = draw(st.sampled_from(["same", "same", "changed", "absent"]))
        if fate == "absent":
            break
        if fate == "changed":
            replacement = draw(_DEVICE_ATTRIBUTES)
            changed = {"name": entry["name"], **({"attributes": replacement} if replacement is not None else {})}
            touched = touched or changed != entry
            old_devices.append(changed)
        else:
            old_devices.append(entry)
    old = {**new, "spec": {**new["spec"], "devices": old_devices}}
    return old, new, touched


_BOTH_SPELLINGS = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
                   "spec": {"driver": "dra.cpu", "pool": {"name": "p", "generation": 0, "resourceSliceCount": 1},
                            "nodeName": "n", "devices": []}}


@settings(max_examples=25, deadline=None)
@given(_updates())
# an alias set in both spellings (`dra.cpu/numaNodeID` and, for driver dra.cpu, bare `numaNodeID`): each is checked
@example((_BOTH_SPELLINGS, {**_BOTH_SPELLINGS, "spec": {**_BOTH_SPELLINGS["spec"], "devices": [
    {"name": "dev-0", "attributes": {"dra.cpu/numaNodeID": {"int": 0}, "numaNodeID": {"string": "0"}}}]}}, False))
def test_update_ratchets_like_the_webhook_or_stricter(update: tuple[Obj, Obj, bool]) -> None:
    # The deny policy ratchets per device (unchanged attributes), the webhook per finding (same rule, path and
    # message). So the policy denies at least what the webhook denies, and exactly that when every device is
    # either unchanged or new.
    old, new, touched = update
    vap, hook = vap_devices(new, old), webhook_devices(new, old, denied_only=True)
    for rule in COVERED:
        if ALL_DENY.action(rule) is Action.DENY:
            assert set(hook[rule]) <= set(vap[rule]), rule
    if not touched:
        assert vap == hook


@pytest.mark.parametrize(("argv", "version", "gates"), [
    ([], "1.37", "DRAListTypeAttributes=true,DRANodeAllocatableResources=false"),
    (["--kubernetes-version", "1.36"], "1.36", "DRAListTypeAttributes=true,DRANodeAllocatableResources=false"),
    (["--kubernetes-version", "1.36", "--feature-gates", "DRAListTypeAttributes=false",
      "--feature-gates", "DRANodeAllocatableResources=true"],
     "1.36", "DRAListTypeAttributes=false,DRANodeAllocatableResources=true"),
])
def test_every_object_declares_the_profile_it_targets(
    argv: list[str], version: str, gates: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["policy", "vap", "--format", "json", *argv]) == 0
    items = json.loads(capsys.readouterr().out)["items"]
    assert {item["metadata"]["annotations"]["draguard.io/kubernetes-version"] for item in items} == {version}
    [declared] = {item["metadata"]["annotations"]["draguard.io/feature-gates"] for item in items}
    assert set(gates.split(",")) <= set(declared.split(","))


@pytest.mark.parametrize("version", ["1.34", "1.35"])
def test_a_release_without_list_attributes_is_refused(version: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["policy", "vap", "--kubernetes-version", version]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"draguard: error: policy vap: Kubernetes {version} has no list attributes (ints, strings), which the "
        "generated expressions read: its type checking would warn on each of them; target 1.36 or later, or use "
        "the webhook\n")


def test_an_unknown_or_locked_gate_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["policy", "vap", "--feature-gates", "DRAResourceClaimDeviceStatus=false"]) == 2
    assert capsys.readouterr().err == ("draguard: error: --feature-gates: cannot set feature gate "
                                       "DRAResourceClaimDeviceStatus to false, feature is locked to true in "
                                       "Kubernetes 1.37\n")
