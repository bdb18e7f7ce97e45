"""topology --check fails closed on a numaNode value it cannot compare with sysfs: a deny finding saying why, the
same rule and action as a mismatch, never "0 deny" and exit 0 (what an adversarial probe found for each shape
below). The machine is the probe's: PCI device 0000:00:01.0 on NUMA node 0 of two nodes at distance 21."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.webhook.topology.test_check import BUS_ID, NUMA, slice_of
from tests.webhook.topology.trees import Node, Tree
from webhook.policy import Policy
from webhook.topology import Form, NumaValue, Sysfs, Topology
from webhook.topology.check import check_slice, decode

DRAGUARD = Path(sys.executable).with_name("draguard")
PROBE = Tree(
    {0: Node(cpus=(0, 1), distance="10 21"), 1: Node(cpus=(2, 3), distance="21 10")},
    pci={"0000:00:01.0": "0", "0000:00:02.0": "-1"},
)
DEVICE = "0000:00:01.0"
SCALAR_SYSFS = f"; sysfs gives 0 for PCI device {DEVICE}"
LIST_SYSFS = f"; sysfs gives [0, 1] for PCI device {DEVICE}"

# (attribute name, value as published, why it cannot be checked, what sysfs gives, the help line)
MALFORMED = [
    pytest.param(NUMA, {"int": "1"}, 'k8s-wire-type: int: Invalid value: "1": must be of type integer',
                 SCALAR_SYSFS, "publish {int: 0}", id="int-string"),
    pytest.param(NUMA, {"int": True}, "k8s-wire-type: int: Invalid value: true: must be of type integer",
                 SCALAR_SYSFS, "publish {int: 0}", id="int-bool"),
    pytest.param(NUMA, {"int": 1.5}, "k8s-wire-type: int: Invalid value: 1.5: must be of type integer",
                 SCALAR_SYSFS, "publish {int: 0}", id="int-float"),
    pytest.param(NUMA, {"string": "1"}, "a string value, not int or ints",
                 SCALAR_SYSFS, "publish {int: 0}", id="string-member"),
    pytest.param(NUMA, {"ints": ["1"]}, 'k8s-wire-type: ints[0]: Invalid value: "1": must be of type integer',
                 LIST_SYSFS, "publish {ints: [0, 1]}", id="ints-string"),
    pytest.param(NUMA, {"ints": []}, "k8s-attribute-union: ints: Invalid value: []: must not be empty if specified",
                 LIST_SYSFS, "publish {ints: [0, 1]}", id="ints-empty"),
    # null decodes to an empty DeviceAttribute: only the union error
    pytest.param(NUMA, None, 'k8s-attribute-union: Invalid value: "": exactly one value must be specified',
                 SCALAR_SYSFS, "publish {int: 0}", id="null"),
    pytest.param(NUMA, {"int": 0, "ints": [1]},
                 'k8s-attribute-union: Invalid value: {"int":0,"ints":[1]}: exactly one value must be specified',
                 SCALAR_SYSFS, "publish {int: 0}", id="two-members"),
    pytest.param("dra.net/numaNode", {"int": "1"}, 'k8s-wire-type: int: Invalid value: "1": must be of type integer',
                 SCALAR_SYSFS, "publish {int: 0}", id="vendor-alias-int-string"),
]
WELL_FORMED = [
    pytest.param(NUMA, {"int": 0}, id="scalar"),
    pytest.param(NUMA, {"ints": [0, 1]}, id="list"),
    pytest.param("dra.net/numaNode", {"int": 0}, id="vendor-alias"),
    pytest.param(NUMA, {"int": 0, "ints": None}, id="null-member-is-omitted"),
    # YAML's `0.0` is the integer 0 kubectl sends (webhook.rules.k8s.decode.is_int64)
    pytest.param(NUMA, {"int": 0.0}, id="integral-float"),
    pytest.param(NUMA, {"ints": [0.0, 1]}, id="integral-float-list"),
]


@pytest.fixture
def sys_root(tmp_path: Path) -> Path:
    return PROBE.build(tmp_path / "sys")


@pytest.fixture
def topology(sys_root: Path) -> Topology:
    return Topology(Sysfs.open(sys_root))


def pci_slice(name: str, value: Any, bdf: str = DEVICE) -> dict[str, Any]:
    return slice_of("d.example.com", {BUS_ID: {"string": bdf}, name: value})


def findings(slice_: dict[str, Any], topology: Topology, **options: Any) -> list[tuple[str, str, str, str, str]]:
    return [(f.rule, f.action.value if f.action else "", str(f.path), f.message, f.hint)
            for f in check_slice(slice_, topology, **options)]


def draguard_check(tmp_path: Path, sys_root: Path, name: str, value: Any) -> tuple[subprocess.CompletedProcess[str],
                                                                                   Path, str]:
    """The probe's run: one slice of node `n` in a file, `draguard topology --check` as a separate program."""
    line = f"      {name}: {json.dumps(value)}"
    slices = tmp_path / "slices.yaml"
    slices.write_text(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n"
        "  driver: d.example.com\n  nodeName: 'n'\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n"
        f'  devices:\n  - name: a\n    attributes:\n      {BUS_ID}: {{string: "{DEVICE}"}}\n{line}\n'
    )
    argv = [str(DRAGUARD), "topology", "--check", str(slices), "--sysfs-root", str(sys_root), "--node", "n"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    return done, slices, f"12:{len(line) - len(json.dumps(value)) + 1}"  # where the value starts


@pytest.mark.parametrize(("name", "value", "why", "sysfs", "hint"), MALFORMED)
def test_the_cli_denies_a_value_it_cannot_check(tmp_path: Path, sys_root: Path, *, name: str, value: Any, why: str,
                                                sysfs: str, hint: str) -> None:
    done, slices, where = draguard_check(tmp_path, sys_root, name, value)
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout == (
        f"{slices}:{where}: deny topology-numa-mismatch: spec.devices[0].attributes[{name}]: "
        f"{name} cannot be checked against the node ({why}){sysfs}\n"
        f"  help: {hint}\n"
        "1 object checked; 1 deny, 0 warnings, 0 audit\n"
    )


@pytest.mark.parametrize(("name", "value"), WELL_FORMED)
def test_the_cli_passes_a_correct_well_formed_value(tmp_path: Path, sys_root: Path, name: str, value: Any) -> None:
    done, _, _ = draguard_check(tmp_path, sys_root, name, value)
    assert (done.returncode, done.stdout, done.stderr) == (0, "1 object checked; 0 deny, 0 warnings, 0 audit\n", "")


def test_the_cli_still_denies_a_correct_form_with_the_wrong_node(tmp_path: Path, sys_root: Path) -> None:
    done, _, _ = draguard_check(tmp_path, sys_root, NUMA, {"int": 1})
    assert done.returncode == 1
    assert f"deny topology-numa-mismatch: spec.devices[0].attributes[{NUMA}].int: {NUMA} is 1 but sysfs gives 0" in (
        done.stdout)


@pytest.mark.parametrize(("name", "value", "why", "sysfs", "hint"), MALFORMED)
def test_check_slice_reports_the_attribute_with_the_mismatch_rule(topology: Topology, *, name: str, value: Any,
                                                                  why: str, sysfs: str, hint: str) -> None:
    assert findings(pci_slice(name, value), topology) == [
        ("topology-numa-mismatch", "deny", f"spec.devices[0].attributes[{name}]",
         f"{name} cannot be checked against the node ({why}){sysfs}", hint)
    ]


@pytest.mark.parametrize(("name", "value"), WELL_FORMED)
def test_check_slice_passes_a_correct_well_formed_value(topology: Topology, name: str, value: Any) -> None:
    assert findings(pci_slice(name, value), topology) == []


def test_its_action_is_the_mismatch_rules(topology: Topology) -> None:
    policy = Policy.from_mapping({"rules": {"topology-numa-mismatch": "warn"}})
    assert [f.action.value for f in check_slice(pci_slice(NUMA, {"int": "1"}), topology, policy=policy) if f.action
            ] == ["warn"]
    off = Policy.from_mapping({"rules": {"topology-numa-mismatch": "off"}})
    assert check_slice(pci_slice(NUMA, {"int": "1"}), topology, policy=off) == []


def test_the_help_takes_the_form_asked_for(topology: Topology) -> None:
    assert [f[4] for f in findings(pci_slice(NUMA, {"int": "1"}), topology, form=Form.LIST)] == [
        "publish {ints: [0, 1]}"]


def test_a_device_without_affinity_is_told_to_omit_it(topology: Topology) -> None:
    assert findings(pci_slice(NUMA, {"string": "-1"}, "0000:00:02.0"), topology) == [
        ("topology-numa-mismatch", "deny", f"spec.devices[0].attributes[{NUMA}]",
         f"{NUMA} cannot be checked against the node (a string value, not int or ints); PCI device 0000:00:02.0: "
         "no NUMA affinity (numa_node=-1); do not publish the numaNode attribute for it",
         "omit the numaNode attribute while the device has no NUMA affinity (the KEP-6072 helper returns an error)")
    ]


def test_a_cpu_device_whose_only_value_is_malformed(topology: Topology) -> None:
    # No PCI address and no readable node: nothing to derive from, but still a finding rather than a pass.
    assert findings(slice_of("dra.cpu", {NUMA: {"ints": [True]}}), topology) == [
        ("topology-numa-mismatch", "deny", f"spec.devices[0].attributes[{NUMA}]",
         f"{NUMA} cannot be checked against the node (k8s-wire-type: ints[0]: Invalid value: true: must be of type "
         "integer)", "publish the NUMA node as {int: N}, or the KEP-6072 list as {ints: [N, ...]}")
    ]


def test_a_cpu_device_with_a_readable_node_and_a_malformed_alias(topology: Topology) -> None:
    cpu = slice_of("dra.cpu", {NUMA: {"int": 1}, "dra.cpu/numaNodeID": {"int": "1"}})
    assert findings(cpu, topology) == [
        ("topology-numa-mismatch", "deny", "spec.devices[0].attributes[dra.cpu/numaNodeID]",
         'dra.cpu/numaNodeID cannot be checked against the node (k8s-wire-type: int: Invalid value: "1": must be of '
         "type integer); sysfs gives 1 for NUMA node 1", "publish {int: 1}")
    ]


def test_a_device_that_cannot_be_found_still_reports_its_malformed_value(topology: Topology) -> None:
    assert [f[:3] for f in findings(pci_slice(NUMA, {"int": "1"}, "0000:00:09.0"), topology)] == [
        ("topology-unknown-device", "warn", f"spec.devices[0].attributes[{BUS_ID}]"),
        ("topology-numa-mismatch", "deny", f"spec.devices[0].attributes[{NUMA}]"),
    ]


def test_an_address_that_is_not_a_string_is_not_checked_by_the_published_node(topology: Topology) -> None:
    # Before: {int: 5} was no address, so the device was "checked" against the node it published itself: a pass.
    device = slice_of("d.example.com", {BUS_ID: {"int": 5}, NUMA: {"int": 1}})
    assert findings(device, topology) == [
        ("topology-bad-pci-address", "warn", f"spec.devices[0].attributes[{BUS_ID}]",
         f'{BUS_ID} is {{"int":5}}, not a PCI address string, so its numaNode cannot be checked',
         "publish the PCI address as sysfs names it, e.g. 0000:c1:00.1")
    ]
    vendor = slice_of("d.example.com", {BUS_ID: {"int": 5}, "pciAddress": {"string": DEVICE}, NUMA: {"int": 0}})
    assert findings(vendor, topology) == []  # a readable vendor address is used


@pytest.mark.parametrize(("value", "expected"), [
    ({"int": 4}, NumaValue(Form.SCALAR, (4,))),
    ({"ints": [4, 5]}, NumaValue(Form.LIST, (4, 5))),
    ({"int": -1}, NumaValue(Form.SCALAR, (-1,))),  # readable: the no-affinity finding judges it
    ({"int": 4, "ints": None}, NumaValue(Form.SCALAR, (4,))),  # a null member is not set
    ({"int": 4, "integer": 5}, NumaValue(Form.SCALAR, (4,))),  # the API server drops an unknown field
    ({"integer": 4}, 'k8s-unknown-field: integer: unknown field "integer"; '
                     'k8s-attribute-union: Invalid value: "": exactly one value must be specified'),
    ({"int": 2**63}, "k8s-wire-type: int: Invalid value: 9223372036854775808: must be of type integer"),
    ([4], "k8s-wire-type: Invalid value: [4]: must be of type object; "
          'k8s-attribute-union: Invalid value: "": exactly one value must be specified'),
    ({"bools": [True]}, "a bools value, not int or ints"),
])
def test_decode(value: object, expected: NumaValue | str) -> None:
    assert decode(value) == expected
