"""The device paths an expression reads (`('attributes', domain, id)`, `('capacity', domain, id)`,
`('driver',)`, `('allowMultipleAllocations',)`): the key of the reference engine's result memo and
`Selector.paths`. None when some use of `device` is not such a plain path (then nothing is memoised).
Reads a parse tree or its collapsed form (celext.reference.collapse), in one pass."""

from __future__ import annotations

from typing import Any

from celext import values as celvalues
from celext.syntax.nodes import Token, Tree
from celext.syntax.rewrite import macro_variables
from celext.syntax.tree import AST, PASSTHROUGH

Path = tuple[str, ...]

_THROUGH = PASSTHROUGH | {"paren_expr"}
_SELECTS = frozenset({"member_dot", "member_dot_opt"})  # `.?` reads the same path (absence is part of the key)
_INDEXES = frozenset({"member_index", "member_index_opt"})
_CHAIN_NODES = _THROUGH | _SELECTS | _INDEXES  # only these can spell a path; every other node spells none


def _key(node: Any) -> str | None:
    """The value of a string literal index, else None (a plain one in a parse tree: no escapes, not raw)."""
    while isinstance(node, Tree) and node.data not in ("literal", "const"):
        if len(node.children) != 1 or not isinstance(node.children[0], Tree):
            return None
        node = node.children[0]
    if not isinstance(node, Tree):
        return None
    token = node.children[0]
    if node.data == "const":  # a collapsed tree's literal, already decoded
        return str(token) if isinstance(token, celvalues.StringType) else None
    if not isinstance(token, Token) or token.type != "STRING_LIT":
        return None
    text = str(token)
    return None if text[:1] in "rR" or "\\" in text else text[1:-1]


def _complete(path: Path) -> Path | None:
    if path[:1] in (("driver",), ("allowMultipleAllocations",)):
        return path[:1]
    if path[:1] in (("attributes",), ("capacity",)) and len(path) >= 3:
        return path[:3]
    return None


def _chain(node: AST, memo: dict[int, Path | None]) -> Path | None:
    """The path a select/index chain down to `device` spells, else None (each node asked once: `memo`)."""
    spine: list[AST] = []
    current: Any = node
    found: Path | None = None
    while True:
        if id(current) in memo:
            found = memo[id(current)]
            break
        spine.append(current)
        data = current.data
        children = current.children
        is_link = data in _SELECTS or data in _INDEXES
        if is_link or (data in _THROUGH and len(children) == 1 and isinstance(children[0], Tree)):
            current = children[0]
        else:
            found = () if data == "ident" and str(children[0]) == "device" else None
            memo[id(current)] = found
            spine.pop()
            break
    for link in reversed(spine):  # back up the spine, extending the path by each select or index
        if found is not None and link.data in _SELECTS:
            found = (*found, str(link.children[1]))
        elif found is not None and link.data in _INDEXES:
            key = _key(link.children[1])
            found = None if key is None else (*found, key)
        memo[id(link)] = found
    return found


def device_paths(tree: AST) -> frozenset[Path] | None:
    """The device paths read; None when some use of `device` is not a plain path, or a macro rebinds it."""
    paths: set[Path] = set()
    memo: dict[int, Path | None] = {}
    pending: list[AST] = [tree]
    seen: set[int] = set()  # `cel.bind` expansion shares subtrees: each is read once
    while pending:
        node = pending.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node.data == "member_dot_arg" and "device" in macro_variables(node):
            return None  # a macro variable shadows `device`
        if node.data == "ident":
            if str(node.children[0]) == "device":
                return None  # `device` outside a complete path
            continue
        chain = _chain(node, memo) if node.data in _CHAIN_NODES else None
        complete = _complete(chain) if chain else None
        if complete is not None:
            paths.add(complete)
            continue
        pending.extend(c for c in node.children if isinstance(c, Tree))
    return frozenset(paths)
