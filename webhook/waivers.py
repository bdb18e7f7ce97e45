"""Waivers that stay in the repository and never ship into the cluster.

A YAML comment waives rules on one line:

    expression: device.attributes["gpu.example.com"].model == "A1"  # draguard: ignore[list-fragile-compare] old fleet
    # draguard: ignore[selector-numa-pinned,list-fragile-compare] single-socket nodes only
    expression: device.attributes["resource.kubernetes.io"].numaNode == 1

A comment after YAML text waives findings on its own line; a comment alone on its line waives the next
line that holds YAML. As with the `draguard.io/ignore` annotation a reason is required: a waiver without
one, or naming an unknown rule, waives nothing and is itself reported (`suppression-reason-missing`).

A baseline file records the findings a repository already has (`--write-baseline`), so adopting draguard
on a big repository fails CI only for new findings (`--baseline FILE`). Entries match by file, rule, field
path and message, not by line, so edits elsewhere in a file keep them matching. Files are recorded relative
to the baseline file's directory, so the baseline matches whether CI names `deploy/`, `$PWD/deploy` or runs
from another directory (an entry of an older baseline, relative to where it was written, still matches a
file named the same way).
"""

from __future__ import annotations

import difflib
import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from msgspec import Struct

from webhook.errors import DraguardError
from webhook.fieldpath import FieldPath
from webhook.findings import Finding, Position
from webhook.wire import go_json

MARKER = "draguard:"
REASON_RULE = "suppression-reason-missing"
_COMMENT = re.compile(r"(?:^|\s)#\s*draguard:\s*ignore\[([^\]]*)\]\s*(.*?)\s*$")
BASELINE_VERSION = 1


class Waiver(Struct, frozen=True):
    rules: frozenset[str]
    comment_line: int  # 1-based line of the comment itself


def comment_waivers(text: str, source: str, known: Iterable[str]) -> tuple[dict[int, Waiver], list[Finding]]:
    """Waivers by the line they apply to, and one finding per waiver that waives nothing (no reason,
    unknown rule). Cheap on files without the marker. Lines end at `\\n` alone, as findings are placed: not at the
    VT, FF, FS, GS, RS, NEL, LS or PS `str.splitlines` also breaks at."""
    if MARKER not in text:
        return {}, []
    known_rules = set(known)
    waivers: dict[int, Waiver] = {}
    problems: list[Finding] = []
    pending: list[tuple[int, frozenset[str]]] = []  # comments alone on their line, waiting for YAML
    for number, line in enumerate(text.split("\n"), start=1):  # YAML's lines (the reader made CR LF and CR `\n`)
        match = _COMMENT.search(line)
        stripped = line.strip()
        if match is None:
            if stripped and not stripped.startswith("#") and pending:
                for comment_line, rules in pending:
                    waivers[number] = _merge(waivers.get(number), rules, comment_line)
                pending = []
            continue
        names = [r.strip() for r in match.group(1).split(",") if r.strip()]
        column = match.start() + (1 if line[match.start()].isspace() else 0) + 1
        where = Position(source, number, column)
        unknown = [r for r in names if r not in known_rules]
        if unknown:
            problems.append(_problem(where, f"`# draguard: ignore[...]` names unknown rule {unknown[0]!r}"
                                            f"{did_you_mean(unknown[0], known_rules)}, so it waives nothing"))
            continue
        if not names or not match.group(2):
            problems.append(_problem(where, "`# draguard: ignore[...]` gives no rule or no reason, so it "
                                            "waives nothing", hint="write `# draguard: ignore[<rule>] <reason>`"))
            continue
        if line[: match.start()].strip():
            waivers[number] = _merge(waivers.get(number), frozenset(names), number)
        else:
            pending.append((number, frozenset(names)))
    return waivers, problems


def _merge(old: Waiver | None, rules: frozenset[str], comment_line: int) -> Waiver:
    return Waiver(rules | (old.rules if old is not None else frozenset()), comment_line)


def _problem(where: Position, message: str, hint: str = "") -> Finding:
    return Finding(FieldPath(), message, hint=hint, rule=REASON_RULE, position=where)


def waived(finding: Finding, waivers: dict[int, Waiver], lines: Iterable[int]) -> bool:
    """Whether a waiver on one of `lines` (the token's line, the field's line) names the finding's rule."""
    return any(finding.rule in w.rules for line in lines if (w := waivers.get(line)) is not None)


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`; did you mean 'x'?` for the closest choice, or nothing."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


# -- baseline ----------------------------------------------------------------------------------------

Key = tuple[str, str, str, str]


def key(finding: Finding, base: str | None = None) -> Key:
    """A finding's baseline entry; with `base` (the baseline file's directory), its file relative to it."""
    file = finding.position.file if finding.position is not None else ""
    if base is not None and file and file != "-" and not file.startswith("<"):
        file = Path(os.path.relpath(os.path.abspath(file), base)).as_posix()
    return (file, finding.rule, str(finding.path), finding.message)


def _base(path: str) -> str:
    return os.path.dirname(os.path.abspath(path))


def load_baseline(path: str) -> Counter[Key]:
    """The baseline's entries (a multiset); a missing or malformed file is one DraguardError line."""
    from webhook.manifests.sources import NotText, cannot_read, read_file

    try:
        data = json.loads(go_json(read_file(path)))
    except FileNotFoundError:
        raise DraguardError(f"--baseline {path}: no such file (create it with --write-baseline)") from None
    except (NotText, OSError) as err:
        raise DraguardError(f"--baseline {path}: {cannot_read(err)}") from None
    except ValueError as err:
        raise DraguardError(f"--baseline {path}: invalid JSON: {err}") from None
    entries = data.get("findings") if isinstance(data, dict) and data.get("version") == BASELINE_VERSION else None
    if not isinstance(entries, list) or not all(_entry_ok(e) for e in entries):
        raise DraguardError(f"--baseline {path}: not a draguard baseline (version {BASELINE_VERSION}, "
                            "findings: [{file, rule, path, message}])")
    return Counter((e["file"], e["rule"], e["path"], e["message"]) for e in entries)


def _entry_ok(entry: object) -> bool:
    return isinstance(entry, dict) and all(isinstance(entry.get(k), str) for k in ("file", "rule", "path", "message"))


def write_baseline(path: str, findings: Sequence[Finding]) -> None:
    base = _base(path)
    entries = [dict(zip(("file", "rule", "path", "message"), k, strict=True))
               for k in sorted(key(f, base) for f in findings)]
    text = json.dumps({"version": BASELINE_VERSION, "findings": entries}, indent=2) + "\n"
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as err:
        raise DraguardError(f"--write-baseline {path}: cannot write: {err.strerror or err}") from None


def apply_baseline(findings: Sequence[Finding], baseline: Counter[Key], path: str) -> tuple[list[Finding], int, int]:
    """Findings not in the baseline at `path`, how many it matched, and how many of its entries matched nothing."""
    left = Counter(baseline)
    base = _base(path)
    kept: list[Finding] = []
    for finding in findings:
        for k in (key(finding, base), key(finding)):  # relative to the baseline; as named (an older baseline)
            if left[k] > 0:
                left[k] -= 1
                break
        else:
            kept.append(finding)
    stale = sum(left.values())
    return kept, len(findings) - len(kept), stale
