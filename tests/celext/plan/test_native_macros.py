"""Every macro form runs in the compiled engine itself, not in the reference engine: the one-variable loops as
generated Python or the compact form's own loops, the rest (two variables, a condition, the transforms, sortBy,
optMap, optFlatMap) through the compact form's `_macro` (celext.plan.closures), which the generated form calls
for them. The reference engine ran those at about 5 us per cost unit; a Kubernetes-accepted
`lists.range(200).transformList(...)` took seconds per device. Answers and error texts are the reference
engine's (also tests/celext/plan/test_differential.py); what is pinned here is that no reference-engine call
is made, in either form, on results and on each error path. Map literals and `[?x]` list elements, which loop
bodies build (transformMapEntry's always), are built natively too (celext.reference.aggregates)."""

from __future__ import annotations

from typing import Any

import pytest

import celext
from celext.compile import prepare
from celext.plan import plan

DRIVER = "d.io"
DEVICE = {"name": "g", "attributes": {"d.io/l": {"ints": [3, 1, 2]}, "d.io/n": {"int": 2},
                                      "d.io/s": {"string": "a"}}}
N = "int(device.attributes['d.io'].n)"  # 2, read from the device: nothing folds at compile time
L = f"[{N} + 1, {N} - 1, {N}]"  # [3, 1, 2]; sized, unlike a list attribute (whose loops estimate over the limit)
M = f"{{'a': {N}, 'b': 1}}"

CASES: list[tuple[str, Any]] = [
    # two variables: (index, element) on a list, (key, value) on a map
    (f"{L}.all(i, v, v > i)", False),
    (f"{L}.exists(i, v, v == i + 3)", True),
    (f"{L}.existsOne(i, v, v > i)", True),
    (f"{L}.exists(i, v, v / (i - 1) > 100)", "division by zero"),  # no element decides: the error
    (f"{L}.exists(i, v, v / (i - 1) > 0)", True),  # a later element decides: the error is absorbed
    (f"{L}.existsOne(i, v, v / (i - 1) > 0)", "division by zero"),  # no short-circuit: the error
    (f"{L}.existsOne(i, v, dyn(v))", "no such overload"),
    # the transforms, with and without a condition
    (f"{L}.transformList(i, v, v * i) == [0, 1, 4]", True),
    (f"{L}.transformList(i, v, v > 1, v * i) == [0, 4]", True),
    (f"{L}.transformList(i, v, dyn(v), v) == []", "no such overload"),  # a condition that is not a bool
    (f"{L}.transformList(i, v, 1 / (v - 1)) == []", "division by zero"),
    (f"{M}.transformMap(k, v, v + 1) == {{'a': 3, 'b': 2}}", True),
    (f"{M}.transformMap(k, v, k == 'b', v) == {{'b': 1}}", True),
    (f"{L}.transformMap(i, v, v) == {{0: 3, 1: 1, 2: 2}}", True),
    (f"{L}.transformMapEntry(i, v, {{v: i}}) == {{3: 0, 1: 1, 2: 2}}", True),
    (f"{L}.transformMapEntry(i, v, i > 0, {{'k': v}}) == {{}}", "insert failed: key k already exists"),
    (f"{L}.transformMapEntry(i, v, dyn(v)) == {{}}", "no such overload"),  # a transform that is not a map
    # map() with a condition; sortBy
    (f"{L}.map(v, v > 1, v * 10) == [30, 20]", True),
    (f"{L}.sortBy(v, -v) == [3, 2, 1]", True),
    (f"{L}.sortBy(v, v % 2 == 0 ? 'b' : 'a') == [3, 1, 2]", True),  # stable
    (f"{L}.sortBy(v, v == 1 ? 'a' : dyn(v)) == []", "list elements must have the same type"),
    (f"dyn({M}).sortBy(k, k) == []", "no such overload"),  # a map is not sortable
    # optMap / optFlatMap
    (f"optional.of({L}).optMap(v, v.size()).value() == 3", True),
    (f"{M}[?'x'].optMap(v, v + 1).hasValue()", False),
    (f"{M}[?'a'].optFlatMap(v, optional.of(v * 2)).value() == 4", True),
    (f"{M}[?'a'].optFlatMap(v, dyn(v * 2)).hasValue()", "no such overload"),
    # the target: not iterable, an error
    (f"dyn({N}).all(i, v, v > 0)", "got 'types.Int', expected iterable type"),
    ("device.attributes['d.io'].missing.transformList(i, v, v) == []", "no such key: missing"),
    (f"dyn({N}).optMap(v, v).hasValue()", "no such overload"),
    (f"(1 / ({N} - 2) == 1 ? optional.of(1) : optional.none()).optMap(v, v).hasValue()", "division by zero"),
    (f"{M}.exists(k, v, v / (v - 1) > 1)", True),  # ('b', 1) errs, ('a', 2) decides, in either order
    (f"{M}.all(k, v, k == 'a')", False),
    # map literals and `[?x]` list elements, as loop bodies build them (transformMapEntry's in particular)
    (f"{L}.map(v, {{v: v * 10}}[v]) == [30, 10, 20]", True),
    (f"{L}.map(v, {{v: 1 / (v - 1)}}).size() == 3", "division by zero"),
    (f"{L}.map(v, {{1 / (v - 1): v}}).size() == 3", "division by zero"),  # the key is evaluated first
    (f"{L}.map(v, {{'k': v, 'k': v + 1}}.k) == [4, 2, 3]", True),  # a repeated key keeps its last value
    (f"{L}.map(v, {{?'k': v > 1 ? optional.of(v) : optional.none()}}.size()) == [1, 0, 1]", True),
    (f"{L}.map(v, [?v > 1 ? optional.of(v) : optional.none(), v]) == [[3, 3], [1], [2, 2]]", True),
    (f"{L}.map(v, {{dyn([v]): 1}}).size() == 3", "unsupported key type: list"),
    (f"{L}.map(v, {{dyn(v): 1, dyn(1u): 2}}.size()) == [2, 2, 2]", True),  # keys of different kinds stay apart
    # nested: an inner loop reading the outer variables, and a one-variable loop inside a two-variable one
    (f"{L}.transformList(i, v, {L}.filter(w, w > v).size() + i) == [0, 3, 3]", True),
    (f"{L}.all(i, v, [v].map(w, w + i).all(x, x >= v))", True),
    (f"[{L}].transformList(i, v, v.transformList(j, w, w * j)) == [[0, 1, 4]]", True),
]


def _reference(expression: str) -> Any:
    try:
        return celext.compile(expression, engine="reference").evaluate(DEVICE, DRIVER)
    except celext.EvaluationError as err:
        return err.message


def _form(expression: str, compact: bool, limit: int = 1_000_000) -> Any:
    try:
        value = plan(prepare(expression), compact=compact).function(DEVICE, DRIVER, limit)
    except Exception as err:  # (the cost limit is raised)
        return str(err)
    return value.args[0] if isinstance(value, Exception) else bool(value)


@pytest.mark.parametrize("compact", [True, False], ids=["compact", "generated"])
@pytest.mark.parametrize(("expression", "expected"), CASES)
def test_macros_run_natively_with_the_reference_answers(reference_calls: list[Any], compact: bool,
                                                        expression: str, expected: Any) -> None:
    assert _reference(expression) == expected
    reference_calls.clear()
    assert _form(expression, compact) == expected
    assert reference_calls == [], [t.pretty() for t in reference_calls]


def test_the_generated_form_hands_a_two_variable_macro_to_the_compact_form() -> None:
    source = plan(prepare(f"{L}.transformList(i, v, v * i) == [0, 1, 4]"), compact=False).source
    assert "(FRAME(" in source and "rt_subtree(" not in source, source


def test_the_variables_of_the_generated_code_reach_the_compact_part() -> None:
    """A two-variable macro inside a generated one-variable loop reads that loop's variable, step by step."""
    expression = f"{L}.map(x, [x, 10].transformList(i, v, v + x + i)) == [[6, 14], [2, 12], [4, 13]]"
    source = plan(prepare(expression), compact=False).source
    assert "(FRAME(" in source and "for " in source, source  # the outer loop generated, the inner handed
    assert _form(expression, False) is True
    assert _reference(expression) is True


@pytest.mark.parametrize("compact", [True, False], ids=["compact", "generated"])
def test_a_runaway_transform_stops_at_the_cost_limit(compact: bool) -> None:
    """Each step charges the selector's budget (the generated form's and the part's are one): a nested
    transform stops with cel-go's run-time error at a limit it exceeds, and runs to its answer under one it
    does not."""
    expression = "lists.range(60).transformList(i, v, lists.range(60).filter(x, x > v).size()).size() == 60"
    assert _form(expression, compact) is True
    assert _form(expression, compact, limit=5_000) == "operation cancelled: actual cost limit exceeded"
