"""`draguard audit` (also `kubectl draguard audit`): check a running cluster's DRA objects, in pages.

    draguard audit [--kubeconfig FILE] [--context NAME] [--page-size N] [--config FILE]
                   [--format FMT[=FILE]]... [--report openreports|wgpolicy [--apply]] [--max-results N]
                   [--fail-on deny|warn|audit|none]

Exit codes: 0 clean (nothing at or above --fail-on, or --fail-on none), 1 findings at or above --fail-on,
2 usage error or a cluster problem (no kube context, unreachable server, a kind that cannot be listed, a report
not written).
"""

from __future__ import annotations

import argparse
import sys

HELP = "audit a running cluster's ResourceSlices, DeviceClasses, claims and templates (in pages)"
FAIL_ON = ("deny", "warn", "audit", "none")
REPORTS = ("openreports", "wgpolicy")


def _at_least_one(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from webhook.audit.kubeconfig import add_arguments as add_kube_arguments

    add_kube_arguments(parser)
    parser.add_argument("--page-size", type=_at_least_one, default=500, metavar="N",
                        help="objects per list request (default 500, as kubectl and client-go)")
    parser.add_argument("--config", metavar="FILE",
                        help="policy file, as the webhook's ConfigMap holds it (default: the nearest .draguard.yaml)")
    from webhook.commands.common import add_output_arguments
    from webhook.profiles.flags import add_profile_arguments
    from webhook.report import FORMATS

    add_output_arguments(parser, FORMATS)  # --format FMT[=FILE], --color, --quiet: as lint and validate
    add_profile_arguments(parser)  # --kubernetes-version, --feature-gates
    parser.add_argument("--report", choices=REPORTS,
                        help="policy reports: openreports (openreports.io/v1alpha1) or wgpolicy "
                             "(wgpolicyk8s.io/v1alpha2); printed as YAML on stdout unless --apply")
    parser.add_argument("--apply", action="store_true",
                        help="write the reports with server-side apply and delete stale ones draguard wrote")
    parser.add_argument("--max-results", type=_at_least_one, default=1000, metavar="N",
                        help="findings kept per report (cluster or namespace); the rest are counted (default 1000)")
    parser.add_argument("--fail-on", choices=FAIL_ON, default="warn",
                        help="lowest action that makes the exit code 1 (default: warn; none: findings never do, "
                             "as in the CronJob, where they go to the reports)")


def run(args: argparse.Namespace) -> int:
    import gc

    # Importing the client and the rules, decoding pages and building the inventory allocate much and free
    # little: the collector would walk it all again and again (a page decodes in less than half the time
    # without it). The audit collects the young objects of each page itself (webhook.audit.scan).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _run(args)
    finally:
        if collecting:
            gc.enable()


def _run(args: argparse.Namespace) -> int:
    from webhook import config
    from webhook.audit.client import Cluster
    from webhook.audit.kinds import REPORT_KINDS
    from webhook.audit.pager import start
    from webhook.commands.common import outputs as format_outputs
    from webhook.errors import DraguardError
    from webhook.profiles.flags import apply_profile_arguments
    from webhook.report import FORMATS

    if args.apply and not args.report:
        raise DraguardError("--apply needs --report openreports or --report wgpolicy")
    outputs = (format_outputs(args.format, FORMATS, [args.config, args.kubeconfig])
               if args.format or not args.report or args.apply else [])
    if args.report and not args.apply and any(target is None for _, target in outputs):
        raise DraguardError("--report without --apply prints the reports on stdout; write --format to a file "
                            "(--format FMT=FILE)")
    cluster = Cluster.connect(args.kubeconfig, args.context)
    started = start(cluster, args.page_size)  # the first page is requested now, in a thread
    try:
        # The rule catalogue and CEL load (with the policy, checked against the catalogue) while the first page
        # is on its way: a few tenths of a second of CPU.
        cfg = config.load(args.config)
        policy = apply_profile_arguments(cfg.policy, args)
        from datetime import UTC, datetime

        from webhook.audit import reports, scan
        from webhook.audit.terminal import Progress, summary
        from webhook.commands.common import use_color, write_outputs
        from webhook.exits import exit_code
        from webhook.findings import Action
        from webhook.lint import tuned_gc
        from webhook.report import Summary, render
        from webhook.run import sort_key

        progress = Progress(sys.stderr)  # draws only on a terminal
        try:
            with tuned_gc():
                audit = scan.run(cluster, policy, page_size=args.page_size, max_results=args.max_results,
                                 progress=progress, started=started)
            progress.done()
            applied = None
            if args.report:
                built = reports.build(audit, REPORT_KINDS[args.report], datetime.now(UTC))
                if args.apply:
                    from webhook.audit.apply import apply

                    applied = apply(cluster, built, REPORT_KINDS[args.report])
                else:
                    from webhook.manifests.goyaml import dump_all

                    sys.stdout.write(dump_all(built))
        finally:
            progress.done()
    finally:
        started[0].close()  # already closed when the audit ran; not when an import failed before it
        cluster.close()

    findings = sorted(audit.kept(), key=sort_key)
    run_summary = Summary(objects=audit.checked, suppressed=audit.suppressed)
    color = use_color(args.color, sys.stdout)
    write_outputs(((name, target, render(name, findings, run_summary, color=color and target is None))
                   for name, target in outputs), sys.stdout)
    if not args.quiet:
        for line in summary(audit):
            print(line, file=sys.stderr)
    if applied is not None:
        print(f"draguard audit: {args.report}: {applied.written} report(s) applied, {applied.deleted} stale "
              f"report(s) deleted", file=sys.stderr)
    failing = args.fail_on != "none" and any(action.rank >= Action(args.fail_on).rank for _, action in audit.by_rule)
    return exit_code(problems=False, failing=failing)
