"""celext's parse-tree nodes: `Tree`, `Token` and `Meta`, the part of lark's classes of those names that celext
reads (celext parses with its own parser, `celext.syntax.parser`; lark stays with the reference LALR parser,
`celext.syntax.lalr`, and with cel-python).

- `Tree(data, children, meta=NO_POSITION)`: `data` the rule name (a plain str), `children` its subtrees and `Token`s
  (a lean tree's `const` node holds a CEL value), `meta` its `Meta`. Equal when data and children are (as lark's).
- `Token(type, value, start_pos=, line=, column=, end_line=, end_column=, end_pos=)`: a str (its text) with its terminal
  name and position (None where unknown). Equality is the text's, whatever the type (lark also compares types).
- `Meta`: a node's span (line, column, start_pos, end_line, end_column, end_pos), a tuple.

All are slotted: the parser makes one node per grammar level and token (through a subclass of `Tree` whose
`__init__` is object's, setting the slots itself: no Python-level `__init__` call per node).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Generic, NamedTuple, TypeVar

__all__ = ["NO_POSITION", "Meta", "Token", "Tree"]

_Leaf = TypeVar("_Leaf")


class Meta(NamedTuple):
    """A node's span, from its first token to its last (parentheses and brackets included). `None` where the
    position is unknown (`true`/`false` tokens carry none, as cel-python's lexer leaves them)."""

    line: int  # (None in a Meta without position, here and below)
    column: int
    start_pos: int
    end_line: int
    end_column: int
    end_pos: int

    @property
    def empty(self) -> bool:  # (lark's Meta.empty: a parsed node always has a span)
        return False


NO_POSITION = Meta(None, None, None, None, None, None)  # type: ignore[arg-type]  # (a node's default meta)
_POSITION = ("start_pos", "line", "column", "end_line", "end_column", "end_pos")


class Token(str):
    """A token: its source text, its terminal name (`type`: `IDENT`, `INT_LIT`, ...) and its position."""

    __slots__ = ("column", "end_column", "end_line", "end_pos", "line", "start_pos", "type", "value")

    type: str
    value: str
    start_pos: int | None
    line: int | None
    column: int | None
    end_line: int | None
    end_column: int | None
    end_pos: int | None

    def __new__(cls, type: str, value: str, *, start_pos: int | None = None,  # (lark's argument names)
                line: int | None = None, column: int | None = None, end_line: int | None = None,
                end_column: int | None = None, end_pos: int | None = None) -> Token:
        token = str.__new__(cls, value)
        token.type = type
        token.value = value
        token.start_pos, token.line, token.column = start_pos, line, column
        token.end_line, token.end_column, token.end_pos = end_line, end_column, end_pos
        return token

    def __repr__(self) -> str:
        return f"Token({self.type!r}, {self.value!r})"

    def __reduce__(self) -> tuple[Any, ...]:  # (pickle: str's would lose the type and position)
        return Token, (self.type, self.value), (None, {name: getattr(self, name) for name in _POSITION})

    def __deepcopy__(self, memo: dict[int, Any]) -> Token:
        return self  # (nothing changes a token)


class Tree(Generic[_Leaf]):
    """A parse-tree node: a rule name, its children, its span."""

    __slots__ = ("children", "data", "meta")

    def __init__(self, data: str, children: list[Any], meta: Meta = NO_POSITION) -> None:
        self.data = data
        self.children = children
        self.meta = meta

    def __repr__(self) -> str:
        return f"Tree({self.data!r}, {self.children!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tree):
            return NotImplemented
        return self.data == other.data and self.children == other.children

    def __hash__(self) -> int:
        return hash((self.data, tuple(self.children)))

    def iter_subtrees(self) -> Iterator[Tree[_Leaf]]:
        """Every subtree once (a subtree shared by `cel.bind` expansion too), children before their parent."""
        seen: dict[int, Tree[_Leaf]] = {}
        pending: list[Tree[_Leaf]] = [self]
        for node in pending:  # (grows while it is read: breadth-first, each node's children last to first)
            seen[id(node)] = node
            pending.extend(c for c in reversed(node.children) if isinstance(c, Tree) and id(c) not in seen)
        return reversed(list(seen.values()))

    def find_data(self, data: str) -> Iterator[Tree[_Leaf]]:
        """The subtrees named `data`, in `iter_subtrees` order."""
        return (node for node in self.iter_subtrees() if node.data == data)

    def pretty(self, indent: str = "  ") -> str:
        """The tree, a node per line (for test failure messages)."""
        lines: list[str] = []

        def add(node: Any, level: int) -> None:
            if not isinstance(node, Tree):
                lines.append(f"{indent * level}{node}")
                return
            lines.append(f"{indent * level}{node.data}")
            for child in node.children:
                add(child, level + 1)

        add(self, 0)
        return "\n".join(lines) + "\n"
