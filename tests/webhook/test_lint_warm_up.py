"""`webhook.lint.warm_up`: what the process that forks the lint workers builds once for all of them."""

from __future__ import annotations

import pytest

import webhook.inventory
from tests.builders import slice_with
from webhook.lint import warm_up

SELECTOR_FILE = ("claim.yaml", "selectors:\n- cel:\n    expression: device.driver == 'x'\n")


def test_the_inventory_is_built_before_the_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    inventory = (slice_with(numa=0),)
    warm_up([SELECTOR_FILE], inventory)

    def rebuilt(_objects: object) -> None:
        raise AssertionError("built again: the workers would each build it")

    monkeypatch.setattr(webhook.inventory, "build", rebuilt)
    assert webhook.inventory.inventory_of(inventory).devices  # found built, devices and all


def test_nothing_is_built_for_inputs_without_a_selector(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[object] = []
    monkeypatch.setattr(webhook.inventory, "build", built.append)
    warm_up([("cm.yaml", "kind: ConfigMap\n")], (slice_with(numa=0),))
    assert built == []
