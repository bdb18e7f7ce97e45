"""The tree the reference engine walks: the parse tree without its single-child grammar levels
(`expr -> conditionalor -> ... -> member`: about 3x fewer nodes), literals converted once (`const` nodes)."""

from __future__ import annotations

from typing import Any

from celext.syntax import literals
from celext.syntax.nodes import Tree
from celext.values import CELEvalError

_COLLAPSIBLE = frozenset({"expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication",
                          "unary", "member"})


def collapse(node: Any, done: dict[int, Any] | None = None) -> Any:
    """The collapsed copy of `node`. Safe for cel-python's interpreter: no rule inspects the `data` of a child
    that is one of these levels; the operator nodes (`relation_lt`, `unary_not`, ...) and `primary` stay.
    A subtree shared by `cel.bind` expansion is collapsed once and stays shared (`done`, by node identity)."""
    if done is None:
        done = {}
    while node.data in _COLLAPSIBLE and len(node.children) == 1 and isinstance(node.children[0], Tree):
        node = node.children[0]
    key = id(node)
    found = done.get(key)
    if found is not None:
        return found
    if node.data == "literal":
        value = literals.value(node.children[0])
        if not isinstance(value, CELEvalError):  # a bad literal stays, to fail at evaluation as before
            result: Tree[Any] = Tree("const", [value], node.meta)
            done[key] = result
            return result
    result = Tree(str(node.data), [collapse(c, done) if isinstance(c, Tree) else c for c in node.children],
                  node.meta)
    done[key] = result
    return result
