"""Usage errors as a user sees them: flags that contradict each other, report files that would overwrite an input
or each other, and the shape of a usage error, which the README's "Commands" section documents."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.builders import claim_with_selector
from tests.conftest import REPO
from webhook import cli

DRAGUARD = Path(sys.executable).with_name("draguard")
SLICES = REPO / "examples" / "manifests" / "slices.yaml"
RULE = "list-fragile-compare"


@pytest.fixture
def claim(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "claim.yaml"
    path.write_text(yaml.safe_dump(claim_with_selector('device.attributes["gpu.example.com"].model == "A100"')),
                    encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- --format FMT=FILE: never an input, never another format's file ----------------------------------------------


@pytest.mark.parametrize("command", ["lint", "validate"])
@pytest.mark.parametrize("spelling", ["claim.yaml", "./claim.yaml", "{tmp}/claim.yaml", "link.yaml"])
def test_a_report_file_that_is_an_input_is_a_usage_error(command: str, spelling: str, claim: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    (claim.parent / "link.yaml").symlink_to(claim)
    before = claim.read_bytes()
    target = spelling.format(tmp=claim.parent)
    code, out, err = run(capsys, command, "claim.yaml", "--format", f"json={target}")
    assert (code, out, err) == (2, "", f"draguard: error: --format json={target}: claim.yaml is an input; the "
                                       "report would overwrite it\n")
    assert claim.read_bytes() == before


@pytest.mark.parametrize("flag", ["--slices", "--classes", "--config", "--baseline"])
def test_a_report_file_over_any_other_input_is_a_usage_error(flag: str, claim: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other.yaml"
    other.write_text("rules: {}\n" if flag == "--config" else "[]\n" if flag == "--baseline" else "",
                     encoding="utf-8")
    code, _out, err = run(capsys, "lint", "claim.yaml", flag, "other.yaml", "--format", "sarif=other.yaml")
    assert (code, err) == (2, "draguard: error: --format sarif=other.yaml: other.yaml is an input; the report "
                              "would overwrite it\n")


def test_eval_and_explain_never_write_a_report_over_their_slices(claim: Path, capsys: pytest.CaptureFixture[str]
                                                                 ) -> None:
    slices = claim.parent / "slices.yaml"
    slices.write_bytes(SLICES.read_bytes())
    message = "draguard: error: --format json=slices.yaml: slices.yaml is an input; the report would overwrite it\n"
    assert run(capsys, "eval", "true", "--slices", "slices.yaml", "--format", "json=slices.yaml") == (2, "", message)
    assert run(capsys, "explain", "claim.yaml", "--slices", "slices.yaml", "--format", "json=slices.yaml") == (
        2, "", message)
    assert slices.read_bytes() == SLICES.read_bytes()


def test_two_formats_writing_one_file_is_a_usage_error(claim: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = run(capsys, "lint", "claim.yaml", "--format", "json=r", "--format", f"sarif={claim.parent}/r")
    assert (code, err) == (2, f"draguard: error: --format sarif={claim.parent}/r: --format json=r writes that file "
                              "already; give each a file of its own\n")
    assert not (claim.parent / "r").exists()


def test_distinct_report_files_are_all_written(claim: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "lint", "claim.yaml", "--format", "json=r.json", "--format", "sarif=r.sarif")
    assert (code, out, err) == (1, "", "")
    assert (claim.parent / "r.json").is_file() and (claim.parent / "r.sarif").is_file()


@pytest.mark.parametrize("command", ["lint", "validate"])
def test_an_unwritable_report_file_loses_no_other_report(command: str, claim: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    (claim.parent / "dir").mkdir()
    code, out, err = run(capsys, command, "claim.yaml", "--format", "json=missing/r.json", "--format", "sarif=dir",
                         "--format", "junit=r.xml", "--format", "text")
    assert (code, err) == (2, "draguard: error: --format json=missing/r.json: cannot write: No such file or directory; "
                              "--format sarif=dir: cannot write: Is a directory\n")
    assert out.endswith("0 deny, 1 warning, 0 audit\n") and (claim.parent / "r.xml").read_text(encoding="utf-8")


@pytest.mark.parametrize("flag", ["", "--slices", "--classes", "--config"])
def test_a_baseline_written_over_an_input_is_a_usage_error(flag: str, claim: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    inputs = ["claim.yaml"]
    if flag:
        (tmp_path / "other.yaml").write_text("rules: {}\n" if flag == "--config" else "", encoding="utf-8")
        inputs += [flag, "other.yaml"]
    target = "other.yaml" if flag else "claim.yaml"
    before = (tmp_path / target).read_bytes()
    code, out, err = run(capsys, "lint", *inputs, "--baseline", target, "--write-baseline")
    assert (code, out, err) == (2, "", f"draguard: error: --write-baseline --baseline {target}: {target} is an input; "
                                       "the baseline would overwrite it\n")
    assert (tmp_path / target).read_bytes() == before


def test_a_baseline_written_over_a_report_is_a_usage_error(claim: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = run(capsys, "lint", "claim.yaml", "--format", "json=b.json", "--baseline", "./b.json",
                          "--write-baseline")
    assert (code, err) == (2, "draguard: error: --format json=b.json: ./b.json is an input; the report would "
                              "overwrite it\n")
    assert not (claim.parent / "b.json").exists()


def test_a_report_file_named_dash_is_standard_output(claim: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "lint", "claim.yaml", "--format", "json=-")
    assert (code, err) == (1, "")
    assert '"rule": "list-fragile-compare"' in out
    assert not (claim.parent / "-").exists()
    code, _out, err = run(capsys, "lint", "claim.yaml", "--format", "json=-", "--format", "sarif")
    assert (code, err) == (2, "draguard: error: --format: only one format can go to stdout; give the others =FILE\n")


def test_a_config_or_baseline_that_is_no_text_is_one_line(claim: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "latin1.yaml").write_bytes(b"rules: {}\n# caf\xe9\n")
    assert run(capsys, "lint", "claim.yaml", "--config", "latin1.yaml") == (
        2, "", f"draguard: error: policy {tmp_path / 'latin1.yaml'}: cannot read: not UTF-8 text\n")
    assert run(capsys, "lint", "claim.yaml", "--baseline", "/dev/zero") == (
        2, "", "draguard: error: --baseline /dev/zero: cannot read: invalid YAML: unacceptable character #x0000: "
               "special characters are not allowed\n")


# -- --enable and --disable of one rule ----------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["lint", "validate"])
def test_enabling_and_disabling_one_rule_is_a_usage_error(command: str, claim: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, command, "claim.yaml", "--enable", RULE, "--disable", RULE)
    assert (code, out, err) == (2, "", f"draguard: error: --enable {RULE} and --disable {RULE}: a rule cannot be "
                                       "both; give one of them\n")
    # different rules stay fine
    assert run(capsys, command, "claim.yaml", "--enable", "selector-numa-pinned", "--disable", RULE, "-q")[0] == 0


# -- the shape of a usage error ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("argv", "first"), [
    (["lint", "claim.yaml", "--bogus"], "draguard lint: error: unrecognized arguments: --bogus"),
    (["lint", "--fix", "--diff", "claim.yaml"],
     "draguard lint: error: argument --diff: not allowed with argument --fix"),
    (["eval", "true"], "draguard eval: error: the following arguments are required: --slices"),
    (["rules", "--markdown", "--readme", "README.md"],
     "draguard rules: error: argument --readme: not allowed with argument --markdown"),
], ids=["unknown-option", "fix-and-diff", "missing-option", "markdown-and-readme"])
def test_a_parser_usage_error_is_one_line_then_a_pointer_to_the_commands_help(argv: list[str], first: str,
                                                                              claim: Path) -> None:
    done = subprocess.run([str(DRAGUARD), *argv], capture_output=True, text=True, check=False, timeout=60,
                          cwd=claim.parent)
    command = argv[0]
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"{first}\nTry 'draguard {command} --help'.\n")


def test_the_readme_shows_a_usage_error_as_draguard_prints_it(claim: Path) -> None:
    commands = (REPO / "README.md").read_text(encoding="utf-8").split("## Commands", 1)[1].split("\n## ", 1)[0]
    prose = " ".join(commands.split())  # lines wrap anywhere in the prose
    shown = re.search(r"\(`(draguard lint: error: [^`]+)`, then `(Try [^`]+)`\)", prose)
    assert shown is not None, "README's Commands section must show a usage error as draguard prints it"
    done = subprocess.run([str(DRAGUARD), "lint", "claim.yaml", "--bogus"], capture_output=True, text=True,
                          check=False, timeout=60, cwd=claim.parent)
    assert done.stderr.splitlines() == [shown.group(1), shown.group(2)]
