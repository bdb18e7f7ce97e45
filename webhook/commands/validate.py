"""`draguard validate PATH...`: run the rule catalogue over manifests on disk, as the API server and
draguard's admission webhook would judge them.

It shares its flags (`webhook.commands.common`), its run (`webhook.check_run`) and its report
(`webhook.commands.reporting`) with `lint`, so both give the same findings, positions and exit codes for
the same inputs: the libyaml reader, worker processes on big inputs, and an inventory only when one is
given (`--slices`, `--classes`). Exit 0 when nothing is at or above `--fail-on` (default warn), 1 when
something is (or `--strict` fails), 2 when an input could not be read (one line each on stderr, after
everything else was checked) or the usage is wrong.
"""

from __future__ import annotations

import argparse

from webhook.commands.common import add_common_arguments

HELP = "check ResourceSlices, claims and device classes in files against the rule catalogue"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_common_arguments(parser)


def run(args: argparse.Namespace) -> int:
    import sys

    from webhook.check_run import read_ahead
    from webhook.forks import reap
    from webhook.gctune import tuned_gc

    with tuned_gc():  # as lint: from before the heavy imports to the end
        ahead = read_ahead(args.slices, args.classes, args.jobs)
        try:
            from webhook.check_run import check
            from webhook.commands.reporting import inputs, progress, report

            result, _inventory = check(inputs(args, ahead), stdin=sys.stdin, progress=progress(args))
            return report(args, result)
        finally:
            if ahead is not None:
                ahead.cancel()
            reap()  # the worker processes that were still exiting when their answers were read
