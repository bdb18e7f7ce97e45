"""celext.syntax.rewrite: `cel.bind` expansion and namespaced calls in one pass, and the expansion bound."""

from __future__ import annotations

import importlib

import pytest

import celext
from celext.errors import CompileError
from celext.reference.collapse import collapse
from celext.syntax import parse
from celext.syntax.rewrite import MAX_EXPANDED_NODES, TOO_EXPANDED, expanded_size, rewrite

compile_module = importlib.import_module("celext.compile")


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


def test_an_exploding_expansion_is_refused() -> None:
    with pytest.raises(CompileError) as refused:
        celext.compile(nested_binds(12, 4))
    assert refused.value.message == TOO_EXPANDED
    assert TOO_EXPANDED == ("cel.bind expands to more than 100,000 nodes (celext substitutes each binding at its "
                            "every use): use fewer nested bindings")


@pytest.mark.parametrize(("delta", "refused"), [(-1, True), (0, False), (1, False)])
def test_the_expansion_limit_is_inclusive(monkeypatch: pytest.MonkeyPatch, delta: int, refused: bool) -> None:
    text = nested_binds(5, 3)
    size = expanded_size(collapse(rewrite(parse(text))))
    monkeypatch.setattr(compile_module, "MAX_EXPANDED_NODES", size + delta)
    if refused:
        with pytest.raises(CompileError):
            compile_module.prepare(text)
    else:
        assert compile_module.prepare(text).tree is not None

