"""Paths as a user gives them -> `(source, text)` pairs: files, directories, glob patterns and `-` (stdin).

A directory is searched recursively for *.yaml, *.yml and *.json, skipping hidden files and folders; a
pattern (`slices/*.yaml`, `deploy/**/*.json`) that names no existing file is expanded like a shell would,
for CI configurations that pass patterns quoted. Every unreadable input is one `Problem`; reading goes on.
"""

from __future__ import annotations

import fnmatch
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TextIO

from webhook.manifests.problems import Problem

SUFFIXES = (".yaml", ".yml", ".json")
STDIN = "-"
STDIN_SOURCE = "<stdin>"
_GLOB_CHARS = frozenset("*?[")


def read_sources(paths: Iterable[str], problems: list[Problem], stdin: TextIO | None = None
                 ) -> Iterator[tuple[str, str]]:
    """Every input text in order; problems are appended to `problems` as they are met."""
    for raw in paths:
        if raw == STDIN:
            text = _stdin_text(stdin or sys.stdin)
            if text is None:
                problems.append(Problem(STDIN_SOURCE, "not UTF-8 text"))
            else:
                yield STDIN_SOURCE, text
            continue
        for file in _files(raw, problems):
            try:
                yield str(file), file.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                problems.append(Problem(str(file), "not UTF-8 text"))
            except OSError as err:
                problems.append(Problem(str(file), f"cannot read: {err.strerror or err}"))


def _stdin_text(stream: TextIO) -> str | None:
    """Standard input as UTF-8 text, as a file is read (None when it is not): Python's own stdin decoding would
    pass the bad bytes on as lone surrogates for the YAML reader to trip over."""
    raw = getattr(stream, "buffer", None)
    if raw is None:  # a text stream a caller handed in
        return stream.read()
    try:
        return str(raw.read().decode("utf-8"))
    except UnicodeDecodeError:
        return None


def ignored(source: str, globs: Sequence[str]) -> bool:
    """Whether a source matches one of `ignore`'s globs (fnmatch, as a policy's `ignore` list says)."""
    return any(fnmatch.fnmatch(source, pattern) for pattern in globs)


def _files(raw: str, problems: list[Problem]) -> list[Path]:
    path = Path(raw)
    if path.is_dir():
        files = _directory(path)
        if not files:
            problems.append(Problem(raw, "no .yaml, .yml or .json files in this directory"))
        return files
    if path.exists():
        return [path]
    if path.is_symlink():  # a link to nothing, or a loop of links: say which, not "no such file"
        try:
            path.stat()
        except OSError as err:
            reason = "a symbolic link to a missing file" if isinstance(err, FileNotFoundError) else err.strerror
            problems.append(Problem(raw, f"cannot read: {reason or err}"))
            return []
    if _GLOB_CHARS & set(raw):
        import glob  # only for a pattern passed quoted

        matches = sorted(glob.glob(raw, recursive=True))
        if not matches:
            problems.append(Problem(raw, "no file matches this pattern"))
        found: list[Path] = []
        for match in map(Path, matches):
            found += _directory(match) if match.is_dir() else [match]
        return found
    problems.append(Problem(raw, "no such file or directory"))
    return []


def _directory(path: Path) -> list[Path]:
    return sorted(
        p for p in path.rglob("*")
        if p.is_file() and p.suffix in SUFFIXES
        and not any(part.startswith(".") for part in p.relative_to(path).parts)
    )
