"""`draguard validate PATH...`: run the rule catalogue over manifests on disk, as the API server and
draguard's admission webhook would judge them.

Exit 0 when nothing is denied, 1 when a finding is denied, 2 when an input could not be read (reported
on stderr one line each, after everything else was checked) or the usage is wrong.
"""

from __future__ import annotations

import argparse

HELP = "check ResourceSlices, claims and device classes in files against the rule catalogue"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from webhook.report import FORMATS

    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="files, directories (searched recursively for .yaml/.yml/.json) or - for stdin")
    parser.add_argument("--format", choices=sorted(FORMATS), default="text", help="output format (default: text)")
    parser.add_argument("--policy", metavar="FILE", help="policy file: per-rule actions and rule options")
    parser.add_argument("--list-types", choices=("enabled", "disabled"), default=None,
                        help="mirror a cluster with or without the DRAListTypeAttributes feature gate "
                        "(default: the policy's listTypes, else enabled)")


def run(args: argparse.Namespace) -> int:
    import fnmatch
    import sys
    from collections import Counter

    from webhook.findings import Action, Finding
    from webhook.manifests import load_paths
    from webhook.policy import Policy
    from webhook.report import Summary, render
    from webhook.rules.base import DRA_KINDS, RESOURCE_SLICE
    from webhook.run import run_rules
    from webhook.wire import kind_of

    policy = Policy.load(args.policy) if args.policy else Policy.default()
    if args.list_types is not None:
        policy = policy.with_list_types(args.list_types == "enabled")
    loaded = load_paths(args.paths, stdin=sys.stdin)
    manifests = [
        m for m in loaded.manifests
        if not any(fnmatch.fnmatch(m.source, glob) for glob in policy.ignore)
    ]
    slices = [m.obj for m in manifests if kind_of(m.obj) == RESOURCE_SLICE]
    findings: list[Finding] = []
    skipped: Counter[str] = Counter()
    checked = suppressed = 0
    for manifest in manifests:
        kind = kind_of(manifest.obj)
        if kind not in DRA_KINDS:
            skipped[kind or "<no kind>"] += 1
            continue
        outcome = run_rules(manifest.obj, policy, manifest=manifest, slices=slices)
        checked += 1
        findings += outcome.findings
        suppressed += len(outcome.suppressed)
    problems = [str(p) for p in loaded.problems]
    summary = Summary(objects=checked, skipped=dict(skipped), suppressed=suppressed, problems=problems)
    sys.stdout.write(render(args.format, findings, summary, color=sys.stdout.isatty()))
    sys.stdout.flush()
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 2
    return 1 if any(f.action is Action.DENY for f in findings) else 0
