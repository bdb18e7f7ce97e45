"""`draguard lint`: check DRA selectors and constraints in manifests, for CI and pre-commit.

    draguard lint PATH... [--slices PATH]... [--cluster] [--fix | --diff] [--format FMT[=FILE]]...
                  [--fail-on deny|warn|audit] [--config FILE]

Exit codes: 0 clean (nothing at or above --fail-on), 1 findings at or above --fail-on (with --diff: some
file would change), 2 usage or input error (unreadable file, invalid YAML, bad configuration).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from webhook.lint import LintResult
    from webhook.manifests import Problem
    from webhook.policy import Policy
    from webhook.wire import Obj

HELP = "lint DRA selectors and constraints in manifests (CI, pre-commit)"
FAIL_ON = ("deny", "warn", "audit")
KINDS = ("ResourceSlice", "DeviceClass")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files, directories (recursive) or - for stdin")
    parser.add_argument("--slices", action="append", default=[], metavar="PATH",
                        help="ResourceSlices (and DeviceClasses) describing real devices: which attributes are "
                             "lists or absent (repeatable)")
    parser.add_argument("--cluster", action="store_true",
                        help="read ResourceSlices and DeviceClasses from the current kube context")
    fixing = parser.add_mutually_exclusive_group()
    fixing.add_argument("--fix", action="store_true", help="apply safe fixes in place (includes() rewrites)")
    fixing.add_argument("--diff", action="store_true",
                        help="print the safe fixes as a unified diff instead of writing them; exit 1 if any")
    parser.add_argument("--format", action="append", default=[], metavar="FMT[=FILE]",
                        help="text, json, sarif, junit or github; =FILE writes that format to FILE "
                             "(repeatable; default text on stdout)")
    parser.add_argument("--fail-on", choices=FAIL_ON, default="warn",
                        help="lowest action that makes the exit code 1 (default: warn)")
    parser.add_argument("--config", metavar="FILE",
                        help="policy file (default: the nearest .draguard.yaml from the working directory up)")
    from webhook.profiles.flags import add_profile_arguments  # issue 16: --kubernetes-version, --feature-gates

    add_profile_arguments(parser)


def _outputs(specs: list[str]) -> list[tuple[str, str | None]]:
    from webhook.errors import DraguardError
    from webhook.report import FORMATS

    outputs: list[tuple[str, str | None]] = []
    for spec in specs or ["text"]:
        name, eq, file = spec.partition("=")
        if name not in FORMATS:
            raise DraguardError(f"--format {spec}: unknown format {name!r}; use one of {', '.join(sorted(FORMATS))}")
        if eq and not file:
            raise DraguardError(f"--format {spec}: missing file name after '='")
        outputs.append((name, file or None))
    return outputs


def _write_fixes(result: LintResult, policy: Policy, inventory: tuple[Obj, ...]) -> list[Problem]:
    """Write each fixed file; one that cannot be written is reported as it is on disk, with a problem."""
    from webhook.fix import write_file
    from webhook.lint import lint_text
    from webhook.manifests import Problem

    problems: list[Problem] = []
    for i, file in enumerate(result.files):
        if file.fixed is None or file.fixed.text == file.original:
            continue
        failure = write_file(file.source, file.fixed.text)
        if failure is not None:
            problems.append(Problem(file.source, f"not fixed: {failure}"))
            result.files[i] = lint_text(file.original, file.source, policy, inventory=inventory)
    return problems


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from webhook import config
    from webhook.errors import DraguardError
    from webhook.findings import Action
    from webhook.lint import diffs, lint_paths, read_objects, tuned_gc
    from webhook.profiles.flags import apply_profile_arguments
    from webhook.report import Summary, render

    outputs = _outputs(args.format)
    if (args.fix or args.diff) and "-" in args.paths:
        raise DraguardError("--fix and --diff need files, not stdin")
    if args.diff and args.format:
        raise DraguardError("--diff prints only the diff; run without --diff for --format reports")
    cfg = config.load(args.config)
    cfg = replace(cfg, policy=apply_profile_arguments(cfg.policy, args))  # issue 16: --kubernetes-version etc.
    inventory = []
    problems = []
    if args.slices:
        objects, slice_problems = read_objects(args.slices, frozenset(KINDS))
        inventory += objects
        problems += slice_problems
    if args.cluster:
        from webhook.inventory import from_cluster

        inventory += from_cluster()
    with tuned_gc():
        result = lint_paths(args.paths, cfg.policy, inventory=tuple(inventory), fix=args.fix or args.diff,
                            ignored=cfg.ignored)
    problems += result.problems
    for problem in problems:
        print(f"draguard: {problem}", file=sys.stderr)

    for file in result.files:
        for skipped, reason in file.fixed.skipped if file.fixed is not None else []:
            print(f"draguard: {file.source}: {skipped.path}: not fixed: {reason}", file=sys.stderr)
    if args.diff:
        changed = list(diffs(result))
        sys.stdout.write("".join(changed))
        return 2 if problems else (1 if changed else 0)
    if args.fix:
        for problem in _write_fixes(result, cfg.policy, tuple(inventory)):
            problems.append(problem)
            print(f"draguard: {problem}", file=sys.stderr)

    findings = result.findings
    summary = Summary(objects=result.objects, skipped=result.skipped(), suppressed=result.suppressed,
                      problems=[str(p) for p in problems])
    for name, target in outputs:
        color = name == "text" and target is None and sys.stdout.isatty()
        text = render(name, findings, summary, color=color)
        if target is None:
            sys.stdout.write(text)
        else:
            try:
                Path(target).write_text(text, encoding="utf-8")
            except OSError as err:
                raise DraguardError(f"--format {name}={target}: cannot write: {err.strerror or err}") from None
    if problems:
        return 2
    threshold = Action(args.fail_on).rank
    return 1 if any(f.action is not None and f.action.rank >= threshold for f in findings) else 0
