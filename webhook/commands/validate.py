"""`draguard validate PATH...`: run the rule catalogue over manifests on disk, as the API server and
draguard's admission webhook would judge them.

Exit 0 when nothing is denied, 1 when a finding is denied, 2 when an input could not be read (reported
on stderr one line each, after everything else was checked) or the usage is wrong.

Reading is the slow part of validating (the rules take a few milliseconds per slice), so each file takes
the fastest reader that gives the same values: `json.loads` for JSON (its lines and columns are worked
out only when a finding needs one), libyaml for ordinary YAML, and ruamel for anything unusual, whose
messages are the reference for broken input.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from webhook.fieldpath import FieldPath
    from webhook.findings import Position
    from webhook.manifests import Problem
    from webhook.run import Locator
    from webhook.wire import Obj

HELP = "check ResourceSlices, claims and device classes in files against the rule catalogue"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from webhook.profiles.flags import add_profile_arguments
    from webhook.report import FORMATS

    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="files, directories (searched recursively for .yaml/.yml/.json) or - for stdin")
    parser.add_argument("--format", choices=sorted(FORMATS), default="text", help="output format (default: text)")
    parser.add_argument("--policy", metavar="FILE", help="policy file: per-rule actions and rule options")
    parser.add_argument("--list-types", choices=("enabled", "disabled"), default=None,
                        help="mirror a cluster with or without the DRAListTypeAttributes feature gate "
                        "(default: the policy's listTypes, else enabled)")
    add_profile_arguments(parser)


def run(args: argparse.Namespace) -> int:
    import sys
    from collections import Counter

    from webhook.findings import Action, Finding
    from webhook.policy import Policy
    from webhook.profiles.flags import apply_profile_arguments
    from webhook.report import Summary, render
    from webhook.rules.base import DRA_KINDS, RESOURCE_SLICE
    from webhook.run import run_rules
    from webhook.wire import kind_of

    policy = Policy.load(args.policy) if args.policy else Policy.default()
    policy = apply_profile_arguments(policy, args)
    if args.list_types is not None:
        policy = policy.with_list_types(args.list_types == "enabled")
    objects, loaded_problems = read_objects(args.paths, policy.ignore)
    slices = [o.obj for o in objects if kind_of(o.obj) == RESOURCE_SLICE]
    findings: list[Finding] = []
    skipped: Counter[str] = Counter()
    checked = suppressed = 0
    for placed in objects:
        kind = kind_of(placed.obj)
        if kind not in DRA_KINDS:
            skipped[kind or "<no kind>"] += 1
            continue
        outcome = run_rules(placed.obj, policy, manifest=placed.locator, slices=slices)
        checked += 1
        findings += outcome.findings
        suppressed += len(outcome.suppressed)
    problems = [str(p) for p in loaded_problems]
    summary = Summary(objects=checked, skipped=dict(skipped), suppressed=suppressed, problems=problems)
    sys.stdout.write(render(args.format, findings, summary, color=sys.stdout.isatty()))
    sys.stdout.flush()
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 2
    return 1 if any(f.action is Action.DENY for f in findings) else 0


@dataclass(frozen=True, slots=True)
class Placed:
    """One object read from a file, and where to look up the line and column of its fields."""

    obj: Obj
    locator: Locator


def read_objects(paths: list[str], ignore: tuple[str, ...] = ()) -> tuple[list[Placed], list[Problem]]:
    """Every object in `paths` (files, directories, `-`), skipping files that match an `ignore` glob."""
    import fnmatch
    import sys

    from webhook.manifests import _read_sources

    problems: list[Problem] = []
    objects: list[Placed] = []
    for source, text in _read_sources(paths, problems, sys.stdin):
        if not any(fnmatch.fnmatch(source, glob) for glob in ignore):
            objects += _parse(text, source, problems)
    return objects, problems


def _parse(text: str, source: str, problems: list[Problem]) -> list[Placed]:
    from webhook import fastyaml
    from webhook.manifests import load_text

    fast_json = _parse_json(text, source)
    if fast_json is not None:
        return fast_json
    docs = fastyaml.load(text, source)
    if docs is not None:
        return [Placed(d.obj, d) for d in docs]
    loaded = load_text(text, source)
    problems += loaded.problems
    return [Placed(m.obj, m) for m in loaded.manifests]


def _parse_json(text: str, source: str) -> list[Placed] | None:
    """A JSON object document read by `json.loads`; None when the text is not one (or is unusual)."""
    import json

    from webhook.manifests import _expand

    if not text.lstrip().startswith("{"):
        return None
    try:
        value = json.loads(text, object_pairs_hook=_object, parse_constant=_no_constant)
    except (ValueError, RecursionError):  # not JSON after all, a duplicate key, NaN: the YAML readers decide
        return None
    items = list(_expand(value, _root()))
    if not all(isinstance(item, dict) for _base, item in items):
        return None  # the YAML reader words the problem
    file = _JsonFile(source, text)
    return [Placed(item, _JsonObject(file, base)) for base, item in items]


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise ValueError("duplicate key")  # YAML 1.2 (and so ruamel) rejects it with a line number
    return obj


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _root() -> FieldPath:
    from webhook.fieldpath import FieldPath

    return FieldPath()


@dataclass(slots=True)
class _JsonFile:
    """A JSON text whose node tree is composed on the first position asked for (a clean file never pays)."""

    source: str
    text: str
    by_base: dict[str, Locator] | None = field(default=None, repr=False)

    def position(self, base: FieldPath, path: FieldPath) -> Position | None:
        if self.by_base is None:
            from webhook import fastyaml
            from webhook.manifests import load_text

            docs = fastyaml.load(self.text, self.source)
            located: list[Any] = docs if docs is not None else load_text(self.text, self.source).manifests
            self.by_base = {str(d.base): d for d in located}
        doc = self.by_base.get(str(base))
        return doc.position(path) if doc is not None else None


@dataclass(frozen=True, slots=True)
class _JsonObject:
    file: _JsonFile
    base: FieldPath

    def position(self, path: FieldPath) -> Position | None:
        return self.file.position(self.base, path)
