"""CLI configuration: `.draguard.yaml`, found for each input file by walking up from its directory
(like ruff and yamllint; stdin starts from the working directory). `--config FILE` applies one file to all.

The file is a policy (`webhook.policy`: per-rule actions, NUMA aliases, listTypes, `ignore` globs), the
same format the webhook's ConfigMap uses, so a repository and its cluster can share one file.
`ignore` globs are matched against each input file's path relative to the directory holding the
configuration (and as given on the command line); `*` also crosses `/`, so `vendor/*` skips a tree.
"""

from __future__ import annotations

import contextlib
import fnmatch
import logging
import os
from pathlib import Path

from msgspec import Struct

from webhook.errors import DraguardError
from webhook.policy import Policy

NAMES = (".draguard.yaml", ".draguard.yml")
STDIN_SOURCES = ("-", "<stdin>")
log = logging.getLogger(__name__)


class Config(Struct, frozen=True):
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
            if candidate.is_symlink():  # a link to nothing or a loop: not passed over either
                from webhook.manifests.sources import broken_link

                raise DraguardError(f"policy {candidate}: {broken_link(candidate) or 'cannot read'}")
            if candidate.is_dir():  # not passed over for a parent's configuration: that would change the policy
                raise DraguardError(f"{candidate}: a directory where draguard looks for its configuration file")
    return None


def load(explicit: str | None = None, *, cwd: Path | None = None) -> Config:
    """`--config FILE` when given, else the file discovered from `cwd` up, else the default policy."""
    from webhook.rules import BOOK  # the catalogue a policy's rule ids are checked against

    base = cwd or Path.cwd()
    path = (base / explicit) if explicit else find(base)
    if path is None:
        return Config(Policy.default(rules=BOOK), None, base)
    return Config(Policy.load(path, rules=BOOK), path, path.resolve().parent)


class Discovery:
    """The configuration of each input file: `--config` for all when given, else the nearest file above
    it. Directories and files already looked at are cached (a tree of 3,000 files reads each config once)."""

    def __init__(self, explicit: str | None = None, *, cwd: Path | None = None) -> None:
        self._cwd = cwd or Path.cwd()
        self._explicit = load(explicit, cwd=self._cwd) if explicit else None
        self._by_dir: dict[Path, Config] = {}
        self._by_file: dict[Path | None, Config] = {}
        self.lookups = self.hits = 0  # for -v: directories looked up, and answered from the cache

    def for_file(self, source: str) -> Config:
        if self._explicit is not None:
            return self._explicit
        directory = self._cwd if source in STDIN_SOURCES else (self._cwd / source).parent
        self.lookups += 1
        cached = self._by_dir.get(directory)
        if cached is not None:
            self.hits += 1
            return cached
        path = find(directory)
        config = self._by_file.get(path)
        if config is None:
            config = self._by_file[path] = load(str(path), cwd=self._cwd) if path else load(None, cwd=self._cwd)
            log.debug("configuration for %s: %s", directory, path or "none found, the default policy")
        self._by_dir[directory] = config
        return config
