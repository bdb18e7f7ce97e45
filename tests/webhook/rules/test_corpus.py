"""Every ResourceSlice in the shared corpus: no rule fails, and slices captured from real clusters pass
every deny rule (they were admitted by a real API server)."""

from __future__ import annotations

import logging
from collections import Counter
from pathlib import Path

import pytest

from webhook.findings import Action
from webhook.manifests import load_paths
from webhook.policy import Policy
from webhook.run import run_rules

# Captured with `kubectl get resourceslices -o yaml` from running clusters, per corpus/INDEX.md (the dranet
# quick-start page is a hand-trimmed excerpt, expected to fail validation).
FROM_CLUSTERS = ("dranet/aws_", "dranet/azure_", "dranet/oci_", "topology-co-placement/results-")


def test_every_corpus_slice(corpus: Path, caplog: pytest.LogCaptureFixture) -> None:
    loaded = load_paths([str(corpus)])
    slices = [m for m in loaded.manifests if m.obj.get("kind") == "ResourceSlice"]
    assert len(slices) >= 50
    denied: Counter[str] = Counter()
    with caplog.at_level(logging.ERROR, logger="webhook.run"):
        for manifest in slices:
            outcome = run_rules(manifest.obj, Policy.default(), manifest=manifest)
            source = str(Path(manifest.source).relative_to(corpus))
            for finding in outcome.findings:
                assert finding.position is not None
                if finding.action is Action.DENY and source.startswith(FROM_CLUSTERS):
                    denied[f"{source} {finding.rule} {finding.path}"] += 1
    assert caplog.messages == []
    assert denied == Counter()


def test_list_types_disabled_rejects_the_corpus_list_slices(corpus: Path) -> None:
    """Every slice with a list attribute fails on a cluster without the gate, and only those."""
    policy = Policy.from_mapping({"listTypes": "disabled"})
    for manifest in load_paths([str(corpus)]).manifests:
        if manifest.obj.get("kind") != "ResourceSlice":
            continue
        devices = (manifest.obj.get("spec") or {}).get("devices") or []
        has_list = any(
            isinstance(a, dict) and any(a.get(m) is not None for m in ("ints", "bools", "strings", "versions"))
            for d in devices if isinstance(d, dict) for a in (d.get("attributes") or {}).values()
        ) if isinstance(devices, list) else False
        unions = [f for f in run_rules(manifest.obj, policy).findings
                  if f.rule == "k8s-attribute-union" and f.hint.startswith("the cluster runs without")]
        assert bool(unions) == has_list, manifest.source
