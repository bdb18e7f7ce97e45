"""The flag set `lint` and `validate` share, and the output flags `eval` and `explain` share with them.

One function per group, so a command (or a later flag such as `--kubernetes-version`) joins with one line:

    add_common_arguments(parser)    # inputs, config, policy tweaks, fail level, waivers, output
    add_output_arguments(parser, FORMATS)   # --format FMT[=FILE] (repeatable), --color, --quiet
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, TextIO

from webhook.errors import DraguardError

if TYPE_CHECKING:
    from webhook.budget import Budget
    from webhook.policy import Policy

FAIL_ON = ("deny", "warn", "audit")
COLOR = ("auto", "always", "never")


def add_budget_arguments(parser: argparse.ArgumentParser) -> None:
    """What one object may cost the webhook before it is answered `budget-exceeded` (`serve`, and `review`,
    which answers as the webhook would)."""
    parser.add_argument("--max-selectors", type=positive, default=128, metavar="N",
                        help="distinct selector expressions one object may carry before it is answered "
                             "`budget-exceeded` (default: %(default)s)")
    parser.add_argument("--max-cpu", type=seconds, default=2.0, metavar="SECONDS",
                        help="CPU time one object's checks may take (default: %(default)s)")
    parser.add_argument("--deadline", type=seconds, default=2.5, metavar="SECONDS",
                        help="wall-clock time one object's checks may take; keep it below the webhook's "
                             "timeoutSeconds (a review's ?timeout= lowers it further; default: %(default)s)")


def budget_of(args: argparse.Namespace) -> Budget:
    from webhook.budget import Budget

    return Budget(args.max_selectors, args.max_cpu, args.deadline)


def whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def positive(text: str) -> int:
    value = whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= 300:
        raise argparse.ArgumentTypeError(f"{text!r} must be more than 0 and at most 300 seconds")
    return value


def add_output_arguments(parser: argparse.ArgumentParser, formats: Iterable[str], *, findings: bool = True) -> None:
    """`--format FMT[=FILE]`; with `findings` (a report of findings) also --color/--no-color and --quiet."""
    names = ", ".join(sorted(formats))
    parser.add_argument("--format", action="append", default=[], metavar="FMT[=FILE]",
                        help=f"{names}; =FILE writes that format to FILE (repeatable; default text on stdout)")
    if not findings:
        return
    parser.add_argument("--color", choices=COLOR, default="auto",
                        help="colour the text output: auto (a terminal, unless NO_COLOR is set), always, never")
    parser.add_argument("--no-color", dest="color", action="store_const", const="never", help="same as --color never")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print findings only: no summary line, notes or progress (errors still print)")


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    from webhook.report import FORMATS

    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="files, directories (searched recursively for .yaml/.yml/.json) or - for stdin")
    parser.add_argument("--slices", action="append", default=[], metavar="PATH",
                        help="an inventory: ResourceSlices (and DeviceClasses) describing real devices (repeatable); "
                             "without one, no device is assumed")
    parser.add_argument("--classes", action="append", default=[], metavar="PATH",
                        help="DeviceClasses for the inventory: which devices each request can get (repeatable)")
    parser.add_argument("--config", metavar="FILE",
                        help="policy file for every input (default: the nearest .draguard.yaml above each input)")
    parser.add_argument("--policy", dest="config", metavar="FILE", help=argparse.SUPPRESS)  # validate's old name
    parser.add_argument("--list-types", choices=("enabled", "disabled"), default=None,
                        help="mirror a cluster with or without the DRAListTypeAttributes feature gate "
                             "(default: the policy's listTypes, else enabled)")
    from webhook.profiles.flags import add_profile_arguments

    add_profile_arguments(parser)  # --kubernetes-version, --feature-gates
    parser.add_argument("--enable", action="append", default=[], metavar="RULE",
                        help="run RULE even if the policy turns it off (at its default action, else warn)")
    parser.add_argument("--disable", action="append", default=[], metavar="RULE", help="do not run RULE")
    parser.add_argument("--fail-on", choices=FAIL_ON, default="warn",
                        help="lowest action that makes the exit code 1 (default: warn)")
    parser.add_argument("--strict", action="store_true",
                        help="also exit 1 when nothing was checked, an input file held no object draguard checks, "
                             "or a rule could not run (rule-error)")
    parser.add_argument("--baseline", metavar="FILE",
                        help="leave out the findings recorded in FILE (a JSON baseline from --write-baseline)")
    parser.add_argument("--write-baseline", action="store_true",
                        help="record the current findings in the --baseline FILE and exit 0")
    parser.add_argument("--summary", action="store_true", help="after the findings, count them per rule")
    parser.add_argument("-j", "--jobs", type=jobs, default=None, metavar="N",
                        help="processes to check files with: a number, or auto (the default: one per CPU, as many as "
                             "the input's size pays for); the output does not depend on it")
    add_output_arguments(parser, FORMATS)


def jobs(value: str) -> int | None:
    """`--jobs`: `auto` (None) or a positive count."""
    if value == "auto":
        return None
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive number or auto, not {value!r}")
    return int(value)


def outputs(specs: Sequence[str], formats: Iterable[str], inputs: Iterable[str | None] = ()
            ) -> list[tuple[str, str | None]]:
    """`--format` values -> (format, file or None for stdout); text on stdout when none is given. `inputs`: the
    files the command reads, which no report may overwrite."""
    from webhook.waivers import did_you_mean

    known = sorted(formats)
    parsed: list[tuple[str, str | None]] = []
    for spec in specs or ["text"]:
        name, eq, file = spec.partition("=")
        if name not in known:
            raise DraguardError(f"--format {spec}: unknown format {name!r}{did_you_mean(name, known)}; "
                                f"use one of {', '.join(known)}")
        if eq and not file:
            raise DraguardError(f"--format {spec}: missing file name after '='")
        parsed.append((name, None if file in ("", "-") else file))  # `=-`: standard output, as `-` reads stdin
    if sum(1 for _n, f in parsed if f is None) > 1:
        raise DraguardError("--format: only one format can go to stdout; give the others =FILE")
    distinct_files(report_files(parsed), inputs)
    return parsed


def report_files(parsed: Sequence[tuple[str, str | None]]) -> list[tuple[str, str, str]]:
    """The files `--format` writes, as `distinct_files` takes them."""
    return [(f"--format {name}={file}", "report", file) for name, file in parsed if file is not None]


def distinct_files(written: Sequence[tuple[str, str, str]], inputs: Iterable[str | None]) -> None:
    """`written`: (the flag that writes it, what it writes, file). A file written that is an input would overwrite
    it, two flags writing one file would leave only the last: both usage errors, by resolved path (`./r.json` and
    `r.json` are one file, and so are a link and its target)."""
    read = {os.path.realpath(path): path for path in inputs if path is not None and path != "-"}
    seen: dict[str, str] = {}
    for flag, what, file in written:
        where = os.path.realpath(file)
        if where in read:
            raise DraguardError(f"{flag}: {read[where]} is an input; the {what} would overwrite it")
        if where in seen:
            raise DraguardError(f"{flag}: {seen[where]} writes that file already; give each a file of its own")
        seen[where] = flag


def write_outputs(reports: Iterable[tuple[str, str | None, str]], stdout: TextIO) -> None:
    """Write each `(format, file or None for stdout, text)`, then fail naming every report that could not be
    written: one unwritable FILE loses none of the others."""
    failures: list[str] = []
    for name, target, text in reports:
        try:
            write_output(name, target, text, stdout)
        except DraguardError as err:
            failures.append(err.message)
    if failures:
        raise DraguardError("; ".join(failures))


def write_output(name: str, target: str | None, text: str, stdout: TextIO) -> None:
    if target is None:
        stdout.write(text)
        return
    from pathlib import Path

    try:
        Path(target).write_text(text, encoding="utf-8")
    except OSError as err:
        raise DraguardError(f"--format {name}={target}: cannot write: {err.strerror or err}") from None


def use_color(choice: str, stream: TextIO) -> bool:
    """`--color`: auto colours a terminal unless NO_COLOR is set to anything (https://no-color.org) or the
    terminal says it has no colours (TERM=dumb, as Emacs' shell and some CI logs set it)."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def tell(text: object) -> None:
    """One `draguard: ...` line on standard error. It quotes the inputs (file names, node names, a fix's text): each
    character a terminal would act on is spelled as the text report spells it (`webhook.wire.printable`)."""
    import sys

    from webhook.wire import printable

    print(f"draguard: {printable(str(text))}", file=sys.stderr)


def check_arguments(args: argparse.Namespace) -> None:
    """Usage errors in the shared flags, found before any file is read."""
    from webhook.lint import known_rules
    from webhook.report import FORMATS
    from webhook.waivers import did_you_mean

    reports = outputs(args.format, FORMATS, [*args.paths, *args.slices, *args.classes, args.config, args.baseline])
    for flag, rules in (("--enable", args.enable), ("--disable", args.disable)):
        for rule in rules:
            if rule not in known_rules():
                raise DraguardError(f"{flag} {rule}: unknown rule{did_you_mean(rule, known_rules())}; "
                                    "`draguard rules` lists them")
    both = sorted(set(args.enable) & set(args.disable))
    if both:
        raise DraguardError(f"--enable {both[0]} and --disable {both[0]}: a rule cannot be both; give one of them")
    if args.write_baseline and not args.baseline:
        raise DraguardError("--write-baseline needs --baseline FILE")
    if args.write_baseline:  # the baseline is written, after the reports: no input, no report file
        distinct_files([*report_files(reports), (f"--write-baseline --baseline {args.baseline}", "baseline",
                                                 args.baseline)],
                       [*args.paths, *args.slices, *args.classes, args.config])
    if args.baseline and not args.write_baseline:
        from webhook.waivers import load_baseline

        load_baseline(args.baseline)  # a missing or malformed baseline fails before the run, not after


def tuned_policy(policy: Policy, args: argparse.Namespace) -> Policy:
    """The policy with the release profile, `--enable`, `--disable` and `--list-types` applied (rule names
    checked already)."""
    from dataclasses import replace

    from webhook.findings import Action
    from webhook.policy import Policy
    from webhook.profiles.flags import apply_profile_arguments

    policy = apply_profile_arguments(policy, args)

    actions = dict(policy.actions)
    for flag, rules in (("--enable", args.enable), ("--disable", args.disable)):
        for rule in rules:
            if flag == "--disable":
                actions[rule] = Action.OFF
            elif policy.action(rule) is Action.OFF:
                default = Policy.default().action(rule)
                actions[rule] = default if default is not Action.OFF else Action.WARN
    if actions != dict(policy.actions):
        policy = replace(policy, actions=actions)
    if args.list_types is not None:
        policy = policy.with_list_types(args.list_types == "enabled")
    return policy
