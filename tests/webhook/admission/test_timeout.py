"""The API server's `?timeout=` on the webhook URL: read as upstream reads its own, and the evaluation deadline
shortened to what it leaves, so an object that cannot be checked in time is answered per policy while the API
server still listens (not admitted by `failurePolicy: Ignore` after it gave up)."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from tests.builders import slice_with
from tests.webhook.conftest import admission_review
from webhook import budget as budget_module
from webhook.admission.endpoint import SLICES_PATH, State, answer_review
from webhook.admission.timeout import InvalidDuration, go_duration, requested_timeout
from webhook.budget import TIMEOUT_CHARS, Budget, BudgetExceeded, Meter, answer_deadline, wall_message
from webhook.policy import Policy
from webhook.policy_store import PolicyStore

DEADLINE = Budget(selectors=0, cpu_seconds=0, wall_seconds=2.5)


@pytest.mark.parametrize(("text", "seconds"), [
    ("3s", 3.0), ("1m0s", 60.0), ("1h0m0s", 3600.0), ("1.5h", 5400.0), ("1h2m3.5s", 3723.5), ("+5s", 5.0),
    ("-2s", -2.0), ("0", 0.0), ("-0", 0.0), ("1.s", 1.0), (".5ms", 0.0005), ("2us", 2e-6), ("2\u00b5s", 2e-6),
    ("2\u03bcs", 2e-6), ("7ns", 7e-9),
])
def test_a_go_duration_is_read_as_time_parse_duration_reads_it(text: str, seconds: float) -> None:
    assert go_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize(("text", "message"), [
    ("", 'time: invalid duration ""'),
    (".", 'time: invalid duration "."'),
    ("3", 'time: missing unit in duration "3"'),
    ("3sec", 'time: unknown unit "sec" in duration "3sec"'),
    ("s", 'time: invalid duration "s"'),
    (" 3s", 'time: invalid duration " 3s"'),
    ("3000000h", 'time: invalid duration "3000000h"'),  # past int64 nanoseconds
])
def test_what_time_parse_duration_refuses_is_refused_in_its_words(text: str, message: str) -> None:
    with pytest.raises(InvalidDuration) as caught:
        go_duration(text)
    assert str(caught.value) == message


@pytest.mark.parametrize(("query", "expected"), [
    ("timeout=3s", ("3s", 3.0)),
    ("a=b&timeout=10s&timeout=1s", ("10s", 10.0)),  # url.Values.Get: the first
    ("timeout=1m0s", ("1m0s", 60.0)),
    ("timeout=2%C2%B5s", ("2\u00b5s", 2e-6)),
    ("", None),
    ("timeout=", None),  # empty is none, as upstream's parseTimeout
    ("timeout=0", None),  # zero or less is ignored, as upstream's withRequestDeadline
    ("timeout=-1s", None),
    ("timeouts=1s", None),
])
def test_the_timeout_parameter_is_read_as_the_api_server_reads_its_own(
        query: str, expected: tuple[str, float] | None) -> None:
    assert requested_timeout(query) == expected


def test_a_timeout_that_is_no_duration_is_refused_with_upstreams_words() -> None:
    with pytest.raises(InvalidDuration) as caught:
        requested_timeout("timeout=abc")
    assert str(caught.value) == 'invalid timeout specified in the request URL - time: invalid duration "abc"'


@pytest.mark.parametrize(("timeout", "deadline"), [
    (0.999, 0.4995),  # at 1 s and below, half the timeout
    (1.0, 0.5),
    (1.001, 0.501),  # above, the timeout less 0.5 s
    (3.0, 2.5),
    (30.0, 29.5),
])
def test_the_deadline_keeps_time_to_answer_within_the_timeout(timeout: float, deadline: float) -> None:
    assert answer_deadline(timeout) == pytest.approx(deadline)


@pytest.mark.parametrize(("timeout", "wall", "named"), [
    (2.999, 2.499, "2.999s"),  # leaves less than --deadline: it decides, and is named
    (3.0, 2.5, ""),  # leaves exactly --deadline: unchanged
    (3.001, 2.5, ""),  # leaves more: --deadline stays
])
def test_a_timeout_shortens_the_wall_budget_only_below_the_deadline(timeout: float, wall: float, named: str) -> None:
    budget = DEADLINE.within(f"{timeout}s", timeout)
    assert (budget.wall_seconds, budget.timeout) == (pytest.approx(wall), named)
    assert (budget.cpu_seconds, budget.selectors) == (DEADLINE.cpu_seconds, DEADLINE.selectors)


def test_without_a_deadline_of_its_own_the_timeout_sets_one() -> None:
    assert Budget(0, 0, 0).within("2s", 2.0) == Budget(0, 0, 1.5, timeout="2s")


def answer(query: str, waited: float) -> tuple[int, dict[str, Any]]:
    body = json.dumps(admission_review(slice_with(numa=1), uid="u-t")).encode()
    state = State(PolicyStore.fixed(Policy.default()), budget=DEADLINE)
    code, data = answer_review(SLICES_PATH, state, length=len(body), content_type="application/json",
                               stream=_Body(body), waited=waited, query=query)
    response: dict[str, Any] = json.loads(data)["response"]
    return code, response


class _Body:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def read(self, size: int) -> bytes:
        chunk, self.data = self.data[:size], self.data[size:]
        return chunk


@pytest.mark.parametrize(("waited", "over"), [(0.49, False), (0.5, True), (0.51, True)])
def test_a_review_that_waited_what_the_timeout_leaves_is_answered_per_policy(waited: float, over: bool) -> None:
    """`timeout=1s` leaves 0.5 s: a review that waited that long for the worker is not evaluated, and its denial
    says where the deadline came from (before, the 2.5 s --deadline applied and the API server had given up)."""
    code, response = answer("timeout=1s", waited)
    assert code == 200
    if not over:
        assert response == {"uid": "u-t", "allowed": True}
        return
    assert (response["allowed"], response["status"]["code"]) == (False, 403)
    assert response["status"]["message"] == (
        f"1 problem: <root>: the review waited {waited:.2f} s before this worker could take it, past its deadline of "
        "0.5 s (the request's timeout=1s, less time to answer); not evaluated [budget-exceeded]")


def test_a_timeout_longer_than_the_deadline_leaves_the_deadline_in_force() -> None:
    code, response = answer("timeout=30s", 2.5)
    assert code == 200
    assert response["status"]["message"] == (
        "1 problem: <root>: the review waited 2.50 s before this worker could take it, past its deadline of 2.5 s; "
        "not evaluated [budget-exceeded]")


def test_an_invalid_timeout_is_a_400_naming_the_uid() -> None:
    code, response = answer("timeout=3", 0.0)
    assert (code, response) == (400, {"uid": "u-t", "allowed": False, "status": {
        "status": "Failure", "code": 400, "reason": "BadRequest",
        "message": 'invalid timeout specified in the request URL - time: missing unit in duration "3"'}})


def test_an_evaluation_past_the_timeouts_deadline_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Between rules (off the main thread, where no timer interrupts): the clock is moved, nothing sleeps."""
    clock = [100.0]
    monkeypatch.setattr(budget_module, "time", SimpleNamespace(monotonic=lambda: clock[0], thread_time=lambda: 0.0))
    meter = Meter(DEADLINE.within("1s", 1.0))
    clock[0] += 0.5
    meter.check()  # at the deadline: still within it
    clock[0] += 0.001
    with pytest.raises(BudgetExceeded) as caught:
        meter.check()
    assert caught.value.message == ("evaluation took longer than its deadline of 0.5 s (the request's timeout=1s, "
                                    "less time to answer); not evaluated further")


@pytest.mark.parametrize("length", [TIMEOUT_CHARS - 1, TIMEOUT_CHARS, TIMEOUT_CHARS + 1])
def test_a_long_timeout_is_quoted_up_to_its_limit(length: int) -> None:
    text = ("1s" * length)[:length]  # `1s1s1s...`: a valid duration of any length
    quoted = text[:TIMEOUT_CHARS]
    assert len(quoted) == min(length, TIMEOUT_CHARS)
    assert wall_message(0.5, text) == (f"evaluation took longer than its deadline of 0.5 s (the request's "
                                       f"timeout={quoted}, less time to answer); not evaluated further")
