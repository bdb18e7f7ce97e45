"""The lint pipeline behind `draguard lint`: files -> objects -> rules -> findings with exact positions.

    read files (dirs, `-`) -> parse (libyaml fast path, ruamel fallback) -> run_rules per DRA object
    -> place findings: the scalar's line/column, or the exact token inside a CEL expression (Finding.span)
    -> optionally apply the safe fixes (webhook.fix) and lint the fixed text again

Positions inside a scalar account for its YAML style (plain, quoted, `|`, `>`), see `webhook.spans`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TextIO

from webhook import fastyaml
from webhook.fieldpath import FieldPath
from webhook.findings import Finding, Position
from webhook.fix import Result, Target, apply_edits, safe_edits, unified_diff
from webhook.manifests import Manifest, Problem, _read_sources, load_text
from webhook.policy import Policy
from webhook.rules.base import DRA_KINDS
from webhook.run import run_rules, sort_key
from webhook.spans import LineIndex, value_offsets
from webhook.wire import Obj, kind_of


class Located(Protocol):
    """An object read from a file that can say where its fields are."""

    @property
    def obj(self) -> Obj: ...

    @property
    def document(self) -> int: ...

    @property
    def base(self) -> FieldPath: ...

    def position(self, path: FieldPath) -> Position | None: ...

    def scalar_start(self, path: FieldPath) -> int | None: ...


@dataclass(frozen=True, slots=True)
class _Ruamel:
    """A `Manifest` (ruamel) seen through the `Located` interface."""

    manifest: Manifest

    @property
    def obj(self) -> Obj:
        return self.manifest.obj

    @property
    def document(self) -> int:
        return self.manifest.document

    @property
    def base(self) -> FieldPath:
        return self.manifest.base

    def position(self, path: FieldPath) -> Position | None:
        return self.manifest.position(path)

    def scalar_start(self, path: FieldPath) -> int | None:
        if not isinstance(_value_at(self.obj, path), str):
            return None
        pos = self.manifest.position(path)
        return None if pos is None else self.manifest.offset(pos.line, pos.column)


@dataclass(slots=True)
class FileResult:
    source: str
    text: str  # the text the findings are about (the fixed text after --fix)
    original: str = ""  # the text as read, when a fix pass changed it
    findings: list[Finding] = field(default_factory=list)
    suppressed: int = 0
    objects: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    fixed: Result | None = None  # the fix pass, when asked for


@dataclass(slots=True)
class LintResult:
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


def lint_paths(paths: Sequence[str], policy: Policy, *, inventory: Sequence[Obj] = (), fix: bool = False,
               ignored: Any = None, stdin: TextIO | None = None) -> LintResult:
    """Lint every file; with `fix`, each file's safe edits are applied to `FileResult.fixed.text`."""
    result = LintResult()
    for source, text in _read_sources(paths, result.problems, stdin):
        if ignored is not None and ignored(source):
            continue
        file_result = lint_text(text, source, policy, inventory=inventory, problems=result.problems)
        if fix:
            fixed = fix_text(file_result, policy, inventory)
            if fixed.text != text:
                file_result = lint_text(fixed.text, source, policy, inventory=inventory, problems=[])
            file_result.original = text
            file_result.fixed = fixed
        result.files.append(file_result)
    return result


def read_objects(paths: Sequence[str], kinds: frozenset[str]) -> tuple[list[Obj], list[Problem]]:
    """Objects of the given kinds from files (for --slices); problems as for linted files."""
    problems: list[Problem] = []
    objects: list[Obj] = []
    for source, text in _read_sources(paths, problems, None):
        for doc in _parse(text, source, problems):
            if kind_of(doc.obj) in kinds:
                objects.append(doc.obj)
    return objects, problems


def _parse(text: str, source: str, problems: list[Problem]) -> list[Located]:
    docs = fastyaml.load(text, source)
    if docs is not None:
        return list(docs)
    loaded = load_text(text, source)
    problems.extend(loaded.problems)
    return [_Ruamel(m) for m in loaded.manifests]


def lint_text(text: str, source: str, policy: Policy, *, inventory: Sequence[Obj] = (),
              problems: list[Problem] | None = None) -> FileResult:
    result = FileResult(source, text)
    index: LineIndex | None = None
    located = _parse(text, source, problems if problems is not None else [])
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
            result.findings.append(replace(finding, position=_place(finding, doc, source, text, index)))
    result.findings.sort(key=sort_key)
    return result


def _place(finding: Finding, doc: Located, source: str, text: str, index: LineIndex) -> Position | None:
    """The exact token when the finding has a span inside a string scalar; else where the field is."""
    if finding.span is not None:
        start = doc.scalar_start(finding.path)
        value = _value_at(doc.obj, finding.path)
        if start is not None and isinstance(value, str):
            offsets = value_offsets(text, start, value)
            if offsets is not None:
                lo, hi = finding.span
                line, column = index.line_column(offsets[min(lo, len(value))])
                end_line, end_column = index.line_column(offsets[min(hi, len(value))])
                return Position(source, line, column, end_line, end_column)
    return doc.position(finding.path)


def fix_text(result: FileResult, policy: Policy, inventory: Sequence[Obj]) -> Result:
    """Apply the safe edits of `result.findings` to its text."""
    docs = _parse(result.text, result.source, [])
    groups: dict[tuple[int, str], tuple[Target, list[Any]]] = {}
    for doc in docs:
        if kind_of(doc.obj) not in DRA_KINDS:
            continue
        outcome = run_rules(doc.obj, policy, slices=inventory)
        by_path: dict[str, list[Finding]] = {}
        for finding in outcome.findings:
            by_path.setdefault(str(finding.path), []).append(finding)
        for findings in by_path.values():
            edits = safe_edits(findings)
            path = findings[0].path
            start = doc.scalar_start(path)
            value = _value_at(doc.obj, path)
            if not edits or start is None or not isinstance(value, str):
                continue
            target = Target(doc.base.join(path), doc.document, start, value)
            groups[(doc.document, str(target.path))] = (target, edits)

    def read_back(text: str, target: Target) -> str | None:
        return fastyaml.value_at(text, target.document, target.path) or _ruamel_value(text, target)

    return apply_edits(result.text, list(groups.values()), read_back)


def _ruamel_value(text: str, target: Target) -> str | None:
    for manifest in load_text(text, "<fix>").manifests:
        if manifest.document == target.document:
            value = _value_at(_root(manifest), target.path)
            return value if isinstance(value, str) else None
    return None


def _root(manifest: Manifest) -> Any:
    from webhook.manifests import plain

    return plain(manifest.node)


def _value_at(obj: Any, path: FieldPath) -> Any:
    node = obj
    for segment, _is_key in path.steps():
        if isinstance(segment, int):
            node = node[segment] if isinstance(node, list) and 0 <= segment < len(node) else None
        else:
            node = node.get(segment) if isinstance(node, dict) else None
        if node is None:
            return None
    return node


def diffs(result: LintResult) -> Iterable[str]:
    for file in result.files:
        if file.fixed is not None and file.fixed.text != file.original:
            yield unified_diff(file.original, file.fixed.text, file.source)
