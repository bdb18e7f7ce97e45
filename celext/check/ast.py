"""cel-go's expression AST, macros expanded as cel-go's parser expands them: the nodes the type checker, the cost
estimator and the planner read (built by the parser as it parses: `celext.syntax.build`).

cel-go's shape: identifiers, selects (`has()` is a test-only select), calls with operator names (`_==_`,
`_[_]`, `@in`, `_?._` for `a.?b`), list and map literals, and comprehensions: `all`/`exists`/`exists_one`/
`existsOne`/`map`/`filter`, the two-variable forms, `transformList`/`transformMap`/`transformMapEntry`,
`sortBy`, `optMap`/`optFlatMap` and `cel.bind` become the accumulator loops cel-go's macros produce, because
cel-go's type and cost rules are defined on those loops. Every node has a numeric id, the character offset
cel-go reports errors at (the operator, the `.`, the `(` of a call) and the parse-tree node it came from.
Literals hold plain Python values (int, float, str, bytes, bool, None) with their CEL kind.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct, field

__all__ = ["ACCU", "BuildError", "Call", "Comprehension", "CreateList", "CreateMap", "Expr", "Ident", "Literal",
           "Select"]

ACCU = "@result"  # cel-go's parser.AccumulatorName


class Expr(Struct, eq=False):
    id: int
    offset: int
    tree: Any = None  # the parse-tree node this came from (None for nodes a macro expansion made up)


class Literal(Expr, eq=False):
    kind: str = "null"  # bool, int, uint, double, string, bytes, null
    value: Any = None


class Ident(Expr, eq=False):
    name: str = ""


class Select(Expr, eq=False):
    operand: Expr | None = None
    field: str = ""
    test_only: bool = False


class Call(Expr, eq=False):
    function: str = ""
    target: Expr | None = None
    args: list[Expr] = field(default_factory=list)


class CreateList(Expr, eq=False):
    elements: list[Expr] = field(default_factory=list)
    optional: frozenset[int] = frozenset()  # indexes of `[?x]` elements
    constant: str = ""  # the literal kind when every element is a literal of that kind (the parser's constant list)


class CreateMap(Expr, eq=False):
    entries: list[tuple[Expr, Expr]] = field(default_factory=list)
    optional: frozenset[int] = frozenset()  # indexes of `{?k: v}` entries
    constant: bool = False  # keys literals of one kind, values too (the parser's constant map)


class Comprehension(Expr, eq=False):
    iter_range: Expr | None = None
    iter_var: str = ""
    iter_var2: str = ""
    accu_var: str = ACCU
    accu_init: Expr | None = None
    loop_condition: Expr | None = None
    loop_step: Expr | None = None
    result: Expr | None = None


class BuildError(Exception):
    """A construct cel-go's parser rejects (malformed macro call); `offset` locates it."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset
