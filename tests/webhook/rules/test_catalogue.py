"""The catalogue as a whole: ids, docs, the README table, and a test for every rule."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import REPO
from webhook import cli
from webhook.findings import Action
from webhook.rules import CATALOGUE, _catalogue
from webhook.rules.base import Rule
from webhook.rules.docs import catalogue_markdown, readme_section


def test_ids_are_stable_kebab_case_with_docs() -> None:
    for rule_id, rule in CATALOGUE.items():
        assert rule.id == rule_id
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule_id), rule_id
        assert rule.summary and rule.remediation and rule.kinds, rule_id


def test_parity_rules_are_prefixed_and_deny_by_default() -> None:
    for rule in CATALOGUE.values():
        if rule.id.startswith("k8s-"):
            assert rule.origin == "kubernetes"
            assert rule.default in (Action.DENY, Action.WARN)


def test_duplicate_id_fails_at_import_time() -> None:
    rule = CATALOGUE["numa-node-range"]
    with pytest.raises(ImportError, match="duplicate rule id 'numa-node-range'"):
        _catalogue([rule, rule])


def test_rule_ids_must_be_kebab_case() -> None:
    with pytest.raises(ValueError, match="not kebab-case"):
        Rule("Numa_Range", frozenset({"ResourceSlice"}), Action.DENY, "s", "r", lambda obj, ctx: ())


def test_readme_catalogue_is_current() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert readme_section(readme) == catalogue_markdown(CATALOGUE.values()), (
        "README rule catalogue is stale: run `.venv/bin/draguard rules --readme README.md`")


def test_every_rule_has_a_test() -> None:
    tests = "\n".join(p.read_text(encoding="utf-8") for p in (REPO / "tests").rglob("test_*.py"))
    mentioned = set(re.findall(r"[\"']([a-z0-9]+(?:-[a-z0-9]+)+)[\"']", tests))
    untested = sorted(set(CATALOGUE) - mentioned)
    assert untested == [], f"rules without a test naming them: {untested}"


def test_rules_command_lists_every_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["rules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == sorted(
        CATALOGUE, key=lambda i: (CATALOGUE[i].origin != "kubernetes", i))
    numa = next(line for line in lines if line.startswith("numa-node-range "))
    assert numa.split()[1:3] == ["deny", "draguard"]


def test_rules_command_rewrites_a_readme(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# x\n<!-- rules:begin -->\nold\n<!-- rules:end -->\ntail\n", encoding="utf-8")
    assert cli.main(["rules", "--readme", str(readme)]) == 0
    text = readme.read_text(encoding="utf-8")
    assert readme_section(text) == catalogue_markdown(CATALOGUE.values())
    assert text.endswith("<!-- rules:end -->\ntail\n")


def test_rules_command_without_markers_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# x\n", encoding="utf-8")
    assert cli.main(["rules", "--readme", str(readme)]) == 2
    assert capsys.readouterr().err == (
        f"draguard: error: {readme}: no <!-- rules:begin --> ... <!-- rules:end --> markers\n")
