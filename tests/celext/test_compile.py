"""celext.compile()/parse(): syntax errors with positions, static checks, cel.bind, paths, the corpus."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from ruamel.yaml import YAML

import celext
from celext.compile import MAX_LENGTH, gc_paused, prepare
from celext.syntax.nodes import Token, Tree
from tests.celext.outcome import outcome


@pytest.mark.parametrize(
    ("expression", "message", "line", "column"),
    [
        ("?!", "Syntax error: unexpected '?!'", 1, 1),
        ("device.driver == 'a' &&\n  device.driver ==", "Syntax error: unexpected end of input", 2, 19),
        ("[1, ?] == [1]", "Syntax error: unexpected ']'", 1, 6),  # an optional element needs its expression
        ("", "Syntax error: the expression is empty", 1, 1),
        ("foo == 1", "undeclared reference to 'foo' (in container '')", 1, 1),
        ("device.driver.nosuch()", "undeclared reference to 'nosuch' (in container '')", 1, 21),
        ("nosuch(1)", "undeclared reference to 'nosuch' (in container '')", 1, 7),
        ("device.name == 'x'", "undefined field 'name'", 1, 7),
        ("1", "must evaluate to bool or the unknown type, not int",None, None),
        ("device.driver", "must evaluate to bool or the unknown type, not string",None, None),
        ("[1].map(x, x)", "must evaluate to bool or the unknown type, not list(int)",None, None),
        ("[1].all(i, v, w > 0)", "undeclared reference to 'w' (in container '')", 1, 15),
        ("[1].exists(x.y, true)", "argument must be a simple name", 1, 12),
        ("device.?foo.hasValue()", "undefined field 'foo'", 1, 7),
        ("optional.foo(1)", "undeclared reference to 'optional' (in container '')", 1, 1),
        ("[1].reduce(a, x, 0, a + x) == 1", "undeclared reference to 'reduce' (in container '')", 1, 11),
        ("cel.bind(1, 2, true)", "cel.bind() variable names must be simple identifiers", 1, 10),
        ("format.named('x')", "'format' is not supported: the Kubernetes format library (format.dns1123Label(), "
         "format.named(), ...) is not provided by celext", 1, 1),
        # cel-go refuses a call no overload fits at compile time (its text names the argument types)
        ('device.attributes["d"].x.includes()',
         "found no matching overload for 'includes' applied to 'dyn.()'", 1, 34),
        ('device.attributes["d"].x.include(1, 2)',
         "found no matching overload for 'include' applied to 'dyn.(int, int)'", 1, 33),
        ('semver("1.0.0", true, 1).major() == 1',
         "found no matching overload for 'semver' applied to '(string, bool, int)'", 1, 7),
        ("sets.contains([1])", "found no matching overload for 'sets.contains' applied to '(list(int))'", 1, 14),
        # type errors cel-go's checker reports, at the operator or the call's '(' as cel-go does
        ('device.capacity["d"].memory == "1Gi"',
         "found no matching overload for '_==_' applied to '(kubernetes.Quantity, string)'", 1, 29),
        ("device.driver && true", "expected type 'bool' but found 'string'", 1, 7),
        ('device.attributes["d"].x.exists(v, v > 1) && device.driver.size() > "a"',
         "found no matching overload for '_>_' applied to '(int, string)'", 1, 67),
        ("device.allowMultipleAllocations.size() == 1",
         "found no matching overload for 'size' applied to 'bool.()'", 1, 37),
        # the estimate over the limit: the API server's text (Forbidden), no position
        (("[" + ", ".join(["1"] * 10) + "].all(a, ") * 7 + "true" + ")" * 7, "too complex, exceeds cost limit", None,
         None),
    ],
)
def test_compile_errors_name_the_problem_and_its_position(
        expression: str, message: str, line: int | None, column: int | None) -> None:
    with pytest.raises(celext.CompileError) as raised:
        celext.compile(expression)
    assert (raised.value.message, raised.value.line, raised.value.column) == (message, line, column)
    assert isinstance(raised.value, celext.CELError)


def test_expressions_over_10_kib_are_rejected_like_upstream() -> None:
    long = "true && " * (MAX_LENGTH // 8) + "true"
    with pytest.raises(celext.CompileError, match=r"^Too long: may not be more than 10240 bytes$"):
        celext.compile(long)
    assert celext.compile("true" + " " * (MAX_LENGTH - 4)).matches({}, "d") is True


def test_parse_returns_the_cached_tree_with_positions() -> None:
    tree = celext.parse('device.driver == "x"')
    assert isinstance(tree, Tree)  # celext's own node classes, not lark's
    assert tree is celext.parse('device.driver == "x"')
    token = next(c for n in tree.iter_subtrees() for c in n.children if isinstance(c, Token) and c == "driver")
    assert (token.line, token.column, token.start_pos, token.end_pos) == (1, 8, 7, 13)


def test_compile_is_cached_by_text() -> None:
    assert celext.compile("true") is celext.compile("true")
    assert celext.compile("true").expression == "true"


@pytest.mark.parametrize(
    ("expression", "paths"),
    [
        ('device.driver == "x" && device.attributes["resource.kubernetes.io"].numaNode.includes(4)',
         {("attributes", "resource.kubernetes.io", "numaNode"), ("driver",)}),
        ('cel.bind(dra, device.attributes["dra.example.com"], '
         'dra.model == "A" && dra.v.isGreaterThan(semver("1.0.0")))',
         {("attributes", "dra.example.com", "model"), ("attributes", "dra.example.com", "v")}),
        ('has(device.attributes["d"].x)', {("attributes", "d", "x")}),
        ("device.capacity.d.memory.isGreaterThan(quantity('1'))", {("capacity", "d", "memory")}),
        ("true", set()),
        ('size(device.attributes["d"]) > 2', None),
        ('device.attributes["d"].exists(k, k == "model")', None),
        ('"d" in device.attributes', None),
        ("[1].exists(device, device == 1)", None),
    ],
)
def test_device_paths_drive_memoisation(expression: str, paths: set[tuple[str, ...]] | None) -> None:
    derived = celext.compile(expression).paths
    assert derived == (None if paths is None else frozenset(paths))


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("cel.bind(x, 2, cel.bind(y, x * 3, x + y)) == 8", True),
        ("cel.bind(x, 1, [2, 3].all(x, x > 1)) && cel.bind(x, 1, x == 1)", True),   # macro variables shadow
        ("cel.bind(x, 1, cel.bind(x, 2, x) == 2)", True),                           # inner bind shadows
        ('cel.bind(dra, device.attributes["gpu.example.com"], dra.model == "A100-80GB" && dra.healthy)', True),
    ],
)
def test_cel_bind_is_expanded(expression: str, expected: bool) -> None:
    assert outcome(expression) == expected


# Corpus expressions that do not compile, each for a reason a user would agree with.
CORPUS_FAILURES = {
    5: "undeclared reference to 'attribute' (in container '')",        # KEP prose shorthand, not a selector
    6: "undeclared reference to 'attributes' (in container '')",       # KEP prose shorthand
    7: "must evaluate to bool or the unknown type, not list(dyn)",  # a derivedAttributes proposal, not a selector
    11: "must evaluate to bool or the unknown type, not string",  # a tier label computed from attributes
    12: "must evaluate to bool or the unknown type, not string",  # a topology part, not a selector
    13: "undefined field 'name'",                    # DraNet docs: device.name is not in the DRA environment
    14: "undefined field 'name'",
    79: "Syntax error: unexpected 'google-tpu'",     # a stray quote copied from the KEP fragment
    81: "undeclared reference to 'devices' (in container '')",  # a proposed cross-device constraint, not a selector
}


def test_every_corpus_expression_compiles_or_fails_for_a_known_reason(corpus: Path) -> None:
    entries = YAML(typ="safe").load((corpus / "cel-expressions.yaml").read_text())["expressions"]
    failures = {}
    for entry in entries:
        try:
            prepare(entry["expression"])
        except celext.CompileError as err:
            failures[entry["id"]] = err.message
    assert failures == CORPUS_FAILURES
    assert len(entries) - len(failures) >= 150


def test_templated_values_compile_and_fail_on_evaluation(corpus: Path) -> None:
    # Helm-style placeholders in the corpus sit inside string literals: valid syntax, invalid values.
    expression = 'device.attributes["gpu.example.com"].driverVersion.compareTo(semver("{{ .DriverVersion }}")) >= 0'
    assert outcome(expression) == "eval: No Major.Minor.Patch elements found"
    assert outcome('device.driver == {{ .Driver }}') == (
        "compile: Syntax error: unexpected '}}'; the expression looks like an unrendered template ('{{ }}')")


def test_the_collector_is_paused_during_a_compile_and_resumed_after() -> None:
    assert gc.isenabled()
    seen: list[bool] = []

    def outer() -> None:
        seen.append(gc.isenabled())
        gc_paused(lambda: seen.append(gc.isenabled()))  # a compile inside a compile (another thread) keeps it paused
        seen.append(gc.isenabled())

    gc_paused(outer)
    assert (seen, gc.isenabled()) == ([False, False, False], True)
    gc.disable()
    try:
        gc_paused(lambda: None)
        assert not gc.isenabled()  # someone else's choice stands
    finally:
        gc.enable()


def test_resuming_the_collector_walks_nothing_the_compile_allocated() -> None:
    # Without the promotion the first young collection after a 10 KiB compile walks every node it built.
    expression = " || ".join(f"device.attributes['d'].a{i} == 1" for i in range(200))
    collections: list[int] = []

    def record(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    if gc.get_freeze_count():  # e.g. the mutation runner's warm session: compile then leaves the collector be
        pytest.skip("objects are frozen by this process already; the next test covers that case")
    celext.clear_caches()
    gc.collect()
    gc.callbacks.append(record)
    try:
        celext.compile(expression)
        assert gc.get_count()[0] < 50  # the young generation starts afresh
    finally:
        gc.callbacks.remove(record)
    assert collections == []
    assert gc.get_freeze_count() == 0  # promoted into the oldest generation, nothing left frozen


def test_objects_someone_else_froze_stay_frozen_across_a_compile() -> None:
    celext.clear_caches()
    sentinel = [object()]  # a tracked object; frozen ones are in no generation gc.get_objects() lists
    gc.freeze()
    try:
        celext.compile("device.driver == 'frozen.example.com'")
        assert gc.get_freeze_count() > 0
        assert not any(found is sentinel for found in gc.get_objects())  # still frozen, not handed back
    finally:
        gc.unfreeze()
    assert any(found is sentinel for found in gc.get_objects())  # the check above can tell


def test_objects_someone_else_froze_stay_frozen_across_a_large_compile() -> None:
    # A compile past the young threshold is the one that would promote (freeze then unfreeze): not while frozen.
    celext.clear_caches()
    sentinel = [object()]
    gc.freeze()
    try:
        celext.compile(" || ".join(f"device.attributes['d'].f{i} == 1" for i in range(200)))
        assert not any(found is sentinel for found in gc.get_objects())
    finally:
        gc.unfreeze()
    assert any(found is sentinel for found in gc.get_objects())


def test_a_small_compile_does_not_count_the_frozen_heap(monkeypatch: pytest.MonkeyPatch) -> None:
    # CPython 3.11's gc.get_freeze_count() walks every frozen object: a served worker that froze its heap would
    # pay milliseconds after every selector compile. Only a compile that made a young collection due asks.
    calls: list[int] = []
    real = gc.get_freeze_count

    def counted() -> int:
        calls.append(1)
        return real()

    monkeypatch.setattr(gc, "get_freeze_count", counted)
    celext.clear_caches()
    gc.collect()
    celext.compile("device.driver == 'small.example.com'")
    assert calls == []
    celext.compile(" || ".join(f"device.attributes['d'].s{i} == 1" for i in range(200)))
    assert calls == [1]
