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
    # a v1 claim in the v1beta1 layout (deviceClassName on the request): the server's `exactly one of exactly or
    # firstAvailable is required`
    "keps/5963-device-compatibility-groups.yaml": "selector-required",
    "keps/6080-dra-derived-attributes.yaml": "constraint-attribute-unqualified",
    "nvidia-gpu/test-e2e-specs__driver-version.yaml": "selector-literal-invalid",
    "nvidia-gpu/test-e2e-specs__memory-size.yaml": "selector-literal-invalid",
}


def test_whole_corpus_lints_without_crashing_and_reports_broken_examples(
        corpus: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.chdir(corpus)
    code = cli.main(["lint", ".", "--format", "json"])
    out, err = capsys.readouterr()
    # validate runs the same pipeline: the same findings, summary, stderr and exit code (and no inventory
    # taken from its inputs: no selector-attribute-missing, which needs one)
    assert (cli.main(["validate", ".", "--format", "json"]), *capsys.readouterr()) == (code, out, err)
    report = json.loads(out)
    assert not [f for f in report["findings"] if f["rule"] == "selector-attribute-missing"]
    assert code == 1
    assert report["summary"]["problems"] == []
    assert report["summary"]["objects"] > 250
    assert not [r for r in caplog.records if "raised" in r.getMessage()], "a rule raised"
    found = {(f["file"], f["rule"]) for f in report["findings"]}
    for file, rule in BROKEN_EXAMPLES.items():
        assert (file, rule) in found, (file, rule)
    assert all(f["line"] and f["column"] for f in report["findings"])


def _without_expressions(value: object) -> object:
    if isinstance(value, dict):
        return {k: ("<cel>" if k == "expression" else _without_expressions(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_expressions(v) for v in value]
    return value


def test_fix_over_the_corpus_changes_only_expressions_which_then_compile(
        corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    import celext
    from webhook.manifests import load_text

    copy = tmp_path / "corpus"
    shutil.copytree(corpus, copy)
    monkeypatch.chdir(copy)
    cli.main(["lint", ".", "--fix", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert [f for f in report["findings"] if "safe fix" in f["hint"]] == []
    changed = 0
    for before in sorted(corpus.rglob("*.yaml")):
        after = copy / before.relative_to(corpus)
        old, new = before.read_text(encoding="utf-8"), after.read_text(encoding="utf-8")
        if old == new:
            continue
        changed += 1
        old_objects = [m.obj for m in load_text(old).manifests]
        new_objects = [m.obj for m in load_text(new).manifests]
        assert [_without_expressions(o) for o in old_objects] == [_without_expressions(o) for o in new_objects]
        # comments and the document layout survive (a rewrite inside a block scalar may join its lines)
        assert [c for c in old.splitlines() if c.lstrip().startswith("#")] == [
            c for c in new.splitlines() if c.lstrip().startswith("#")]
        assert old.count("\n---") == new.count("\n---")
        for obj in new_objects:
            for text in _expressions(obj):
                if text.strip():
                    try:
                        celext.compile(text)
                    except celext.CompileError as err:  # the original did not compile either
                        assert not _compiles_before(old_objects, err), text
    assert changed > 50


def _expressions(value: object) -> list[str]:
    if isinstance(value, dict):
        found = [v for k, v in value.items() if k == "expression" and isinstance(v, str)]
        return found + [e for v in value.values() for e in _expressions(v)]
    if isinstance(value, list):
        return [e for v in value for e in _expressions(v)]
    return []


def _compiles_before(objects: list[object], err: Exception) -> bool:
    del err
    import celext

    broken = 0
    for obj in objects:
        for text in _expressions(obj):
            try:
                celext.compile(text)
            except celext.CompileError:
                broken += 1
    return broken == 0

