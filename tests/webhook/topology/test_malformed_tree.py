"""`draguard topology` on a malformed sysfs tree: what is printed agrees with docs/topology.md whatever the
selection and format (a malformed SLIT field is no row plus a note; a device entry that is a file is exit 2)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.webhook.topology.trees import Node, Tree
from webhook import cli
from webhook.topology.numa import UNREADABLE

BROKEN = "12 1_0 32 32"
MACHINE = Tree(
    {0: Node(cpus=(0, 1), socket=0, distance="10 12 32 32"), 1: Node(cpus=(2, 3), socket=0, distance=BROKEN),
     2: Node(cpus=(4, 5), socket=1, distance="32 32 10 12"), 3: Node(cpus=(6, 7), socket=1, distance="32 32 12 10")},
    pci={"0000:00:01.0": "0", "0000:c1:00.1": "3"},
)
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
    fine = Tree({**MACHINE.nodes, 1: Node(cpus=(2, 3), socket=0, distance="12 10 32 32")}, pci=MACHINE.pci)
    code, out, _err = run(["--sysfs-root", str(fine.build(tmp_path / "sys")), "--format", "json"], capsys)
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
