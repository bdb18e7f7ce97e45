"""The lint pipeline behind `draguard lint`: files -> objects -> rules -> findings with exact positions.

    read files (webhook.manifests: dirs, globs, `-`; libyaml fast path, ruamel fallback) -> run_rules per DRA object
    -> place findings: the scalar's line/column, or the exact token inside a CEL expression (Finding.span)
    -> optionally apply the safe fixes (webhook.fix) and lint the fixed text again

Positions inside a scalar account for its YAML style (plain, quoted, `|`, `>`), see `webhook.spans`.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from msgspec import Struct, field
from msgspec.structs import replace

from webhook import gctune
from webhook.fieldpath import FieldPath
from webhook.findings import Action, Edit, Finding, Position
from webhook.manifests import Locator, Problem, libyaml, parse, read_sources, read_values, value_at
from webhook.manifests.objects import read_as
from webhook.policy import Policy
from webhook.rules.base import DRA_KINDS
from webhook.rules.runner import RULE_ERROR  # the finding of a rule that raised; deny by default
from webhook.run import run_rules, sort_key, source_path
from webhook.spans import LineIndex, after_properties, value_offsets
from webhook.suggest import with_suggestion
from webhook.waivers import REASON_RULE, comment_waivers, waived
from webhook.wire import Obj, kind_of

if TYPE_CHECKING:
    from webhook.fix import Result, Target  # only --fix and --diff run the fix pass

log = logging.getLogger(__name__)
tuned_gc = gctune.tuned_gc  # where `webhook.commands.audit` and bench_lint take it


class FileResult(Struct):
    source: str
    text: str  # the text the findings are about (the fixed text after --fix)
    original: str = ""  # the text as read, when a fix pass changed it
    findings: list[Finding] = field(default_factory=list)
    suppressed: int = 0
    objects: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    fixed: Result | None = None  # the fix pass, when asked for
    fixable: list[tuple[Locator, Finding]] = field(default_factory=list)  # for the fix pass


class LintResult(Struct):
    files: list[FileResult] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def findings(self) -> list[Finding]:
        return sorted((f for r in self.files for f in r.findings), key=sort_key)

    @property
    def objects(self) -> int:
        return sum(r.objects for r in self.files)

    @property
    def suppressed(self) -> int:
        return sum(r.suppressed for r in self.files)

    def skipped(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.files:
            for kind, n in r.skipped.items():
                out[kind] = out.get(kind, 0) + n
        return out


# Each process of a lint gets at least this much input text: below it a fork (~2 ms here, a few more in the
# child) and the selectors it compiles again cost more than its share saves (corpus: 255 KB, 140 files).
PROCESS_MIN_CHARS = 48_000


def lint_paths(paths: Sequence[str], policy: Policy, *, inventory: Sequence[Obj] = (), fix: bool = False,
               ignored: Any = None, stdin: TextIO | None = None, jobs: int | None = None) -> LintResult:
    """Lint every file; with `fix`, each file's safe edits are applied to `FileResult.fixed.text`."""
    result = LintResult()
    sources = [(source, text) for source, text in read_sources(paths, result.problems, stdin)
               if ignored is None or not ignored(source)]
    files, problems = lint_sources(sources, policy, inventory=inventory, fix=fix, jobs=jobs)
    result.files, result.problems = files, result.problems + problems
    return result


def lint_sources(sources: Sequence[tuple[str, str]], policy: Policy, *, inventory: Sequence[Obj] = (),
                 fix: bool = False, jobs: int | None = None,
                 done: Callable[[int], None] | None = None) -> tuple[list[FileResult], list[Problem]]:
    """Lint `(source, text)` pairs; `done(n)` is called as files finish (for a progress line).

    With `jobs` (None: one per CPU, as the input's size pays for) the files are spread over forked processes
    (`webhook.forks`); results and log lines come back in input order, so output does not depend on the split.
    """
    from webhook.forks import map_forked

    started = time.perf_counter()
    workers = processes(jobs, sources)
    log.debug("linting %d file(s) with policy %s in %d process(es)", len(sources), policy.source, workers)

    def one(i: int) -> tuple[FileResult, list[Problem]]:
        problems: list[Problem] = []
        return _lint_one(sources[i][0], sources[i][1], policy, inventory, fix=fix, problems=problems), problems

    if workers > 1:
        warm_up(sources, inventory)
    with gctune.frozen():
        outcomes = map_forked(one, [len(text) for _s, text in sources], workers, done)
    files = [file for file, _p in outcomes]
    problems = [problem for _f, found in outcomes for problem in found]
    log.debug("linted %d file(s) in %.3f s", len(sources), time.perf_counter() - started)
    return files, problems


def warm_up(sources: Sequence[tuple[str, str]], inventory: Sequence[Obj] = ()) -> None:
    """What every process needs, imported and built once before the fork rather than in each worker: when some
    input has a selector, celext's front end, engine and analysis (imported lazily, on first use), and the
    devices of the inventory as the selector rules read them (`webhook.inventory`, ~10 ms on the corpus). The
    run calls it early too, while a forked process reads the inventory (`webhook.check_run`); a second call
    costs nothing."""
    if not any("expression" in text for _source, text in sources):
        return
    import celext
    import webhook.rules.selectors_outcomes  # noqa: F401  (the selector rules import it where they run)

    celext.analyze("true")
    celext.compile("true")
    if inventory:
        from webhook.inventory import inventory_of

        inventory_of(inventory)  # kept per sequence: the rules find it built, in every process


def _lint_one(source: str, text: str, policy: Policy, inventory: Sequence[Obj], *, fix: bool,
              problems: list[Problem]) -> FileResult:
    file_result = lint_text(text, source, policy, inventory=inventory, problems=problems)
    if fix:
        fixed = fix_text(file_result)
        if fixed.text != text:
            file_result = lint_text(fixed.text, source, policy, inventory=inventory, problems=[])
        file_result.original = text
        file_result.fixed = fixed
    # Keeping every document's node tree alive would make each garbage collection walk all of them (and a
    # worker process could not send them back).
    file_result.fixable = []
    return file_result


def processes(jobs: int | None, sources: Sequence[tuple[str, str]]) -> int:
    """How many processes lint `sources`: `jobs` when given; else one per CPU this process may run on, as
    many as get PROCESS_MIN_CHARS of input each. One where fork is missing."""
    import os

    from webhook.forks import can_fork

    if not can_fork() or len(sources) < 2:
        return 1
    if jobs is not None:
        return max(1, min(jobs, len(sources)))
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cpus, len(sources), sum(len(text) for _s, text in sources) // PROCESS_MIN_CHARS))


def read_objects(paths: Sequence[str], kinds: frozenset[str]) -> tuple[list[Obj], list[Problem]]:
    """Objects of the given kinds for an inventory (--slices, --classes)."""
    return read_values(paths, kinds)


def lint_text(text: str, source: str, policy: Policy, *, inventory: Sequence[Obj] = (),
              problems: list[Problem] | None = None) -> FileResult:
    result = FileResult(source, text)
    index: LineIndex | None = None
    offsets: dict[tuple[int, FieldPath], list[int] | None] = {}  # one selector's findings share its scalar's walk
    located = parse(text, source, problems if problems is not None else [])
    waivers, waiver_problems = comment_waivers(text, source, known_rules())
    for doc in located:
        kind = kind_of(doc.obj)
        if kind not in DRA_KINDS:
            result.skipped[kind] = result.skipped.get(kind, 0) + 1
            continue
        result.objects += 1
        outcome = run_rules(doc.obj, policy, slices=inventory)
        result.suppressed += len(outcome.suppressed)
        for finding in outcome.findings:
            if index is None:
                index = LineIndex(text)
            position = _place(finding, doc, source, text, index, offsets)
            placed = with_suggestion(replace(finding, position=position, hint=_hint(finding, doc, text)), inventory)
            if waivers and _waived(placed, doc, waivers):
                result.suppressed += 1
                continue
            result.findings.append(placed)
            if finding.fix is not None and finding.fix.safe:
                result.fixable.append((doc, finding))
    reason_action = policy.action(REASON_RULE)
    if reason_action is not Action.OFF:
        result.findings += [f.stamped(REASON_RULE, reason_action) for f in waiver_problems]
    result.findings.sort(key=sort_key)
    return result


def _waived(finding: Finding, doc: Locator, waivers: dict[int, Any]) -> bool:
    """A `# draguard: ignore[rule]` comment on the token's line or on the line of the field holding it."""
    lines = [finding.position.line] if finding.position is not None else []
    field_position = doc.position(source_path(doc.obj, finding.path))
    if field_position is not None:
        lines.append(field_position.line)
    return waived(finding, waivers, lines)


@functools.cache
def known_rules() -> frozenset[str]:
    """Rule ids a waiver may name: the catalogue, and `rule-error` (a rule that raised)."""
    from webhook.rules import CATALOGUE

    return frozenset(CATALOGUE) | {RULE_ERROR}


def _hint(finding: Finding, doc: Locator, text: str) -> str:
    """The finding's hint, and what kubectl makes of the unquoted YAML 1.1 word or number it is about (`on` is
    true, `010` is 8), read from the text where the value is written: the readers keep nothing for it."""
    note = read_as(doc, source_path(doc.obj, finding.path), text) if finding.span is None else None
    if note is None:
        return finding.hint
    return f"{finding.hint}; {note}" if finding.hint else note


def _place(finding: Finding, doc: Locator, source: str, text: str, index: LineIndex,  # noqa: PLR0917
           walked: dict[tuple[int, FieldPath], list[int] | None]) -> Position | None:
    """The exact token when the finding has a span inside a string scalar; else where the field is.
    `walked` remembers each scalar's character offsets (None: not a string scalar, or not placeable) for the
    file's other findings at the same field: a selector's findings share one lookup and one walk. A path as the
    API server names it is looked up where the file writes it (`run.source_path`: v1beta1 layouts)."""
    written = source_path(doc.obj, finding.path)
    if finding.span is not None:
        key = (id(doc), finding.path)  # the documents live as long as `walked`
        if key in walked:
            offsets = walked[key]
        else:
            start = doc.scalar_start(written)
            value = value_at(doc.obj, written)
            offsets = walked[key] = (value_offsets(text, after_properties(text, start), value)
                                     if start is not None and isinstance(value, str) else None)
        if offsets is not None:
            lo, hi = finding.span
            last = len(offsets) - 1  # the value's length
            line, column = index.line_column(offsets[min(lo, last)])
            end_line, end_column = index.line_column(offsets[min(hi, last)])
            return Position(source, line, column, end_line, end_column)
    return doc.position(written)


def fix_text(result: FileResult) -> Result:
    """Apply the safe edits of `result`'s findings to its text (the rules already ran in `lint_text`)."""
    from webhook.fix import Result, Target, apply_edits
    # By the scalar's place: selectors that are one scalar (an alias of an anchored `cel:` mapping) are fixed once.
    groups: dict[int, tuple[Target, list[Edit]]] = {}
    for doc, finding in result.fixable:
        assert finding.fix is not None
        written = source_path(doc.obj, finding.path)
        start = doc.scalar_start(written)
        value = value_at(doc.obj, written)
        if start is None or not isinstance(value, str):
            continue
        target = Target(doc.base.join(written), doc.document, start, value)
        groups.setdefault(start, (target, []))[1].append(finding.fix)
    if not groups:
        return Result(result.text, 0, [])
    cache: dict[str, list[Any] | None] = {}

    def read_back(text: str, target: Target) -> str | None:
        if text not in cache:
            cache.clear()
            cache[text] = libyaml.documents(text)
        documents = cache[text]
        if documents is None:
            from webhook.manifests import roundtrip

            return roundtrip.value_at_document(text, target.document, target.path)
        return libyaml.value_in(documents, target.document, target.path)

    return apply_edits(result.text, list(groups.values()), read_back)


def diffs(files: Iterable[FileResult]) -> tuple[list[str], list[Problem]]:
    """The diff of each file the fix pass changed; a problem instead for each whose fix `--fix` would not write
    (`webhook.fix.refusal` decides for both)."""
    from pathlib import Path

    from webhook.fix import refusal, unified_diff

    changed: list[str] = []
    problems: list[Problem] = []
    for file in files:
        if file.fixed is None or file.fixed.text == file.original:
            continue
        try:
            refused = refusal(Path(file.source).read_bytes())
        except OSError as err:
            refused = f"cannot read: {err.strerror or err}"
        if refused is not None:
            problems.append(Problem(file.source, f"not fixed: {refused}"))
        else:
            changed.append(unified_diff(file.original, file.fixed.text, file.source))
    return changed, problems
