"""cel-go's expression AST built from celext's parse tree, macros expanded as cel-go's parser expands them.

The lark tree has one level per grammar rule; the checker and the cost estimator need cel-go's shape:
identifiers, selects (`has()` is a test-only select), calls with operator names (`_==_`, `_[_]`, `@in`,
`_?._` for `a.?b`), list and map literals, and comprehensions: `all`/`exists`/`exists_one`/`existsOne`/
`map`/`filter`, the two-variable forms, `transformList`/`transformMap`/`transformMapEntry`, `sortBy`,
`optMap`/`optFlatMap` and `cel.bind` become the accumulator loops cel-go's macros produce, because cel-go's
type and cost rules are defined on those loops. Every node has a numeric id, the character offset cel-go
reports errors at (the operator, the `.`, the `(` of a call) and the lark node it came from.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from celpy import celtypes
from lark import Token, Tree

from celext.syntax.literals import decode_bytes
from celext.syntax.tree import string_value

__all__ = ["ACCU", "Call", "Comprehension", "CreateList", "CreateMap", "Expr", "Ident", "Literal", "Select",
           "build"]

ACCU = "@result"  # cel-go's parser.AccumulatorName


@dataclass(eq=False, slots=True)
class Expr:
    id: int
    offset: int
    tree: Any = None  # the lark node this came from (None for nodes a macro expansion made up)


@dataclass(eq=False, slots=True)
class Literal(Expr):
    kind: str = "null"  # bool, int, uint, double, string, bytes, null
    value: Any = None


@dataclass(eq=False, slots=True)
class Ident(Expr):
    name: str = ""


@dataclass(eq=False, slots=True)
class Select(Expr):
    operand: Expr | None = None
    field: str = ""
    test_only: bool = False


@dataclass(eq=False, slots=True)
class Call(Expr):
    function: str = ""
    target: Expr | None = None
    args: list[Expr] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class CreateList(Expr):
    elements: list[Expr] = field(default_factory=list)
    optional: frozenset[int] = frozenset()  # indexes of `[?x]` elements
    constant: str = ""  # the literal kind when every element is a literal of that kind (the parser's constant list)


@dataclass(eq=False, slots=True)
class CreateMap(Expr):
    entries: list[tuple[Expr, Expr]] = field(default_factory=list)
    optional: frozenset[int] = frozenset()  # indexes of `{?k: v}` entries
    constant: bool = False  # keys literals of one kind, values too (the parser's constant map)


@dataclass(eq=False, slots=True)
class Comprehension(Expr):
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


_BINARY = {"relation_lt": "_<_", "relation_le": "_<=_", "relation_gt": "_>_", "relation_ge": "_>=_",
           "relation_eq": "_==_", "relation_ne": "_!=_", "relation_in": "@in", "addition_add": "_+_",
           "addition_sub": "_-_", "multiplication_mul": "_*_", "multiplication_div": "_/_",
           "multiplication_mod": "_%_"}
_PASS = frozenset({"expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication", "unary",
                   "member", "primary", "paren_expr"})
_ONE_VAR = {"all", "exists", "exists_one", "existsOne", "map", "filter"}
_TWO_VAR = {"all", "exists", "exists_one", "existsOne", "transformList", "transformMap", "transformMapEntry"}


def _end(node: Any) -> int:
    if isinstance(node, Token):
        return node.end_pos or 0
    return getattr(node.meta, "end_pos", 0) or 0


def _start(node: Any) -> int:
    if isinstance(node, Token):
        return node.start_pos or 0
    return getattr(node.meta, "start_pos", 0) or 0


def _exprs(node: Any) -> list[Any]:
    last = node.children[-1] if node.children else None
    if isinstance(last, Tree) and "" + last.data in ("exprlist", "mapinits"):
        return [c for c in last.children if isinstance(c, Tree)]
    return []


def _unopt(node: Any) -> Any:
    """The element or key inside an optional entry's `opt_expr` wrapper (the entry's kind is recorded apart)."""
    return node.children[0] if "" + node.data == "opt_expr" else node


def _literal_value(token: Token) -> tuple[str, Any]:
    text = str(token)
    kind = token.type
    if kind == "INT_LIT":
        negative = text.startswith("-")
        digits = text.lstrip("-")
        value = int(digits, 16) if digits[:2].lower() == "0x" else int(digits)
        return "int", -value if negative else value
    if kind == "UINT_LIT":
        digits = text[:-1]
        return "uint", int(digits, 16) if digits[:2].lower() == "0x" else int(digits)
    if kind == "FLOAT_LIT":
        return "double", float(text)
    if kind in ("STRING_LIT", "MLSTRING_LIT"):
        return "string", string_value(text)
    if kind == "BYTES_LIT":
        try:  # CEL's escapes, not Python's (`\X41`, `\u00e9` as UTF-8, no `\N{...}`)
            return "bytes", decode_bytes(text)
        except ValueError:
            return "bytes", None
    if kind == "BOOL_LIT":
        return "bool", text == "true"
    return "null", None


# A `const` node (a literal the parser decoded, celext.syntax.parser's lean shape): its kind by value class.
_CONST_KINDS: dict[type, str] = {celtypes.IntType: "int", celtypes.UintType: "uint", celtypes.DoubleType: "double",
                                 celtypes.StringType: "string", celtypes.BoolType: "bool", type(None): "null"}


def _plain(kind: str, value: Any) -> Any:
    """The Python value a Literal of `kind` holds for a decoded CEL value."""
    if value is None:
        return None
    if kind == "bool":
        return bool(value)
    if kind == "double":
        return float(value)
    return str(value) if kind == "string" else int(value)


class _Builder:
    def __init__(self, text: str) -> None:
        self.text = text
        self.new_id: Callable[[], int] = itertools.count(1).__next__  # node ids 1, 2, ... (a call in C)
        self.handlers: dict[str, Callable[[Any], Expr]] = {
            "const": self.const, "ident": self.ident_node, "expr": self.conditional, "conditionalor": self.logical,
            "conditionaland": self.logical, "relation": self.binary, "addition": self.binary,
            "multiplication": self.binary, "unary": self.unary, "member_dot": self.member_dot,
            "member_dot_opt": self.member_dot_opt, "member_index": self.member_index,
            "member_index_opt": self.member_index, "member_dot_arg": self.member_call,
            "ident_arg": self.global_call, "literal": self.literal, "list_lit": self.list_lit,
            "map_lit": self.map_lit, "paren_expr": self.paren,
        }


    def find(self, char: str, start: int) -> int:
        at = self.text.find(char, start)
        return at if at >= 0 else start

    def call(self, function: str, offset: int, args: list[Expr], target: Expr | None = None,
             tree: Any = None) -> Call:
        return Call(self.new_id(), offset, tree, function, target, args)  # (positional: faster)

    def ident(self, name: str, offset: int) -> Ident:
        return Ident(self.new_id(), offset, None, name)

    def lit(self, kind: str, value: Any, offset: int) -> Literal:
        return Literal(self.new_id(), offset, None, kind, value)

    def build(self, node: Any) -> Expr:
        # Rule names are lark Tokens, whose Python-level __eq__ dominates the walk: compare plain strings.
        data = "" + node.data
        while data in _PASS and len(node.children) == 1 and isinstance(node.children[0], Tree):
            node = node.children[0]
            data = "" + node.data
        handler = self.handlers.get(data)
        if handler is None:
            raise BuildError(f"unsupported syntax: {data}", _start(node))
        return handler(node)

    def ident_node(self, node: Any) -> Expr:
        token = node.children[0]
        return Ident(self.new_id(), token.start_pos if token.start_pos is not None else _start(node), node,
                     name=str(token))

    def conditional(self, node: Any) -> Expr:  # c ? a : b
        kids = node.children
        cond, then, other = (self.build(k) for k in kids)
        return self.call("_?_:_", self.find("?", _end(kids[0])), [cond, then, other], tree=node)

    def logical(self, node: Any) -> Expr:
        kids = node.children
        op = "_||_" if node.data == "conditionalor" else "_&&_"
        left, right = self.build(kids[0]), self.build(kids[1])
        return self.call(op, self.find(op[1:3], _end(kids[0])), [left, right], tree=node)

    def binary(self, node: Any) -> Expr:
        head, right_tree = node.children
        left = self.build(head.children[0])
        right = self.build(right_tree)
        op = _BINARY["" + head.data]
        offset = _end(head) - (2 if op == "@in" else len(op) - 2)
        return self.call(op, offset, [left, right], tree=node)

    def member_dot(self, node: Any) -> Expr:
        kids = node.children
        operand = self.build(kids[0])
        return Select(self.new_id(), self.text.rfind(".", 0, _start(kids[1])), node, operand=operand,
                      field=str(kids[1]))

    def member_dot_opt(self, node: Any) -> Expr:
        kids = node.children
        operand = self.build(kids[0])
        name = self.lit("string", str(kids[1]), _start(kids[1]))
        return self.call("_?._", self.text.rfind(".", 0, _start(kids[1])), [operand, name], tree=node)

    def member_index(self, node: Any) -> Expr:
        kids = node.children
        operand, index = self.build(kids[0]), self.build(kids[1])
        op = "_[_]" if node.data == "member_index" else "_[?_]"
        return self.call(op, self.find("[", _end(kids[0])), [operand, index], tree=node)

    def literal(self, node: Any) -> Expr:
        token = node.children[0]
        kind, value = _literal_value(token)
        start = token.start_pos if token.start_pos is not None else _start(node)
        return Literal(self.new_id(), start, node, kind=kind, value=value)

    def list_lit(self, node: Any) -> Expr:
        elements = _exprs(node)
        return CreateList(self.new_id(), _start(node), node, elements=[self.build(_unopt(e)) for e in elements],
                          optional=frozenset(i for i, e in enumerate(elements) if "" + e.data == "opt_expr"))

    def map_lit(self, node: Any) -> Expr:
        raw = _exprs(node)
        items = [self.build(_unopt(e)) for e in raw]
        return CreateMap(self.new_id(), _start(node), node, entries=list(zip(items[::2], items[1::2], strict=True)),
                         optional=frozenset(i // 2 for i, e in enumerate(raw)
                                            if i % 2 == 0 and "" + e.data == "opt_expr"))

    def paren(self, node: Any) -> Expr:
        return self.build(node.children[0])

    def const(self, node: Any) -> Expr:
        """The Literal of a decoded literal: the value as `_literal_value` reads the token (a node's span is its
        token's; bytes are read from the text again, as before). A constant list or map (celext.syntax.parser's
        `constant_list`, `constant_map`: literals of one kind) is the CreateList or CreateMap of its literals,
        marked."""
        value = node.children[0]
        start = _start(node)
        kind = _CONST_KINDS.get(type(value))
        if kind is not None:  # (most constants)
            return Literal(self.new_id(), start, node, kind, _plain(kind, value))
        if type(value) is celtypes.ListType:
            kind = _CONST_KINDS[type(value[0])]
            elements: list[Expr] = [Literal(self.new_id(), start, None, kind, _plain(kind, v))
                                    for v in value]
            return CreateList(self.new_id(), start, node, elements=elements, constant=kind)
        if type(value) is celtypes.MapType:
            key_kind, value_kind = (_CONST_KINDS[type(x)] for x in next(iter(value.items())))
            entries: list[tuple[Expr, Expr]] = [
                (Literal(self.new_id(), start, None, kind=key_kind, value=_plain(key_kind, k)),
                 Literal(self.new_id(), start, None, kind=value_kind, value=_plain(value_kind, v)))
                for k, v in value.items()]
            return CreateMap(self.new_id(), start, node, entries=entries, constant=True)
        kind, plain = _literal_value(Token("BYTES_LIT", self.text[start:_end(node)]))  # (bytes)
        return Literal(self.new_id(), start, node, kind=kind, value=plain)

    def unary(self, node: Any) -> Expr:
        op_node, operand_tree = node.children
        operand = self.build(operand_tree)
        if "" + op_node.data == "unary_neg":
            if isinstance(operand, Literal) and operand.kind in ("int", "double") and isinstance(operand.value,
                                                                                                (int, float)):
                operand.value = -operand.value  # cel-go's parser folds `-1` into a literal
                operand.offset = _start(node)
                return operand
            return self.call("-_", _start(node), [operand], tree=node)
        return self.call("!_", _start(node), [operand], tree=node)

    def global_call(self, node: Any) -> Expr:
        name_token = node.children[0]
        name = str(name_token)
        offset = self.find("(", _end(name_token))
        arg_trees = _exprs(node)
        if name == "has" and len(arg_trees) == 1:
            arg = self.build(arg_trees[0])
            if not isinstance(arg, Select):
                raise BuildError("invalid argument to has() macro", arg.offset)
            arg.test_only = True
            return arg
        return self.call(name, offset, [self.build(a) for a in arg_trees], tree=node)

    def member_call(self, node: Any) -> Expr:
        target_tree, name_token = node.children[0], node.children[1]
        method = str(name_token)
        offset = self.find("(", _end(name_token))
        arg_trees = _exprs(node)
        target_name = _simple_name(target_tree)
        if target_name == "cel" and method == "bind" and len(arg_trees) == 3:
            var = _simple_name(arg_trees[0])
            if var is None:
                raise BuildError("cel.bind() variable names must be simple identifiers", _start(arg_trees[0]))
            return self.bind(var, self.build(arg_trees[1]), self.build(arg_trees[2]), offset, node)
        macro = self.macro(method, target_tree, arg_trees, offset, node)
        if macro is not None:
            return macro
        target = self.build(target_tree)
        return self.call(method, offset, [self.build(a) for a in arg_trees], target=target, tree=node)

    def bind(self, var: str, init: Expr, body: Expr, offset: int, tree: Any) -> Comprehension:
        return Comprehension(self.new_id(), offset, tree, iter_range=CreateList(self.new_id(), offset),
                             iter_var="#unused", accu_var=var, accu_init=init,
                             loop_condition=self.lit("bool", False, offset), loop_step=self.ident(var, offset),
                             result=body)

    def macro(self, name: str, target_tree: Any, arg_trees: list[Any], offset: int, tree: Any) -> Expr | None:
        count = len(arg_trees)
        two = name in _TWO_VAR and (count == 3 or (count == 4 and name.startswith("transform")))
        one = name in _ONE_VAR and (count == 2 or (count == 3 and name == "map"))
        if name in ("sortBy", "optMap", "optFlatMap") and count == 2:
            one = True
        if not (one or two):
            return None
        names = [_simple_name(a) for a in arg_trees[:2 if two else 1]]
        if None in names:
            raise BuildError(f"{name}() macro: argument must be a simple name", offset)
        var, var2 = str(names[0]), str(names[1]) if two else ""
        target = self.build(target_tree)
        bodies = [self.build(a) for a in arg_trees[2 if two else 1:]]
        if name in ("optMap", "optFlatMap"):
            return self.opt_map(name, target, var, bodies[0], offset=offset, tree=tree)
        if name == "sortBy":
            keys = self.loop("map", target, (var, ""), bodies, offset=offset, tree=tree)
            return self.call("@sortByAssociatedKeys", offset, [keys], target=target, tree=tree)
        return self.loop(name, target, (var, var2), bodies, offset=offset, tree=tree)

    def opt_map(self, name: str, target: Expr, var: str, body: Expr, *, offset: int, tree: Any) -> Expr:
        has = self.call("hasValue", offset, [], target=target)
        value = self.call("value", offset, [], target=target)
        bound = self.bind(var, value, body, offset, None)
        then: Expr = self.call("optional.of", offset, [bound]) if name == "optMap" else bound
        none = self.call("optional.none", offset, [])
        return self.call("_?_:_", offset, [has, then, none], tree=tree)

    def loop(self, name: str, target: Expr, variables: tuple[str, str], bodies: list[Expr], *, offset: int,
             tree: Any) -> Comprehension:
        var, var2 = variables
        accu = self.ident(ACCU, offset)
        cond: Expr = self.lit("bool", True, offset)
        result: Expr = self.ident(ACCU, offset)
        if name == "all":
            init: Expr = self.lit("bool", True, offset)
            cond = self.call("@not_strictly_false", offset, [self.ident(ACCU, offset)])
            step: Expr = self.call("_&&_", offset, [accu, bodies[0]])
        elif name == "exists":
            init = self.lit("bool", False, offset)
            cond = self.call("@not_strictly_false", offset, [self.call("!_", offset, [self.ident(ACCU, offset)])])
            step = self.call("_||_", offset, [accu, bodies[0]])
        elif name in ("exists_one", "existsOne"):
            init = self.lit("int", 0, offset)
            plus = self.call("_+_", offset, [accu, self.lit("int", 1, offset)])
            step = self.call("_?_:_", offset, [bodies[0], plus, self.ident(ACCU, offset)])
            result = self.call("_==_", offset, [self.ident(ACCU, offset), self.lit("int", 1, offset)])
        elif name in ("transformMap", "transformMapEntry"):
            init = CreateMap(self.new_id(), offset)
            args = [accu, self.ident(var, offset), bodies[-1]] if name == "transformMap" else [accu, bodies[-1]]
            step = self.call("cel.@mapInsert", offset, args)
            if len(bodies) == 2:
                step = self.call("_?_:_", offset, [bodies[0], step, self.ident(ACCU, offset)])
        else:  # map, filter, transformList: append to a list
            init = CreateList(self.new_id(), offset)
            item = self.ident(var, offset) if name == "filter" else bodies[-1]
            step = self.call("_+_", offset, [accu, CreateList(self.new_id(), offset, elements=[item])])
            if name == "filter" or len(bodies) == 2:
                step = self.call("_?_:_", offset, [bodies[0], step, self.ident(ACCU, offset)])
        return Comprehension(self.new_id(), offset, tree, iter_range=target, iter_var=var, iter_var2=var2,
                             accu_init=init, loop_condition=cond, loop_step=step, result=result)


def _simple_name(node: Any) -> str | None:
    while isinstance(node, Tree):
        if "" + node.data == "ident":
            return str(node.children[0])
        if len(node.children) != 1:
            return None
        node = node.children[0]
    return None


def build(tree: Any, text: str) -> Expr:
    """The cel-go AST of a parse tree (`text` is the expression, for operator positions). Raises BuildError."""
    return _Builder(text).build(tree)
