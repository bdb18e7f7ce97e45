"""celext.syntax.rewrite: `cel.bind` expansion and namespaced calls in one pass, and the expansion bound."""

from __future__ import annotations

import contextlib
import importlib

import pytest

import celext
from celext.errors import CompileError
from celext.reference.collapse import collapse
from celext.selector import Selector
from celext.syntax import parse
from celext.syntax.grammar import parse_lean
from celext.syntax.nodes import Tree
from celext.syntax.rewrite import MAX_EXPANDED_NODES, TOO_EXPANDED, expanded_size, rewrite
from tests.celext.plan.grammar import expression, pool, selector

compile_module = importlib.import_module("celext.compile")
rewrite_module = importlib.import_module("celext.syntax.rewrite")


def nested_binds(levels: int, uses: int) -> str:
    """`levels` nested bindings, each a list using the previous one `uses` times: the tree grows as uses**levels."""
    text = "cel.bind(v0, [1], "
    for i in range(1, levels):
        text += f"cel.bind(v{i}, [{', '.join([f'v{i - 1}'] * uses)}], "
    return text + f"size(v{levels - 1}) > 0" + ")" * levels


def test_text_without_bind_or_namespace_is_returned_as_is() -> None:
    tree = parse("device.driver == 'a'")
    assert rewrite(tree, "device.driver == 'a'") is tree


def test_unchanged_subtrees_are_shared_not_copied() -> None:
    text = "device.driver == 'a' && sets.contains([1], [1])"
    tree = parse(text)
    rewritten = rewrite(tree, text)
    assert rewritten is not tree
    equality = next(tree.find_data("relation_eq"))  # the `==` side has nothing to rewrite: the same object
    assert any(node is equality for node in rewritten.iter_subtrees())


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("cel.bind(a, 1, cel.bind(b, a + 1, b * 2)) == 4", True),
        ("cel.bind(a, 1, cel.bind(a, a + 1, a)) == 2", True),  # an inner binding of the same name shadows
        ("cel.bind(x, 5, [1, 2].exists(x, x == 2) && x == 5)", True),  # a macro variable shadows the binding
        ("cel.bind(x, 5, [1, 2].all(y, y < x))", True),
    ],
)
def test_bind_scoping(expression: str, expected: bool) -> None:
    for engine in ("compiled", "reference"):
        assert celext.compile(expression, engine=engine).evaluate({}, "d") is expected


def test_a_long_chain_of_bindings_compiles() -> None:
    text = "".join(f"cel.bind(v{i}, {i}, " for i in range(200)) + "v199 == 199" + ")" * 200
    assert celext.compile(text).evaluate({}, "d") is True


def test_expanded_size_counts_shared_subtrees_at_each_use() -> None:
    one = expanded_size(collapse(rewrite(parse(nested_binds(2, 1)))))
    two = expanded_size(collapse(rewrite(parse(nested_binds(2, 2)))))
    assert two > one
    assert expanded_size(collapse(rewrite(parse(nested_binds(20, 2))))) == MAX_EXPANDED_NODES + 1  # capped


def test_an_exploding_expansion_compiles_and_runs_once_per_binding() -> None:
    """Kubernetes evaluates a binding once and accepts nested bindings used several times each; the compiled
    engine walks the shared tree once per node (4 ** 11 uses substituted, 12 lists built)."""
    text = nested_binds(12, 4)
    assert expanded_size(collapse(rewrite(parse(text)))) > MAX_EXPANDED_NODES
    selector = celext.compile(text)
    assert selector.evaluate({}, "d") is True
    assert celext.compile(nested_binds(40, 2)).evaluate({}, "d") is True  # 2 ** 39 uses
    assert celext.compile(text.replace("size(v11) > 0", "size(v11) == 4 && size(v11[3][2][1]) == 4")
                          ).evaluate({}, "d") is True


def test_the_reference_engine_refuses_an_exploding_expansion() -> None:
    with pytest.raises(CompileError) as refused:
        celext.compile(nested_binds(12, 4), engine="reference")
    assert refused.value.message == TOO_EXPANDED
    assert TOO_EXPANDED == ("cel.bind expands to more than 100,000 nodes where celext's reference engine "
                            "evaluates it (it substitutes each binding at its every use): use fewer nested bindings")


def test_the_compiled_engine_runs_what_the_reference_engine_refuses() -> None:
    """Bindings past the reference engine's limit, read by macro variables inside the constructs the compiled
    engine once handed to the reference engine (two-variable macros, map literals, has() of a map): built and run
    by the compiled engine itself, as Kubernetes accepts them (tests/celext/plan/test_native_macros.py)."""
    inner = nested_binds(12, 4).replace("cel.bind(v0, [1], ", "cel.bind(v0, [z], ", 1)
    for text in (f"[1].transformList(i, z, {inner}) == [true]", f"{{'k': [1].map(z, {inner})}}.k == [true]",
                 f"has({{'k': [1].map(z, {inner})}}.k)"):
        with pytest.raises(CompileError) as refused:
            celext.compile(text, engine="reference")
        assert refused.value.message == TOO_EXPANDED
        assert celext.compile(text).evaluate({}, "d") is True


@pytest.mark.parametrize(("delta", "refused"), [(-1, True), (0, False), (1, False)])
def test_the_expansion_limit_is_inclusive(monkeypatch: pytest.MonkeyPatch, delta: int, refused: bool) -> None:
    text = nested_binds(5, 3)
    size = expanded_size(collapse(rewrite(parse(text))))
    monkeypatch.setattr(rewrite_module, "MAX_EXPANDED_NODES", size + delta)
    prepared = compile_module.prepare(text)
    assert Selector(prepared).evaluate({}, "d") is True  # the compiled engine: no limit
    if refused:
        with pytest.raises(CompileError):
            Selector(prepared, engine="reference")
    else:
        assert Selector(prepared, engine="reference").evaluate({}, "d") is True



def test_a_macro_under_many_shared_bindings_compiles() -> None:
    """The capture check reads each initialiser's names once per distinct node (walking each use took time
    exponential in the nesting: 9 s for 22 levels)."""
    text = nested_binds(40, 2).replace("size(v39) > 0", "[1].all(x, size(v39) > x) && [1].exists(v0, v0 == 1)")
    assert celext.compile(text).evaluate({}, "d") is True


def test_a_refusal_inside_a_shared_initialiser_is_found_once_and_at_its_place() -> None:
    """The refusal walk visits a shared initialiser once (what its names mean is fixed where it is bound)."""
    with pytest.raises(CompileError) as refused:
        celext.compile("cel.bind(u, format.named('x'), [1].all(x, u == u) && [2].exists(y, u))")
    assert (refused.value.message, refused.value.line, refused.value.column) == (
        "'format' is not supported: the Kubernetes format library (format.dns1123Label(), format.named(), ...) is "
        "not provided by celext", 1, 13)
    with pytest.raises(CompileError):  # a macro variable named like the library does not hide it in the initialiser
        celext.compile("cel.bind(u, format.named('x'), [1].all(format, u))")


def _shape(node: object) -> object:
    """A tree as nested (rule, children) tuples, values as (type, value): the shape two trees must share."""
    if isinstance(node, Tree):
        return str(node.data), tuple(_shape(c) for c in node.children)
    return type(node).__name__, str(node)


def test_the_rewrite_keeps_the_collapsed_shape() -> None:
    """What the rewrite returns for the parser's lean tree is already in the shape the engines walk (collapse()
    changes nothing), so compile() runs no second collapsing pass over it: the expressions of the differential
    grammar and hand-picked ones with bindings, namespaced calls and type names in every position."""
    texts = [*pool(600, 7, expression), *pool(200, 8, selector),
             "cel.bind(x, 1, cel.bind(y, x + x, [y].map(z, sets.contains([z], [y]))))", "-cel.bind(x, 1, x) == -1",
             "!sets.contains([1], [1])", "cel.bind(x, 1, x).string() == '1'", "[cel.bind(x, 1, x)][0] == 1",
             "cel.bind(x, [1], x.all(x, x > 0))", "type(1) == google.protobuf.Int64Value || net.IP != int",
             "lists.range(3).size() == 3 && strings.quote('a') != '' && optional.none().hasValue() == false"]
    rewritten = 0
    for text in texts:
        with contextlib.suppress(CompileError):
            lean = parse_lean(text).tree
            tree = rewrite(lean, text)
            if tree is not lean:
                rewritten += 1
                assert _shape(collapse(tree)) == _shape(tree), text
    assert rewritten >= 100  # the generator reaches the rewrite
