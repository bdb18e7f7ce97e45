"""The webhook's live policy: the `--policy` file, re-read when it changes, the old policy kept when it breaks.

A ConfigMap volume is updated by the kubelet swapping a `..data` symlink, so the file's device, inode, mtime
and size (read through the symlink) change together; a `subPath` mount never changes (kubernetes#50345), which
the documentation points out. The file is stat'ed at most once per `check_interval`, by whichever request
comes first, so an idle webhook does no work and no thread survives or misses a gunicorn fork. A new file that
does not load (bad YAML, unknown rule id, unreadable) is logged once and the previous policy stays in force.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from webhook.errors import DraguardError
from webhook.policy import Policy

log = logging.getLogger(__name__)

_Stamp = tuple[int, int, int, int]
_MISSING: _Stamp = (-1, -1, -1, -1)


@dataclass(frozen=True, slots=True)
class Reload:
    """The outcome of the last look at the file: when, and the error that kept the old policy (if any)."""

    loaded_at: float
    error: str | None = None


def _stamp(path: Path) -> _Stamp:
    try:
        st = os.stat(path)
    except OSError:
        return _MISSING
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)


class PolicyStore:
    """Thread-safe holder of the current `Policy`; `current()` is what a request reads."""

    def __init__(
        self,
        path: Path | str | None = None,
        *,
        check_interval: float = 1.0,
        on_reload: Callable[[str | None], None] | None = None,
    ) -> None:
        """Load `path` now (DraguardError when it does not load: nothing to serve yet); no path = default policy.

        `on_reload(error)` is called after each attempt to load a changed file (error None on success).
        """
        self.path = Path(path) if path is not None else None
        self.check_interval = check_interval
        self.on_reload = on_reload
        self._lock = threading.Lock()
        self._stamp = _stamp(self.path) if self.path is not None else _MISSING
        self._policy = Policy.load(self.path) if self.path is not None else Policy.default()
        self._rejected: _Stamp | None = None
        self._checked = time.monotonic()
        self.last = Reload(time.time())
        self.reloads = 0  # successful reloads after the first load

    @classmethod
    def fixed(cls, policy: Policy) -> PolicyStore:
        """A store that never reloads (tests, `draguard validate`-like callers)."""
        store = cls(None)
        store._policy = policy
        return store

    @property
    def source(self) -> str:
        return self._policy.source

    def current(self) -> Policy:
        """The policy in force, after a cheap check of the file when `check_interval` has passed."""
        due = self.path is not None and time.monotonic() - self._checked >= self.check_interval
        if due and self._lock.acquire(blocking=False):  # one request re-reads; the others use the current policy
            try:
                self._checked = time.monotonic()
                self._reload_locked()
            finally:
                self._lock.release()
        return self._policy

    def reload(self) -> bool:
        """Look at the file now; True when a new policy is in force."""
        if self.path is None:
            return False
        with self._lock:
            self._checked = time.monotonic()
            return self._reload_locked()

    def _reload_locked(self) -> bool:
        assert self.path is not None
        stamp = _stamp(self.path)
        if stamp in (self._stamp, self._rejected):
            return False
        try:
            fresh = Policy.load(self.path)
        except DraguardError as err:
            self._rejected = stamp
            self.last = Reload(time.time(), err.message)
            log.error("keeping the previous policy: %s", err.message)
            if self.on_reload is not None:
                self.on_reload(err.message)
            return False
        self._policy, self._stamp, self._rejected = fresh, stamp, None
        self.last = Reload(time.time())
        self.reloads += 1
        log.info("policy reloaded from %s", self.path)
        if self.on_reload is not None:
            self.on_reload(None)
        return True
