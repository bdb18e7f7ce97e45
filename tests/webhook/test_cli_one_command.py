"""`draguard <command>` builds a parser for that command alone (no other command module imported), and says
exactly what the whole parser says: help, usage errors, unknown commands, `-h` before the command."""

from __future__ import annotations

import subprocess
import sys

import pytest

from webhook import cli


@pytest.mark.parametrize(("argv", "command"), [
    (["lint", "a.yaml"], "lint"),
    (["-v", "lint", "--slices", "s.yaml"], "lint"),
    (["--verbose", "-v", "rules"], "rules"),
    (["-h", "lint"], None),  # the top-level help lists every command
    (["--help"], None),
    (["--version"], None),
    (["--verb", "lint"], None),  # an abbreviation: argparse decides, with the whole parser
    ([], None),
    (["-v"], None),
])
def test_the_command_is_the_first_token_after_only_verbose_flags(argv: list[str], command: str | None) -> None:
    assert cli._command_of(argv) == command


def _run(argv: list[str], capsys: pytest.CaptureFixture[str], *, whole: bool) -> tuple[object, str, str]:
    if whole:
        parser = cli.build_parser()
        try:
            args = parser.parse_args(argv)
            code: object = args._run(args)
        except SystemExit as exit_:
            code = exit_.code
    else:
        try:
            code = cli.main(argv)
        except SystemExit as exit_:
            code = exit_.code
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("argv", [
    ["lint", "--help"], ["-v", "lint", "--bogus", "x.yaml"], ["lint"], ["validate", "--fail-on", "never", "x.yaml"],
    ["certs"], ["certs", "generate", "--help"], ["rules"], ["explain", "--bogus"], ["-h", "lint"], ["no-such-command"],
])
def test_one_command_parser_says_what_the_whole_parser_says(argv: list[str],
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(argv, capsys, whole=False) == _run(argv, capsys, whole=True)


def test_an_unknown_command_gets_the_whole_parser() -> None:
    parser = cli.build_parser("no-such-command")
    assert parser.format_help() == cli.build_parser().format_help()
    assert "lint" in parser.format_help() and "topology" in parser.format_help()


@pytest.mark.slow
def test_running_one_command_imports_no_other_command_module() -> None:
    probe = ("import sys; from webhook import cli; code = cli.main(['rules']); "
             "print(sorted(m for m in sys.modules if m.startswith('webhook.commands.')))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "['webhook.commands.rules']"
