"""`draguard topology` on malformed input: misshapen slices under `--check` and malformed socket files in sysfs
are input problems (a stderr line naming the object and field, or the file; exit 2), never skipped in silence."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.webhook.topology.trees import EPYC_9825_NPS4, Node, Tree
from webhook import cli

Capsys = pytest.CaptureFixture[str]

HEAD = "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
GOOD = HEAD + """\
metadata: {name: good}
spec:
  driver: dra.net
  nodeName: node-a
  pool: {name: node-a, resourceSliceCount: 1}
  devices:
  - name: eth1
    attributes:
      resource.kubernetes.io/pciBusID: {string: "0000:c1:00.1"}
      resource.kubernetes.io/numaNode: {int: 5}
"""


@pytest.fixture
def sys_root(tmp_path: Path) -> Path:
    return EPYC_9825_NPS4.build(tmp_path / "sys")


def check(capsys: Capsys, sys_root: Path, text: str) -> tuple[int, str, str]:
    path = sys_root.parent / "slices.yaml"
    path.write_text(text)
    code = cli.main(["topology", "--sysfs-root", str(sys_root), "--check", str(path), "--node", "node-a"])
    out, err = capsys.readouterr()
    return code, out.replace(str(path), "slices.yaml"), err.replace(str(path), "slices.yaml")


def bad(devices: str, name: str = "bad") -> str:
    return HEAD + f"metadata: {{name: {name}}}\nspec:\n  driver: dra.net\n  nodeName: node-a\n  devices:\n{devices}"


MISMATCH = ("slices.yaml:12:46: deny topology-numa-mismatch: "
            "spec.devices[0].attributes[resource.kubernetes.io/numaNode].int: resource.kubernetes.io/numaNode is 5 "
            "but sysfs gives 6 for PCI device 0000:c1:00.1 (numa_node 6)\n"
            "  help: publish {int: 6}\n")


def test_a_well_formed_slice_is_checked(capsys: Capsys, sys_root: Path) -> None:
    assert check(capsys, sys_root, GOOD) == (1, MISMATCH + "1 object checked; 1 deny, 0 warnings, 0 audit\n", "")


def test_devices_as_a_mapping_are_an_input_problem(capsys: Capsys, sys_root: Path) -> None:
    text = GOOD + "---\n" + bad("    eth1:\n      attributes: {resource.kubernetes.io/numaNode: {int: 3}}\n")
    assert check(capsys, sys_root, text) == (
        2, MISMATCH + "1 object checked; 1 deny, 0 warnings, 0 audit; 1 input problem\n",
        "draguard: slices.yaml:21:5: ResourceSlice bad: spec.devices must be a list, not a mapping\n")


def test_every_malformed_device_is_an_input_problem(capsys: Capsys, sys_root: Path) -> None:
    devices = ("  - null\n  - 5\n  - name: e\n    attributes: [{name: resource.kubernetes.io/numaNode, int: 3}]\n"
               "  - {attributes: {}}\n")
    code, out, err = check(capsys, sys_root, bad(devices))
    assert (code, out) == (2, "0 objects checked; 0 deny, 0 warnings, 0 audit; 4 input problems\n")
    assert err == (
        "draguard: slices.yaml:8:5: ResourceSlice bad: spec.devices[0] must be a mapping, not a null value\n"
        "draguard: slices.yaml:9:5: ResourceSlice bad: spec.devices[1] must be a mapping, not a number\n"
        "draguard: slices.yaml:11:17: ResourceSlice bad: spec.devices[2].attributes must be a mapping, not a list\n"
        "draguard: slices.yaml:12:5: ResourceSlice bad: spec.devices[3].name is required (a string)\n"
    )


@pytest.mark.parametrize(("text", "problem"), [
    (HEAD + "metadata: {name: s}\nspec: null\n", "slices.yaml:17:7: ResourceSlice s: spec is required (a mapping)"),
    (HEAD + "metadata: null\n", "slices.yaml:14:1: ResourceSlice <unnamed>: spec is required (a mapping)"),
    (HEAD + "metadata: {name: s}\nspec: {nodeName: 5}\n",
     "slices.yaml:17:18: ResourceSlice s: spec.nodeName must be a string, not a number"),
])
def test_a_slice_with_no_readable_node_is_a_problem_not_another_nodes(capsys: Capsys, sys_root: Path, text: str,
                                                                     problem: str) -> None:
    code, out, err = check(capsys, sys_root, GOOD + "---\n" + text)
    assert (code, err) == (2, f"draguard: {problem}\n")
    assert out.endswith("1 object checked; 1 deny, 0 warnings, 0 audit; 1 input problem\n")  # not "of other nodes"


def test_other_kinds_are_still_skipped_unchecked(capsys: Capsys, sys_root: Path) -> None:
    text = GOOD + "---\nkind: DeviceClass\nmetadata: {name: x}\nspec: {selectors: 5}\n"
    code, out, err = check(capsys, sys_root, text)
    assert (code, err) == (1, "")
    assert out.endswith("1 object checked; 1 deny, 0 warnings, 0 audit; skipped 1 (DeviceClass 1)\n")


# ---- the socket files the list form reads ----
TABLE = "NUMA NODE  SOCKET  CPUS  DISTANCE  NUMANODE\n"
TWO_SOCKETS = {0: Node(cpus=(0,), socket=0, distance="10 12"), 1: Node(cpus=(1,), socket=1, distance="12 10")}


def topology(capsys: Capsys, root: Path) -> tuple[int, str, str]:
    code = cli.main(["topology", "--sysfs-root", str(root), "--numa-node", "0", "--form", "list"])
    out, err = capsys.readouterr()
    return code, out, err


def test_well_formed_socket_files_filter_the_list(capsys: Capsys, tmp_path: Path) -> None:
    root = Tree(TWO_SOCKETS).build(tmp_path / "sys")
    assert topology(capsys, root) == (0, TABLE + "0          0       0     10 12     [0]\n", "")


def test_a_cpu_less_node_has_an_unknown_socket(capsys: Capsys, tmp_path: Path) -> None:
    root = Tree({**TWO_SOCKETS, 1: Node(cpus=(), distance="12 10")}).build(tmp_path / "sys")
    assert topology(capsys, root) == (0, TABLE + "0          0       0     10 12     [0, 1]\n", "")


# A malformed socket file makes the socket unknown, as upstream's getSocketForNUMANode answers: the candidate on
# the other socket is kept, and a note names the file.
@pytest.mark.parametrize("text", ["garbage", "1-0", "1,", "0-9999999"])
def test_a_malformed_cpulist_is_an_unknown_socket_with_a_note_naming_the_file(capsys: Capsys, tmp_path: Path,
                                                                              text: str) -> None:
    root = Tree(TWO_SOCKETS).build(tmp_path / "sys")
    path = root / "devices/system/node/node1/cpulist"
    path.write_text(text + "\n")
    note = (f"note: node 1 is kept with an unknown socket ({path}: malformed value {text!r}: want a CPU list, "
            "as upstream)\n")
    assert topology(capsys, root) == (0, TABLE + "0          0       0     10 12     [0, 1]\n\n" + note, "")


@pytest.mark.parametrize("text", ["q", "", "1.0"])
def test_a_malformed_physical_package_id_is_an_unknown_socket_with_a_note_naming_the_file(
        capsys: Capsys, tmp_path: Path, text: str) -> None:
    root = Tree(TWO_SOCKETS).build(tmp_path / "sys")
    path = root / "devices/system/cpu/cpu1/topology/physical_package_id"
    path.write_text(text + "\n")
    note = (f"note: node 1 is kept with an unknown socket ({path}: malformed value {text!r}: want a socket id, "
            "as upstream)\n")
    assert topology(capsys, root) == (0, TABLE + "0          0       0     10 12     [0, 1]\n\n" + note, "")
