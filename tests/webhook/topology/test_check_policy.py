"""topology --check's findings are catalogue rules: listed, documented, their actions set by the policy."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.webhook.topology.test_check import BUS_ID, NUMA, slice_of
from tests.webhook.topology.trees import EPYC_9825_NPS4
from webhook import cli
from webhook.errors import DraguardError
from webhook.policy import Policy
from webhook.rules import CATALOGUE
from webhook.rules.base import SLICE_ON_NODE
from webhook.rules.topology import RULES
from webhook.run import rules_for
from webhook.topology import Sysfs, Topology
from webhook.topology.check import check_slice

TOPOLOGY_IDS = ["topology-numa-mismatch", "topology-numa-form", "topology-no-affinity", "topology-unknown-device",
                "topology-unknown-node", "topology-bad-pci-address"]
WRONG = slice_of("gpu.nvidia.com", {BUS_ID: {"string": "0000:41:00.0"}, NUMA: {"int": 4}},
                 {BUS_ID: {"string": "0000:C1:00.1"}, NUMA: {"int": 6}})


@pytest.fixture
def topology(tmp_path: Path) -> Topology:
    return Topology(Sysfs.open(EPYC_9825_NPS4.build(tmp_path)))


def rules_and_actions(policy: Policy | None, topology: Topology) -> list[tuple[str, str]]:
    return [(f.rule, f.action.value if f.action else "") for f in check_slice(WRONG, topology, policy=policy)]


def test_every_topology_check_is_a_catalogue_rule() -> None:
    assert [rule.id for rule in RULES] == TOPOLOGY_IDS
    assert all(CATALOGUE[rule_id].kinds == {SLICE_ON_NODE} for rule_id in TOPOLOGY_IDS)
    assert {rule_id: CATALOGUE[rule_id].default.value for rule_id in TOPOLOGY_IDS} == {
        "topology-numa-mismatch": "deny", "topology-numa-form": "deny", "topology-no-affinity": "deny",
        "topology-unknown-device": "warn", "topology-unknown-node": "warn", "topology-bad-pci-address": "warn"}


def test_the_runner_never_selects_them() -> None:
    for kind in ("ResourceSlice", "ResourceClaim", "ResourceClaimTemplate", "DeviceClass"):
        assert [r.id for r in rules_for(kind) if r.id in TOPOLOGY_IDS] == []


def test_rules_lists_them(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["rules"]) == 0
    listed = {line.split()[0]: line.split()[1] for line in capsys.readouterr().out.splitlines()}
    assert {rule_id: listed[rule_id] for rule_id in TOPOLOGY_IDS} == {
        rule_id: CATALOGUE[rule_id].default.value for rule_id in TOPOLOGY_IDS}


def test_default_actions_without_and_with_the_default_policy(topology: Topology) -> None:
    expected = [("topology-numa-mismatch", "deny"), ("topology-bad-pci-address", "warn")]
    assert rules_and_actions(None, topology) == expected
    assert rules_and_actions(Policy.default(), topology) == expected


def test_the_policy_sets_their_actions(topology: Topology) -> None:
    policy = Policy.from_mapping({"rules": {"topology-numa-mismatch": "warn", "topology-bad-pci-address": "deny"}})
    assert rules_and_actions(policy, topology) == [("topology-numa-mismatch", "warn"),
                                                   ("topology-bad-pci-address", "deny")]


def test_a_rule_turned_off_reports_nothing(topology: Topology) -> None:
    policy = Policy.from_mapping({"rules": {"topology-numa-mismatch": "off"}})
    assert rules_and_actions(policy, topology) == [("topology-bad-pci-address", "warn")]


def test_a_misspelt_topology_id_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("rules:\n  topology-numa-missmatch: warn\n", encoding="utf-8")
    with pytest.raises(DraguardError) as err:
        Policy.load(path)
    assert err.value.message == (
        f"policy {path}: rules: unknown rule id 'topology-numa-missmatch' (see `draguard rules`)")


def test_default_policy_file_names_them(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["policy", "default"]) == 0
    out = capsys.readouterr().out
    assert [rule_id for rule_id in TOPOLOGY_IDS if f"  {rule_id}: {CATALOGUE[rule_id].default.value} " in out] == (
        TOPOLOGY_IDS)


def test_the_policy_aliases_are_compared_unless_aliases_are_given(topology: Topology) -> None:
    nic = slice_of("dra.net", {BUS_ID: {"string": "0000:c1:00.1"}, "vendor.example/numa": {"int": 2}})
    policy = Policy.from_mapping({"numaNode": {"aliases": ["vendor.example/numa"]}})
    assert [f.message for f in check_slice(nic, topology, policy=policy)] == [
        "vendor.example/numa is 2 but sysfs gives 6 for PCI device 0000:c1:00.1 (numa_node 6)"]
    assert check_slice(nic, topology, policy=policy, aliases=()) == []
    assert check_slice(nic, topology) == []
