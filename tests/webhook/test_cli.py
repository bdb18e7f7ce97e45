"""CLI conventions, one row per behaviour, each run as a subprocess of the installed `draguard` entry point
(what a CI job or a shell runs), with exact exit codes and the lines a user sees."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.builders import slice_with
from tests.conftest import REPO
from webhook import cli

DRAGUARD = Path(sys.executable).parent / "draguard"
EXAMPLES = REPO / "examples" / "manifests"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
NESTED = "(" * 300 + 'device.driver == "x"' + ")" * 300  # past cel-go's parser limit of 250
NOTE = ("draguard: note: nothing was checked: no ResourceSlice, ResourceClaim, ResourceClaimTemplate or DeviceClass in "
        "the inputs (--strict makes this fail)\n")
WAIVED = "  # draguard: ignore[list-fragile-compare] the fleet publishes model as a scalar until 2027\n"


@dataclass(frozen=True)
class Row:
    argv: tuple[str, ...]
    code: int
    check: Callable[[str, str], bool]  # (stdout, stderr) -> what the row asserts
    env: dict[str, str] = field(default_factory=dict)
    stdin: str | None = None


def findings(out: str) -> list[str]:
    """`rule` of each finding line of the text format."""
    return [m.group(1) for m in re.finditer(r"^\S+:\d+:\d+: \w+ ([\w-]+): ", out, re.MULTILINE)]


def summary(out: str) -> str:
    return out.splitlines()[-1] if out else ""


ROWS: dict[str, Row] = {
    "--version prints the version": Row(("--version",), 0, lambda o, e: o == "draguard 0.1.0\n" and e == ""),
    "options between paths (validate)": Row(
        ("validate", "bad.json", "--format", "json", "claim.yaml"), 1,
        lambda o, e: {f["file"] for f in json.loads(o)["findings"]} == {"bad.json", "claim.yaml"}),
    "paths after a repeatable option (lint --slices s1 s2)": Row(
        ("lint", "claim.yaml", "--slices", "slices.yaml", "classes.yaml"), 1,
        lambda o, e: "classes.yaml:15:54: warn list-fragile-compare" in o and summary(o).startswith("4 objects")),
    "a usage error names the command's own help": Row(
        ("validate", "--fail-on", "never", "x.yaml"), 2,
        lambda o, e: e.endswith("\nTry 'draguard validate --help'.\n") and "invalid choice: 'never'" in e),
    "an unknown option names the command's own help": Row(
        ("eval", "true", "--bogus", "--slices", "s.yaml"), 2,
        lambda o, e: e.startswith("draguard eval: error: ") and e.endswith("Try 'draguard eval --help'.\n")),
    "--fail-on deny passes warnings": Row(("lint", "claim.yaml", "--fail-on", "deny"), 0,
                                          lambda o, e: "0 deny, 2 warnings, 1 audit" in summary(o)),
    "--fail-on warn (default) fails on warnings": Row(("validate", "claim.yaml"), 1,
                                                      lambda o, e: "2 warnings" in summary(o)),
    "--fail-on audit fails on audit": Row(("lint", "claim.yaml", "--fail-on", "audit", "--disable",
                                           "list-fragile-compare"), 1, lambda o, e: findings(o) == [
                                               "selector-numa-pinned"]),
    "--format FMT=FILE writes the file, nothing on stdout": Row(
        ("validate", "bad.json", "--format", "sarif=out.sarif"), 1, lambda o, e: o == "" and e == ""),
    "--format with a typo suggests": Row(
        ("lint", "claim.yaml", "--format", "jsn"), 2,
        lambda o, e: e == "draguard: error: --format jsn: unknown format 'jsn' (did you mean 'json'?); use one of "
                          "github, json, junit, sarif, text\n"),
    "--disable RULE": Row(("lint", "claim.yaml", "--disable", "list-fragile-compare"), 0,
                          lambda o, e: findings(o) == ["selector-numa-pinned"]),
    "--disable with a typo suggests": Row(
        ("validate", "claim.yaml", "--disable", "list-fragile-comprae"), 2,
        lambda o, e: e == "draguard: error: --disable list-fragile-comprae: unknown rule (did you mean "
                          "'list-fragile-compare'?); `draguard rules` lists them\n"),
    "--enable RULE turns on a rule that is off": Row(
        ("validate", "slices.yaml", "--enable", "numa-node-list-form", "--fail-on", "deny"), 0,
        lambda o, e: "numa-node-list-form" in findings(o)),
    "non-Kubernetes input passes with a note": Row(("validate", "notk8s.yaml"), 0,
                                                   lambda o, e: e == NOTE),
    "--strict fails non-Kubernetes input": Row(
        ("validate", "notk8s.yaml", "--strict"), 1,
        lambda o, e: e == "draguard: strict: nothing was checked: no ResourceSlice, ResourceClaim, "
                          "ResourceClaimTemplate or DeviceClass in the inputs\n"
                          "draguard: strict: notk8s.yaml: nothing checked (<no kind> 1)\n"),
    "--strict fails a file with nothing to check among good ones": Row(
        ("lint", "claim.yaml", "notk8s.yaml", "--strict", "--fail-on", "deny"), 1,
        lambda o, e: e == "draguard: strict: notk8s.yaml: nothing checked (<no kind> 1)\n"),
    "--quiet prints findings only": Row(("validate", "claim.yaml", "-q"), 1,
                                        lambda o, e: "objects checked" not in o and len(findings(o)) == 3),
    "--summary counts per rule": Row(
        ("lint", "claim.yaml", "--summary"), 1,
        lambda o, e: o.splitlines()[-3:-1] == ["     2  warn   list-fragile-compare",
                                               "     1  audit  selector-numa-pinned"]),
    "--color always colours": Row(("lint", "claim.yaml", "--color", "always"), 1,
                                  lambda o, e: "\x1b[33mwarn\x1b[0m list-fragile-compare" in o),
    "--no-color, and no colour off a terminal": Row(("lint", "claim.yaml", "--no-color"), 1,
                                                    lambda o, e: not ANSI.search(o)),
    "-v logs draguard's steps, not cel-python's or lark's": Row(
        ("-v", "validate", "claim.yaml"), 1,
        lambda o, e: "draguard: DEBUG: read 1 file(s) in " in e and "draguard: DEBUG: linted 1 file(s) in " in e
        and all(line.startswith("draguard: DEBUG: ") for line in e.splitlines())),
    "-v after the command": Row(("validate", "claim.yaml", "-v"), 1, lambda o, e: "configuration lookups" not in e
                                and "draguard: DEBUG: configuration: 1 lookup(s), 0 cache hit(s)" in e),
    "eval: an expression too deep is one line": Row(
        ("eval", NESTED, "--slices", "slices.yaml"), 2,
        lambda o, e: o == "" and e == "draguard: error: cannot compile EXPR: expression recursion limit exceeded: "
                                      "250\n"),
    "eval --format json=FILE": Row(("eval", 'device.driver == "dra.net"', "--slices", "slices.yaml", "--format",
                                    "json=eval.json"), 0, lambda o, e: o == "" and e == ""),
    ".draguard.yaml is found from the linted path up": Row(
        ("lint", "team/claim.yaml"), 0, lambda o, e: findings(o) == ["selector-numa-pinned"]),
    "--config applies one file to every input": Row(
        ("lint", "team/claim.yaml", "claim.yaml", "--config", "team/.draguard.yaml"), 0,
        lambda o, e: findings(o) == ["selector-numa-pinned", "selector-numa-pinned"]),
    "validate takes no inventory from its inputs": Row(
        ("validate", "claim.yaml", "slices.yaml", "classes.yaml"), 1,
        lambda o, e: "in the inventory" not in o and "selector-attribute-missing" not in o),
    "validate --slices/--classes is the inventory": Row(
        ("validate", "cpu-read.yaml", "--slices", "slices.yaml", "--classes", "classes.yaml"), 1,
        lambda o, e: "is a scalar int on 2 candidate device(s) (e.g. dra.cpu/node-a/cpus-numa-1)" in o),
    "validate --slices without --classes judges every device": Row(
        ("validate", "claim.yaml", "--slices", "slices.yaml"), 1,
        lambda o, e: "is a list on 2 device(s) in the inventory" in o),
    "validate --classes: a request's findings cite only the devices its class selects": Row(
        ("validate", "claim.yaml", "--slices", "slices.yaml", "--classes", "classes.yaml"), 1,
        lambda o, e: "list-fragile-compare" in o and "in the inventory" not in o and "candidate" not in o),
    "a waiver comment with a reason waives": Row(
        ("lint", "waived.yaml", "--fail-on", "deny"), 0,
        lambda o, e: findings(o) == ["selector-numa-pinned", "list-fragile-compare"] and "1 suppressed" in o),
    "a waiver comment without a reason is a finding": Row(
        ("lint", "unreasoned.yaml", "--fail-on", "deny"), 0,
        lambda o, e: "unreasoned.yaml:16:81: warn suppression-reason-missing: <root>: `# draguard: ignore[...]` "
                     "gives no rule or no reason, so it waives nothing" in o),
    "stdin": Row(("validate", "-"), 1, lambda o, e: o.startswith("<stdin>:1:"),
                 stdin=json.dumps(slice_with(numa=-1))),
    "completion bash": Row(("completion", "bash"), 0,
                           lambda o, e: o.endswith("complete -o default -F _draguard draguard\n")),
}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = tmp_path_factory.mktemp("cli")
    for name in ("claim.yaml", "slices.yaml", "classes.yaml"):
        shutil.copy(EXAMPLES / name, ws / name)
    (ws / "bad.json").write_text(json.dumps(slice_with(numa=-1)), encoding="utf-8")
    (ws / "notk8s.yaml").write_text("a: 1\n", encoding="utf-8")
    (ws / "team").mkdir()
    shutil.copy(EXAMPLES / "claim.yaml", ws / "team" / "claim.yaml")
    (ws / "team" / ".draguard.yaml").write_text("rules: {list-fragile-compare: off}\n", encoding="utf-8")
    claim = (EXAMPLES / "claim.yaml").read_text(encoding="utf-8")
    model = '.model == "A100"\n'
    assert model in claim
    (ws / "cpu-read.yaml").write_text(claim.replace("numaNode == 1", "numaNode[0] == 1"), encoding="utf-8")
    (ws / "waived.yaml").write_text(claim.replace(model, model[:-1] + WAIVED), encoding="utf-8")
    unreasoned = claim.replace(model, model[:-1] + "  # draguard: ignore[list-fragile-compare]\n")
    (ws / "unreasoned.yaml").write_text(unreasoned, encoding="utf-8")
    return ws


@pytest.mark.parametrize("name", ROWS)
def test_convention(name: str, workspace: Path) -> None:
    row = ROWS[name]
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")} | row.env
    done = subprocess.run([str(DRAGUARD), *row.argv], cwd=workspace, capture_output=True, text=True, env=env,
                          input=row.stdin, timeout=120, check=False)
    assert "Traceback" not in done.stderr
    assert (done.returncode, row.check(done.stdout, done.stderr)) == (row.code, True), (done.stdout, done.stderr)


def test_no_color_on_a_terminal(workspace: Path) -> None:
    """`--color auto` colours a terminal, unless NO_COLOR is set."""
    import pty

    def on_a_terminal(env: dict[str, str]) -> str:
        leader, follower = pty.openpty()
        try:
            subprocess.run([str(DRAGUARD), "lint", "claim.yaml"], cwd=workspace, stdout=follower,
                           stderr=subprocess.DEVNULL, env=env, timeout=120, check=False)
            os.close(follower)
            chunks = []
            while True:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:  # the terminal is drained
                    break
                if not chunk:
                    break
                chunks.append(chunk)
            return b"".join(chunks).decode()
        finally:
            os.close(leader)

    plain = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM")} | {"TERM": "xterm"}
    assert "\x1b[33mwarn\x1b[0m" in on_a_terminal(plain)
    assert not ANSI.search(on_a_terminal(plain | {"NO_COLOR": "1"}))
    assert not ANSI.search(on_a_terminal(plain | {"TERM": "dumb"}))


def test_baseline_adopts_a_repository_then_fails_only_new_findings(workspace: Path, tmp_path: Path) -> None:
    def draguard(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(DRAGUARD), *argv], cwd=workspace, capture_output=True, text=True, timeout=120,
                              check=False)

    baseline = tmp_path / "baseline.json"
    done = draguard("lint", "claim.yaml", "--baseline", str(baseline), "--write-baseline")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", f"draguard: wrote 3 finding(s) to {baseline}\n")
    entries = json.loads(baseline.read_text(encoding="utf-8"))["findings"]
    assert [e["rule"] for e in entries] == ["list-fragile-compare", "list-fragile-compare", "selector-numa-pinned"]
    done = draguard("lint", "claim.yaml", "--baseline", str(baseline))
    assert (done.returncode, done.stdout) == (0, "1 object checked; 0 deny, 0 warnings, 0 audit; 3 in the baseline\n")
    done = draguard("lint", "claim.yaml", "classes.yaml", "--baseline", str(baseline))
    assert (done.returncode, findings(done.stdout)) == (1, ["list-fragile-compare"])
    assert done.stdout.startswith("classes.yaml:15:54: ")
    absent = tmp_path / "absent.json"
    done = draguard("lint", "claim.yaml", "--baseline", str(absent))
    assert (done.returncode, done.stdout, done.stderr) == (
        2, "", f"draguard: error: --baseline {absent}: no such file (create it with --write-baseline)\n")
    done = draguard("lint", "claim.yaml", "--write-baseline")
    assert (done.returncode, done.stderr) == (2, "draguard: error: --write-baseline needs --baseline FILE\n")


def test_a_command_that_needs_the_server_extra_says_so(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from webhook.commands import review

    def missing(args: object) -> int:
        raise ModuleNotFoundError("No module named 'msgspec'", name="msgspec")

    monkeypatch.setattr(review, "run", missing)
    assert cli.main(["review", "x.json"]) == 2
    assert capsys.readouterr().err == (
        "draguard: error: `draguard review` needs the server extra (msgspec is not installed): "
        "pip install 'draguard[server]'\n")


def test_another_missing_module_is_not_blamed_on_the_extra(monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    from webhook.commands import review

    def missing(args: object) -> int:
        raise ModuleNotFoundError("No module named 'nope'", name="nope")

    monkeypatch.setattr(review, "run", missing)
    assert cli.main(["review", "x.json"]) == 2
    assert capsys.readouterr().err == (
        "draguard: error: review: internal error: ModuleNotFoundError: No module named 'nope' "
        "(a draguard bug; -v shows the traceback)\n")


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: draguard")
    for name in cli._command_modules():
        assert f"    {name} " in out


def test_unknown_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(["no-such-command"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("draguard: error: argument COMMAND: invalid choice: 'no-such-command'")
    assert err[1] == "Try 'draguard --help'."


def test_missing_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main([])
    assert exit_.value.code == 2
    assert "the following arguments are required: COMMAND" in capsys.readouterr().err


def test_version_runs_as_a_module() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "webhook", "version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0
    assert done.stdout.strip() == "0.1.0"
    assert done.stderr == ""
