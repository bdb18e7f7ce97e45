"""Fail closed, visibly: a rule that raises, an object over its budget, a review whose kinds disagree.

In process (Flask test client, `run_rules`, the CLI), so a raising rule can be planted: the same runner serves
admission, `validate` and `lint`.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from flask.testing import FlaskClient
from prometheus_client import REGISTRY

from tests.builders import claim_with_selector, device_class_with_selector, slice_with
from webhook import budget, cli, run
from webhook.admission import handlers
from webhook.admission.review import GroupVersionKind, GroupVersionResource, Request
from webhook.app import Settings, create_app
from webhook.budget import Budget, BudgetExceeded, metered
from webhook.findings import Action, Finding
from webhook.policy import Policy
from webhook.policy_store import PolicyStore
from webhook.rules import CATALOGUE
from webhook.rules.base import DRA_KINDS, Rule

SLICES = "/validate/resourceslices"
BROKEN = "numa-node-range"  # the rule the tests make raise
ERROR_MESSAGE = f"rule {BROKEN} could not check this object: ZeroDivisionError: division by zero"


@pytest.fixture
def broken_rule(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """`numa-node-range` raises, as a rule with a bug would."""
    real = CATALOGUE[BROKEN]

    def check(obj: Any, ctx: Any) -> Iterator[Finding]:
        yield from ()
        raise ZeroDivisionError("division by zero")

    broken = Rule(real.id, real.kinds, real.default, real.summary, real.remediation, check)
    original = run.rules_for
    monkeypatch.setattr(run, "rules_for", lambda kind: [broken if r.id == BROKEN else r for r in original(kind)])
    yield


def review(obj: Any, *, uid: str = "uid-1", kind: str = "ResourceSlice", resource: str = "resourceslices",
           old: Any = None, operation: str = "CREATE") -> dict[str, Any]:
    request = {
        "uid": uid,
        "kind": {"group": "resource.k8s.io", "version": "v1", "kind": kind},
        "resource": {"group": "resource.k8s.io", "version": "v1", "resource": resource},
        "operation": operation,
        "object": obj,
        "oldObject": old,
    }
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}


def client_for(policy: Policy | None = None, budget: Budget | None = None) -> FlaskClient:
    settings = Settings(budget=budget or Budget())
    return create_app(settings, PolicyStore.fixed(policy or Policy.default())).test_client()


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_a_raising_rule_denies_is_counted_and_logged_with_the_uid(
    broken_rule: None, caplog: pytest.LogCaptureFixture
) -> None:
    before = sample("draguard_rule_errors_total", rule=BROKEN)
    with caplog.at_level(logging.INFO):
        reply = client_for().post(SLICES, json=review(slice_with(numa=1), uid="uid-broken"))
    response = reply.get_json()["response"]
    assert reply.status_code == 200
    assert response["allowed"] is False
    assert response["status"]["message"] == f"1 problem: <root>: {ERROR_MESSAGE} [rule-error]"
    assert sample("draguard_rule_errors_total", rule=BROKEN) == before + 1
    line = next(r for r in caplog.records if r.getMessage() == "admission review")
    fields = line.fields  # type: ignore[attr-defined]
    assert (fields["uid"], fields["ruleErrors"], fields["rules"]) == ("uid-broken", [BROKEN], ["rule-error"])
    assert any(f"rule {BROKEN} failed on ResourceSlice" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize(("action", "allowed", "warnings"), [
    ("warn", True, [f"[rule-error] <root>: {ERROR_MESSAGE}"]),
    ("off", True, None),
    ("deny", False, None),
])
def test_the_rule_error_action_is_set_by_policy(
    broken_rule: None, action: str, allowed: bool, warnings: list[str] | None
) -> None:
    policy = Policy.from_mapping({"rules": {"rule-error": action}})
    response = client_for(policy).post(SLICES, json=review(slice_with(numa=1))).get_json()["response"]
    assert (response["allowed"], response.get("warnings")) == (allowed, warnings)


def test_a_rule_error_cannot_be_suppressed_or_ratcheted(broken_rule: None) -> None:
    obj = slice_with(numa=1, annotations={"draguard.io/ignore": "rule-error: the object says so"})
    outcome = run.run_rules(obj, Policy.default(), old=slice_with(numa=1))
    assert [(f.rule, f.action) for f in outcome.findings] == [("rule-error", Action.DENY)]
    assert outcome.suppressed == []
    assert outcome.errors == [BROKEN]


def test_validate_reports_the_rule_error_and_exits_1(
    broken_rule: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "slice.json"
    path.write_text(json.dumps(slice_with(numa=1)))
    assert cli.main(["validate", str(path)]) == 1
    assert f"deny rule-error: <root>: {ERROR_MESSAGE}" in capsys.readouterr().out


def test_a_long_error_text_is_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    finding = run.rule_error(BROKEN, ValueError("x" * 10_000), Policy.default())
    assert len(finding.message) < run.ERROR_TEXT_CHARS + 100
    assert finding.message.endswith("x…")


def distinct(n: int) -> list[str]:
    return [f'device.attributes["gpu.example.com"].index == {i}' for i in range(n)]


@pytest.mark.parametrize(("count", "over"), [(2, False), (3, False), (4, True)])
def test_the_selector_budget_holds_at_its_limit(count: int, over: bool) -> None:
    obj = device_class_with_selector(*distinct(count))
    req = Request("uid-b", GroupVersionKind("resource.k8s.io", "v1", "DeviceClass"),
                  GroupVersionResource("resource.k8s.io", "v1", "deviceclasses"), "CREATE", obj)
    answer = handlers.selectors(req, Policy.default(), budget=Budget(selectors=3, cpu_seconds=0, wall_seconds=0))
    budget_findings = [f.message for f in answer.findings if f.rule == "budget-exceeded"]
    expected = [f"{count} distinct selector expressions exceed this webhook's budget of 3 per object; not evaluated"]
    assert budget_findings == (expected if over else [])
    assert answer.allowed is not over


def test_an_object_over_its_deadline_is_answered_within_it(monkeypatch: pytest.MonkeyPatch) -> None:
    real = CATALOGUE["numa-node-range"]

    def slow(obj: Any, ctx: Any) -> Iterator[Finding]:
        while True:  # a rule stuck in pure Python: only the timer can stop it
            time.thread_time()
        yield from ()

    stuck = Rule(real.id, real.kinds, real.default, real.summary, real.remediation, slow)
    monkeypatch.setattr(run, "rules_for", lambda kind: [stuck])
    reply = client_for(budget=Budget(selectors=0, cpu_seconds=0, wall_seconds=0.2)).post(
        SLICES, json=review(slice_with(numa=1), uid="uid-slow"))
    response = reply.get_json()["response"]
    assert response["status"]["message"] == (
        "1 problem: <root>: evaluation took longer than its deadline of 0.2 s; not evaluated further "
        "[budget-exceeded]")


@pytest.mark.parametrize(("waited", "answered"), [(2.49, True), (2.5, False), (2.51, False)])
def test_a_review_that_waited_its_deadline_for_the_worker_is_not_evaluated(waited: float, answered: bool) -> None:
    # The caller's timeout runs from when it sent the review: time spent queued behind other reviews on the
    # worker counts against the wall budget, so the answer still comes before the API server gives up.
    req = Request("uid-q", GroupVersionKind("resource.k8s.io", "v1", "ResourceSlice"),
                  GroupVersionResource("resource.k8s.io", "v1", "resourceslices"), "CREATE", slice_with(numa=-1))
    limits = Budget(selectors=0, cpu_seconds=0, wall_seconds=2.5)
    answer = handlers.resourceslices(req, Policy.default(), budget=limits.after(waited))
    rules = {f.rule for f in answer.findings}
    if answered:
        assert "numa-node-range" in rules and "budget-exceeded" not in rules
    else:
        assert [f.message for f in answer.findings] == [
            f"the review waited {waited:.2f} s before this worker could take it, past its deadline of 2.5 s; "
            "not evaluated"]
        assert answer.allowed is False


def test_a_budget_without_a_wall_limit_ignores_the_wait() -> None:
    assert Budget(wall_seconds=0).after(9.0) == Budget(wall_seconds=0)
    assert Budget().after(0.0) is not None and Budget().after(1.0).waited == 1.0


def test_the_cpu_budget_interrupts_a_busy_loop() -> None:
    with pytest.raises(BudgetExceeded) as caught, metered(Budget(0, 0.05, 0)):
        while True:
            pass
    assert caught.value.message == "evaluation used more than its CPU budget of 0.05 s; not evaluated further"


def test_the_cpu_budget_interrupting_deep_compiles_leaves_the_process_as_it_was() -> None:
    """The served worker's crash: the budget's signal landed in headroom's wait and left the recursion limit at
    200,000, and a deeply nested JSON body then overflowed the C stack. Deep compiles, again and again, until the
    timer fires somewhere inside one; wherever it landed, the limit and the collector are as before. (Where it lands
    is the machine's choice; tests/celext/test_shield.py places an interruption at every point of a compile.)"""
    import gc
    import sys

    import celext

    limit, collecting = sys.getrecursionlimit(), gc.isenabled()
    deep = "(" * 200 + "[1].all(x, x > 0)" + ")" * 200
    with pytest.raises(BudgetExceeded), metered(Budget(0, 0.2, 0)):
        for n in range(100_000):
            celext.clear_caches()
            celext.compile(deep + f" || {n} == 0")
    assert (sys.getrecursionlimit(), gc.isenabled()) == (limit, collecting)
    assert celext.compile(deep).evaluate({"name": "d"}) is True


def test_over_budget_with_the_rule_off_is_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    obj = device_class_with_selector(*distinct(5))
    outcome = run.run_rules(obj, Policy.from_mapping({"rules": {"budget-exceeded": "off"}}),
                            budget=Budget(selectors=3, cpu_seconds=0, wall_seconds=0))
    assert outcome.findings == []


def test_a_mismatching_object_kind_is_denied() -> None:
    obj = {**slice_with(numa=-5), "kind": "Foo"}
    response = client_for().post(SLICES, json=review(obj, uid="uid-foo")).get_json()["response"]
    assert response["allowed"] is False
    assert response["status"]["message"] == "object.kind 'Foo' does not match the request's kind ResourceSlice"


def test_a_mismatching_old_object_kind_is_denied() -> None:
    response = client_for().post(SLICES, json=review(
        slice_with(numa=1), old={**slice_with(numa=1), "kind": "ConfigMap"}, operation="UPDATE",
    )).get_json()["response"]
    assert response["status"]["message"] == "oldObject.kind 'ConfigMap' does not match the request's kind ResourceSlice"


def test_a_kind_that_disagrees_with_its_resource_is_denied() -> None:
    obj = claim_with_selector('device.driver == "x"')
    response = client_for().post("/validate/selectors", json=review(
        obj, kind="ResourceClaim", resource="resourceslices")).get_json()["response"]
    assert response["status"]["message"] == (
        "request.kind ResourceClaim does not match request.resource resource.k8s.io/v1/resourceslices "
        "(which holds ResourceSlice)")


def test_a_huge_value_is_quoted_by_a_bounded_prefix() -> None:
    name = "A" * (6 * 1024 * 1024)
    obj = slice_with(numa=1)
    obj["spec"]["devices"][0]["name"] = name
    reply = client_for().post(SLICES, json=review(obj))
    assert reply.get_json()["response"]["allowed"] is False
    assert len(reply.data) < 64 * 1024


def test_every_runner_rule_denies_by_default() -> None:
    for rule_id in ("rule-error", "budget-exceeded"):
        rule = CATALOGUE[rule_id]
        assert (rule.default, rule.kinds) == (Action.DENY, DRA_KINDS)


@pytest.mark.parametrize(("length", "cut"), [(511, False), (512, False), (513, True), (4 * 512 + 1, True)])
def test_a_message_is_quoted_up_to_its_limit(length: int, cut: bool) -> None:
    quoted = handlers.quoted("m" * length)
    assert quoted == ("m" * 511 + "…" if cut else "m" * length)


@pytest.mark.parametrize(("length", "cut"), [(199, False), (200, False), (201, True)])
def test_an_exception_text_is_quoted_up_to_its_limit(length: int, cut: bool) -> None:
    message = run.rule_error(BROKEN, ValueError("e" * length), Policy.default()).message
    assert message.endswith("e" * 199 + "…" if cut else ": " + "e" * length)


def test_off_the_main_thread_the_deadline_is_checked_between_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where no timer can interrupt (a thread other than the main one), the runner looks at the clock before each
    rule: the rule after one that overran the deadline does not run, and the object gets `budget-exceeded`."""
    real = CATALOGUE["numa-node-range"]
    ran: list[str] = []
    clock = [100.0]  # the budget's wall clock, moved by the first rule only (no sleeping, no load dependence)
    monkeypatch.setattr(budget, "time", SimpleNamespace(monotonic=lambda: clock[0], thread_time=time.thread_time))

    def overrun(obj: Any, ctx: Any) -> Iterator[Finding]:
        clock[0] += 0.02  # past the deadline below
        ran.append("first")
        yield from ()

    def after(obj: Any, ctx: Any) -> Iterator[Finding]:
        ran.append("second")
        yield from ()

    rules = [Rule(real.id, real.kinds, real.default, real.summary, real.remediation, check)
             for check in (overrun, after)]
    monkeypatch.setattr(run, "rules_for", lambda kind: rules)
    outcomes: list[run.Outcome] = []
    worker = threading.Thread(target=lambda: outcomes.append(run.run_rules(
        slice_with(numa=1), Policy.default(), budget=Budget(selectors=0, cpu_seconds=0, wall_seconds=0.01))))
    worker.start()
    worker.join()
    assert ran == ["first"]
    assert [(f.rule, f.message) for f in outcomes[0].findings] == [
        ("budget-exceeded", "evaluation took longer than its deadline of 0.01 s; not evaluated further")]
