"""`draguard audit` on the command line: formats, exit codes, flag limits, the kubectl plugin, the doc's commands."""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from webhook import cli

FRAGILE_LINE = (
    "ResourceClaim/team-a/fragile:1:1: warn list-fragile-compare: spec.devices.requests[0].exactly.selectors[0].cel."
    "expression: `==` on resource.kubernetes.io/numaNode: resource.kubernetes.io/numaNode is a list on 1 candidate "
    "device(s) (e.g. gpu.example.com/pool-0/gpu-0), where this is silently false")


def test_text_names_each_object_where_lint_names_a_file(audit: Any) -> None:
    run = audit()
    lines = run.out.splitlines()
    assert run.code == 1
    assert FRAGILE_LINE in lines
    assert lines[-1] == "7 objects checked; 1 deny, 4 warnings, 2 audit"
    assert [line.split(":", 1)[0] for line in lines if not line.startswith(" ")][:-1] == [
        "ResourceClaim/team-a/fragile"] * 3 + ["ResourceClaimTemplate/team-b/missing"] * 2 + [
        "ResourceSlice/node-a-gpu", "ResourceSlice/node-c-gpu"]


def test_json_and_sarif_to_files(audit: Any, tmp_path: Path) -> None:
    run = audit("--format", "json=a.json", "--format", "sarif=a.sarif")
    assert (run.code, run.out) == (1, "")
    document = json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))
    assert document["summary"] == {"objects": 7, "skipped": {}, "suppressed": 0, "problems": [], "deny": 1, "warn": 4,
                                   "audit": 2}
    sarif = json.loads((tmp_path / "a.sarif").read_text(encoding="utf-8"))
    assert len(sarif["runs"][0]["results"]) == 7


@pytest.mark.parametrize("flag", ["--config", "--kubeconfig"])
def test_a_report_file_over_an_input_is_a_usage_error(audit: Any, api: Any, tmp_path: Path, flag: str) -> None:
    read = tmp_path / "policy.yaml" if flag == "--config" else api.kubeconfig
    if flag == "--config":
        read.write_text("rules: {}\n", encoding="utf-8")
    before = read.read_bytes()
    run = audit(flag, str(read), "--format", f"json={read}")
    assert (run.code, run.out, run.err) == (2, "", f"draguard: error: --format json={read}: {read} is an input; the "
                                                   "report would overwrite it\n")
    assert read.read_bytes() == before


@pytest.mark.parametrize(("fail_on", "code"), [("deny", 1), ("warn", 1), ("audit", 1), ("none", 0)])
def test_fail_on(audit: Any, fail_on: str, code: int) -> None:
    assert audit("--fail-on", fail_on, "--format", "json=out.json").code == code


def test_fail_on_deny_passes_a_cluster_with_warnings_only(audit: Any, api: Any) -> None:
    from tests.webhook.audit.conftest import synthetic

    api.serve([o for o in synthetic() if o["metadata"]["name"] != "node-c-gpu"])
    assert audit("--fail-on", "deny", "--format", "json=out.json").code == 0
    assert audit("--fail-on", "warn", "--format", "json=out.json").code == 1


@pytest.mark.parametrize("flag", ["--page-size", "--max-results"])
@pytest.mark.parametrize(("value", "error"), [("0", "must be at least 1, got 0"), ("-1", "must be at least 1, got -1"),
                                              ("x", "not an integer: 'x'")])
def test_count_flags_below_one_are_usage_errors(flag: str, value: str, error: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(["audit", f"{flag}={value}"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == (f"draguard audit: error: argument {flag}: {error}\n"
                                       "Try 'draguard audit --help'.\n")


def test_the_kubectl_plugin_is_the_same_command() -> None:
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts["kubectl-draguard"] == scripts["draguard"] == "webhook.entry:main"


DOC = (REPO / "docs" / "audit.md").read_text(encoding="utf-8")


def _doc_commands() -> list[str]:
    blocks = re.findall(r"```sh\n(.*?)```", DOC, flags=re.S)
    commands = []
    for line in (line for block in blocks for line in block.splitlines()):
        command = re.split(r"\s+(?:#|>|\|)", line)[0].strip()
        if command.startswith(("draguard ", "kubectl draguard ")):
            commands.append(command.removeprefix("kubectl "))
    return commands


def test_the_doc_shows_audit_commands() -> None:
    assert len(_doc_commands()) >= 5


@pytest.mark.parametrize("command", _doc_commands())
def test_every_audit_command_in_the_doc_parses(command: str) -> None:
    cli.build_parser().parse_args(shlex.split(command)[1:])
