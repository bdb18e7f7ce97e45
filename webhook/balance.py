"""An even spread of connections over the workers: one shared listening socket, taken by the worker holding fewest.

With one SO_REUSEPORT socket per worker the kernel picks the worker by a hash of the client's address and port,
and a connection stays on its worker for its keep-alive life. The API server keeps few long-lived connections, so
luck decided the load: 7 of 8 connections on one worker was seen, that worker doing almost all the work while the
other idled. Here every worker waits on the same socket (the gunicorn master's), and each keeps the count of the
connections it holds in memory the master shares with all workers (`Shares`, one slot per worker). On a new
connection every waiting worker wakes; one that holds more than some peer steps aside (`defer`), looking again
every `ACCEPT_DEFER`, so that the peer accepts it. A peer that does not (busy with one long evaluation, stuck, or
not scheduled on a loaded machine) cannot hold the connection up for longer than `ACCEPT_WAIT`: then the worker
accepts it after all.

A worker that steps aside is woken as soon as a peer accepts (`Bell`, one per slot, rung by every accept for the
peers that stand aside, `Shares.ring_aside`), not only by its timer. Without that, a burst of connections (an
attacker's 200 silent ones; a client reopening its pool) stalled accepting: the worker behind stepped aside, the
peer took the connection and, now holding more, stepped aside for the next one in turn, for a worker that would not
look again for ACCEPT_DEFER; each connection of the burst waited up to 50 ms for nobody, and the first real review
after 200 of them waited 2.6 s, past its budget.

Nor does a worker step aside for a peer that has been answering one request for longer than `BUSY_AFTER`
(`Shares.busy`): a gevent worker evaluates one object at a time, and a peer in a long evaluation (up to the request
budget) takes no connection before it ends; stepping aside for it cost each new connection ACCEPT_WAIT, one after
the other. A peer busy for less (an ordinary review, a millisecond or two) is stepped aside for as before, so
connections opened while the workers serve are spread as evenly as when they idle.

The master assigns the slots (gunicorn's `pre_fork`), frees the slot of a worker that exited (`child_exit`); a
worker frees its own when it stops accepting (SIGTERM, Ctrl-C), so nobody steps aside for a worker that will not
accept. Only the admission port is balanced; the metrics port keeps one SO_REUSEPORT socket per worker.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import time
from collections.abc import Callable, Iterable
from typing import Any, Final

from gevent.server import StreamServer

ACCEPT_DEFER: Final = 0.05  # seconds between two looks of a worker that left a new connection to a peer
ACCEPT_WAIT: Final = 0.25  # at most this long, then it takes the connection itself
BUSY_AFTER: Final = 0.02  # seconds of answering one request after which a peer is not stepped aside for
RESUMED: Final = 0.02  # a wake-up this soon after a look is still the connection it stepped aside for
MAX_SLOTS: Final = 64  # workers balanced; more (gunicorn's TTIN) accept without stepping aside and are not seen
FREE: Final = -1  # a slot no running worker holds


def defer(held: int, others: Iterable[int]) -> bool:
    """Whether a worker holding `held` connections leaves a new one to its peers: some peer holds fewer (`others`:
    what the peers that could take it hold, `Shares.takers`)."""
    return any(FREE < other < held for other in others)


class Bell:
    """A wake-up one process rings for another: an eventfd (a pipe where there is none), both ends non-blocking.
    Made by the master before it forks, so every worker holds every slot's bell."""

    def __init__(self) -> None:
        if hasattr(os, "eventfd"):
            self._read = self._write = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        else:  # pragma: no cover (not Linux)
            self._read, self._write = os.pipe()
            os.set_blocking(self._read, False)
            os.set_blocking(self._write, False)

    def fileno(self) -> int:
        """The end to watch for reading."""
        return self._read

    def ring(self) -> None:
        with contextlib.suppress(BlockingIOError):  # already rung often enough
            os.write(self._write, (1).to_bytes(8, "little"))  # (an eventfd takes an 8-byte count)

    def silence(self) -> None:
        """Take the rings so far (the watcher fires again only on a new one)."""
        with contextlib.suppress(BlockingIOError):
            os.read(self._read, 4096 if self._read != self._write else 8)

    def close(self) -> None:
        for fd in {self._read, self._write}:
            with contextlib.suppress(OSError):
                os.close(fd)


class Shares:
    """Per worker slot, in an anonymous shared mapping made by the master before it forks: the connections held,
    whether the worker stands aside for a pending connection and since when it is answering a request; and the slot's
    `Bell`.

    Each worker writes only its own slot; the master writes a slot only while no worker owns it.
    """

    def __init__(self, slots: int = MAX_SLOTS) -> None:
        self._map = mmap.mmap(-1, 24 * slots)  # MAP_SHARED: forked workers see each other's writes
        cells = memoryview(self._map).cast("q")
        # (a new mapping is zeroed: nobody aside, nobody busy; `_busy` holds CLOCK_MONOTONIC microseconds, one
        # clock for every process of the machine)
        self._counts, self._aside, self._busy = cells[:slots], cells[slots:2 * slots], cells[2 * slots:]
        for slot in range(slots):
            self._counts[slot] = FREE
        self.bells = [Bell() for _ in range(slots)]
        self._owners: dict[int, int] = {}  # the master's book: slot -> worker age

    def assign(self, age: int) -> int | None:
        """The master, before forking worker `age`: its slot (marked as holding nothing), None when all are taken."""
        for slot in range(len(self._counts)):
            if slot not in self._owners:
                self._owners[slot] = age
                self._counts[slot] = 0
                return slot
        return None

    def release(self, age: int) -> None:
        """The master, once worker `age` exited: its slot is free again."""
        for slot, owner in list(self._owners.items()):
            if owner == age:
                del self._owners[slot]
                self._counts[slot] = FREE
                self._aside[slot] = self._busy[slot] = 0

    def set(self, slot: int, held: int) -> None:
        self._counts[slot] = held

    def stand_aside(self, slot: int, aside: bool) -> None:
        self._aside[slot] = int(aside)

    def busy(self, slot: int, since: float | None) -> None:
        """The slot's worker answers a request since `since` (time.monotonic()), or none (None)."""
        self._busy[slot] = 0 if since is None else max(1, int(since * 1e6))

    def takers(self, slot: int) -> list[int]:
        """What every other slot holds: FREE for a slot no worker has, and for a worker answering one request for
        longer than BUSY_AFTER (it takes no connection before that answer ends)."""
        stale = int((time.monotonic() - BUSY_AFTER) * 1e6)
        return [FREE if 0 < since < stale else held
                for other, (held, since) in enumerate(zip(self._counts.tolist(), self._busy.tolist(), strict=True))
                if other != slot]

    def ring_aside(self, slot: int) -> None:
        """Wake every other worker standing aside: the connection it left may be taken, the counts changed."""
        for other, aside in enumerate(self._aside.tolist()):
            if aside and other != slot:
                self.bells[other].ring()

    def close(self) -> None:
        """Close the bells' descriptors (for a process done with the shares; the master's end when it exits)."""
        for bell in self.bells:
            bell.close()


class Balance:
    """A worker's side: the connections it holds, published in its slot; whether to step aside for a peer."""

    def __init__(self, shares: Shares | None, slot: int | None) -> None:
        self._shares = shares if slot is not None else None
        self._slot = slot if slot is not None else 0
        self.held = 0
        self.accepting = True
        self._answering: float | None = None

    @property
    def bell(self) -> Bell | None:
        """What wakes this worker while it stands aside (None when it is not balanced)."""
        return self._shares.bells[self._slot] if self._shares is not None else None

    def opened(self) -> None:
        self.held += 1
        self._publish()
        if self._shares is not None:
            self._shares.ring_aside(self._slot)

    def stand_aside(self, aside: bool) -> None:
        if self._shares is not None:
            self._shares.stand_aside(self._slot, aside and self.accepting)

    def closed(self) -> None:
        self.held -= 1
        self._publish()

    def stop(self) -> None:
        """No more accepting here: peers must not step aside for this worker."""
        self.accepting = False
        if self._shares is not None:
            self._shares.set(self._slot, FREE)
            self._shares.stand_aside(self._slot, False)

    @property
    def answering_since(self) -> float | None:
        """Since when (time.monotonic()) this worker answers a request; None when it answers none."""
        return self._answering

    def answering(self, started: bool) -> None:
        """A request of this worker's starts (True) or ends (False) being answered. Several may be in flight, each
        in its greenlet, taking turns at each wait for the network: the latest start counts, and any end clears it
        (a worker whose answers keep switching is not stuck in one; one that stays in one for BUSY_AFTER is)."""
        self._answering = time.monotonic() if started else None
        if self._shares is not None:
            self._shares.busy(self._slot, self._answering)

    def should_defer(self) -> bool:
        return self._shares is not None and self.accepting and defer(self.held, self._shares.takers(self._slot))

    def _publish(self) -> None:
        if self._shares is not None and self.accepting:
            self._shares.set(self._slot, self.held)


class BalancedServer(StreamServer):  # type: ignore[misc]
    """gevent's StreamServer on the shared socket, accepting one connection per wake-up unless it steps aside.

    Every accepted connection is counted from accept to close (`do_close` runs once for each, also when the
    handler could not be started).
    """

    def __init__(self, listener: Any, handle: Callable[..., Any], spawn: Any, balance: Balance) -> None:
        super().__init__(listener, handle=handle, spawn=spawn)
        self.max_accept = 1  # one per wake-up: the count is current for the next decision
        self.balance = balance
        self._waiting_since: float | None = None  # when this worker first stepped aside for the pending connection
        self._looked_at = 0.0
        self._bell: Any = None  # the watcher of this worker's bell while it stands aside

    def do_read(self) -> Any:
        now = time.monotonic()
        if self._waiting_since is not None and now - self._looked_at > RESUMED:
            self._waiting_since = None  # a peer took that one; this is a new connection
        waited = now - self._waiting_since if self._waiting_since is not None else 0.0
        # Aside first, then the counts: a peer's accept either shows in them or rings (a flag set after the look
        # could miss the ring of an accept made in between).
        self.balance.stand_aside(True)
        if waited < ACCEPT_WAIT and self.balance.should_defer():
            # Leave it in the backlog for a peer; look again when a peer accepts, or shortly, and take it if it is
            # still there at the end.
            if self._waiting_since is None:
                self._waiting_since = now
            self.stop_accepting()
            self._timer = self.loop.timer(ACCEPT_DEFER)
            self._timer.start(self._look_again)
            bell = self.balance.bell
            if bell is not None:
                self._bell = self.loop.io(bell.fileno(), 1)
                self._bell.start(self._rung)
            return None
        self.balance.stand_aside(False)
        self._waiting_since = None
        accepted = super().do_read()
        if accepted:
            self.balance.opened()
        return accepted

    def _look_again(self) -> None:
        self._stop_bell()
        self._looked_at = time.monotonic()
        self._start_accepting_if_started()

    def _rung(self) -> None:
        """A peer accepted while this worker stood aside: what is pending now is a new decision, made at once."""
        bell = self.balance.bell
        if bell is not None:
            bell.silence()
        self._waiting_since = None
        self.stop_accepting()  # (its timer)
        self._look_again()

    def _stop_bell(self) -> None:
        if self._bell is not None:
            self._bell.stop()
            self._bell.close()
            self._bell = None

    def do_close(self, *args: Any) -> None:
        try:
            super().do_close(*args)
        finally:
            self.balance.closed()

    def close(self) -> None:
        self._stop_bell()
        self.balance.stop()
        super().close()
