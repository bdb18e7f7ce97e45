from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from webhook.errors import DraguardError
from webhook.findings import Action
from webhook.policy_store import PolicyStore


def write(path: Path, text: str) -> None:
    """Replace the file with a new one renamed into place (a ConfigMap volume: see `configmap_volume`)."""
    fresh = path.with_suffix(".new")
    fresh.write_text(text)
    os.replace(fresh, path)


def test_no_file_means_the_default_policy() -> None:
    store = PolicyStore(None)
    assert store.current().source == "<default>"
    assert store.reload() is False


def test_an_invalid_file_at_start_is_a_one_line_error(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text("rules:\n  no-such-rule: deny\n")
    with pytest.raises(DraguardError) as caught:
        PolicyStore(path)
    assert caught.value.message == (
        f"policy {path}: rules: unknown rule id 'no-such-rule' (see `draguard rules`)"
    )


def test_a_changed_file_is_picked_up(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text("rules:\n  numa-node-range: warn\n")
    seen: list[str | None] = []
    store = PolicyStore(path, check_interval=0, on_reload=seen.append)
    assert store.current().action("numa-node-range") is Action.WARN
    write(path, "rules:\n  numa-node-range: audit\n")
    assert store.current().action("numa-node-range") is Action.AUDIT
    assert (seen, store.reloads, store.last.error) == ([None], 1, None)


def test_an_invalid_new_file_keeps_the_old_policy_and_says_why(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text("rules:\n  numa-node-range: warn\n")
    seen: list[str | None] = []
    store = PolicyStore(path, check_interval=0, on_reload=seen.append)
    write(path, "rules: [\n")
    with caplog.at_level(logging.ERROR, "webhook.policy_store"):
        assert store.current().action("numa-node-range") is Action.WARN
        assert store.current().action("numa-node-range") is Action.WARN  # logged once, not per request
    assert len(caplog.records) == 1
    error = f"policy {path}:2:1: invalid YAML: expected the node content, but found '<stream end>'"
    assert caplog.records[0].getMessage() == f"keeping the previous policy: {error}"
    assert store.last.error == error
    assert len(seen) == 1
    write(path, "rules:\n  numa-node-range: deny\n")
    assert store.current().action("numa-node-range") is Action.DENY
    assert store.last.error is None


def test_a_removed_file_keeps_the_old_policy(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text("rules:\n  numa-node-range: warn\n")
    store = PolicyStore(path, check_interval=0)
    path.unlink()
    assert store.current().action("numa-node-range") is Action.WARN
    assert store.last.error == f"policy {path}: no such file"


def test_within_the_check_interval_the_file_is_not_looked_at(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text("rules:\n  numa-node-range: warn\n")
    store = PolicyStore(path, check_interval=3600)
    write(path, "rules:\n  numa-node-range: audit\n")
    assert store.current().action("numa-node-range") is Action.WARN
    assert store.reload() is True
    assert store.current().action("numa-node-range") is Action.AUDIT


def configmap_volume(directory: Path, version: int, text: str) -> None:
    """The kubelet's AtomicWriter: files in a timestamped dir, `..data` swapped to it, `policy.yaml -> ..data/...`."""
    payload = directory / f"..2026_11_23_{version}"
    payload.mkdir()
    (payload / "policy.yaml").write_text(text)
    link = directory / "..data_tmp"
    link.symlink_to(payload.name)
    os.replace(link, directory / "..data")  # the one atomic step a reader can observe
    if not (directory / "policy.yaml").is_symlink():
        (directory / "policy.yaml").symlink_to("..data/policy.yaml")


def test_a_configmap_volume_update_is_picked_up_even_with_the_same_size(tmp_path: Path) -> None:
    configmap_volume(tmp_path, 1, "rules:\n  numa-node-range: warn\n")
    store = PolicyStore(tmp_path / "policy.yaml", check_interval=0)
    assert store.current().action("numa-node-range") is Action.WARN
    configmap_volume(tmp_path, 2, "rules:\n  numa-node-range: deny\n")  # same length as before
    assert store.current().action("numa-node-range") is Action.DENY
    assert store.reloads == 1
