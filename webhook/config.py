"""Lint configuration: `.draguard.yaml`, found by walking up from the working directory.

The file is a policy (`webhook.policy`: per-rule actions, NUMA aliases, listTypes, `ignore` globs), the
same format the webhook's ConfigMap uses, so a repository and its cluster can share one file.
`ignore` globs are matched against each input file's path relative to the directory holding the
configuration (and as given on the command line); `*` also crosses `/`, so `vendor/*` skips a tree.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path

from webhook.policy import Policy

NAMES = (".draguard.yaml", ".draguard.yml")


@dataclass(frozen=True, slots=True)
class Config:
    policy: Policy
    path: Path | None  # None: no file, defaults
    root: Path  # where relative ignore globs start

    def ignored(self, file: str) -> bool:
        if not self.policy.ignore:
            return False
        candidates = {Path(file).as_posix()}
        with contextlib.suppress(ValueError):  # another drive on Windows
            candidates.add(Path(os.path.relpath(Path(file).resolve(), self.root.resolve())).as_posix())
        return any(fnmatch.fnmatchcase(c, glob) or fnmatch.fnmatchcase(c, glob.rstrip("/") + "/*")
                   for c in candidates for glob in self.policy.ignore)


def find(start: Path) -> Path | None:
    """The nearest `.draguard.yaml` in `start` or a parent directory."""
    here = start.resolve()
    for directory in (here, *here.parents):
        for name in NAMES:
            candidate = directory / name
            if candidate.is_file():
                return candidate
    return None


def load(explicit: str | None = None, *, cwd: Path | None = None) -> Config:
    """`--config FILE` when given, else the discovered file, else the default policy."""
    base = cwd or Path.cwd()
    path = Path(explicit) if explicit else find(base)
    if path is None:
        return Config(Policy.default(), None, base)
    return Config(Policy.load(path), path, path.resolve().parent)
