"""`celext.plan.plan` and `generate` seen from outside: the laps they report, the form they choose at the
COMPACT_NODES boundary, the deep walk's source and the function's code name. Fast, for the mutation budget."""

from __future__ import annotations

from typing import Any

import pytest

import celext
from celext.compile import prepare
from celext.plan import COMPACT_HEADER, COMPACT_NODES, generate, larger_than, plan
from celext.syntax.nodes import Tree


def _chain(count: int) -> Tree[Any]:
    """A tree of exactly `count` nodes (a chain)."""
    tree: Tree[Any] = Tree("leaf", [])
    for _ in range(count - 1):
        tree = Tree("node", [tree])
    return tree


@pytest.mark.parametrize(("count", "limit", "expected"), [
    (1, 0, True), (1, 1, False), (2, 1, True),
    (COMPACT_NODES - 1, COMPACT_NODES, False), (COMPACT_NODES, COMPACT_NODES, False),
    (COMPACT_NODES + 1, COMPACT_NODES, True),
])
def test_larger_than_counts_every_node_once(count: int, limit: int, expected: bool) -> None:
    assert larger_than(_chain(count), limit) is expected
    wide: Tree[Any] = Tree("root", [Tree("leaf", []) for _ in range(count - 1)])
    assert larger_than(wide, limit) is expected


def test_the_generated_form_reports_both_laps() -> None:
    laps: dict[str, float] = {}
    compiled = plan(prepare("1 + 2 == 3"), laps)
    assert sorted(laps) == ["plan", "py compile"]
    assert all(value >= 0.0 for value in laps.values())
    assert not compiled.compact


def test_the_compact_form_reports_only_the_plan_lap() -> None:
    laps: dict[str, float] = {}
    compiled = plan(prepare("1 + 2 == 3"), laps, compact=True)
    assert sorted(laps) == ["plan"] and laps["plan"] >= 0.0
    assert compiled.compact


@pytest.mark.parametrize("compact", [False, True])
def test_the_plan_keeps_its_expression_and_its_source(compact: bool) -> None:
    expression = "device.driver == 'd.io'"
    compiled = plan(prepare(expression), compact=compact)
    assert compiled.expression == expression
    assert compiled.source.startswith(COMPACT_HEADER if compact else "def evaluate(device, driver, limit):\n")
    assert compiled.source.endswith(generate(prepare(expression))[0])
    assert bool(compiled.function({"name": "x"}, "d.io", 1000)) is True
    assert bool(compiled.function({"name": "x"}, "e.io", 1000)) is False


def test_the_functions_code_is_named_after_the_first_60_characters() -> None:
    expression = "device.driver == '" + "d" * 80 + "'"
    function = plan(prepare(expression)).function
    assert function.__code__.co_filename == f"<celext selector {expression[:60]!r}>"


@pytest.mark.parametrize("pad", [False, True])
def test_a_deep_selector_generates_its_source_and_answers_in_both_engines(pad: bool) -> None:
    expression = "(" * 130 + "device.driver == 'd.io'" + ")" * 130
    if pad:  # above COMPACT_NODES: the compact form, its source generated on demand
        expression += " && (" + " + ".join(["1"] * 100) + ") == 100"
    prepared = prepare(expression)
    assert prepared.deep
    source, _ = generate(prepared)
    assert source.startswith("def evaluate(device, driver, limit):\n")
    selector = celext.compile(expression)
    assert selector.source == (COMPACT_HEADER + source if pad else source)
    assert selector.evaluate({"name": "x"}, "d.io") is True
    assert selector.evaluate({"name": "x"}, "e.io") is False
    assert celext.compile(expression, engine="reference").evaluate({"name": "x"}, "e.io") is False
