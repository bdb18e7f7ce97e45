"""`draguard lint`: check DRA selectors and constraints in manifests, for CI and pre-commit.

    draguard lint PATH... [--slices PATH]... [--classes PATH]... [--cluster [--kubeconfig FILE] [--context NAME]]
                  [--fix | --diff]
                  [--format FMT[=FILE]]... [--fail-on deny|warn|audit] [--config FILE] [--strict] ...

The flags it shares with `validate` are in `webhook.commands.common`; the run in `webhook.check_run`; the
report in `webhook.commands.reporting`.
Exit codes: 0 clean (nothing at or above --fail-on), 1 findings at or above --fail-on (with --diff: some
file would change; with --strict: nothing checked or a rule error), 2 usage or input error.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from webhook.commands.common import add_common_arguments

if TYPE_CHECKING:
    from webhook.check_run import Listed
    from webhook.forks import Ahead

HELP = "lint DRA selectors and constraints in manifests (CI, pre-commit)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_common_arguments(parser)
    parser.add_argument("--cluster", action="store_true",
                        help="inventory from the current kube context: its ResourceSlices and DeviceClasses")
    from webhook.audit.kubeconfig import add_arguments as add_kube_arguments

    add_kube_arguments(parser, only_with="--cluster")
    fixing = parser.add_mutually_exclusive_group()
    fixing.add_argument("--fix", action="store_true",
                        help="apply safe fixes in place (includes() rewrites); each rewrite is listed on stderr")
    fixing.add_argument("--diff", action="store_true",
                        help="print the safe fixes as a unified diff instead of writing them; exit 1 if any")


def run(args: argparse.Namespace) -> int:
    from webhook.check_run import read_ahead
    from webhook.forks import reap
    from webhook.gctune import tuned_gc

    with tuned_gc():  # the imports below already make ~60 collections at the default thresholds
        ahead = read_ahead(args.slices, args.classes, args.jobs)  # while the rules and celext are imported
        try:
            return _run(args, ahead)
        finally:
            if ahead is not None:
                ahead.cancel()
            reap()  # the worker processes that were still exiting when their answers were read


def _run(args: argparse.Namespace, ahead: Ahead[Listed] | None) -> int:
    from webhook.check_run import check, write_fixes
    from webhook.commands.common import tell
    from webhook.commands.reporting import inputs, progress, report
    from webhook.errors import DraguardError
    from webhook.exits import exit_code
    from webhook.lint import diffs

    if (args.kubeconfig or args.context) and not args.cluster:
        raise DraguardError("--kubeconfig and --context choose the cluster of --cluster; add --cluster")
    if (args.fix or args.diff) and "-" in args.paths:
        raise DraguardError("--fix and --diff need files, not stdin")
    if args.diff and args.format:
        raise DraguardError("--diff prints only the diff; run without --diff for --format reports")
    result, inventory = check(inputs(args, ahead), fix=args.fix or args.diff, stdin=sys.stdin, progress=progress(args))
    if args.cluster and not args.quiet and not any(obj.get("kind") == "ResourceSlice" for obj in inventory):
        print("draguard: note: --cluster: the cluster publishes no ResourceSlices: the inventory has no devices, so "
              "the rules that need devices find nothing", file=sys.stderr)
    for file in result.files:
        for skipped, reason in file.fixed.skipped if file.fixed is not None else []:
            tell(f"{file.source}: {skipped.path}: not fixed: {reason}")
    if args.diff:
        changed, refused = diffs(result.files)
        result.problems += refused
        for problem in result.problems:
            tell(problem)
        sys.stdout.write("".join(changed))
        return exit_code(problems=bool(result.problems), failing=bool(changed))
    if args.fix:
        written, problems = write_fixes(result, inventory)
        for source, rewrite in written:
            tell(f"fixed {source}:{rewrite.line}:{rewrite.column}: {rewrite.before} → {rewrite.after}")
        result.problems += problems
    return report(args, result)
