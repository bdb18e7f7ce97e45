"""Read one page ahead: the next page is requested, read and decoded in a thread while this one is checked.

Checking is CPU-bound Python; waiting for the API server (and its TLS) is not, so fetching page N+1 while page
N is checked hides the server's time and the network's. Memory stays bounded by two pages: the thread asks
for the next page only when the previous one was handed over, never further ahead.

An error of the source (a 403 on the next kind, an unreachable server) is raised where the caller asks for
the page that failed, after the pages before it were checked, exactly as without the thread.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import Generic, TypeVar

T = TypeVar("T")

_ITEM, _END, _ERROR = range(3)


class Prefetched(Iterator[T], Generic[T]):
    """`for page in Prefetched(pages(...)):` runs `source` one item ahead in a daemon thread. `close()` (or
    the end of a `with` block) stops it after the item in flight; the thread never outlives the process."""

    def __init__(self, source: Iterator[T], name: str = "draguard-prefetch") -> None:
        self._source = source
        self._wanted: queue.SimpleQueue[bool] = queue.SimpleQueue()
        self._ready: queue.SimpleQueue[tuple[int, object]] = queue.SimpleQueue()
        self._done = False
        self._thread = threading.Thread(target=self._fetch, name=name, daemon=True)
        self._thread.start()
        self._wanted.put(True)

    def _fetch(self) -> None:
        while self._wanted.get():
            try:
                item: object = next(self._source)
            except StopIteration:
                self._ready.put((_END, None))
                return
            except BaseException as err:  # handed to the caller's thread, raised there
                self._ready.put((_ERROR, err))
                return
            self._ready.put((_ITEM, item))

    def __next__(self) -> T:
        if self._done:
            raise StopIteration
        kind, value = self._ready.get()
        if kind == _ITEM:
            self._wanted.put(True)  # fetch the next one while the caller works on this one
            return value  # type: ignore[return-value]
        self._done = True
        if kind == _ERROR:
            assert isinstance(value, BaseException)
            raise value
        raise StopIteration

    def close(self) -> None:
        """Let the thread end after what it is fetching now (a request has its own timeout)."""
        if not self._done:
            self._done = True
            self._wanted.put(False)

    def __enter__(self) -> Prefetched[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
