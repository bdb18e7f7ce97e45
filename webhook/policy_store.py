"""The webhook's live policy: the `--policy` file, re-read when it changes, the old policy kept when it breaks.

A ConfigMap volume is updated by the kubelet swapping a `..data` symlink, so the file's device, inode, mtime
and size (read through the symlink) change together; a `subPath` mount never changes (kubernetes#50345), which
the documentation points out. The file is stat'ed at most once per `check_interval`, by whichever request
comes first, so an idle webhook does no work and no thread survives or misses a gunicorn fork. A new file that
does not load (bad YAML, unknown rule id, unreadable) is logged once and the previous policy stays in force.

One policy across workers (`draguard serve`): only the gunicorn master reads the file (`PolicyPublisher`,
a thread polling every `check_interval`); what loads is written, validated, into a private channel directory
(`<hash>.yaml`, then `state.json` renamed into place), and each worker's `PolicyFollower` looks at the state
before every request. A change therefore reaches every worker within `check_interval` (1 s by default) plus
the load, all at the same moment (the rename), or, when the new file does not load, none: the error is in the
state every worker reports on /readyz. The active policy's hash (`policy_hash`) names it in /readyz, the
`draguard_policy_info` metric and every log line.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from msgspec import Struct

from webhook.errors import DraguardError
from webhook.policy import Policy
from webhook.rules import BOOK  # the catalogue a policy file's rule ids are checked against

log = logging.getLogger(__name__)

_Stamp = tuple[int, int, int, int]
_MISSING: _Stamp = (-1, -1, -1, -1)
DEFAULT_HASH = "default"
# How often a worker looks at the channel's state file, at most: every request (one stat, about 2 µs), so once
# the master has published a policy no worker answers with the previous one.
FOLLOW_INTERVAL = 0.0
STATE_FILE = "state.json"


def policy_hash(data: bytes) -> str:
    """The first 12 hex digits of the file's SHA-256: enough to tell policies apart in logs and metrics."""
    return hashlib.sha256(data).hexdigest()[:12]


class PolicySource(Protocol):
    """What the views read: the policy in force, its hash, the last reload's outcome."""

    @property
    def hash(self) -> str: ...

    @property
    def last(self) -> Reload: ...

    def current(self) -> Policy: ...


class Reload(Struct, frozen=True):
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
        self.data = b""  # the bytes of the file in force
        self.hash = DEFAULT_HASH
        self._policy = Policy.default(rules=BOOK)
        if self.path is not None:
            self.data, self._policy = _read(self.path)
            self.hash = policy_hash(self.data)
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
            data, fresh = _read(self.path)
        except DraguardError as err:
            self._rejected = stamp
            self.last = Reload(time.time(), err.message)
            log.error("keeping the previous policy: %s", err.message)
            if self.on_reload is not None:
                self.on_reload(err.message)
            return False
        self._policy, self._stamp, self._rejected = fresh, stamp, None
        self.data, self.hash = data, policy_hash(data)
        self.last = Reload(time.time())
        self.reloads += 1
        log.info("policy reloaded from %s (hash %s)", self.path, self.hash)
        if self.on_reload is not None:
            self.on_reload(None)
        return True


def _read(path: Path) -> tuple[bytes, Policy]:
    """The file's bytes and the policy they hold; read again around the load so both are of one version."""
    for _ in range(3):
        try:
            before = path.read_bytes()
        except OSError:
            before = b""
        policy = Policy.load(path, rules=BOOK)  # a missing or unreadable file is its one-line DraguardError
        try:
            after = path.read_bytes()
        except OSError:
            after = None
        if after == before:
            return before, policy
    raise DraguardError(f"policy {path}: keeps changing while being read")


class PolicyPublisher:
    """The master's side: watch the user's file through a `PolicyStore`, publish what loads to the channel."""

    def __init__(self, store: PolicyStore, channel: Path, *, on_change: Callable[[str | None], None] | None = None):
        self.store = store
        self.channel = channel
        self.on_change = on_change
        self._stop = threading.Event()
        self._published: tuple[str, str | None] | None = None
        channel.mkdir(parents=True, exist_ok=True)
        self.publish()

    def publish(self) -> None:
        """Write the store's policy (and last error) to the channel when either changed."""
        store = self.store
        key = (store.hash, store.last.error)
        if key == self._published:
            return
        name = f"{store.hash}.yaml"
        if store.path is not None:
            _atomic_write(self.channel / name, store.data)
        state = {"hash": store.hash, "file": name if store.path is not None else None,
                 "source": store.source, "error": store.last.error, "at": store.last.loaded_at}
        _atomic_write(self.channel / STATE_FILE, json.dumps(state).encode())
        # Keep the file in force and the one before it (a worker may be reading that one).
        keep = {name} | ({f"{self._published[0]}.yaml"} if self._published else set())
        for old in self.channel.glob("*.yaml"):
            if old.name not in keep:
                old.unlink(missing_ok=True)
        self._published = key

    def poll(self) -> None:
        self.store.reload()
        before = self._published
        self.publish()
        if self.on_change is not None and self._published != before:
            self.on_change(self.store.last.error)

    def start(self) -> threading.Thread:
        def loop() -> None:
            while not self._stop.wait(self.store.check_interval):
                try:
                    self.poll()
                except Exception:  # never let the watcher die: the old policy stays and the log says why
                    log.exception("policy watcher failed; will retry")

        thread = threading.Thread(target=loop, name="draguard-policy", daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        self._stop.set()


class PolicyFollower:
    """A worker's side: the policy the master published, re-read at most every `interval` seconds."""

    def __init__(self, channel: Path, *, interval: float = FOLLOW_INTERVAL,
                 on_switch: Callable[[str], None] | None = None) -> None:
        self.channel = channel
        self.interval = interval
        self.on_switch = on_switch
        self._lock = threading.Lock()
        self._stamp = _MISSING
        self._policy = Policy.default(rules=BOOK)
        self.hash = DEFAULT_HASH
        self.last = Reload(time.time())
        self._checked = time.monotonic()
        self._follow()

    @property
    def source(self) -> str:
        return self._policy.source

    def current(self) -> Policy:
        if time.monotonic() - self._checked >= self.interval and self._lock.acquire(blocking=False):
            try:
                self._checked = time.monotonic()
                self._follow()
            finally:
                self._lock.release()
        return self._policy

    def _follow(self) -> None:
        path = self.channel / STATE_FILE
        stamp = _stamp(path)
        if stamp == self._stamp:
            return
        try:
            state = json.loads(path.read_bytes())
            if state["hash"] != self.hash:
                policy = Policy.default(rules=BOOK)
                if state["file"] is not None:
                    loaded = Policy.load(self.channel / state["file"], rules=BOOK)
                    policy = dataclasses.replace(loaded, source=state["source"])
                self._policy, self.hash = policy, state["hash"]
                if self.on_switch is not None:
                    self.on_switch(self.hash)
            self.last = Reload(float(state["at"]), state["error"])
        except (OSError, ValueError, KeyError, TypeError, DraguardError) as err:  # keep what is in force
            log.error("cannot follow the published policy in %s: %s", self.channel, err)
            return
        self._stamp = stamp


def _atomic_write(path: Path, data: bytes) -> None:
    fresh = path.with_name(path.name + ".tmp")
    fresh.write_bytes(data)
    os.replace(fresh, path)
