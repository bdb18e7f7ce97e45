"""`webhook.suppress`: the draguard.io/ignore annotation, read once for the runner and the meta rule."""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import slice_with
from webhook import suppress
from webhook.policy import Policy
from webhook.run import run_rules


def annotated(text: object) -> dict[str, Any]:
    return {"kind": "ResourceSlice", "metadata": {"annotations": {"draguard.io/ignore": text}}}


@pytest.mark.parametrize(("text", "ids", "reason"), [
    ("numa-node-order: vendor quirk", ["numa-node-order"], "vendor quirk"),
    (" a , b ,, c :  why: because ", ["a", "b", "c"], "why: because"),  # the first colon splits
    ("numa-node-order", ["numa-node-order"], ""),
    ("numa-node-order:   ", ["numa-node-order"], ""),
    (": only a reason", [], "only a reason"),
    ("", [], ""),
])
def test_split(text: str, ids: list[str], reason: str) -> None:
    assert suppress.split(text) == (ids, reason)


@pytest.mark.parametrize(("obj", "expected"), [
    (annotated("a,b: reason"), frozenset({"a", "b"})),
    (annotated("a,b"), frozenset()),  # no reason: nothing is suppressed
    (annotated("a:"), frozenset()),
    (annotated(["a: reason"]), frozenset()),  # not a string
    ({"metadata": {"annotations": None}}, frozenset()),
    ({"metadata": "x"}, frozenset()),
    ({}, frozenset()),
])
def test_suppressed(obj: dict[str, Any], expected: frozenset[str]) -> None:
    assert suppress.suppressed(obj) == expected


def test_the_runner_suppresses_what_the_annotation_names() -> None:
    obj = slice_with(numa=-1, annotations={suppress.ANNOTATION: "numa-node-range: firmware reports -1"})
    outcome = run_rules(obj, Policy.default())
    assert [f.rule for f in outcome.suppressed] == ["numa-node-range"]
    assert "numa-node-range" not in [f.rule for f in outcome.findings]
    unreasoned = slice_with(numa=-1, annotations={suppress.ANNOTATION: "numa-node-range"})
    assert "numa-node-range" in [f.rule for f in run_rules(unreasoned, Policy.default()).findings]
