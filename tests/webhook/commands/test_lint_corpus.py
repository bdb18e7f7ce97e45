"""`draguard lint` over ../shared/corpus: no crash, every list-fragile expression and broken example reported.

The corpus index (`cel-expressions.yaml`) marks each expression found in manifests, fragments and KEP
prose with `ifScalarBecameList`; "YES..." and "...breaks via..." are list-fragile. Each must draw a
finding from the selector rules when linted as a DeviceClass selector: list-fragile-compare, or a rule
that finds a worse problem in the same expression (a read that can never work, or CEL that does not
compile in the DRA environment).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from tests.builders import device_class_with_selector
from webhook import cli
from webhook.policy import Policy
from webhook.run import run_rules

WORSE = {"selector-attribute-reference", "selector-compile"}


def _fragile(entry: dict[str, object]) -> bool:
    verdict = str(entry.get("ifScalarBecameList", ""))
    return verdict.startswith("YES") or "breaks via" in verdict


def test_every_list_fragile_expression_is_reported(corpus: Path) -> None:
    index = YAML(typ="safe", pure=True).load((corpus / "cel-expressions.yaml").read_text(encoding="utf-8"))
    fragile = [e for e in index["expressions"] if _fragile(e)]
    assert len(fragile) > 100
    missed, by_rule = [], {"list-fragile-compare": 0, "other": 0}
    for entry in fragile:
        rules = {f.rule for f in run_rules(device_class_with_selector(entry["expression"]), Policy.default()).findings}
        if "list-fragile-compare" in rules:
            by_rule["list-fragile-compare"] += 1
        elif rules & WORSE:
            by_rule["other"] += 1
        else:
            missed.append((entry["id"], entry["expression"]))
    assert missed == []
    assert by_rule["list-fragile-compare"] >= len(fragile) - 5


BROKEN_EXAMPLES = {
    # file (relative to the corpus) -> the rule that must report it
    "website/examples-dra-resourceclaim.yaml": "selector-required",
    "topology-co-placement/docs-dra-topology-aware-vm-setup.yaml": "selector-attribute-reference",
    "keps/5963-device-compatibility-groups.yaml": "selector-attribute-reference",
    "keps/6080-dra-derived-attributes.yaml": "constraint-attribute-unqualified",
    "nvidia-gpu/test-e2e-specs__driver-version.yaml": "selector-literal-invalid",
    "nvidia-gpu/test-e2e-specs__memory-size.yaml": "selector-literal-invalid",
}


def test_whole_corpus_lints_without_crashing_and_reports_broken_examples(
        corpus: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.chdir(corpus)
    code = cli.main(["lint", ".", "--format", "json"])
    out, _err = capsys.readouterr()
    report = json.loads(out)
    assert code == 1
    assert report["summary"]["problems"] == []
    assert report["summary"]["objects"] > 250
    assert not [r for r in caplog.records if "raised" in r.getMessage()], "a rule raised"
    found = {(f["file"], f["rule"]) for f in report["findings"]}
    for file, rule in BROKEN_EXAMPLES.items():
        assert (file, rule) in found, (file, rule)
    assert all(f["line"] and f["column"] for f in report["findings"])
