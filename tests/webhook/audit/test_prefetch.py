"""The next page is fetched while this one is checked: in order, at most one page ahead, failures raised where
the failing page is asked for (after the pages before it were checked), resume after 410 unchanged."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from tests.certs.apiserver import status
from tests.webhook.audit.apiserver import AuditAPIServer
from webhook.audit import scan
from webhook.audit.prefetch import Prefetched
from webhook.errors import DraguardError
from webhook.run import run_rules as rules

WAIT = 10.0  # seconds: only a hung thread gets near it


def _counted(n: int, pulled: list[int], ahead: threading.Event, fail_at: int | None = None) -> Iterator[int]:
    for i in range(n):
        if i == fail_at:
            raise DraguardError(f"cannot list page {i}")
        pulled.append(i)
        if i == 1:
            ahead.set()
        yield i


def test_items_come_in_order_and_the_source_runs_in_another_thread() -> None:
    threads: list[str] = []

    def source() -> Iterator[str]:
        for word in ("a", "b", "c"):
            threads.append(threading.current_thread().name)
            yield word

    assert list(Prefetched(source(), name="test-prefetch-order")) == ["a", "b", "c"]
    assert threads == ["test-prefetch-order"] * 3


def test_it_reads_one_item_ahead_and_no_further() -> None:
    pulled: list[int] = []
    ahead = threading.Event()
    with Prefetched(_counted(5, pulled, ahead)) as items:
        assert next(items) == 0
        assert ahead.wait(WAIT)  # item 1 is fetched while the caller holds item 0
        assert pulled == [0, 1]  # two items in memory, never a third
        assert list(items) == [1, 2, 3, 4]
    assert next(items, None) is None


def test_an_empty_source_ends_at_once() -> None:
    assert list(Prefetched(iter(()))) == []


def test_a_failure_of_the_next_item_is_raised_after_the_item_before_it() -> None:
    pulled: list[int] = []
    items = Prefetched(_counted(5, pulled, threading.Event(), fail_at=2))
    assert next(items) == 0
    assert next(items) == 1  # handed over although fetching item 2 already failed
    with pytest.raises(DraguardError, match=r"^cannot list page 2$"):
        next(items)
    assert next(items, None) is None  # and not again
    assert pulled == [0, 1]


def test_close_ends_the_thread() -> None:
    name = "test-prefetch-close"
    items = Prefetched(iter(range(100)), name=name)
    assert next(items) == 0
    items.close()
    for thread in threading.enumerate():
        if thread.name == name:
            thread.join(WAIT)
    assert name not in {t.name for t in threading.enumerate()}
    assert next(items, None) is None


def _fail_second_page(api: AuditAPIServer, monkeypatch: pytest.MonkeyPatch, plural: str) -> list[str]:
    """The stand-in answers 500 to the second page of `plural`; answers which objects the rules saw."""
    handler = api._server.RequestHandlerClass  # the stand-in's handler class
    real = handler._list  # type: ignore[attr-defined]

    def list_(self: Any, asked: str, query: dict[str, list[str]]) -> Any:
        if asked == plural and "continue" in query:
            return 500, status(500, "InternalError", "etcdserver: request timed out")
        return real(self, asked, query)

    monkeypatch.setattr(handler, "_list", list_)
    return _checked(monkeypatch)


def _checked(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """`kind/name` of every object the audit runs the rules on, in order."""
    checked: list[str] = []

    def run_rules(obj: Any, policy: Any, **options: Any) -> Any:
        checked.append(f"{obj['kind']}/{obj['metadata']['name']}")
        return rules(obj, policy, **options)

    monkeypatch.setattr(scan, "run_rules", run_rules)
    return checked


def test_a_page_that_fails_while_the_one_before_is_checked_fails_the_audit(
        audit: Any, api: AuditAPIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    checked = _fail_second_page(api, monkeypatch, "resourceslices")
    run = audit("--page-size", "1", "--report", "openreports", "--apply")
    assert (run.code, run.out) == (2, "")
    assert run.err == ("draguard: error: cannot list resourceslices.resource.k8s.io: the API server answered 500 "
                       "InternalError: etcdserver: request timed out\n")
    assert checked == ["ResourceSlice/node-a-gpu"]  # the first page was checked; nothing after the failure
    assert api.state.reports == {}  # and no report was written from a partial audit


def test_a_failing_later_kind_fails_the_audit_after_the_slices_were_checked(
        audit: Any, api: AuditAPIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    checked = _fail_second_page(api, monkeypatch, "resourceclaims")
    run = audit("--page-size", "1")
    assert (run.code, run.out) == (2, "")
    assert run.err == ("draguard: error: cannot list resourceclaims.resource.k8s.io: the API server answered 500 "
                       "InternalError: etcdserver: request timed out\n")
    assert checked == ["ResourceSlice/node-a-gpu", "ResourceSlice/node-b-gpu", "ResourceSlice/node-c-gpu",
                       "DeviceClass/gpu.example.com", "ResourceClaim/clean"]


@pytest.mark.parametrize("how", ["token", "relist"])
def test_an_expired_token_during_prefetch_still_checks_every_object_once(
        audit: Any, api: AuditAPIServer, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    checked = _checked(monkeypatch)
    api.state.expire["resourceslices"] = how  # type: ignore[assignment]
    run = audit("--page-size", "1")
    assert run.code == 1
    assert checked[:3] == ["ResourceSlice/node-a-gpu", "ResourceSlice/node-b-gpu", "ResourceSlice/node-c-gpu"]
    assert len(checked) == len(set(checked)) == 7
    resumed, relisted = (1, 0) if how == "token" else (0, 1)
    assert (f"  resourceslices: continue token expired 1 time(s): {resumed} resumed from a newer snapshot, "
            f"{relisted} listed again") in run.err.splitlines()


@pytest.mark.parametrize("fail", [False, True])
def test_the_collector_is_back_as_it_was_after_the_audit(audit: Any, api: AuditAPIServer,
                                                        monkeypatch: pytest.MonkeyPatch, fail: bool) -> None:
    if fail:
        _fail_second_page(api, monkeypatch, "resourceclaims")
    during: list[bool] = []
    checked = _checked(monkeypatch)
    real = scan.run_rules

    def run_rules(obj: Any, policy: Any, **options: Any) -> Any:
        during.append(gc.isenabled())
        return real(obj, policy, **options)

    monkeypatch.setattr(scan, "run_rules", run_rules)
    assert gc.isenabled()
    run = audit("--page-size", "1")
    assert run.code == (2 if fail else 1)
    assert gc.isenabled() and gc.get_freeze_count() == 0  # tuned_gc unfreezes at the end
    assert during == [False] * len(checked) and len(checked) == (5 if fail else 7)
