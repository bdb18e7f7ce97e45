"""The audit finds, object for object, what `draguard lint --slices` finds with every slice and class of the
cluster as the inventory: the compact inventory changes nothing. On the synthetic cluster always, and on the
acceptance corpus served in small pages with expired continue tokens (skipped when the corpus is absent)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.webhook.audit.apiserver import AuditAPIServer
from tests.webhook.audit.conftest import Run, synthetic
from tests.webhook.audit.test_reports import schema_errors
from webhook import cli
from webhook.lint import read_objects
from webhook.policy import Policy
from webhook.run import run_rules

KINDS = ("ResourceSlice", "DeviceClass", "ResourceClaim", "ResourceClaimTemplate")
Key = tuple[str, str, str, str, str]


def _label(obj: dict[str, Any]) -> str:
    meta = obj["metadata"]
    return "/".join(p for p in (obj["kind"], meta.get("namespace"), meta["name"]) if p)


def _served_order(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """As the API server lists them: kind by kind (slices first), then namespace and name."""
    return sorted(objects, key=lambda o: (KINDS.index(o["kind"]), o["metadata"].get("namespace", ""),
                                          o["metadata"]["name"]))


def expected(objects: list[dict[str, Any]]) -> set[Key]:
    """What lint finds with the whole cluster as inventory (a tuple of every slice and class, in list order)."""
    ordered = _served_order(objects)
    inventory = tuple(o for o in ordered if o["kind"] in ("ResourceSlice", "DeviceClass"))
    policy = Policy.default()
    found = set()
    for obj in ordered:
        for finding in run_rules(obj, policy, slices=inventory if obj["kind"] != "ResourceSlice" else ()).findings:
            action = finding.action.value if finding.action else ""
            found.add((_label(obj), finding.rule, action, str(finding.path), finding.message))
    return found


def audited(run: Run) -> set[Key]:
    report = json.loads(run.out)
    return {(f["file"], f["rule"], f["action"], f["path"], f["message"]) for f in report["findings"]}


def _audit(api: AuditAPIServer, capsys: pytest.CaptureFixture[str], *args: str) -> Run:
    code = cli.main(["audit", "--kubeconfig", str(api.kubeconfig), "--max-results", "100000", *args])
    captured = capsys.readouterr()
    return Run(code, captured.out, captured.err)


def test_synthetic_cluster_findings_equal_lints(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    objects = synthetic()
    with AuditAPIServer(tmp_path, copy.deepcopy(objects)) as api:
        run = _audit(api, capsys, "--format", "json", "--page-size", "1")
    assert run.code == 1
    assert audited(run) == expected(objects)
    assert len(audited(run)) == 7


def _corpus_objects(corpus: Path) -> list[dict[str, Any]]:
    """The corpus objects a v1 API server would serve: v1 and v1beta2 (the same wire shape), one per key,
    claims without a namespace in `default`."""
    loaded, _problems = read_objects([str(corpus)], frozenset(KINDS))
    objects: dict[tuple[str, str, str], dict[str, Any]] = {}
    for read in loaded:
        if read.get("apiVersion") not in ("resource.k8s.io/v1", "resource.k8s.io/v1beta2"):
            continue
        obj = json.loads(json.dumps(read))  # plain JSON types, as the server would send
        if not isinstance(obj.get("metadata"), dict) or not isinstance(obj["metadata"].get("name"), str):
            continue
        obj["apiVersion"] = "resource.k8s.io/v1"
        if obj["kind"] in ("ResourceClaim", "ResourceClaimTemplate"):
            obj["metadata"].setdefault("namespace", "default")
        else:
            obj["metadata"].pop("namespace", None)
        objects.setdefault((obj["kind"], obj["metadata"].get("namespace", ""), obj["metadata"]["name"]), obj)
    return list(objects.values())


def test_corpus_in_pages_with_expired_tokens_equals_lint(corpus: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    objects = _corpus_objects(corpus)
    counts = {kind: sum(1 for o in objects if o["kind"] == kind) for kind in KINDS}
    assert min(counts.values()) >= 5, counts  # the corpus holds real objects of every kind
    with AuditAPIServer(tmp_path, copy.deepcopy(objects)) as api:
        api.state.expire.update(resourceslices="token", resourceclaimtemplates="relist")
        run = _audit(api, capsys, "--format", "json=findings.json", "--page-size", "7",
                     "--report", "openreports")
        pages = [r for r in api.requests if r.path == "/apis/resource.k8s.io/v1/resourceslices"]
    assert run.code in (0, 1), run.err
    assert len(pages) == -(-counts["ResourceSlice"] // 7) + 1  # one page asked twice: its token had expired
    assert (f"listed {counts['ResourceSlice']} resourceslices, {counts['DeviceClass']} deviceclasses, "
            f"{counts['ResourceClaim']} resourceclaims, {counts['ResourceClaimTemplate']} resourceclaimtemplates; "
            f"{len(objects)} checked") in run.err
    relisted = "continue token expired 1 time(s): 0 resumed from a newer snapshot, 1 listed again"
    assert f"resourceclaimtemplates: {relisted}" in run.err
    found = json.loads((tmp_path / "findings.json").read_text(encoding="utf-8"))["findings"]
    assert {(f["file"], f["rule"], f["action"], f["path"], f["message"]) for f in found} == expected(objects)
    reports = [d for d in yaml.safe_load_all(run.out) if d]
    assert [e for r in reports for e in schema_errors(r)] == []
    assert sum(len(r["results"]) for r in reports) == len(found)
