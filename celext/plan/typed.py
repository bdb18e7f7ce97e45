"""What the type checker tells the planner (celext.plan): the checked overload of a call, and the code to
inline for it.

The checked AST (`Prepared.checked`) keeps, per node, its type and the overload ids that may apply; each
checked node names the parse-tree node it came from, whose `meta` survives `cel.bind` expansion and the
collapsing of grammar levels, so a tree node of the planned tree finds its checked node by (meta, rule).
When exactly one overload applies and the overload table (celext.overloads) gives it a code template, the
emitter inlines the template behind a guard on the operands' classes: a value of the checked type can still
be an error value at run time, and `dyn` operands may hold anything, so the guard is what makes the template
safe; the general dispatch stays for everything else.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from msgspec import Struct, field

from celext.check.ast import Call, Comprehension, CreateList, CreateMap, Expr, Select
from celext.check.checker import CheckedExpr
from celext.check.types import Type
from celext.overloads import BY_ID, OverloadDecl

# The generated module's name for the exact class of a value of each checked type (library types by name).
CLASS_OF = {"int": "INT", "uint": "UINT", "double": "DOUBLE", "string": "STRING", "bool": "BOOL", "list": "LIST"}
STRUCT_CLASS_OF = {"kubernetes.Quantity": "QUANTITY", "kubernetes.Semver": "SEMVER"}


def class_of(t: Type) -> str | None:
    return STRUCT_CLASS_OF.get(t.name) if t.kind == "struct" else CLASS_OF.get(t.kind)


class Inline(Struct, frozen=True):
    """One call to inline: the template and, per argument, the class its value must have."""

    template: str
    classes: tuple[str, ...]
    result: str | None  # the class of the result when every guard holds

    def code(self, args: list[str]) -> str:
        return self.template.format(*args)


def _children(e: Expr) -> Iterator[Expr]:
    if isinstance(e, Select) and e.operand is not None:
        yield e.operand
    elif isinstance(e, Call):
        if e.target is not None:
            yield e.target
        yield from e.args
    elif isinstance(e, CreateList):
        yield from e.elements
    elif isinstance(e, CreateMap):
        for key, value in e.entries:
            yield key
            yield value
    elif isinstance(e, Comprehension):
        for part in (e.iter_range, e.accu_init, e.loop_condition, e.loop_step, e.result):
            if part is not None:
                yield part


def inline_for(decl: OverloadDecl) -> Inline | None:
    if decl.template is None:
        return None
    classes = tuple(class_of(arg) for arg in decl.args)
    if any(c is None for c in classes):
        return None
    return Inline(decl.template, classes, class_of(decl.result))  # type: ignore[arg-type]


def typed_class(kind: str) -> str:
    return CLASS_OF[kind]


class Typed(Struct, dict=True):
    """Checked facts by planned-tree node: `types[(id(meta), rule)]`, `overloads[...]`."""

    types: dict[tuple[int, str], Type] = field(default_factory=dict)
    overloads: dict[tuple[int, str], tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def of(cls, checked: CheckedExpr | None) -> Typed:
        typed = cls()
        if checked is None:
            return typed
        pending = [checked.expr]
        while pending:
            e = pending.pop()
            pending.extend(_children(e))
            tree = e.tree
            if tree is None or getattr(tree, "meta", None) is None:
                continue
            key = (id(tree.meta), str(tree.data))
            if key in typed.types:
                typed.types[key] = _UNSURE  # two checked nodes on one tree node: believe neither
                typed.overloads.pop(key, None)
                continue
            typed.types[key] = checked.type_of(e)
            if e.id in checked.overloads:
                typed.overloads[key] = checked.overloads[e.id]
        return typed

    def _key(self, node: Any) -> tuple[int, str]:
        while node.data in _LEVELS and len(node.children) == 1 and hasattr(node.children[0], "data"):
            node = node.children[0]  # the checker skips these levels too
        return (id(node.meta), str(node.data)) if getattr(node, "meta", None) is not None else (0, "")

    def type_of(self, node: Any) -> Type | None:
        found = self.types.get(self._key(node))
        return None if found is _UNSURE else found

    def inline(self, node: Any) -> Inline | None:
        """The code to inline for the call `node` when exactly one overload applies and it has a template."""
        ids = self.overloads.get(self._key(node), ())
        return inline_for(BY_ID[ids[0]]) if len(ids) == 1 and ids[0] in BY_ID else None


_UNSURE = Type("dyn", "unsure")
_LEVELS = frozenset({"primary", "paren_expr", "member", "expr", "conditionalor", "conditionaland", "relation",
                     "addition", "multiplication", "unary"})
