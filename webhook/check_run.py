"""The run behind `draguard lint` and `draguard validate`: one pipeline, so both give the same findings
for the same inputs, policy and inventory, in the same words, at the same speed.

    read inputs -> the configuration of each file (nearest .draguard.yaml, or --config) -> skip ignored
    -> lint each file (libyaml fast path, worker processes on big inputs, progress on a terminal)
    -> [lint: --fix / --diff] -> baseline -> reports -> exit code (--fail-on, --strict)

An inventory (devices, classes) comes only from --slices, --classes or --cluster: a ResourceSlice among
the checked inputs is checked, never taken as the cluster's devices.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from webhook.errors import DraguardError

if TYPE_CHECKING:
    from webhook.findings import Finding
    from webhook.lint import FileResult
    from webhook.manifests import Problem
    from webhook.policy import Policy
    from webhook.wire import Obj

log = logging.getLogger(__name__)
INVENTORY_KINDS = frozenset({"ResourceSlice", "DeviceClass"})
EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


@dataclass(slots=True)
class Run:
    files: list[FileResult] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    policies: dict[str, Policy] = field(default_factory=dict)  # source -> its policy (for --fix re-lint)
    ignored: int = 0  # files an `ignore` glob skipped


def check(args: argparse.Namespace, *, fix: bool = False) -> tuple[Run, tuple[Obj, ...]]:
    """Read and lint every input; with `fix`, each file's safe edits are applied in memory."""
    from webhook.commands.common import check_arguments, tuned_policy
    from webhook.config import Discovery
    from webhook.lint import lint_sources, tuned_gc
    from webhook.manifests import _read_sources
    from webhook.progress import Progress

    check_arguments(args)
    started = time.perf_counter()
    began = time.monotonic()  # the progress line's clock
    run = Run()
    discovery = Discovery(args.config)
    inventory = read_inventory(args, run.problems)
    groups: dict[int, tuple[Policy, list[int]]] = {}
    sources = list(_read_sources(args.paths, run.problems, sys.stdin))
    log.debug("read %d file(s) in %.3f s", len(sources), time.perf_counter() - started)
    for i, (source, _text) in enumerate(sources):
        cfg = discovery.for_file(source)
        if cfg.ignored(source):
            log.debug("%s: skipped by an ignore glob of %s", source, cfg.path)
            run.ignored += 1
            continue
        groups.setdefault(id(cfg), (tuned_policy(cfg.policy, args), []))[1].append(i)
    log.debug("configuration: %d lookup(s), %d cache hit(s), %d distinct policy(ies)", discovery.lookups,
              discovery.hits, len(groups))
    progress = Progress(sum(len(g) for _p, g in groups.values()), enabled=None if not args.quiet else False,
                        started=began)
    by_index: dict[int, FileResult] = {}
    try:
        with tuned_gc():
            for policy, indexes in groups.values():
                files, problems = lint_sources([sources[i] for i in indexes], policy, inventory=inventory, fix=fix,
                                               done=progress.advance)
                by_index.update(zip(indexes, files, strict=True))
                run.problems += problems
                run.policies.update((sources[i][0], policy) for i in indexes)
    finally:
        progress.close()
    run.files = [by_index[i] for i in sorted(by_index)]
    log.debug("checked %d file(s) in %.3f s", len(run.files), time.perf_counter() - started)
    return run, inventory


def read_inventory(args: argparse.Namespace, problems: list[Problem]) -> tuple[Obj, ...]:
    from webhook.lint import read_objects

    objects: list[Obj] = []
    for paths, kinds in ((args.slices, INVENTORY_KINDS), (args.classes, frozenset({"DeviceClass"}))):
        if paths:
            found, found_problems = read_objects(paths, kinds)
            objects += found
            problems += found_problems
    if getattr(args, "cluster", False):
        import importlib.util

        if importlib.util.find_spec("kubernetes") is None:
            raise DraguardError("--cluster needs the server extra (the kubernetes client is not installed): "
                                "pip install 'draguard[server]'")
        from webhook.inventory import from_cluster

        objects += from_cluster()
    if objects:
        log.debug("inventory: %d object(s)", len(objects))
    return tuple(objects)


def report(args: argparse.Namespace, run: Run) -> int:
    """Print problems, reports and strict notes; the exit code."""
    from webhook.commands.common import outputs, use_color, write_output
    from webhook.findings import Action
    from webhook.lint import RULE_ERROR
    from webhook.report import FORMATS, Summary, render
    from webhook.run import sort_key
    from webhook.waivers import apply_baseline, load_baseline, write_baseline

    stdout = sys.stdout
    targets = outputs(args.format, FORMATS)
    run.problems.sort(key=lambda p: (p.source, p.line or 0, p.column or 0))
    for problem in run.problems:
        print(f"draguard: {problem}", file=sys.stderr)
    findings: list[Finding] = sorted((f for r in run.files for f in r.findings), key=sort_key)
    if args.write_baseline:
        write_baseline(args.baseline, findings)
        if not args.quiet:
            print(f"draguard: wrote {len(findings)} finding(s) to {args.baseline}", file=sys.stderr)
        return EXIT_USAGE if run.problems else EXIT_OK
    baselined = 0
    if args.baseline:
        findings, baselined, stale = apply_baseline(findings, load_baseline(args.baseline))
        if stale:
            log.info("%d entr%s of %s match no finding any more", stale, "y" if stale == 1 else "ies", args.baseline)
    skipped: dict[str, int] = {}
    for file in run.files:
        for kind, n in file.skipped.items():
            skipped[kind] = skipped.get(kind, 0) + n
    summary = Summary(objects=sum(f.objects for f in run.files), skipped=skipped,
                      suppressed=sum(f.suppressed for f in run.files), problems=[str(p) for p in run.problems],
                      baselined=baselined)
    color = use_color(args.color, stdout)
    for name, target in targets:
        text = render(name, findings, summary, color=color and target is None, quiet=args.quiet,
                      per_rule=args.summary)
        write_output(name, target, text, stdout)
    stdout.flush()
    strict = strict_failures(run, findings, RULE_ERROR) if args.strict else []
    for line in strict:
        print(f"draguard: strict: {line}", file=sys.stderr)
    if not args.strict and not args.quiet and not summary.objects and not run.problems:
        print("draguard: note: nothing was checked: no ResourceSlice, ResourceClaim, ResourceClaimTemplate or "
              "DeviceClass in the inputs (--strict makes this fail)", file=sys.stderr)
    if run.problems:
        return EXIT_USAGE
    threshold = Action(args.fail_on).rank
    failing = any(f.action is not None and f.action.rank >= threshold for f in findings)
    return EXIT_FINDINGS if failing or strict else EXIT_OK


def strict_failures(run: Run, findings: list[Finding], rule_error: str) -> list[str]:
    """Why `--strict` fails the run, one line each: nothing checked, a file with nothing to check, a rule
    that could not run (whatever action the policy gives it)."""
    lines: list[str] = []
    if not any(f.objects for f in run.files):
        lines.append("nothing was checked: no ResourceSlice, ResourceClaim, ResourceClaimTemplate or DeviceClass "
                     "in the inputs")
    for file in run.files:
        if not file.objects:
            kinds = ", ".join(f"{k or '<no kind>'} {n}" for k, n in sorted(file.skipped.items()))
            lines.append(f"{file.source}: nothing checked ({kinds or 'no Kubernetes object'})")
    errors = sum(1 for f in findings if f.rule == rule_error)
    if errors:
        lines.append(f"{errors} rule error{'s' if errors != 1 else ''}: a rule could not run")
    return lines


def write_fixes(run: Run, inventory: tuple[Obj, ...]) -> list[Problem]:
    """Write each fixed file and list its rewrites on stderr; a file that cannot be written is reported as it
    is on disk, with a problem."""
    from webhook.fix import write_file
    from webhook.lint import lint_text
    from webhook.manifests import Problem

    problems: list[Problem] = []
    for i, file in enumerate(run.files):
        if file.fixed is None or file.fixed.text == file.original:
            continue
        failure = write_file(file.source, file.fixed.text)
        if failure is not None:
            problems.append(Problem(file.source, f"not fixed: {failure}"))
            run.files[i] = lint_text(file.original, file.source, run.policies[file.source], inventory=inventory)
            continue
        for rewrite in file.fixed.rewrites:
            print(f"draguard: fixed {file.source}:{rewrite.line}:{rewrite.column}: {rewrite.before} → {rewrite.after}",
                  file=sys.stderr)
    return problems


