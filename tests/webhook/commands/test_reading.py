"""Every command reads through webhook.manifests: JSON inventories, glob patterns and problems, seen from the CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO
from webhook import cli
from webhook.manifests import load_text

EXAMPLES = REPO / "examples" / "manifests"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in ("claim.yaml", "slices.yaml", "classes.yaml"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    items = [m.obj for m in load_text((EXAMPLES / "slices.yaml").read_text()).manifests]
    (tmp_path / "slices.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return tmp_path


def test_a_json_inventory_gives_lint_the_same_findings_as_yaml(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from_yaml = run(capsys, "lint", "claim.yaml", "--slices", "slices.yaml", "--classes", "classes.yaml")
    from_json = run(capsys, "lint", "claim.yaml", "--slices", "slices.json", "--classes", "classes.yaml")
    assert from_json == from_yaml
    assert from_yaml[0] == 1 and "list-fragile-compare" in from_yaml[1]


def test_eval_and_explain_read_json_slices(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expression = 'device.driver == "gpu.example.com"'
    assert run(capsys, "eval", expression, "--slices", "slices.json") == run(
        capsys, "eval", expression, "--slices", "slices.yaml")
    explained = run(capsys, "explain", "claim.yaml", "--slices", "slices.json", "--classes", "classes.yaml")
    assert explained == run(capsys, "explain", "claim.yaml", "--slices", "slices.yaml", "--classes", "classes.yaml")


def test_validate_takes_a_quoted_glob(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    by_pattern = run(capsys, "validate", "s*.yaml", "c*.yaml")
    assert by_pattern == run(capsys, "validate", "slices.yaml", "claim.yaml", "classes.yaml")


def test_a_pattern_matching_nothing_exits_2_after_checking_the_rest(work: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "validate", "*.yml", "slices.yaml")
    assert code == 2
    assert err == "draguard: *.yml: no file matches this pattern\n"
    assert "3 objects checked" in out
