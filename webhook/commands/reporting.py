"""What `lint` and `validate` share after the run (`webhook.check_run`): the inputs from their flags,
baselines, the reports, strict notes and the exit code."""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from webhook.exits import EXIT_OK, EXIT_USAGE, exit_code

if TYPE_CHECKING:
    from webhook.check_run import Inputs, Listed, Run, Tracker
    from webhook.findings import Finding
    from webhook.forks import Ahead

log = logging.getLogger(__name__)


def inputs(args: argparse.Namespace, ahead: Ahead[Listed] | None = None) -> Inputs:
    """The run's inputs from the shared flags, after checking them for usage errors (before any file is read);
    `ahead` reads --slices/--classes already (`webhook.check_run.read_ahead`)."""
    from webhook.check_run import Inputs
    from webhook.commands.common import check_arguments, tuned_policy

    check_arguments(args)
    return Inputs(args.paths, config=args.config, tune=lambda policy: tuned_policy(policy, args),
                  slices=args.slices, classes=args.classes, cluster=getattr(args, "cluster", False),
                  kubeconfig=getattr(args, "kubeconfig", None), context=getattr(args, "context", None), jobs=args.jobs,
                  listed=ahead.result if ahead is not None else None)


def progress(args: argparse.Namespace) -> Callable[[int], Tracker]:
    """A progress line on a terminal (not with --quiet), its clock started now so reading counts too."""
    from webhook.progress import Progress

    began = time.monotonic()

    def start(total: int) -> Tracker:
        return Progress(total, enabled=None if not args.quiet else False, started=began)

    return start


def report(args: argparse.Namespace, run: Run) -> int:
    """Print problems, reports and strict notes; the exit code."""
    from webhook.check_run import strict_failures
    from webhook.commands.common import outputs, tell, use_color, write_outputs
    from webhook.findings import Action
    from webhook.report import FORMATS, Summary, render
    from webhook.run import sort_key
    from webhook.waivers import apply_baseline, load_baseline, write_baseline

    stdout = sys.stdout
    targets = outputs(args.format, FORMATS)
    run.problems.sort(key=lambda p: (p.source, p.line or 0, p.column or 0))
    for problem in run.problems:
        tell(problem)
    findings: list[Finding] = sorted((f for r in run.files for f in r.findings), key=sort_key)
    if args.write_baseline:
        write_baseline(args.baseline, findings)
        if not args.quiet:
            print(f"draguard: wrote {len(findings)} finding(s) to {args.baseline}", file=sys.stderr)
        return EXIT_USAGE if run.problems else EXIT_OK
    baselined = 0
    if args.baseline:
        findings, baselined, stale = apply_baseline(findings, load_baseline(args.baseline), args.baseline)
        if stale:
            log.info("%d entr%s of %s match no finding any more", stale, "y" if stale == 1 else "ies", args.baseline)
    summary = Summary(objects=run.objects, skipped=run.skipped(), suppressed=sum(f.suppressed for f in run.files),
                      problems=[str(p) for p in run.problems], baselined=baselined)
    color = use_color(args.color, stdout)
    texts = {file.source: file.text for file in run.files if file.findings}
    write_outputs(((name, target, render(name, findings, summary, color=color and target is None, quiet=args.quiet,
                                         per_rule=args.summary, texts=texts)) for name, target in targets), stdout)
    stdout.flush()
    strict = strict_failures(run, findings) if args.strict else []
    for line in strict:
        tell(f"strict: {line}")
    if not args.strict and not args.quiet and not summary.objects and not run.problems:
        print("draguard: note: nothing was checked: no ResourceSlice, ResourceClaim, ResourceClaimTemplate or "
              "DeviceClass in the inputs (--strict makes this fail)", file=sys.stderr)
    threshold = Action(args.fail_on).rank
    failing = any(f.action is not None and f.action.rank >= threshold for f in findings)
    return exit_code(problems=bool(run.problems), failing=failing or bool(strict))
