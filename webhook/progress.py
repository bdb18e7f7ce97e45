"""A progress line on stderr for long CLI runs: shown only on a terminal, only once a run has lasted
`delay` seconds (short runs stay silent), redrawn at most ten times a second, erased at the end."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

DELAY = 2.0  # seconds before the line first appears
INTERVAL = 0.1  # seconds between redraws


class Progress:
    def __init__(self, total: int, *, stream: TextIO | None = None, enabled: bool | None = None,
                 clock: Callable[[], float] = time.monotonic, noun: str = "files",
                 started: float | None = None) -> None:
        """`started`: when the run began, on `clock` (default: now), so reading inputs counts too."""
        self.stream = stream if stream is not None else sys.stderr
        self.total = total
        self.done = 0
        self.noun = noun
        self.enabled = _isatty(self.stream) if enabled is None else enabled
        self._clock = clock
        self._started = clock() if started is None else started
        self._drawn = -INTERVAL
        self.shown = False

    def advance(self, n: int = 1) -> None:
        self.done += n
        if not self.enabled:
            return
        now = self._clock() - self._started
        if now < DELAY or now - self._drawn < INTERVAL:
            return
        self._drawn = now
        self.shown = True
        self.stream.write(f"\rdraguard: {self.done}/{self.total} {self.noun} checked ({now:.0f} s)")
        self.stream.flush()

    def close(self) -> None:
        """Erase the line, so what follows on stderr starts at column one."""
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.shown = False


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream
        return False
