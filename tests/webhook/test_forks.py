"""webhook.forks: jobs over forked processes give what one process gives, in the same order, log lines included."""

from __future__ import annotations

import logging
import os
from typing import Any

import pytest

from webhook.forks import Ahead, Seat, _Counters, can_fork, map_forked, seats, segments

pytestmark = pytest.mark.skipif(not can_fork(), reason="needs fork (Linux)")


def test_seats_pair_processes_on_segments_from_both_ends() -> None:
    assert seats(1) == [Seat(0, 0)]
    assert seats(2) == [Seat(0, 0), Seat(0, 1)]
    assert seats(3) == [Seat(0, 0), Seat(0, 1), Seat(1, 0)]


@pytest.mark.parametrize(("weights", "processes", "expected"), [
    ([1] * 8, 2, [(0, 8)]),
    ([1] * 8, 4, [(0, 4), (4, 8)]),
    ([1] * 9, 3, [(0, 6), (6, 9)]),  # a segment of two processes weighs twice the lone one's
    ([100, 1, 1, 1, 1, 1], 4, [(0, 1), (1, 6)]),  # the heavy file alone
    ([1, 1, 1, 1, 1, 100], 4, [(0, 5), (5, 6)]),
    ([0, 0, 0], 4, [(0, 2), (2, 3)]),  # no weight at all: by count
    ([5, 5], 4, [(0, 1), (1, 2)]),
])
def test_segments_are_contiguous_and_weigh_their_share(weights: list[int], processes: int,
                                                       expected: list[tuple[int, int]]) -> None:
    assert segments(weights, seats(processes)) == expected


def test_two_ends_of_a_segment_claim_every_item_once_and_meet() -> None:
    counters = _Counters([(0, 5), (5, 7)])
    try:
        front, back = Seat(0, 0), Seat(0, 1)
        claimed = [counters.claim(front), counters.claim(back), counters.claim(back), counters.claim(front),
                   counters.claim(front), counters.claim(back), counters.claim(front)]
        assert claimed == [0, 4, 3, 1, 2, None, None]
        assert [counters.claim(Seat(1, 0)), counters.claim(Seat(1, 0)), counters.claim(Seat(1, 0))] == [5, 6, None]
    finally:
        counters.close()


@pytest.mark.parametrize("processes", [1, 2, 3, 4, 7])
def test_results_come_back_in_item_order(processes: int) -> None:
    weights = [1 + (i * 7) % 5 for i in range(23)]
    done: list[int] = []
    assert map_forked(lambda i: (i, i * i), weights, processes, done.append) == [(i, i * i) for i in range(23)]
    assert sum(done) == 23


def test_more_processes_than_items_and_no_items() -> None:
    assert map_forked(lambda i: i, [1, 1], 8) == [0, 1]
    assert map_forked(lambda i: i, [], 4) == []


def test_children_really_do_part_of_the_work() -> None:
    parent = os.getpid()
    pids = map_forked(lambda i: os.getpid(), [1] * 12, 3)
    assert len(set(pids)) >= 2
    assert pids[-1] != parent  # the last segment has one process, a child


def test_log_records_of_children_are_replayed_in_item_order(caplog: pytest.LogCaptureFixture) -> None:
    log = logging.getLogger("webhook.test_forks")

    def job(i: int) -> int:
        log.warning("item %d", i)
        return i

    with caplog.at_level(logging.WARNING, logger="webhook.test_forks"):
        map_forked(job, [1] * 10, 3)
    assert [r.getMessage() for r in caplog.records if r.name == "webhook.test_forks"] == [
        f"item {i}" for i in range(10)]


def test_a_child_that_dies_leaves_its_items_to_the_parent() -> None:
    parent = os.getpid()

    def job(i: int) -> int:
        if os.getpid() != parent and i == 9:
            os._exit(3)  # a worker killed halfway
        return i * 10

    assert map_forked(job, [1] * 10, 2) == [i * 10 for i in range(10)]


def test_a_job_that_raises_raises_here_as_in_one_process() -> None:
    def job(i: int) -> int:
        if i == 8:
            raise ValueError("bad item 8")
        return i

    with pytest.raises(ValueError, match="bad item 8"):
        map_forked(job, [1] * 10, 2)


def test_ahead_works_in_a_child_and_hands_over_its_result_and_log_lines(caplog: pytest.LogCaptureFixture) -> None:
    def work() -> tuple[int, list[str]]:
        logging.getLogger("webhook.test_forks").warning("read in %s", "the child")
        return os.getpid(), ["kept"]

    with caplog.at_level(logging.WARNING, logger="webhook.test_forks"):
        ahead = Ahead(work)
        pid, value = ahead.result()
    assert (pid != os.getpid(), value) == (True, ["kept"])
    assert [r.getMessage() for r in caplog.records if r.name == "webhook.test_forks"] == ["read in the child"]


def test_ahead_of_a_child_that_died_is_done_here() -> None:
    parent = os.getpid()

    def work() -> int:
        if os.getpid() != parent:
            os._exit(3)
        return 42

    assert Ahead(work).result() == 42


def test_an_ahead_not_taken_is_stopped_and_waited_for() -> None:
    import time

    ahead = Ahead(lambda: time.sleep(60))
    child = ahead._child
    assert child is not None
    started = time.monotonic()
    ahead.cancel()
    assert time.monotonic() - started < 10
    with pytest.raises(ChildProcessError):
        os.waitpid(child.pid or -1, os.WNOHANG)


def test_what_was_logged_before_a_job_raised_is_still_written(caplog: pytest.LogCaptureFixture) -> None:
    log = logging.getLogger("webhook.test_forks")

    def job(i: int) -> int:
        log.warning("item %d", i)
        if i == 3:
            raise ValueError("bad item 3")
        return i

    with caplog.at_level(logging.WARNING, logger="webhook.test_forks"), pytest.raises(ValueError, match="item 3"):
        map_forked(job, [1] * 10, 2)
    messages = [r.getMessage() for r in caplog.records if r.name == "webhook.test_forks"]
    assert messages[:4] == ["item 0", "item 1", "item 2", "item 3"]
    assert messages == sorted(messages, key=lambda m: int(m.split()[1]))


def _child_writing(data: bytes, code: int) -> Any:
    from webhook import forks

    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        os.write(write_end, data)
        os._exit(code)
    os.close(write_end)
    return forks._Child(pid, read_end)


@pytest.mark.parametrize("cut", [1, 7, 8])
def test_an_answer_cut_short_is_no_answer_and_its_child_is_waited_for(cut: int) -> None:
    import pickle

    from webhook import forks

    framed = forks.frame([pickle.dumps((0, "r", []))])
    child = _child_writing(framed[:len(framed) - cut], 0)  # the last `cut` bytes never written
    forks._collect(child)
    assert child.results is None and child.pid == 0


def test_a_whole_answer_is_taken_whatever_the_exit_and_the_child_reaped_later() -> None:
    import pickle

    from webhook import forks

    child = _child_writing(forks.frame([pickle.dumps((0, "r", []))]), 0)
    pid = child.pid
    forks._collect(child)
    assert child.results == {0: ("r", [])} and child.pid == 0
    forks.reap()
    assert forks._exited == []
    with pytest.raises(ChildProcessError):  # waited for: no zombie left
        os.waitpid(pid, os.WNOHANG)


def test_workers_leave_no_zombie_after_reap() -> None:
    from webhook import forks

    assert map_forked(lambda i: i, [1] * 6, 3) == list(range(6))
    pending = list(forks._exited)
    forks.reap()
    assert forks._exited == []
    for pid in pending:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_an_answer_of_several_items_is_read_back_whole_and_cut_anywhere_is_no_answer() -> None:
    import pickle

    from webhook import forks

    records = [{"msg": "item 7"}]
    framed = forks.frame([pickle.dumps((7, "seven", records)), pickle.dumps((3, ["three"], []))])
    child = _child_writing(framed, 0)
    forks._collect(child)
    assert child.results == {7: ("seven", records), 3: (["three"], [])}
    forks.reap()
    for cut in (1, 30, len(framed) - 9):  # inside the second chunk, its length, the first chunk
        child = _child_writing(framed[:len(framed) - cut], 0)
        forks._collect(child)
        assert child.results is None


def test_each_item_s_log_records_go_into_its_own_chunk_once() -> None:
    import pickle

    from webhook import forks

    kept = forks._Kept()
    kept.records = {1: [{"msg": "a"}], 2: [{"msg": "b"}]}
    assert pickle.loads(forks._chunk(1, "one", kept)) == (1, "one", [{"msg": "a"}])
    assert kept.records == {2: [{"msg": "b"}]}
    assert pickle.loads(forks._chunk(3, "three", kept)) == (3, "three", [])
