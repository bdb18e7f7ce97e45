"""The cel-spec conformance tests (../shared/conformance/cel-spec) through the engine, with the reasoned
expected-failure list in expected_failures.yaml (strict: a listed test that passes fails the suite)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
import yaml

import celext
from celext.compile import prepare
from celext.selector import Selector
from tests.celext.conformance import harness

ENGINE: str | None = None  # None: celext.compile as this branch has it; else celext.compile(expr, engine=ENGINE)
EXPECTED = {entry["test"]: entry for entry in
            yaml.safe_load((Path(__file__).parent / "expected_failures.yaml").read_text())}
CASES = harness.load() if harness.SPEC.exists() else []


def _unbounded(text: str) -> Selector:
    # The comparison wrapper ranges over dyn values, which the static cost estimate prices as unbounded; the
    # conformance tests are about values, not cost (the cost limit has its own tests in tests/celext/cost).
    return Selector(prepare(text, cost_limit=2**64))  # above any estimate (cel-go caps them at uint64)


def compiler() -> harness.Compiler:
    if ENGINE is None:
        return _unbounded
    return functools.partial(celext.compile, engine=ENGINE)  # type: ignore[call-arg]


def _param(case: harness.Case) -> Any:
    entry = EXPECTED.get(case.id)
    marks = [pytest.mark.xfail(reason=entry["reason"], strict=True)] if entry else []
    return pytest.param(case, id=case.id, marks=marks)


@pytest.mark.skipif(not CASES, reason=f"the cel-spec conformance data is not beside this checkout ({harness.SPEC})")
@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_cel_spec(case: harness.Case) -> None:
    passed, what = harness.outcome(case, compiler())
    assert passed, f"{harness.selector_text(case)}: {what} (expected {case.expected or 'an error'})"


@pytest.mark.skipif(not CASES, reason="the cel-spec conformance data is not beside this checkout")
def test_expected_failures_are_known_tests_with_reasons_and_few() -> None:
    ids = {c.id for c in CASES}
    assert set(EXPECTED) <= ids
    assert all(entry["reason"].strip() and entry["kubernetes"] in (True, False) for entry in EXPECTED.values())
    applicable = len(CASES) - sum(1 for e in EXPECTED.values() if e["kubernetes"] is False)
    gaps = sum(1 for e in EXPECTED.values() if e["kubernetes"] is True)
    assert (applicable - gaps) / applicable >= 0.99  # the bar: 99 % of the applicable tests pass


@pytest.mark.parametrize(("case", "text"), [
    (harness.Case("t", "1 + 1", "2", (), False),
     "cel.bind(__r, dyn(1 + 1), cel.bind(__e, dyn(2), type(__r) == type(__e) && __r == __e && "
     "(type(__e) != type([]) || __e.all(__i, __x, type(__r[__i]) == type(__x))) && "
     "(type(__e) != type({}) || __e.all(__k, type(__r[__k]) == type(__e[__k])))))"),
    (harness.Case("t", "x", None, (("x", "1"), ("true", "false")), False),
     "cel.bind(x, 1, cel.bind(__r, (x), type(__r) == type(__r)))"),
])
def test_harness_builds_one_bool_selector_per_test(case: harness.Case, text: str) -> None:
    assert harness.selector_text(case) == text


@pytest.mark.parametrize(("case", "passed"), [
    (harness.Case("t", "[1]", "[1u]", (), False), False),   # equal in CEL, but the element types differ
    (harness.Case("t", "{'a': 1}", "{'a': 1.0}", (), False), False),
    (harness.Case("t", "1/0", None, (), False), True),       # an error test passes on the error
    (harness.Case("t", "nosuch", "1", (), True), True),      # checker off upstream: refused at compile, as Kubernetes
    (harness.Case("t", "nosuch", "1", (), False), False),
    (harness.Case("t", "1 +", "1", (), True), False),        # a syntax error never counts as the checker's refusal
])
def test_harness_outcomes(case: harness.Case, passed: bool) -> None:
    assert harness.outcome(case, celext.compile)[0] is passed
