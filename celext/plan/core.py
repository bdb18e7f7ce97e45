"""The emitter's shared state: the block being written, the constants, the temporaries (celext.plan)."""

from __future__ import annotations

import itertools
from collections.abc import Container, Hashable, Iterator
from typing import Any

from msgspec import Struct, field

from celext.plan.typed import Typed
from celext.syntax.nodes import Tree


class Block(Struct, eq=False, dict=True):
    """Lines at one indentation level of one generated function. `known` names the values (device reads) this
    block has computed: they are reused by the block's later lines and by the blocks nested in it, never by
    an enclosing block (a nested block may not run, or may stop half-way)."""

    lines: list[str]
    depth: int
    parent: Block | None = None
    known: dict[Hashable, str] = field(default_factory=dict)

    def add(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def inner(self) -> Block:
        return Block(self.lines, self.depth + 1, self)

    def recall(self, key: Hashable) -> str | None:
        block: Block | None = self
        while block is not None:
            found = block.known.get(key)
            if found is not None:
                return found
            block = block.parent
        return None

    def remember(self, key: Hashable, name: str) -> str:
        self.known[key] = name
        return name


# Parameters every generated function takes (the split-off ones too): the wire device, its driver, the cost
# budget and the device body.
PARAMS = ("device", "driver", "budget", "B")


class EmitterCore(Struct, dict=True):
    constants: dict[str, Any] = field(default_factory=dict)
    functions: list[list[str]] = field(default_factory=list)
    uses: set[str] = field(default_factory=set)  # "budget" when cost is metered
    kinds: dict[str, str] = field(default_factory=dict)  # locals whose class is certain (INT / STRING)
    typed: Typed = field(default_factory=Typed)  # the type checker's facts (celext.plan.typed)
    _ids: Iterator[int] = field(default_factory=itertools.count)

    def tmp(self) -> str:
        return f"t{next(self._ids)}"

    def const(self, value: Any) -> str:
        name = f"K{next(self._ids)}"
        self.constants[name] = value
        return name

    def emit(self, node: Tree[Any], block: Block, scope: dict[str, str]) -> str:
        """Statements computing `node` appended to `block`; the name holding its value (celext.plan.emit)."""
        raise NotImplementedError


def call_args(node: Tree[Any]) -> list[Tree[Any]]:
    """The argument trees of a call (its exprlist is the last child)."""
    last = node.children[-1] if node.children else None
    if isinstance(last, Tree) and last.data == "exprlist":
        return [c for c in last.children if isinstance(c, Tree)]
    return []

def chain_operands(node: Tree[Any], opaque: Container[int] = ()) -> list[Tree[Any]] | None:
    """The operands, left to right, of a `&&` (or `||`) node and of every node of the same operator nested in
    it, through parentheses (the operators are associative in CEL, errors included); None for a node that is
    not binary. A node whose id is in `opaque` is an operand as it is (a shared cel.bind initialiser: flattened
    at each of its uses, it would multiply the operands by its uses)."""
    operator = node.data
    if len(node.children) != 2:
        return None
    operands: list[Tree[Any]] = []
    pending = [node]
    while pending:
        current = inner = pending.pop()
        while inner.data == "primary" and len(inner.children) == 1 and inner.children[0].data == "paren_expr" \
                and (inner is node or id(inner) not in opaque):
            inner = inner.children[0].children[0]
        if inner.data == operator and len(inner.children) == 2 and (inner is node or id(inner) not in opaque):
            pending.extend(reversed(inner.children))
        else:
            operands.append(current)
    return operands
