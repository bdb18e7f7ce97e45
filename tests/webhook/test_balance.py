"""webhook.balance: connections spread over the workers by what each holds, not by the kernel's hash.

The servers here are two `BalancedServer`s on one listening socket in one gevent loop, standing for two workers
on the master's shared socket; nothing is timed.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator

import gevent
import gevent.event
import gevent.socket
import pytest

from webhook.balance import (
    ACCEPT_WAIT,
    BUSY_AFTER,
    FREE,
    MAX_SLOTS,
    Balance,
    BalancedServer,
    Bell,
    Shares,
    defer,
)


@pytest.mark.parametrize(("held", "others", "expected"), [
    (0, [0], False),  # equal: take it
    (3, [3], False),
    (3, [2], True),  # a peer holds fewer: leave it
    (3, [4], False),
    (4, [5, 3], True),  # any peer with fewer
    (4, [FREE], False),  # a slot nobody holds is no peer
    (1, [FREE, 0], True),
    (5, [], False),  # alone
])
def test_a_worker_steps_aside_only_for_a_peer_holding_fewer(held: int, others: list[int], expected: bool) -> None:
    assert defer(held, others) is expected


def test_the_master_assigns_and_frees_slots() -> None:
    shares = Shares(3)
    assert shares.takers(0) == [FREE, FREE]
    assert (shares.assign(1), shares.assign(2)) == (0, 1)
    assert shares.takers(2) == [0, 0]  # assigned, holding nothing yet
    shares.set(0, 7)
    assert shares.takers(1) == [7, FREE]
    shares.release(1)  # worker 1 exited: its slot is free, its count forgotten
    assert shares.takers(1) == [FREE, FREE]
    assert shares.assign(3) == 0  # the freed slot is used again
    assert shares.assign(4) == 2
    assert shares.assign(5) is None  # all taken: that worker is not balanced


def test_a_stopped_worker_is_no_peer() -> None:
    shares = Shares(2)
    mine, peer = Balance(shares, shares.assign(1)), Balance(shares, shares.assign(2))
    mine.opened()
    assert mine.should_defer()
    peer.stop()
    assert not mine.should_defer()
    assert shares.takers(0) == [FREE]
    peer.opened()  # a stopping worker's last connections are not published
    assert shares.takers(0) == [FREE]


def test_a_worker_without_a_slot_never_steps_aside() -> None:
    balance = Balance(Shares(1), None)
    balance.opened()
    assert not balance.should_defer()
    assert MAX_SLOTS >= 8


@pytest.fixture
def listener() -> Iterator[gevent.socket.socket]:
    sock = gevent.socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    yield sock
    sock.close()


def until(condition: Callable[[], bool], what: str) -> None:
    """Run the gevent loop until `condition` holds (a generous bound, so a stuck server fails rather than hangs)."""
    with gevent.Timeout(10, AssertionError(f"not reached: {what}")):
        while not condition():
            gevent.sleep(0.001)


def serve(listener: gevent.socket.socket, balance: Balance, release: gevent.event.Event) -> BalancedServer:
    """A worker's server whose connections stay open until `release` is set."""
    server = BalancedServer(listener, lambda sock, addr: release.wait(), "default", balance)
    server.start()
    return server


def close(release: gevent.event.Event, clients: list[socket.socket], servers: list[BalancedServer]) -> None:
    """Let the servers' connections end, then close both sides."""
    release.set()
    for client in clients:
        client.close()
    for server in servers:
        server.close()


def test_connections_arriving_one_by_one_are_spread_evenly(listener: gevent.socket.socket) -> None:
    shares, release = Shares(2), gevent.event.Event()
    first, second = Balance(shares, shares.assign(1)), Balance(shares, shares.assign(2))
    servers = [serve(listener, first, release), serve(listener, second, release)]
    clients = []
    try:
        for n in range(1, 11):
            clients.append(socket.create_connection(listener.getsockname()))
            until(lambda n=n: first.held + second.held == n, f"{n} connections accepted")  # type: ignore[misc]
        assert (first.held, second.held) == (5, 5)
        assert shares.takers(0) == [5]
        release.set()
        until(lambda: first.held + second.held == 0, "every connection closed and counted")
    finally:
        for client in clients:
            client.close()
        for server in servers:
            server.close()


def test_a_peer_that_does_not_accept_delays_a_connection_only_briefly(listener: gevent.socket.socket) -> None:
    """The peer's slot says it holds nothing, but it never accepts (busy, stuck): the worker takes the connections
    itself after stepping aside for a while for each."""
    shares, release = Shares(2), gevent.event.Event()
    mine = Balance(shares, shares.assign(1))
    shares.assign(2)  # the peer, holding nothing, not accepting
    server = serve(listener, mine, release)
    clients = []
    try:
        for n in range(1, 4):
            clients.append(socket.create_connection(listener.getsockname()))
            until(lambda n=n: mine.held == n, f"connection {n} accepted")  # type: ignore[misc]
        assert shares.takers(0) == [0]
        assert ACCEPT_WAIT <= 0.25  # a new connection waits at most this much for a peer that does not come
    finally:
        release.set()
        for client in clients:
            client.close()
        server.close()
    assert shares.takers(1) == [FREE]  # closed: it stepped out of the balance


def test_connections_arriving_far_apart_are_spread_evenly(listener: gevent.socket.socket) -> None:
    """A worker that stepped aside and saw the peer take the connection steps aside again for the next one, however
    much later it comes (its wait is for one pending connection, not a budget it used up)."""
    shares, release = Shares(2), gevent.event.Event()
    first, second = Balance(shares, shares.assign(1)), Balance(shares, shares.assign(2))
    servers = [serve(listener, first, release)]  # the second worker is not accepting yet: the first takes two

    def connect(n: int) -> None:
        clients.append(socket.create_connection(listener.getsockname()))
        until(lambda: first.held + second.held == n, f"{n} connections accepted")

    clients: list[socket.socket] = []
    try:
        connect(1)
        connect(2)
        servers.append(serve(listener, second, release))
        connect(3)
        gevent.sleep(ACCEPT_WAIT + 0.05)  # the next one comes after any wait for this one is over
        connect(4)
        assert (first.held, second.held) == (2, 2)
    finally:
        close(release, clients, servers)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def monotonic(self) -> float:
        return self.now


def test_the_wait_is_per_pending_connection(listener: gevent.socket.socket, monkeypatch: pytest.MonkeyPatch) -> None:
    """Driven by hand on a clock of the test's: a worker holding more steps aside for a pending connection; when
    the peer took it, a connection that comes long after is a new one, stepped aside for afresh; one the peer
    does not take is taken once ACCEPT_WAIT has passed."""
    import webhook.balance

    clock = Clock()
    monkeypatch.setattr(webhook.balance, "time", clock)
    shares = Shares(2)
    mine = Balance(shares, shares.assign(1))
    shares.assign(2)  # the peer, holding nothing
    mine.opened()
    server = BalancedServer(listener, lambda sock, addr: None, "default", mine)
    clients = [socket.create_connection(listener.getsockname())]
    try:
        assert server.do_read() is None  # stepped aside
        peer_took, _ = listener.accept()  # the peer takes it
        peer_took.close()
        clock.now += ACCEPT_WAIT / 5
        server._look_again()  # the timer's callback, called by hand: nothing is pending any more
        clock.now += 10 * ACCEPT_WAIT
        clients.append(socket.create_connection(listener.getsockname()))
        assert server.do_read() is None  # a new connection: stepped aside again
        clock.now += ACCEPT_WAIT / 2
        server._look_again()
        assert server.do_read() is None  # still within the wait
        clock.now += ACCEPT_WAIT / 2
        server._look_again()
        taken = server.do_read()  # the peer did not take this one: taken
        assert taken is not None
        taken[0].close()
    finally:
        for client in clients:
            client.close()
        server.close()


def test_a_worker_standing_aside_looks_again_as_soon_as_a_peer_accepts(listener: gevent.socket.socket,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The peer's accept rings the bell of the worker that stood aside, which takes the next connection at once.
    Its own timer is made far too long to do it: without the bell each connection of a burst waited for that timer
    (50 ms), for a worker that had itself stepped aside, and 200 silent connections kept a real review out 2.6 s."""
    import webhook.balance

    monkeypatch.setattr(webhook.balance, "ACCEPT_DEFER", 3600.0)
    shares, release = Shares(2), gevent.event.Event()
    first, second = Balance(shares, shares.assign(1)), Balance(shares, shares.assign(2))
    first.opened()  # the first worker holds one connection already
    servers = [serve(listener, first, release), serve(listener, second, release)]
    clients: list[socket.socket] = []
    try:
        # A burst: all 39 are in the backlog before either worker looks (the loop runs in `until`).
        clients.extend(socket.create_connection(listener.getsockname()) for _ in range(39))
        until(lambda: first.held + second.held == 40, "the burst accepted without waiting for a timer")
        assert abs(first.held - second.held) <= 1
    finally:
        close(release, clients, servers)
        shares.close()


def test_a_ring_wakes_only_the_workers_standing_aside() -> None:
    shares = Shares(3)
    try:
        mine, aside, busy = (Balance(shares, shares.assign(age)) for age in (1, 2, 3))
        assert mine.bell is not None and aside.bell is not None and busy.bell is not None
        aside.stand_aside(True)
        mine.opened()
        assert ready(aside.bell) and not ready(busy.bell) and not ready(mine.bell)
        aside.bell.silence()
        assert not ready(aside.bell)
        aside.stand_aside(False)
        mine.opened()
        assert not ready(aside.bell)
        aside.stand_aside(True)
        aside.stop()  # a worker that stops accepting stands aside for nothing
        mine.opened()
        assert not ready(aside.bell)
        assert Balance(shares, None).bell is None  # an unbalanced worker has none
    finally:
        shares.close()


def ready(bell: Bell) -> bool:
    import select

    return bool(select.select([bell.fileno()], [], [], 0)[0])


@pytest.mark.parametrize(("answered_for", "stepped_aside_for"), [
    (BUSY_AFTER - 0.001, True), (BUSY_AFTER, True), (BUSY_AFTER + 0.001, False)])
def test_a_worker_long_in_one_answer_is_not_stepped_aside_for(answered_for: float, stepped_aside_for: bool,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A gevent worker evaluates one object at a time: a peer in one answer for longer than BUSY_AFTER takes no
    connection until it ends, so a worker holding more takes the new one itself (stepping aside cost each new
    connection ACCEPT_WAIT). A peer answering an ordinary review is stepped aside for, so the spread holds."""
    import webhook.balance

    clock = Clock()
    monkeypatch.setattr(webhook.balance, "time", clock)
    shares = Shares(2)
    try:
        mine, peer = Balance(shares, shares.assign(1)), Balance(shares, shares.assign(2))
        mine.opened()
        assert mine.should_defer()
        peer.answering(True)
        assert peer.answering_since == clock.now
        clock.now += answered_for
        assert mine.should_defer() is stepped_aside_for
        assert shares.takers(0) == ([0] if stepped_aside_for else [FREE])
        peer.answering(False)
        assert mine.should_defer() and peer.answering_since is None
    finally:
        shares.close()
