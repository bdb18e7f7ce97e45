"""The compiled engine (celext.plan): what users see of it, at its limits, always next to the reference."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterator
from typing import Any

import pytest

import celext
import celext.plan
from celext.compile import Prepared, prepare
from celext.errors import CostLimitError
from celext.plan import COMPACT_HEADER, COMPACT_NODES, generate, larger_than, namespace, plan
from celext.plan.cache import ByteBudgetCache
from celext.reference.evaluator import error_message
from celext.selector import Selector
from celext.syntax.nodes import Tree
from celext.values import CELEvalError

DRIVER = "d.io"


def both(expression: str, device: Any, driver: str = DRIVER, **options: Any) -> bool | str:
    """The answer of the compiled engine, asserted equal to the reference engine's."""
    answers = []
    for engine in ("compiled", "reference"):
        selector = Selector(prepare(expression), engine=engine, **options)
        try:
            answers.append(selector.matches(device, driver))
        except celext.EvaluationError as err:
            answers.append(f"eval: {err.message}")
    assert answers[0] == answers[1], answers
    return answers[0]


def test_source_shows_the_generated_python_and_reads_the_wire_form() -> None:
    selector = celext.compile('device.attributes["d.io"].n == 1')
    assert selector.engine == "compiled"
    assert selector.source is not None
    assert selector.source.startswith("def evaluate(device, driver, limit):\n")
    assert "'d.io/n'" in selector.source  # a direct dict lookup of the qualified name
    reference = celext.compile('device.attributes["d.io"].n == 1', engine="reference")
    assert (reference.engine, reference.source) == ("reference", None)
    assert repr(reference) == "Selector('device.attributes[\"d.io\"].n == 1', engine='reference')"


def test_an_unknown_engine_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^unknown engine 'fast' \(one of: compiled, reference\)$"):
        celext.compile("true", engine="fast")


def test_refusals_are_cached_and_raised_again_with_their_position() -> None:
    for _ in range(2):
        with pytest.raises(celext.CompileError) as caught:
            celext.compile("device.nosuch == 1")
        # cel-go reports an undefined field at the dot of the select
        assert (caught.value.message, caught.value.line, caught.value.column) == ("undefined field 'nosuch'", 1, 7)


@pytest.mark.parametrize(("attributes", "expected"), [
    ({"n": {"int": 1}, "d.io/n": {"int": 2}}, 2),  # both spellings: the later one wins, as to_device keeps it
    ({"d.io/n": {"int": 2}, "n": {"int": 1}}, 1),
    ({"n": {"int": 1}}, 1),
    ({"d.io/n": {"int": 2}}, 2),
])
def test_bare_and_qualified_names_of_the_drivers_domain(attributes: dict[str, Any], expected: int) -> None:
    assert both(f'device.attributes["d.io"].n == {expected}', {"attributes": attributes}) is True
    assert both('device.attributes["d.io"].n == 3', {"attributes": attributes}) is False


@pytest.mark.parametrize("capacity", [{}, {"m": {"value": "2"}}, {"d.io/m": {"value": "3"}},
                                      {"m": {"value": "2"}, "d.io/m": {"value": "3"}},
                                      {"d.io/m": {"value": "3"}, "m": {"value": "2"}}], ids=repr)
def test_the_drivers_own_domain_is_read_without_a_call_in_every_form(capacity: dict[str, Any]) -> None:
    """The own-domain read is written out in the generated code (no runtime call unless both spellings are
    there): has(), `.?`, a plain read and an id holding a slash all answer as the reference engine."""
    device = {"capacity": capacity, "attributes": {"d.io/a/b": {"int": 4}, "a/b": {"int": 5}}}
    expected = {(): "eval: no such key: m", ("m",): 2, ("d.io/m",): 3, ("m", "d.io/m"): 3, ("d.io/m", "m"): 2}
    value = expected[tuple(capacity)]
    three = value if isinstance(value, str) else value == 3
    for text, answer in [('has(device.capacity["d.io"].m)', bool(capacity)),
                         ('device.capacity["d.io"].?m.orValue(quantity("9")) == quantity("2")', value == 2),
                         ('device.capacity["d.io"].m == quantity("3")', three),
                         ('device.attributes["d.io"]["a/b"] == 4', True)]:
        assert both(text, device) == answer, text
    foreign = both('has(device.capacity["d.io"].m)', device, "e.io")  # another driver: the qualified name only
    assert foreign is ("d.io/m" in capacity)


def test_bare_names_belong_to_the_driver_only() -> None:
    assert both('device.attributes["d.io"].n == 1', {"attributes": {"n": {"int": 1}}}, "e.io") == "eval: no such key: n"
    assert both('has(device.attributes["d.io"].n)', {"attributes": {"n": {"int": 1}}}, "e.io") is False
    assert both('device.attributes["d.io"].?n.orValue(5) == 5', {"attributes": {"n": {"int": 1}}}, "e.io") is True


def test_v1beta1_basic_devices() -> None:
    device = {"name": "x", "basic": {"attributes": {"d.io/n": {"int": 1}}, "capacity": {"mem": {"value": "1Gi"}}}}
    assert both('device.attributes["d.io"].n == 1 && device.capacity["d.io"].mem.isGreaterThan(quantity("1'
                'Mi"))', device) is True


def test_a_device_kubernetes_cannot_convert_fails_every_selector() -> None:
    bad = {"attributes": {"d.io/n": {"int": 1}, "v": {"version": "1.0"}}}
    assert both("true", bad) == "eval: attribute v: parse semantic version: No Major.Minor.Patch elements found"


def test_the_conversion_verdict_is_checked_again_when_the_maps_change() -> None:
    selector = celext.compile("true")
    device: dict[str, Any] = {"attributes": {"n": {"int": 1}}}
    assert selector.matches(device, DRIVER) is True
    device["attributes"]["v"] = {"version": "1.0"}  # the map grew
    with pytest.raises(celext.EvaluationError, match=r"^attribute v: parse semantic version"):
        selector.matches(device, DRIVER)
    device["attributes"] = {"n": {"int": 1}}  # a new map
    assert selector.matches(device, DRIVER) is True


@pytest.mark.parametrize(("length", "position", "expected"), [
    (48, 47, True), (49, 47, True), (49, 48, "eval: 'includes' function cannot be applied to lists longer than "
                                            "48 values"),
    (47, None, False), (48, None, False), (49, None, "eval: 'includes' function cannot be applied to lists longer "
                                                     "than 48 values"),
])
def test_includes_on_the_wire_form_at_the_48_value_limit(length: int, position: int | None,
                                                         expected: bool | str) -> None:
    values = [100] * length
    if position is not None:
        values[position] = 7
    device = {"attributes": {"d.io/l": {"ints": values}}}
    assert both('device.attributes["d.io"].l.includes(7)', device) == expected


@pytest.mark.parametrize(("value", "expected"), [
    (2**63 - 3, True), (2**63 - 2, True), (2**63 - 1, "eval: integer overflow"),
])
def test_int_arithmetic_overflows_at_the_int64_limit(value: int, expected: bool | str) -> None:
    assert both('device.attributes["d.io"].i + 1 > 0', {"attributes": {"i": {"int": value}}}) == expected


def test_overloads_called_directly_still_refuse_the_wrong_receiver() -> None:
    device = {"attributes": {"v": {"version": "1.2.3"}}, "capacity": {"mem": {"value": "2Gi"}}}
    assert both('device.capacity["d.io"].mem.isGreaterThan(quantity("1Gi"))', device) is True
    assert both('device.attributes["d.io"].v.isGreaterThan(quantity("1Gi"))', device) == \
        "eval: no such overload: isGreaterThan(kubernetes.Semver, kubernetes.Quantity)"
    assert both('device.attributes["d.io"].v.isGreaterThan(semver("1.0.0"))', device) is True


@pytest.mark.parametrize(("limit", "expected"), [
    (49, "eval: operation cancelled: actual cost limit exceeded"), (50, True), (51, True),
])
def test_each_comprehension_step_is_charged_against_the_cost_limit(limit: int, expected: bool | str) -> None:
    # 10 steps of 3 (the iteration) + 2 (`x > 0`: the relation and the variable) = 50 units.
    selector = Selector(prepare("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, x > 0)"), cost_limit=limit)
    try:
        assert selector.matches({}, DRIVER) == expected
    except celext.EvaluationError as err:
        assert f"eval: {err.message}" == expected


def test_the_upstream_expensive_selector_is_stopped() -> None:
    ten = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"
    expression = f"{ten}.all(x, {ten}.all(y, {ten}.all(z, {ten}.all(z2, {ten}.all(z3, {ten}.all(z4, " \
                 f"{ten}.all(z5, int('1'.find('[0-9]*')) < 100)))))))"
    with pytest.raises(CostLimitError, match=r"^too complex, exceeds cost limit$"):  # the API server's refusal
        celext.compile(expression)
    # Past the static check (a selector stored before the limit, or the scheduler's own run), the run-time
    # tracker stops it: prepared without the static limit, as a stored selector is.
    stored = Selector(prepare(expression, cost_limit=2**64))
    with pytest.raises(celext.EvaluationError, match=r"^operation cancelled: actual cost limit exceeded$"):
        stored.matches({}, DRIVER)


def _deepest(make: Any) -> int:
    """The deepest nesting celext's front end accepts today (the parser's limit may grow)."""
    depth = 1
    while depth < 250:
        try:
            prepare(make(depth + 1))
        except (celext.CompileError, RecursionError):  # today's front end may run out of Python stack
            break
        depth += 1
    return depth


@pytest.fixture
def generated_form(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Selectors compiled in the test take the generated form whatever their size (not the compact form)."""
    monkeypatch.setattr(celext.plan, "COMPACT_NODES", 10**6)
    celext.clear_caches()
    yield
    celext.clear_caches()


def test_nesting_as_deep_as_the_front_end_accepts_compiles_into_flat_functions(generated_form: None) -> None:
    def parens(n: int) -> str:  # `||` and `&&` alternate: no chain to flatten
        return "".join("device.allowMultipleAllocations || (" if i % 2 else 'device.driver != "x" && ('
                       for i in range(n)) + 'device.driver == "d.io"' + ")" * n

    depth = _deepest(parens)
    assert depth >= 20
    selector = celext.compile(parens(depth))
    assert selector.source is not None and "def _f" in selector.source  # split into functions
    assert both(parens(depth), {}) is True
    assert both(parens(depth), {}, "e.io") is False
    assert both(parens(depth), {"allowMultipleAllocations": True}, "e.io") is True


def test_a_chain_of_one_operator_is_one_flat_loop_however_grouped(generated_form: None) -> None:
    def parens(n: int) -> str:
        return "device.allowMultipleAllocations || (" * n + 'device.driver == "d.io"' + ")" * n

    depth = _deepest(parens)
    source = celext.compile(parens(depth)).source
    assert source is not None and "def _f" not in source and source.count("while True:") == 1
    assert both(parens(depth), {}) is True
    assert both(parens(depth), {}, "e.io") is False
    assert both(parens(depth), {"allowMultipleAllocations": True}, "e.io") is True


def test_nested_comprehensions_past_pythons_block_limit(generated_form: None) -> None:
    def loops(n: int) -> str:
        return "".join(f"[1].all(a{i}, " for i in range(n)) + "a0 == 1" + ")" * n

    depth = min(_deepest(loops), 30)
    assert depth > 20  # CPython allows 20 statically nested blocks
    assert both(loops(depth), {}) is True


def test_the_compile_cache_is_bounded_by_bytes_not_entries() -> None:
    cache: ByteBudgetCache[str, str] = ByteBudgetCache(100, len)
    assert cache.get("a" * 40, str.upper) == "A" * 40
    cache.get("b" * 40, str.upper)
    cache.get("a" * 40, str.upper)  # used: now the newest
    cache.get("c" * 40, str.upper)
    assert (len(cache), cache.held) == (2, 80)
    assert cache.get("b" * 40, lambda key: "rebuilt") == "rebuilt"  # b was the oldest, dropped
    cache.get("d" * 500, str.upper)  # one entry over the whole budget is still kept (alone)
    assert (len(cache), cache.held) == (1, 500)


def test_matches_remembers_answers_per_device_object_until_its_maps_change() -> None:
    selector = celext.compile('device.attributes["d.io"].n == 1')
    device: dict[str, Any] = {"attributes": {"n": {"int": 1}}}
    assert selector.matches(device, DRIVER) is True
    with pytest.raises(celext.EvaluationError, match=r"^no such key: n$"):
        selector.matches(device, "e.io")  # another driver is another answer
    device["attributes"] = {"n": {"int": 2}}  # a new map: evaluated again
    assert selector.matches(device, DRIVER) is False
    device["attributes"]["m"] = {"int": 1}  # the map grew: evaluated again
    device["attributes"]["n"] = {"int": 1}
    assert selector.matches(device, DRIVER) is True
    assert selector.matches(dict(device), DRIVER) is True  # a copy is another device


def test_a_basic_that_is_not_a_map_is_an_evaluation_error_not_a_traceback() -> None:
    assert both("true", {"name": "x", "basic": "gpu"}) == "eval: basic: expected a map, not str"


@pytest.mark.parametrize("compact", [False, True])
def test_a_tree_250_levels_deep_compiles_and_runs(compact: bool) -> None:
    # cel-go accepts 250 levels; today's parser gives up earlier, so the tree is built by hand.
    small = prepare('device.allowMultipleAllocations || device.driver == "d.io"')
    left, tree = small.tree.children
    other = prepare('device.driver != "x"').tree
    for i in range(250):  # `||` and `&&` alternate (the outermost is `||`): no chain to flatten
        tree = Tree("conditionalor" if i % 2 else "conditionaland",
                    [left if i % 2 else other, Tree("primary", [Tree("paren_expr", [tree])])])
    limit = sys.getrecursionlimit()
    compiled = plan(Prepared(small.expression, tree, small.checked, small.cost, small.height), compact=compact)
    if not compact:
        assert compiled.source.count("\ndef _f") >= 15  # split into functions, each a few blocks deep
    run = compiled.function
    assert [run({}, "d.io", 1_000_000), run({}, "e.io", 1_000_000),
            run({"allowMultipleAllocations": True}, "e.io", 1_000_000)] == [True, False, True]
    assert sys.getrecursionlimit() == limit  # raised while planning, then put back


def test_trees_over_compact_nodes_take_the_compact_form(monkeypatch: pytest.MonkeyPatch) -> None:
    prepared = prepare('device.attributes["d.io"].n == 1 && device.driver == "d.io"')
    size = next(n for n in range(1, 100) if not larger_than(prepared.tree, n))
    device = {"attributes": {"n": {"int": 1}}}
    for limit, compact in ((size - 1, True), (size, False), (size + 1, False)):
        monkeypatch.setattr(celext.plan, "COMPACT_NODES", limit)
        planned = plan(prepared)
        assert planned.compact is compact and planned.source.startswith(COMPACT_HEADER) is compact, limit
        assert planned.function(device, "d.io", 1_000_000) == True  # noqa: E712 (a CEL bool)


LONG = 10 * 1024


def _fill(joiner: str, make: Any) -> str:
    """`make(i)` joined for i = 0, 1, ... as long as the text stays within 10 KiB."""
    parts: list[str] = []
    while len(joiner.join([*parts, make(len(parts))])) <= LONG:
        parts.append(make(len(parts)))
    return joiner.join(parts)


LONG_SHAPES = {  # as bench/bench_celext_compile.py times them, plus errors part-way
    "&& chain": _fill(" && ", lambda i: 'device.driver == "d.io"'),
    "|| chain of reads": _fill(" || ", lambda i: 'device.attributes["d.io"].n == 2'),
    "many attribute reads": _fill(" || ", lambda i: f'device.attributes["d.io"].a{i} == 1'),
    "many macros": _fill(" && ", lambda i: 'device.attributes["d.io"].l.all(x, x > 0)'),
    "errors part-way": _fill(" || ", lambda i: "1 / 0 == 1" if i == 150 else f'device.attributes["d.io"].a{i} == 2'),
    "240 nested ternaries": "device.allowMultipleAllocations ? false : " * 240 + "true",
    "arithmetic chain": "1" + " + 1" * 240 + " > 0" + " && 1 > 0" * ((LONG - 980) // 9),
}


@pytest.mark.parametrize("name", list(LONG_SHAPES))
def test_10_kib_shapes_take_the_compact_form_and_agree(name: str) -> None:
    text = LONG_SHAPES[name]
    assert plan(prepare(text)).compact
    devices = [{"attributes": {"n": {"int": 1}, "l": {"ints": [1, 2]}, "a7": {"int": 1}}},
               {"attributes": {"n": {"int": 2}, "l": {"ints": [0]}}, "allowMultipleAllocations": True}, {}]
    for device in devices:
        for driver in ("d.io", "e.io"):
            both(text, device, driver)


def _nodes(text: str) -> int:
    """Tree nodes, counted as larger_than counts them."""
    pending: list[Any] = [prepare(text).tree]
    count = 0
    while pending:
        count += 1
        pending.extend(c for c in pending.pop().children if isinstance(c, Tree))
    return count


_COMPACT_TERMS = (
    'device.attributes["d.io"].n == {i}',
    'device.attributes["d.io"].l.includes({i})',
    'device.capacity["d.io"].mem.isGreaterThan(quantity("{i}Gi"))',
    'device.attributes["d.io"].v.isLessThan(semver("1.{i}.0"))',
    'device.attributes["d.io"].l.exists(x, x > {i} && x != 7)',
    'device.attributes["d.io"].?s.orValue("") == "s{i}"',
)


def _compact_sized() -> str:
    """A selector of exactly COMPACT_NODES + 1 nodes mixing reads, library calls, macros and optionals."""
    for count in itertools.count(1):
        terms = [_COMPACT_TERMS[i % len(_COMPACT_TERMS)].format(i=i) for i in range(count)]
        pairs = [f"({a} && {b})" for a, b in zip(terms[::2], terms[1::2], strict=False)]
        chain = " || ".join(pairs + terms[len(pairs) * 2:])
        for nots, filler in itertools.product(range(12), ("true", "device.allowMultipleAllocations")):
            # two nodes per `!` of old: one `!` when odd (cel-go's parser drops a run `!!`), parentheses for the rest
            even = nots - nots % 2
            text = f"{chain} || {'!' * (nots % 2)}{'(' * even}{filler}{')' * even}"
            if _nodes(text) == COMPACT_NODES + 1:
                return text
    raise AssertionError  # pragma: no cover - the loop returns or fails


def test_source_of_the_compact_form_is_the_generated_python_and_runs_alike() -> None:
    text = _compact_sized()
    assert _nodes(text) == COMPACT_NODES + 1 and not larger_than(prepare(text).tree, COMPACT_NODES + 1)
    selector = celext.compile(text)
    source = selector.source
    assert source is not None and source is selector.source  # generated once, then kept
    header, _, body = source.partition("\n")
    assert header == COMPACT_HEADER.rstrip("\n") and header.startswith("# runs in the compact form")
    assert "differential test" in header and body.startswith("def evaluate(device, driver, limit):\n")
    generated, constants = generate(prepare(text))
    assert body == generated
    scope = namespace(constants)
    exec(compile(source, "<compact source>", "exec"), scope)  # valid Python, and it runs
    devices = [
        {"attributes": {"n": {"int": 0}}},
        {"attributes": {"l": {"ints": [3, 9]}, "v": {"version": "1.0.0"}}, "capacity": {"mem": {"value": "8Gi"}}},
        {"attributes": {"s": {"string": "s5"}, "l": {"ints": [1]}}},
        {"attributes": {"v": {"version": "2.0.0"}, "l": {"strings": ["a"]}}, "capacity": {"mem": {"value": "1"}}},
        {"attributes": {"l": {"ints": [7]}}, "allowMultipleAllocations": True},
        {"attributes": {"n": {"int": 99}, "l": {"ints": [0]}, "v": {"version": "9.0.0"}, "s": {"string": "z"}},
         "capacity": {"mem": {"value": "1"}}},
        {},
    ]
    answers = []
    for device in devices:
        for driver in ("d.io", "e.io"):
            try:
                expected: Any = selector.matches(device, driver)
            except celext.EvaluationError as err:
                expected = err.message
            result = scope["evaluate"](device, driver, 1_000_000)
            assert (error_message(result) if isinstance(result, CELEvalError) else result) == expected, device
            answers.append(expected)
    assert {True, False, "no such key: l"} <= set(answers)  # both answers and an error
