"""While a forked process reads --slices/--classes (`read_ahead`), the run reads its own files and imports celext;
it waits for the inventory only after that (`webhook.check_run.check`), and keeps the inventory's problems first."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import webhook.lint
from tests.builders import claim_with_selector
from webhook.check_run import Inputs, Listed, check
from webhook.manifests import Problem
from webhook.wire import Obj

SLICE: Obj = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
              "spec": {"driver": "gpu.example.com", "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
                       "nodeName": "n", "devices": [{"name": "gpu-0", "attributes": {}}]}}


@pytest.fixture
def steps(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    found: list[str] = []
    warm_up = webhook.lint.warm_up

    def recorded(sources: list[tuple[str, str]]) -> None:
        found.append(f"warm_up {len(sources)}")
        warm_up(sources)

    monkeypatch.setattr(webhook.lint, "warm_up", recorded)
    return found


def _listed(steps: list[str]) -> Listed:
    steps.append("inventory taken")
    return [SLICE], [Problem("slices.yaml", "an inventory problem", 3, 1)]


def test_celext_is_warmed_before_the_inventory_read_ahead_is_waited_for(tmp_path: Path, steps: list[str]) -> None:
    claim = tmp_path / "claim.yaml"
    claim.write_text(yaml.safe_dump(claim_with_selector('device.attributes["gpu.example.com"].model == "A100"')))
    run, inventory = check(Inputs([str(claim), str(tmp_path / "missing.yaml")], jobs=1,
                                  listed=lambda: _listed(steps)))
    assert steps == ["warm_up 1", "inventory taken"]
    assert inventory == (SLICE,)
    assert [(p.source, p.message) for p in run.problems] == [
        ("slices.yaml", "an inventory problem"), (str(tmp_path / "missing.yaml"), "no such file or directory")]
    # the inventory reached the rules: the read is absent on the one device
    assert sorted(f.rule for f in run.files[0].findings) == ["list-fragile-compare", "selector-attribute-missing"]


def test_without_a_read_ahead_the_inventory_is_read_first_and_nothing_is_warmed(tmp_path: Path,
                                                                                steps: list[str]) -> None:
    claim = tmp_path / "claim.yaml"
    claim.write_text(yaml.safe_dump(claim_with_selector('device.driver == "gpu.example.com"')))
    run, inventory = check(Inputs([str(claim)], jobs=1))
    assert steps == []
    assert inventory == ()
    assert run.objects == 1
