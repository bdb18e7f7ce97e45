"""The lean parse tree the compile stages walk (`parser.parse_sized(lean=True)`): exactly what collapse() makes of
the full tree, long constant lists as one constant that behaves as the list literal did, and a height bound
that sends deep trees to the recursion headroom up front."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import celext
from celext import values as celvalues
from celext.compile import SHALLOW, prepare
from celext.errors import CompileError
from celext.reference.collapse import collapse
from celext.selector import Selector
from celext.syntax import constants, headroom, parser
from celext.syntax.nodes import Tree

from .test_parser import _expressions, difference

DEVICE = {"name": "d", "attributes": {"d/l": {"ints": [1, 2, 3]}, "d/s": {"string": "s3"}}}


@pytest.fixture
def elementwise(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Constant lists off: every list literal parsed element by element (the shape before them)."""
    celext.clear_caches()
    monkeypatch.setattr(constants, "CONSTANT_RUN", 10**9)
    yield
    celext.clear_caches()


def _difference(full: Any, lean: Any, path: str = "") -> str | None:
    """test_parser's `difference`, with decoded literal values (`const` nodes) compared by class and value."""
    if isinstance(full, Tree) and isinstance(lean, Tree) and full.data == lean.data == "const":
        a, b = full.children[0], lean.children[0]
        same = type(a) is type(b) and (a == b or (a != a and b != b))  # NaN equals itself here
        # cel-python's true/false carry no position; the lean const node has the literal's (the AST's offset,
        # where cel-go reports errors), its wrapper none, as in the full tree
        placed = type(a) is celvalues.BoolType and _spans(full) == (None,) * 6
        return None if same and (full.meta is lean.meta or _spans(full) == _spans(lean) or placed) else \
            f"{path}/const: {a!r} vs {b!r}"
    if isinstance(full, Tree) and isinstance(lean, Tree) and str(full.data) == str(lean.data) \
            and len(full.children) == len(lean.children) and _spans(full) == _spans(lean):
        for i, (a, b) in enumerate(zip(full.children, lean.children, strict=True)):
            found = _difference(a, b, f"{path}/{full.data}[{i}]")
            if found:
                return found
        return None
    return difference(full, lean, path)


def _spans(node: Tree[Any]) -> tuple[Any, ...]:
    return tuple(getattr(node.meta, name, None) for name in ("line", "column", "start_pos", "end_line", "end_column",
                                                            "end_pos"))


def _same_as_collapsed(expression: str) -> str | None:
    try:
        full = parser.parse(expression)
    except CompileError as err:
        with pytest.raises(CompileError) as lean_err:
            parser.parse_sized(expression, lean=True)
        assert (lean_err.value.message, lean_err.value.line, lean_err.value.column) == \
            (err.message, err.line, err.column)
        return None
    return _difference(collapse(full), parser.parse_sized(expression, lean=True).tree)


def test_lean_tree_is_the_collapsed_tree_on_corpus_and_cel_spec(corpus: Path, elementwise: None) -> None:
    expressions = _expressions(corpus)
    for expression in expressions:
        found = headroom.call(_same_as_collapsed, expression)
        assert found is None, (expression, found)
    assert len(expressions) > 1500


def _list(n: int, item: str = "{i}") -> str:
    return "[" + ", ".join(item.format(i=i) for i in range(n)) + "]"


def _map(n: int, entry: str = "'k{i}': {i}") -> str:
    return "{" + ", ".join(entry.format(i=i) for i in range(n)) + "}"


@pytest.mark.parametrize(("count", "constant"), [(constants.CONSTANT_RUN - 1, False), (constants.CONSTANT_RUN, True),
                                                 (constants.CONSTANT_RUN + 1, True)])
def test_lists_of_at_least_constant_run_literals_are_one_constant(count: int, constant: bool) -> None:
    tree = parser.parse_sized(_list(count) + ".size() > 0", lean=True).tree
    primary = tree.children[0].children[0].children[0]  # relation_gt > member_dot_arg > primary
    assert primary.data == "primary"
    assert primary.children[0].data == ("const" if constant else "list_lit")
    if constant:
        assert list(primary.children[0].children[0]) == list(range(count))


@pytest.mark.parametrize(("count", "constant"), [(constants.CONSTANT_RUN - 1, False), (constants.CONSTANT_RUN, True),
                                                 (constants.CONSTANT_RUN + 1, True)])
def test_maps_of_at_least_constant_run_literal_entries_are_one_constant(count: int, constant: bool) -> None:
    tree = parser.parse_sized(_map(count) + ".size() > 0", lean=True).tree
    primary = tree.children[0].children[0].children[0]
    assert primary.children[0].data == ("const" if constant else "map_lit")
    if constant:
        assert dict(primary.children[0].children[0]) == {f"k{i}": i for i in range(count)}


@pytest.mark.parametrize("text", [
    _map(20) + "['k3'] == 3",
    _map(20, "{i}: 'v{i}'") + "[3] == 'v3'",
    _map(20, "{i}u: {i}.5") + "[3u] == 3.5",
    _map(20) + ".exists(k, k == 'k19')",
    "'k5' in " + _map(20),
    "device.attributes['d'].s in " + _map(20, "'s{i}': true"),
    _map(20) + "['nope'] == 1",  # no such key, at run time
    _map(20, "'k': {i}") + ".size() > 0",  # a repeated key: left to the element-wise parse
    _map(19) + ", 'k19': 'x'}.size() > 0".replace("}, ", ", ", 1),  # mixed value kinds
    _map(20, "{i}.5: {i}") + ".size() > 0",  # double keys
    "device.attributes['d'].l.all(x, " + _map(20, "{i}: true") + "[x])",
    "{" + ", ".join(f"'k{i}': {i}" for i in range(20)) + ",}.size() == 20",  # trailing comma
    _list(20) + " == " + _list(20),  # elements and positions: every literal kind
    _list(20, "'s{i}'") + ".exists(x, x == 's3')",
    _list(20, "{i}.5") + "[3] == 3.5",
    _list(20, "{i}u").replace("[", "[", 1) + ".size() == 20u",
    _list(20, "true") + ".all(x, x)",
    _list(20, '"""m{i}"""') + ".size() == 20",
    "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,].size() == 17",  # trailing comma
    "device.attributes['d'].l.all(x, x in " + _list(20) + ")",
    "device.attributes['d'].s in " + _list(20, "'s{i}'"),
    "[" + ", ".join(["-1"] * 20) + "].all(x, x < 0)",
])
def test_constant_lists_compile_and_evaluate_as_list_literals(text: str) -> None:
    assert _outcomes(text) == _outcomes_elementwise(text)


@pytest.mark.parametrize(("text", "message", "column"), [
    (_list(20) + "['a'] == 1", "found no matching overload for '_[_]' applied to '(list(int), string)'", 71),
    ("[" + ", ".join(["1"] * 20) + ", 'a'].size() > 0", "expected type 'int' but found 'string'", 62),
    ("[" + ", ".join(["1"] * 20) + ", 1.5].size() > 0", "expected type 'int' but found 'double'", 62),
    ("[" + ", ".join(["1"] * 20) + ", 99999999999999999999].size() > 0", None, None),  # an invalid int literal
    (_list(20) + ".size()", "must evaluate to bool or the unknown type, not int", None),
])
def test_type_errors_around_constant_lists_are_unchanged(text: str, message: str | None, column: int | None) -> None:
    found = _outcomes(text)
    assert found == _outcomes_elementwise(text)
    if message is not None:
        assert found[0] == ("CompileError", message, None if column is None else 1, column)


@pytest.mark.parametrize("text", [
    "device.attributes['d'].l.all(x, x in " + _list(20) + ")",
    "device.attributes['d'].l.all(x, " + _map(20, "{i}: true") + "[x])",
])
def test_a_constant_aggregate_costs_what_the_literal_cost_at_run_time(text: str) -> None:
    assert _cheapest_limits(text) == _cheapest_limits_elementwise(text)


def test_nesting_limit_counts_the_elements_of_a_constant_list() -> None:
    fits = "(" * 248 + _list(20) + ".size() > 0" + ")" * 248
    assert celext.compile(fits, engine="reference").matches(DEVICE, "d") is True
    with pytest.raises(CompileError) as err:
        celext.compile("(" * 249 + _list(20) + ".size() > 0" + ")" * 249)
    assert err.value.message == "expression recursion limit exceeded: 250"


@pytest.mark.parametrize(("links", "deep"), [(10, False), (SHALLOW + 1, True), (400, True)])
def test_the_height_bound_sends_deep_trees_to_the_headroom(links: int, deep: bool) -> None:
    text = " && ".join(["device.driver == 'd'"] * (links + 1))
    prepared = prepare(text)
    assert prepared.deep is deep
    assert prepared.height >= links
    assert celext.compile(text).matches(DEVICE, "d") is True


def test_a_deep_tree_is_planned_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """No failed first run of the emitter: the prepared height sends it to the deep path directly."""
    import celext.plan as plan_module

    calls: list[str] = []
    real = plan_module._emit

    def counted(prepared: Any) -> Any:
        calls.append(prepared.expression)
        return real(prepared)

    monkeypatch.setattr(plan_module, "_emit", counted)
    monkeypatch.setattr(plan_module, "COMPACT_NODES", 10**6)  # the generated form, not the compact one
    text = " || ".join(["device.attributes['d'].s == 'x'"] * 250)
    celext.clear_caches()
    assert celext.compile(text).matches(DEVICE, "d") is False
    assert len(calls) == 1


def test_device_paths_are_derived_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    compile_module = importlib.import_module("celext.compile")
    asked: list[Any] = []
    monkeypatch.setattr(compile_module, "device_paths", lambda tree: asked.append(tree) or frozenset())
    celext.clear_caches()
    selector = celext.compile("device.driver == 'paths-test'")
    assert selector.matches(DEVICE, "d") is False
    assert asked == []
    assert selector.paths == frozenset()
    assert len(asked) == 1
    assert selector.paths == frozenset()
    assert len(asked) == 1  # remembered


# --- helpers ---------------------------------------------------------------------------------------------------


def _outcome(text: str, engine: str) -> tuple[Any, ...]:
    try:
        selector = celext.compile(text, engine=engine)
    except CompileError as err:
        return ("CompileError", err.message, err.line, err.column)
    try:
        return ("result", selector.matches(DEVICE, "d"), selector.cost)
    except celext.EvaluationError as err:
        return ("EvaluationError", err.message, selector.cost)


def _outcomes(text: str) -> list[tuple[Any, ...]]:
    celext.clear_caches()
    return [_outcome(text, engine) for engine in ("compiled", "reference")]


def _outcomes_elementwise(text: str) -> list[tuple[Any, ...]]:
    with pytest.MonkeyPatch.context() as patch:
        celext.clear_caches()
        patch.setattr(constants, "CONSTANT_RUN", 10**9)
        try:
            return _outcomes(text)
        finally:
            celext.clear_caches()


def _cheapest_limits(text: str) -> list[int]:
    """Per engine, the smallest run-time cost limit under which the selector still evaluates."""
    celext.clear_caches()
    prepared = prepare(text)
    limits = []
    for engine in ("compiled", "reference"):
        low, high = 0, 100_000
        while low < high:
            middle = (low + high) // 2
            try:
                Selector(prepared, cost_limit=middle, engine=engine).evaluate(DEVICE, "d")
                high = middle
            except celext.EvaluationError:
                low = middle + 1
        limits.append(low)
    return limits


def _cheapest_limits_elementwise(text: str) -> list[int]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(constants, "CONSTANT_RUN", 10**9)
        try:
            return _cheapest_limits(text)
        finally:
            celext.clear_caches()

