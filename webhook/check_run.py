"""The run behind `draguard lint` and `draguard validate`: one pipeline, so both give the same findings
for the same inputs, policy and inventory, in the same words, at the same speed.

    read inputs (webhook.manifests) -> the configuration of each file (nearest .draguard.yaml, or --config)
    -> skip ignored -> lint each file (libyaml fast path, worker processes on big inputs)
    -> [lint: --fix / --diff] -> Run (files with findings, problems)

Baselines, reports and the exit code are the commands' (`webhook.commands.reporting`).
An inventory (devices, classes) comes only from --slices, --classes or --cluster: a ResourceSlice among
the checked inputs is checked, never taken as the cluster's devices.
"""

from __future__ import annotations

import io
import logging
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol, TextIO

from msgspec import Struct, field

from webhook.errors import DraguardError

if TYPE_CHECKING:
    from webhook.findings import Finding
    from webhook.fix import Rewrite
    from webhook.forks import Ahead
    from webhook.lint import FileResult
    from webhook.manifests import Problem
    from webhook.policy import Policy
    from webhook.wire import Obj

log = logging.getLogger(__name__)
INVENTORY_KINDS = frozenset({"ResourceSlice", "DeviceClass"})
Listed = tuple[list["Obj"], list["Problem"]]  # the objects of --slices and --classes, the problems reading them


class Tracker(Protocol):
    """A progress display: told as files finish, closed at the end (`webhook.progress.Progress`)."""

    def advance(self, n: int) -> None: ...

    def close(self) -> None: ...


class Run(Struct):
    files: list[FileResult] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    policies: dict[str, Policy] = field(default_factory=dict)  # source -> its policy (for --fix re-lint)
    ignored: int = 0  # files an `ignore` glob skipped

    @property
    def objects(self) -> int:
        return sum(f.objects for f in self.files)

    def skipped(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for file in self.files:
            for kind, n in file.skipped.items():
                out[kind] = out.get(kind, 0) + n
        return out


class Inputs(NamedTuple):
    """What to check and with what: the command's flags, already checked for usage errors."""

    paths: Sequence[str]
    config: str | None = None  # --config: one policy file for every input
    tune: Callable[[Policy], Policy] = lambda policy: policy  # --enable/--disable/--list-types/profile
    slices: Sequence[str] = ()
    classes: Sequence[str] = ()
    cluster: bool = False
    kubeconfig: str | None = None  # with cluster: --kubeconfig and --context, as `draguard audit` takes them
    context: str | None = None
    jobs: int | None = None  # processes to lint with (None: as many as the input pays for; webhook.lint)
    listed: Callable[[], Listed] | None = None  # the --slices/--classes objects when read ahead (read_ahead)


def check(inputs: Inputs, *, fix: bool = False, stdin: TextIO | None = None,
          progress: Callable[[int], Tracker] | None = None) -> tuple[Run, tuple[Obj, ...]]:
    """Read and lint every input; with `fix`, each file's safe edits are applied in memory.
    `progress(total)` makes the display told as files finish."""
    from webhook.config import Discovery
    from webhook.gctune import release, tuned_gc
    from webhook.lint import lint_sources, warm_up
    from webhook.manifests import read_sources

    release()  # the imports are done; what is read from here on may hold cycles (webhook.gctune.until_exit)
    started = time.perf_counter()
    run = Run()
    by_index: dict[int, FileResult] = {}
    with tuned_gc():  # from the first object read: the inventory and the documents live to the end of the run
        discovery = Discovery(inputs.config)
        shared = shared_stdin(inputs, stdin, run.problems)
        ahead = inputs.listed is not None  # the inventory is being read in a forked process: wait for it last
        inventory = () if ahead else read_inventory(inputs, run.problems, shared)
        groups: dict[int, tuple[Policy, list[int]]] = {}
        read_problems: list[Problem] = []
        sources = list(read_sources(inputs.paths, read_problems, stdin if shared is None else io.StringIO(shared)))
        log.debug("read %d file(s) in %.3f s", len(sources), time.perf_counter() - started)
        for i, (source, _text) in enumerate(sources):
            cfg = discovery.for_file(source)
            if cfg.ignored(source):
                log.debug("%s: skipped by an ignore glob of %s", source, cfg.path)
                run.ignored += 1
                continue
            groups.setdefault(id(cfg), (inputs.tune(cfg.policy), []))[1].append(i)
        log.debug("configuration: %d lookup(s), %d cache hit(s), %d distinct policy(ies)", discovery.lookups,
                  discovery.hits, len(groups))
        if ahead:  # celext is imported while the other process reads the inventory, not after it
            warm_up([sources[i] for _policy, indexes in groups.values() for i in indexes])
            inventory = read_inventory(inputs, run.problems, shared)
        run.problems += read_problems  # after the inventory's, as they were read
        tracker = progress(sum(len(g) for _p, g in groups.values())) if progress is not None else None
        try:
            for policy, indexes in groups.values():
                files, problems = lint_sources([sources[i] for i in indexes], policy, inventory=inventory, fix=fix,
                                               jobs=inputs.jobs, done=tracker.advance if tracker is not None else None)
                by_index.update(zip(indexes, files, strict=True))
                run.problems += problems
                run.policies.update((sources[i][0], policy) for i in indexes)
        finally:
            if tracker is not None:
                tracker.close()
    run.files = [by_index[i] for i in sorted(by_index)]
    log.debug("checked %d file(s) in %.3f s", len(run.files), time.perf_counter() - started)
    return run, inventory


def read_ahead(slices: Sequence[str], classes: Sequence[str], jobs: int | None) -> Ahead[Listed] | None:
    """--slices and --classes read in a forked process while the caller goes on importing the rules and celext
    (the inventory is ready when the run needs it): with two CPUs or more, unless `--jobs 1` asks for one
    process or an inventory comes from stdin."""
    import os

    from webhook.forks import Ahead, can_fork
    from webhook.manifests import STDIN

    if not (slices or classes) or jobs == 1 or STDIN in (*slices, *classes) or not can_fork():
        return None
    if len(os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else range(os.cpu_count() or 1)) < 2:
        return None
    return Ahead(lambda: read_listed(slices, classes))


def shared_stdin(inputs: Inputs, stdin: TextIO | None, problems: list[Problem]) -> str | None:
    """Standard input's text, read once here, when several inputs name `-` (`lint - --slices -`, as for `explain -
    --slices -`): each of them reads that same text. None when one reader at most takes standard input as it is."""
    import sys

    from webhook.manifests import STDIN
    from webhook.manifests.sources import read_stdin

    if [*inputs.paths, *inputs.slices, *inputs.classes].count(STDIN) < 2:
        return None
    return read_stdin(stdin or sys.stdin, problems) or ""  # not UTF-8: one problem, and nothing to read


def read_listed(slices: Sequence[str], classes: Sequence[str], stdin_text: str | None = None) -> Listed:
    """The objects of --slices (ResourceSlices, DeviceClasses) and --classes (DeviceClasses), values first;
    `stdin_text` is what `-` reads when the caller read standard input already (shared_stdin)."""
    from webhook.gctune import release
    from webhook.manifests import read_values

    release()  # (in the process `read_ahead` forks too: input is read with the collector on)

    objects: list[Obj] = []
    problems: list[Problem] = []
    for paths, kinds in ((slices, INVENTORY_KINDS), (classes, frozenset({"DeviceClass"}))):
        if paths:
            found, found_problems = read_values(paths, kinds,
                                                stdin=None if stdin_text is None else io.StringIO(stdin_text))
            objects += found
            problems += found_problems
    return objects, problems


def read_inventory(inputs: Inputs, problems: list[Problem], stdin_text: str | None = None) -> tuple[Obj, ...]:
    """The devices and classes of --slices/--classes (values-first readers) and --cluster."""
    objects, listed_problems = (inputs.listed() if inputs.listed is not None
                                else read_listed(inputs.slices, inputs.classes, stdin_text))
    problems += listed_problems
    if inputs.cluster:
        import importlib.util

        if importlib.util.find_spec("kubernetes") is None:
            raise DraguardError("--cluster needs the server extra (the kubernetes client is not installed): "
                                "pip install 'draguard[server]'")
        from webhook.inventory import from_cluster

        try:
            objects += from_cluster(inputs.kubeconfig, inputs.context)
        except DraguardError as err:
            raise DraguardError(f"--cluster: {err.message}") from None
    if objects:
        log.debug("inventory: %d object(s)", len(objects))
    return tuple(objects)


def strict_failures(run: Run, findings: list[Finding]) -> list[str]:
    """Why `--strict` fails the run, one line each: nothing checked, a file with nothing to check, a rule
    that could not run (whatever action the policy gives it)."""
    from webhook.rules.runner import RULE_ERROR

    lines: list[str] = []
    if not any(f.objects for f in run.files):
        lines.append("nothing was checked: no ResourceSlice, ResourceClaim, ResourceClaimTemplate or DeviceClass "
                     "in the inputs")
    for file in run.files:
        if not file.objects:
            kinds = ", ".join(f"{k or '<no kind>'} {n}" for k, n in sorted(file.skipped.items()))
            lines.append(f"{file.source}: nothing checked ({kinds or 'no Kubernetes object'})")
    errors = sum(1 for f in findings if f.rule == RULE_ERROR)
    if errors:
        lines.append(f"{errors} rule error{'s' if errors != 1 else ''}: a rule could not run")
    return lines


def write_fixes(run: Run, inventory: tuple[Obj, ...]) -> tuple[list[tuple[str, Rewrite]], list[Problem]]:
    """Write each fixed file: its rewrites, and a problem for each file that cannot be written (that file is
    then reported as it is on disk)."""
    from webhook.fix import write_file
    from webhook.lint import lint_text
    from webhook.manifests import Problem

    written: list[tuple[str, Rewrite]] = []
    problems: list[Problem] = []
    for i, file in enumerate(run.files):
        if file.fixed is None or file.fixed.text == file.original:
            continue
        failure = write_file(file.source, file.fixed.text)
        if failure is not None:
            problems.append(Problem(file.source, f"not fixed: {failure}"))
            run.files[i] = lint_text(file.original, file.source, run.policies[file.source], inventory=inventory)
            continue
        written += [(file.source, rewrite) for rewrite in file.fixed.rewrites]
    return written, problems
