"""webhook.topology.checking.check_node: the node check as a library, findings returned, nothing printed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.webhook.commands.test_topology import SLICES
from tests.webhook.topology.trees import EPYC_9825_NPS4
from webhook.findings import Action
from webhook.topology import Sysfs, Topology
from webhook.topology.checking import against, check_node


@pytest.fixture
def topology(tmp_path: Path) -> Topology:
    return Topology(Sysfs.open(EPYC_9825_NPS4.build(tmp_path / "sys")))


def test_findings_are_placed_and_counted_without_printing(topology: Topology, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "slices.yaml").write_text(SLICES)
    result = check_node([str(tmp_path / "slices.yaml")], "node-a", against(topology))
    assert [(str(f.position), f.rule, f.action) for f in result.findings] == [
        (f"{tmp_path}/slices.yaml:14:47", "topology-numa-mismatch", Action.DENY)]
    assert (result.checked, dict(result.skipped), result.problems) == (
        1, {"DeviceClass": 1, "ResourceSlice of other nodes": 1}, [])
    assert capsys.readouterr() == ("", "")


def test_json_slices_are_placed_at_the_same_field(topology: Topology, tmp_path: Path) -> None:
    from webhook.manifests import load_text

    items = [m.obj for m in load_text(SLICES).manifests]
    (tmp_path / "slices.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=1))
    result = check_node([str(tmp_path / "slices.json")], "node-a", against(topology))
    assert [str(f.position) for f in result.findings] == [f"{tmp_path}/slices.json:30:17"]  # the `ints` list


def test_no_slice_for_the_node_is_a_problem(topology: Topology, tmp_path: Path) -> None:
    (tmp_path / "slices.yaml").write_text(SLICES)
    result = check_node([str(tmp_path / "slices.yaml")], "node-z", against(topology))
    assert result.problems == ["no ResourceSlice has spec.nodeName 'node-z' (slices name node-a, node-b); "
                               "pass --node NAME"]
    assert result.findings == [] and result.checked == 0


def test_ignore_globs_skip_files(topology: Topology, tmp_path: Path) -> None:
    (tmp_path / "slices.yaml").write_text(SLICES)
    result = check_node([str(tmp_path)], "node-a", against(topology), ignore=["*/slices.yaml"])
    assert result.problems[0].startswith("no ResourceSlice has spec.nodeName 'node-a'")
