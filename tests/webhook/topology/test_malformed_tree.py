"""`draguard topology` on a malformed sysfs tree: what is printed agrees with docs/topology.md whatever the
selection and format (a malformed SLIT field is no row plus a note; a device entry that is a file is exit 2)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from celext.vocabulary import NUMA_NODE
from tests.webhook.topology.trees import Node, Tree
from webhook import cli
from webhook.topology.numa import UNREADABLE

BROKEN = "12 1_0 32 32"
MACHINE = Tree(
    {0: Node(cpus=(0, 1), socket=0, distance="10 12 32 32"), 1: Node(cpus=(2, 3), socket=0, distance=BROKEN),
     2: Node(cpus=(4, 5), socket=1, distance="32 32 10 12"), 3: Node(cpus=(6, 7), socket=1, distance="32 32 12 10")},
    pci={"0000:00:01.0": "0", "0000:c1:00.1": "3"},
)
FINE = Tree({**MACHINE.nodes, 1: Node(cpus=(2, 3), socket=0, distance="12 10 32 32")}, pci=MACHINE.pci)
NOTE = "node 1's SLIT distance row has '1_0', not a number: list falls back to [1]"


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = cli.main(["topology", *args])
    except SystemExit as exit_:  # argparse
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("form", ["scalar", "list"])
@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_a_malformed_distance_field_is_no_row_and_a_note_in_every_form(
        form: str, fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = MACHINE.build(tmp_path / "sys")
    code, out, err = run(["--sysfs-root", str(root), "--form", form, "--format", fmt], capsys)
    assert (code, err) == (0, "")
    if fmt == "json":
        document = json.loads(out)
    else:
        from ruamel.yaml import YAML

        document = YAML(typ="safe").load(out)
    assert [n["distance"] for n in document["numaNodes"]] == [[10, 12, 32, 32], None, [32, 32, 10, 12],
                                                              [32, 32, 12, 10]]
    assert document["notes"] == [NOTE]


def test_the_table_shows_the_row_as_written_and_the_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = MACHINE.build(tmp_path / "sys")
    code, out, _err = run(["--sysfs-root", str(root), "--numa-node", "1", "--form", "scalar"], capsys)
    assert code == 0
    assert "12 1_0 32 32" in out
    assert out.endswith(f"\nnote: {NOTE}\n")


def test_a_well_formed_tree_has_no_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = run(["--sysfs-root", str(FINE.build(tmp_path / "sys")), "--format", "json"], capsys)
    assert code == 0
    assert json.loads(out)["notes"] == []
    assert json.loads(out)["numaNodes"][1]["distance"] == [12, 10, 32, 32]


@pytest.mark.parametrize("selection", [[], ["--pci", "0000:3b:00.0"], ["--format", "json"]],
                         ids=["listing", "pci", "json"])
def test_a_device_entry_that_is_a_file_is_exit_2_however_it_is_reached(
        selection: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The helper fails for that device alone: it is listed with the reason, the rest as usual, and the run
    ends with exit 2 and the reason on stderr (the tree is broken where a driver reads it)."""
    root = MACHINE.build(tmp_path / "sys")
    entry = root / "bus/pci/devices/0000:3b:00.0"
    entry.write_text("1\n")
    code, out, err = run(["--sysfs-root", str(root), *selection], capsys)
    reason = f"{entry}: a file, not a PCI device directory: {UNREADABLE}"
    assert code == 2
    assert err == f"draguard: error: {reason}\n"
    if "json" in selection:
        assert reason in [row["reason"] for row in json.loads(out)["pciDevices"]]
    else:
        assert re.search(rf"^0000:3b:00\.0 +- +- +- +{re.escape(reason)}$", out, re.MULTILINE)
    if not selection:
        assert "NUMA NODE" in out  # the nodes are still listed


def test_a_device_that_is_not_there_is_still_exit_2_only_when_asked_for(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = MACHINE.build(tmp_path / "sys")
    code, _out, err = run(["--sysfs-root", str(root), "--pci", "0000:3b:00.0"], capsys)
    assert code == 2
    assert err == f"draguard: error: --pci 0000:3b:00.0: no PCI device 0000:3b:00.0 under {root}/bus/pci/devices\n"
    assert run(["--sysfs-root", str(root)], capsys)[0] == 0


@pytest.mark.parametrize("form", ["scalar", "list"])
def test_a_distance_row_with_bytes_that_are_not_text_falls_back_as_a_word_does(
        form: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """It was exit 2 (the whole file refused), where a row with a word in it falls back with a note."""
    root = MACHINE.build(tmp_path / "sys")
    (root / "devices/system/node/node1/distance").write_bytes(b"12 \xff\xfe 32 32\n")
    code, out, err = run(["--sysfs-root", str(root), "--form", form, "--format", "json"], capsys)
    assert (code, err) == (0, "")
    document = json.loads(out)
    assert [n["distance"] for n in document["numaNodes"]][1] is None
    assert document["notes"] == [
        "node 1's SLIT distance row has '\\\\xff\\\\xfe', not a number: list falls back to [1]"]


# ---- links that lead nowhere: what a partial copy of /sys holds; upstream's read fails as for a bad value ----
def _loop(path: Path) -> None:
    path.unlink()
    path.symlink_to(path.name)


def _dangling(path: Path) -> None:
    path.unlink()
    path.symlink_to("gone")


@pytest.mark.parametrize(("damage", "why"), [
    (_loop, "cannot read: Too many levels of symbolic links"),
    (_dangling, "a symbolic link to gone, which does not exist"),
], ids=["loop", "dangling"])
def test_a_numa_node_link_that_leads_nowhere_fails_that_device_alone(
        damage: Callable[[Path], None], why: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A loop stopped the whole run (as a refused read); a dangling link read as 'a kernel without NUMA support'
    with exit 0. Either way upstream's helper fails for that device: listed with the reason, exit 2."""
    root = FINE.build(tmp_path / "sys")
    damage(root / "bus/pci/devices/0000:c1:00.1/numa_node")
    code, out, err = run(["--sysfs-root", str(root), "--form", "list"], capsys)
    reason = f"{root}/bus/pci/devices/0000:c1:00.1/numa_node: {why}: {UNREADABLE}"
    assert (code, err) == (2, f"draguard: error: {reason}\n")
    assert out.startswith(
        "PCI DEVICE    NUMA  NUMANODE  NOTE\n"
        "0000:00:01.0  0     [0, 1]\n"
        f"0000:c1:00.1  -     -         {reason}\n\n"
        "NUMA NODE  SOCKET  CPUS  DISTANCE     NUMANODE\n"
        "0          0       0-1   10 12 32 32  [0, 1]\n")


def test_a_device_link_that_leads_nowhere_is_a_broken_device_not_an_absent_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`bus/pci/devices/<BDF>` pointing at nothing was listed as 'no PCI device ... under bus/pci/devices' with
    exit 0 (and --check only warned, exit 0): the entry is there, so the helper fails for it."""
    root = FINE.build(tmp_path / "sys")
    (root / "bus/pci/devices/0000:3b:00.0").symlink_to("../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0")
    reason = (f"{root}/bus/pci/devices/0000:3b:00.0: a symbolic link to "
              f"../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0, which does not exist: {UNREADABLE}")
    for selection in ([], ["--pci", "0000:3b:00.0"]):
        code, out, err = run(["--sysfs-root", str(root), "--form", "scalar", *selection], capsys)
        assert (code, err) == (2, f"draguard: error: {reason}\n")
        assert f"0000:3b:00.0  -     -         {reason}\n" in out
    slices = tmp_path / "slices.yaml"
    slices.write_text(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n"
        "spec:\n  driver: dra.net\n  nodeName: 'n'\n  pool: {name: 'n', generation: 1, resourceSliceCount: 1}\n"
        "  devices:\n  - name: eth0\n    attributes:\n"
        "      resource.kubernetes.io/pciBusID: {string: \"0000:3b:00.0\"}\n"
        "      resource.kubernetes.io/numaNode: {int: 1}\n")
    code, out, err = run(["--sysfs-root", str(root), "--check", str(slices), "--node", "n"], capsys)
    assert (code, err) == (1, "")
    assert out.splitlines()[0] == (
        f"{slices}:12:46: deny topology-numa-mismatch: spec.devices[0].attributes[resource.kubernetes.io/numaNode]"
        f".int: resource.kubernetes.io/numaNode is 1: {reason}")


@pytest.mark.parametrize("damage", [_loop, _dangling, lambda path: (path.unlink(), path.mkdir())],
                         ids=["loop", "dangling", "directory"])
def test_a_node_row_that_cannot_be_read_is_the_fallback_in_the_node_listing_too(
        damage: Callable[[Path], None], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The NUMA node listing read the row itself and stopped with exit 2 (even for --form scalar, which reads no
    SLIT), while the same row under --pci fell back to [N] with a note, as upstream."""
    root = FINE.build(tmp_path / "sys")
    damage(root / "devices/system/node/node3/distance")
    for form in ("scalar", "list"):
        code, out, err = run(["--sysfs-root", str(root), "--form", form, "--format", "json"], capsys)
        assert (code, err) == (0, "")
        document = json.loads(out)
        assert document["numaNodes"][3]["distance"] is None
        assert document["numaNodes"][3]["attributes"] == {
            NUMA_NODE: {"int": 3} if form == "scalar" else {"ints": [3]}}
        assert f"{root}/devices/system/node/node3/distance" in document["notes"][-1]
        assert document["notes"][-1].endswith(": list falls back to [3]")
        assert [row["attributes"] for row in document["pciDevices"]][1] == {
            NUMA_NODE: {"int": 3} if form == "scalar" else {"ints": [3]}}


def test_a_cpulist_that_cannot_be_read_is_an_unknown_socket_in_the_node_listing_too(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = FINE.build(tmp_path / "sys")
    _dangling(root / "devices/system/node/node2/cpulist")
    code, out, err = run(["--sysfs-root", str(root), "--numa-node", "2", "--form", "scalar"], capsys)
    assert (code, err) == (0, "")
    assert out == (
        "NUMA NODE  SOCKET  CPUS  DISTANCE     NUMANODE\n"
        "2          -       -     32 32 10 12  2\n\n"
        f"note: node 2's socket is unknown ({root}/devices/system/node/node2/cpulist: a symbolic link to gone, "
        "which does not exist, as upstream): no same-socket filter\n")


def test_a_class_device_on_a_broken_device_entry_shows_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """It said the device 'is not under bus/pci/devices' when its entry there links to nothing."""
    tree = Tree(FINE.nodes, pci=FINE.pci, classes={"net/eth0": "0000:c1:00.1/net/eth0"})
    root = tree.build(tmp_path / "sys")
    entry = root / "bus/pci/devices/0000:c1:00.1"
    entry.unlink()
    entry.symlink_to("../../../devices/pci0000:c1/gone")
    code, out, err = run(["--sysfs-root", str(root), "--class-device", "net/eth0", "--form", "scalar"], capsys)
    reason = f"{entry}: a symbolic link to ../../../devices/pci0000:c1/gone, which does not exist: {UNREADABLE}"
    assert (code, out, err) == (2, f"PCI DEVICE    NUMA  NUMANODE  NOTE\n0000:c1:00.1  -     -         {reason}\n",
                                f"draguard: error: {reason}\n")
