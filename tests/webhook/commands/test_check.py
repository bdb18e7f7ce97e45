"""The pieces behind lint's and validate's shared run: waivers, baseline, rule errors and --strict, progress,
config discovery, suggestions, completion and packaging; in-process, exact values."""

from __future__ import annotations

import io
import subprocess
import tomllib
from collections import Counter
from pathlib import Path

import pytest

from tests.builders import claim_with_selector
from tests.conftest import REPO
from webhook import cli
from webhook.fieldpath import FieldPath
from webhook.findings import Action, Finding, Position
from webhook.waivers import apply_baseline, comment_waivers, did_you_mean, key

KNOWN = ("list-fragile-compare", "selector-numa-pinned", "rule-error")
CLAIM_YAML = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        selectors:
        - cel:
            expression: |  # draguard: ignore[list-fragile-compare] block scalars are waived on their key's line
              device.attributes["gpu.example.com"].rdma &&
                device.attributes["gpu.example.com"].model == "A100"
"""


# -- waiver comments ---------------------------------------------------------------------------------------

def test_a_trailing_comment_waives_its_line_and_a_lone_one_the_next_yaml_line() -> None:
    text = ("a: 1  # draguard: ignore[list-fragile-compare] why\n"
            "# draguard: ignore[selector-numa-pinned, rule-error] because\n"
            "\n"
            "# an ordinary comment\n"
            "b: 2\n"
            "c: 3\n")
    waivers, problems = comment_waivers(text, "f.yaml", KNOWN)
    assert problems == []
    assert {line: (sorted(w.rules), w.comment_line) for line, w in waivers.items()} == {
        1: (["list-fragile-compare"], 1), 5: (["rule-error", "selector-numa-pinned"], 2)}


def test_a_waiver_without_reason_or_with_an_unknown_rule_waives_nothing_and_says_so() -> None:
    text = "a: 1  # draguard: ignore[list-fragile-compare]\nb: 2  # draguard: ignore[list-fragile-comprae] typo\n" \
           "c: 3  # draguard: ignore[] reason\n"
    waivers, problems = comment_waivers(text, "f.yaml", KNOWN)
    assert waivers == {}
    assert [(p.rule, str(p.position), p.message) for p in problems] == [
        ("suppression-reason-missing", "f.yaml:1:7",
         "`# draguard: ignore[...]` gives no rule or no reason, so it waives nothing"),
        ("suppression-reason-missing", "f.yaml:2:7", "`# draguard: ignore[...]` names unknown rule "
         "'list-fragile-comprae' (did you mean 'list-fragile-compare'?), so it waives nothing"),
        ("suppression-reason-missing", "f.yaml:3:7",
         "`# draguard: ignore[...]` gives no rule or no reason, so it waives nothing"),
    ]


def test_no_marker_no_work() -> None:
    assert comment_waivers("a: 1  # ignore[list-fragile-compare] x\n", "f", KNOWN) == ({}, [])


def test_a_waiver_on_the_key_of_a_block_scalar_covers_findings_inside_it() -> None:
    from webhook.lint import lint_text
    from webhook.policy import Policy

    waived = lint_text(CLAIM_YAML, "c.yaml", Policy.default())
    assert ([f.rule for f in waived.findings], waived.suppressed) == ([], 2)
    plain = lint_text(CLAIM_YAML.replace("# draguard: ignore[list-fragile-compare] block", "# block"), "c.yaml",
                      Policy.default())
    assert [(f.rule, f.position.line if f.position else 0) for f in plain.findings] == [
        ("list-fragile-compare", 13), ("list-fragile-compare", 14)]


# -- baseline ----------------------------------------------------------------------------------------------

def _finding(file: str, line: int, message: str = "m") -> Finding:
    return Finding(FieldPath.root("spec"), message, rule="r", action=Action.WARN, position=Position(file, line, 1))


def test_baseline_matches_by_file_rule_path_and_message_not_line_and_counts_duplicates() -> None:
    baseline = Counter([key(_finding("a.yaml", 3)), key(_finding("a.yaml", 9)), key(_finding("b.yaml", 1, "gone"))])
    now = [_finding("a.yaml", 30), _finding("a.yaml", 31), _finding("a.yaml", 32), _finding("c.yaml", 1)]
    kept, matched, stale = apply_baseline(now, baseline, "baseline.json")
    assert ([(f.position.file, f.position.line) for f in kept if f.position], matched, stale) == (
        [("a.yaml", 32), ("c.yaml", 1)], 2, 1)


def test_a_baseline_matches_however_its_files_are_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    import json

    (tmp_path / "deploy").mkdir()
    _claim_file(tmp_path / "deploy")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["lint", "deploy", "--baseline", "ci/b.json", "--write-baseline"]) == 2  # no such directory
    (tmp_path / "ci").mkdir()
    assert cli.main(["lint", "deploy", "--baseline", "ci/b.json", "--write-baseline"]) == 0
    written = json.loads((tmp_path / "ci" / "b.json").read_text(encoding="utf-8"))["findings"]
    assert {entry["file"] for entry in written} == {"../deploy/c.yaml"}  # relative to the baseline
    capsys.readouterr()
    assert cli.main(["lint", str(tmp_path / "deploy"), "--baseline", "ci/b.json"]) == 0  # named absolutely
    monkeypatch.chdir(tmp_path / "deploy")
    assert cli.main(["lint", "c.yaml", "--baseline", "../ci/b.json"]) == 0  # from another directory
    # an entry of an older baseline, relative to where it was written, still matches the file named that way
    (tmp_path / "old.json").write_text(json.dumps({"version": 1, "findings": [dict(written[0], file="c.yaml")]}),
                                       encoding="utf-8")
    assert cli.main(["lint", "c.yaml", "--baseline", "../old.json"]) == 0
    assert cli.main(["lint", "c.yaml", "--baseline", "../ci/b.json", "--fail-on", "audit"]) == 0
    (tmp_path / "deploy" / "c.yaml").rename(tmp_path / "deploy" / "other.yaml")
    assert cli.main(["lint", "other.yaml", "--baseline", "../ci/b.json"]) == 1  # another file: not baselined


def test_a_malformed_baseline_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "b.json"
    bad.write_text('{"version": 2, "findings": []}', encoding="utf-8")
    assert cli.main(["lint", "x.yaml", "--baseline", str(bad)]) == 2
    assert capsys.readouterr().err == (f"draguard: error: --baseline {bad}: not a draguard baseline (version 1, "
                                       "findings: [{file, rule, path, message}])\n")


# -- rule errors and --strict --------------------------------------------------------------------------------

@pytest.fixture
def raising_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner's `rule-error` finding (a rule that raised), as webhook.run reports it."""
    import webhook.lint
    from webhook.run import Outcome

    def run_rules(obj: object, policy: object, **_: object) -> Outcome:
        return Outcome([Finding(FieldPath.root("spec"), "selector-cost raised RecursionError: maximum recursion "
                                "depth exceeded", rule="rule-error", action=Action.WARN)])

    monkeypatch.setattr(webhook.lint, "run_rules", run_rules)


@pytest.mark.usefixtures("raising_rule")
def test_a_rule_error_is_printed_and_strict_fails_it_whatever_its_action(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import yaml

    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(claim_with_selector("true")), encoding="utf-8")
    assert cli.main(["validate", str(path), "--fail-on", "deny"]) == 0
    out, err = capsys.readouterr()
    assert (out.startswith(f"{path}:"), err) == (True, "")
    assert ": warn rule-error: spec: selector-cost raised RecursionError: maximum recursion depth exceeded\n" in out
    assert cli.main(["validate", str(path), "--fail-on", "deny", "--strict"]) == 1
    assert capsys.readouterr().err == "draguard: strict: 1 rule error: a rule could not run\n"


# -- progress ------------------------------------------------------------------------------------------------

class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_progress_appears_after_two_seconds_redraws_at_most_ten_times_a_second_and_is_erased() -> None:
    from webhook.progress import Progress

    clock, stream = _Clock(), io.StringIO()
    progress = Progress(10, stream=stream, enabled=True, clock=clock)
    clock.now = 101.99
    progress.advance()
    assert stream.getvalue() == ""
    clock.now = 102.0
    progress.advance()
    clock.now = 102.05
    progress.advance()
    clock.now = 102.15
    progress.advance()
    progress.close()
    assert stream.getvalue() == ("\rdraguard: 2/10 files checked (2 s)\rdraguard: 4/10 files checked (2 s)"
                                 "\r\x1b[K")


def test_progress_counts_from_the_start_of_the_run() -> None:
    from webhook.progress import Progress

    clock, stream = _Clock(), io.StringIO()
    Progress(5, stream=stream, enabled=True, clock=clock, started=98.01).advance()
    assert stream.getvalue() == ""
    Progress(5, stream=stream, enabled=True, clock=clock, started=98.0).advance()
    assert stream.getvalue() == "\rdraguard: 1/5 files checked (2 s)"


def test_progress_stays_silent_off_a_terminal() -> None:
    from webhook.progress import Progress

    clock, stream = _Clock(), io.StringIO()
    progress = Progress(3, stream=stream, clock=clock)
    clock.now = 200.0
    progress.advance(3)
    progress.close()
    assert (progress.enabled, stream.getvalue()) == (False, "")


def test_worker_processes_report_every_file_done() -> None:
    from webhook.lint import lint_sources
    from webhook.policy import Policy

    done: list[int] = []
    sources = [(f"f{i}.yaml", "kind: ConfigMap\n") for i in range(5)]
    files, problems = lint_sources(sources, Policy.default(), jobs=2, done=done.append)
    assert ([f.source for f in files], problems, sum(done)) == ([s for s, _t in sources], [], 5)


# -- config discovery ------------------------------------------------------------------------------------------

def test_each_file_gets_the_nearest_config_above_it_and_directories_are_cached(tmp_path: Path) -> None:
    from webhook.config import Discovery

    (tmp_path / "a" / "deep").mkdir(parents=True)
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / ".draguard.yaml").write_text("rules: {numa-node-order: off}\n", encoding="utf-8")
    discovery = Discovery(cwd=tmp_path)
    deep = discovery.for_file("a/deep/x.yaml")
    assert deep.path == tmp_path / "a" / ".draguard.yaml"
    assert discovery.for_file("a/y.yaml") is deep
    assert discovery.for_file("a/deep/z.yaml") is deep
    assert discovery.for_file("b/x.yaml").path != deep.path
    assert (discovery.lookups, discovery.hits) == (4, 1)
    explicit = Discovery("../a/.draguard.yaml", cwd=tmp_path / "b")
    chosen = explicit.for_file("/elsewhere/x.yaml")
    assert chosen.path is not None and chosen.path.resolve() == tmp_path / "a" / ".draguard.yaml"
    assert explicit.for_file("-") is chosen


# -- did you mean --------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("word", "choices", "expected"), [
    ("includs", ["includes", "include", "index"], " (did you mean 'includes'?)"),
    ("zzz", ["includes"], ""),
])
def test_did_you_mean(word: str, choices: list[str], expected: str) -> None:
    assert did_you_mean(word, choices) == expected


def test_attribute_typos_get_a_suggestion_only_when_absent_on_every_device() -> None:
    from tests.builders import slice_with
    from webhook.suggest import with_suggestion

    inventory = [slice_with(numa=1)]
    every = Finding(FieldPath(), "resource.kubernetes.io/numaNod is absent on 1 of 1 candidate device(s) (e.g. x)",
                    rule="selector-attribute-missing")
    some = Finding(FieldPath(), "resource.kubernetes.io/numaNod is absent on 1 of 2 candidate device(s) (e.g. x)",
                   rule="selector-attribute-missing")
    assert with_suggestion(every, inventory).message.endswith(" (did you mean 'numaNode'?)")
    assert with_suggestion(some, inventory) is some


# -- completion -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("words", "expected"), [
    (["draguard", "val"], "validate"),
    (["draguard", "lint", "x.yaml", "--fail-on", ""], "deny warn audit"),
    (["draguard", "validate", "--col"], "--color"),
    (["draguard", "certs", "generate", "--key-type", ""], "ecdsa rsa"),
    (["draguard", "completion", ""], "bash zsh fish -h --help -v --verbose"),
])
def test_bash_completion(words: list[str], expected: str, tmp_path: Path) -> None:
    script = tmp_path / "c.bash"
    from webhook.commands.completion import bash, tree

    script.write_text(bash(tree(cli.build_parser())), encoding="utf-8")
    quoted = " ".join(f"'{w}'" for w in words)
    done = subprocess.run(["bash", "-c", f'source {script}; COMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}; '
                           '_draguard; echo "${COMPREPLY[*]}"'], capture_output=True, text=True, check=False,
                          timeout=60)
    assert (done.stdout, done.stderr) == (expected + "\n", "")


def test_fish_completion_lists_choices() -> None:
    from webhook.commands.completion import fish, tree

    script = fish(tree(cli.build_parser()))
    assert ("complete -c draguard -n '__fish_seen_subcommand_from lint' -l fail-on -xa 'deny warn audit' "
            "-d 'lowest action that makes the exit code 1 (default: warn)'") in script.splitlines()


# -- packaging ---------------------------------------------------------------------------------------------------

def test_the_lean_install_pulls_in_no_server_stack() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = {dep.split(">")[0].split("=")[0].split("[")[0].strip().lower() for dep in project["dependencies"]}
    assert names == {"cel-python", "ruamel.yaml", "pyyaml", "msgspec"}  # msgspec: draguard's records (Structs)
    server = {dep.split(">")[0].strip().lower() for dep in project["optional-dependencies"]["server"]}
    assert server == {"flask", "gunicorn", "gevent", "cryptography", "kubernetes", "prometheus-client",
                      "pyjwt[crypto]"}


def test_the_image_installs_the_server_extra() -> None:
    """The container runs `draguard serve`: its build must add what the lean wheel leaves out."""
    dockerfile = (REPO / "Dockerfile").read_text(encoding="utf-8")
    assert '/opt/draguard/bin/pip install "draguard[server]"' in dockerfile
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert "pip install --quiet -e '.[server,dev]'" in makefile  # `make run` serves with it


# -- report options ------------------------------------------------------------------------------------------------

def _claim_file(tmp_path: Path) -> Path:
    import yaml

    path = tmp_path / "c.yaml"
    selector = 'device.attributes["gpu.example.com"].model == "A100"'
    path.write_text(yaml.safe_dump(claim_with_selector(selector)), encoding="utf-8")
    return path


def test_json_summary_counts_per_rule_and_baselined(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    path, baseline = _claim_file(tmp_path), tmp_path / "b.json"
    assert cli.main(["lint", str(path), "--format", "json", "--summary"]) == 1
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert (summary["rules"], "baselined" in summary) == (
        [{"rule": "list-fragile-compare", "action": "warn", "count": 1}], False)
    assert cli.main(["lint", str(path), "--baseline", str(baseline), "--write-baseline"]) == 0
    capsys.readouterr()
    assert cli.main(["lint", str(path), "--format", "json", "--baseline", str(baseline)]) == 0
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert (summary["baselined"], summary["warn"]) == (1, 0)


def test_quiet_on_a_clean_run_prints_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _claim_file(tmp_path)
    assert cli.main(["lint", str(path), "--quiet", "--disable", "list-fragile-compare"]) == 0
    assert capsys.readouterr() == ("", "")


def test_only_one_format_goes_to_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _claim_file(tmp_path)
    assert cli.main(["validate", str(path), "--format", "text", "--format", "json"]) == 2
    assert capsys.readouterr() == (
        "", "draguard: error: --format: only one format can go to stdout; give the others =FILE\n")
    assert cli.main(["validate", str(path), "--format", "text", "--format", f"json={tmp_path / 'r.json'}"]) == 1
    assert capsys.readouterr().out.endswith("1 object checked; 0 deny, 1 warning, 0 audit\n")
    assert (tmp_path / "r.json").is_file()
