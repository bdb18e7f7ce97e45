"""The checker's AST (`celext.check.ast`) from parse-tree nodes: `Factory` makes each node from the parse-tree node
and its children's AST nodes, as the parser builds them (`celext.syntax.parser`: one tree walk fewer), and
`build(tree, text)` walks a finished parse tree of either shape to the same AST (a shared parse tree whose AST
was taken already, a tree with a malformed macro call, the tests)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from celext import values as celvalues
from celext.check.ast import (
    ACCU,
    BuildError,
    Call,
    Comprehension,
    CreateList,
    CreateMap,
    Expr,
    Ident,
    Literal,
    Select,
)
from celext.env import macro_variable_error
from celext.mapkeys import UintKey
from celext.syntax.literals import decode_bytes, string_value
from celext.syntax.nodes import Token, Tree

__all__ = ["Factory", "build"]

BINARY = {  # the function of each binary operator's tree level
   "relation_lt": "_<_", "relation_le": "_<=_", "relation_gt": "_>_", "relation_ge": "_>=_",
           "relation_eq": "_==_", "relation_ne": "_!=_", "relation_in": "@in", "addition_add": "_+_",
           "addition_sub": "_-_", "multiplication_mul": "_*_", "multiplication_div": "_/_",
           "multiplication_mod": "_%_"}
_PASS = frozenset({"expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication", "unary",
                   "member", "primary", "paren_expr"})
_ONE_VAR = {"all", "exists", "exists_one", "map", "filter"}  # (existsOne: only the two-variable form)
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
_CONST_KINDS: dict[type, str] = {celvalues.IntType: "int", celvalues.UintType: "uint", celvalues.DoubleType: "double",
                                 celvalues.StringType: "string", celvalues.BoolType: "bool", type(None): "null"}


def _plain(kind: str, value: Any) -> Any:
    """The Python value a Literal of `kind` holds for a decoded CEL value."""
    if value is None:
        return None
    if kind == "bool":
        return bool(value)
    if kind == "double":
        return float(value)
    return str(value) if kind == "string" else int(value)


class Factory:
    """cel-go's AST nodes for parse-tree nodes whose children are built already: what the parser calls as it
    builds each node (`celext.syntax.parser`), and what `build()` calls as it walks a finished tree. Each takes
    the parse-tree node for its positions (cel-go's offsets: the operator, the `.`, the `(` of a call) and
    records it as the AST node's `tree`; macro calls expand into cel-go's comprehension loops here."""

    __slots__ = ("new_id", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.new_id: Callable[[], int] = itertools.count(1).__next__  # node ids 1, 2, ... (a call in C)

    def find(self, char: str, start: int) -> int:
        at = self.text.find(char, start)
        return at if at >= 0 else start

    # The hottest nodes are made with positional fields (id, offset, tree, then the node's own).
    def call(self, function: str, offset: int, args: list[Expr], target: Expr | None = None,
             tree: Any = None) -> Call:
        return Call(self.new_id(), offset, tree, function, target, args)

    def ident(self, name: str, offset: int) -> Ident:
        return Ident(self.new_id(), offset, None, name)

    def lit(self, kind: str, value: Any, offset: int, tree: Any = None) -> Literal:
        return Literal(self.new_id(), offset, tree, kind, value)

    @staticmethod
    def scalar(value: Any) -> tuple[Any, str | None, Any]:
        """A decoded literal value, its Literal's kind and plain value (what `const` makes of it), or None
        and None for a value `const` reads otherwise (bytes, lists, maps)."""
        kind = _CONST_KINDS.get(type(value))
        return value, kind, None if kind is None else _plain(kind, value)

    def ident_node(self, node: Any) -> Expr:
        token = node.children[0]
        offset = token.start_pos if token.start_pos is not None else _start(node)
        return Ident(self.new_id(), offset, node, "" + token)

    def conditional(self, node: Any, cond: Expr, then: Expr, other: Expr) -> Expr:  # c ? a : b
        return self.call("_?_:_", self.find("?", _end(node.children[0])), [cond, then, other], tree=node)

    def logical(self, node: Any, left: Expr, right: Expr) -> Expr:
        op = "_||_" if node.data == "conditionalor" else "_&&_"
        return self.call(op, self.find(op[1:3], _end(node.children[0])), [left, right], tree=node)

    def binary(self, node: Any, left: Expr, right: Expr) -> Expr:
        head = node.children[0]
        op = BINARY["" + head.data]
        offset = _end(head) - (2 if op == "@in" else len(op) - 2)
        return self.call(op, offset, [left, right], tree=node)

    def member_dot(self, node: Any, operand: Expr) -> Expr:
        name = node.children[1]
        return Select(self.new_id(), self.text.rfind(".", 0, _start(name)), node, operand, "" + name, False)

    def member_dot_opt(self, node: Any, operand: Expr) -> Expr:
        token = node.children[1]
        name = self.lit("string", "" + token, _start(token))
        return self.call("_?._", self.text.rfind(".", 0, _start(token)), [operand, name], tree=node)

    def member_index(self, node: Any, operand: Expr, index: Expr) -> Expr:
        op = "_[_]" if node.data == "member_index" else "_[?_]"
        return self.call(op, self.find("[", _end(node.children[0])), [operand, index], tree=node)

    def literal(self, node: Any) -> Expr:
        token = node.children[0]
        kind, value = _literal_value(token)
        start = token.start_pos if token.start_pos is not None else _start(node)
        return Literal(self.new_id(), start, node, kind, value)

    def list_lit(self, node: Any, elements: list[Expr], optional: frozenset[int]) -> Expr:
        return CreateList(self.new_id(), _start(node), node, elements, optional)

    def map_lit(self, node: Any, items: list[Expr], optional: frozenset[int]) -> Expr:
        """`items`: keys and values in turn; `optional`: the indexes of `{?k: v}` entries."""
        return CreateMap(self.new_id(), _start(node), node, list(zip(items[::2], items[1::2], strict=True)),
                         optional)

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
        if type(value) is celvalues.ListType:
            kind = _CONST_KINDS[type(value[0])]
            elements: list[Expr] = [Literal(self.new_id(), start, None, kind, _plain(kind, v))
                                    for v in value]
            return CreateList(self.new_id(), start, node, elements=elements, constant=kind)
        if type(value) is celvalues.MapType:
            key, first = next(iter(value.items()))
            key_type = celvalues.UintType if isinstance(key, UintKey) else type(key)  # (stored: celext.mapkeys)
            key_kind, value_kind = _CONST_KINDS[key_type], _CONST_KINDS[type(first)]
            entries: list[tuple[Expr, Expr]] = [
                (Literal(self.new_id(), start, None, kind=key_kind, value=_plain(key_kind, k)),
                 Literal(self.new_id(), start, None, kind=value_kind, value=_plain(value_kind, v)))
                for k, v in value.items()]
            return CreateMap(self.new_id(), start, node, entries=entries, constant=True)
        kind, plain = _literal_value(Token("BYTES_LIT", self.text[start:_end(node)]))  # (bytes)
        return Literal(self.new_id(), start, node, kind=kind, value=plain)

    def unary(self, node: Any, operand: Expr) -> Expr:
        if "" + node.children[0].data == "unary_neg":
            if isinstance(operand, Literal) and operand.kind in ("int", "double") and isinstance(operand.value,
                                                                                                (int, float)):
                operand.value = -operand.value  # cel-go's parser folds `-1` into a literal
                operand.offset = _start(node)
                return operand
            return self.call("-_", _start(node), [operand], tree=node)
        return self.call("!_", _start(node), [operand], tree=node)

    def global_call(self, node: Any, args: list[Expr]) -> Expr:
        """A global call; `has(a.b)` is the test-only select (BuildError for any other argument)."""
        name_token = node.children[0]
        name = "" + name_token
        if name == "has" and len(args) == 1:
            arg = args[0]
            if not isinstance(arg, Select):
                raise BuildError("invalid argument to has() macro", arg.offset)
            arg.test_only = True
            return arg
        return self.call(name, self.find("(", _end(name_token)), args, tree=node)

    def member_call(self, node: Any, target: Expr, args: list[Expr]) -> Expr:
        """A member call, `cel.bind` or a macro expanded (BuildError when its variables are not simple names)."""
        method = "" + node.children[1]
        offset = self.find("(", _end(node.children[1]))
        if method == "bind" and len(args) == 3 and _name(target) == "cel":
            var = _name(args[0])
            if var is None:
                raise BuildError("cel.bind() variable names must be simple identifiers", _start(_exprs(node)[0]))
            return self.bind(var, args[1], args[2], offset, node)
        macro = self.macro(method, target, args, offset, node)
        if macro is not None:
            return macro
        return self.call(method, offset, args, target=target, tree=node)

    def bind(self, var: str, init: Expr, body: Expr, offset: int, tree: Any) -> Comprehension:
        return Comprehension(self.new_id(), offset, tree, iter_range=CreateList(self.new_id(), offset),
                             iter_var="#unused", accu_var=var, accu_init=init,
                             loop_condition=self.lit("bool", False, offset), loop_step=self.ident(var, offset),
                             result=body)

    def macro(self, name: str, target: Expr, args: list[Expr], offset: int, tree: Any) -> Expr | None:
        two, one = _macro_form(name, len(args))
        if not (one or two):
            return None
        held = args[:2 if two else 1]
        names = [_name(a) for a in held]
        found = macro_variable_error(name, names)
        if found is not None:
            index, message = found
            raise BuildError(message, held[index].offset)
        var, var2 = str(names[0]), str(names[1]) if two else ""
        bodies = args[2 if two else 1:]
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


def _macro_form(name: str, count: int) -> tuple[bool, bool]:
    """Whether a member call `name` with `count` arguments is a two- or a one-variable macro (cel-go's forms)."""
    two = name in _TWO_VAR and (count == 3 or (count == 4 and name.startswith("transform")))
    one = name in _ONE_VAR and (count == 2 or (count == 3 and name == "map"))
    if name in ("sortBy", "optMap", "optFlatMap") and count == 2:
        one = True
    return two, one


def _name(e: Expr) -> str | None:
    """The name of a plain identifier (parentheses around it leave no node), else None."""
    return e.name if type(e) is Ident else None


def _simple_name(node: Any) -> str | None:
    """`_name` on a parse tree: the identifier under a chain of single-child levels, else None."""
    while isinstance(node, Tree):
        if "" + node.data == "ident":
            return str(node.children[0])
        if len(node.children) != 1:
            return None
        node = node.children[0]
    return None


class _Builder(Factory):
    """`build()`: the Factory over a finished parse tree (either shape). Malformed macro calls are refused
    before their arguments are built, as cel-go's parser refuses them, so the first BuildError is the one cel-go
    reports first."""

    __slots__ = ("handlers",)

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.handlers: dict[str, Callable[[Any], Expr]] = {
            "const": self.const, "ident": self.ident_node, "expr": self.walk_conditional,
            "conditionalor": self.walk_logical, "conditionaland": self.walk_logical, "relation": self.walk_binary,
            "addition": self.walk_binary, "multiplication": self.walk_binary, "unary": self.walk_unary,
            "member_dot": self.walk_member_dot, "member_dot_opt": self.walk_member_dot_opt,
            "member_index": self.walk_member_index, "member_index_opt": self.walk_member_index,
            "member_dot_arg": self.walk_member_call, "ident_arg": self.walk_global_call, "literal": self.literal,
            "list_lit": self.walk_list, "map_lit": self.walk_map, "paren_expr": self.walk_paren,
        }

    def build(self, node: Any) -> Expr:
        data = node.data
        while data in _PASS and len(node.children) == 1 and isinstance(node.children[0], Tree):
            node = node.children[0]
            data = node.data
        handler = self.handlers.get(data)
        if handler is None:
            raise BuildError(f"unsupported syntax: {data}", _start(node))
        return handler(node)

    def walk_conditional(self, node: Any) -> Expr:
        cond, then, other = (self.build(k) for k in node.children)
        return self.conditional(node, cond, then, other)

    def walk_logical(self, node: Any) -> Expr:
        return self.logical(node, self.build(node.children[0]), self.build(node.children[1]))

    def walk_binary(self, node: Any) -> Expr:
        head, right = node.children
        return self.binary(node, self.build(head.children[0]), self.build(right))

    def walk_unary(self, node: Any) -> Expr:
        return self.unary(node, self.build(node.children[1]))

    def walk_member_dot(self, node: Any) -> Expr:
        return self.member_dot(node, self.build(node.children[0]))

    def walk_member_dot_opt(self, node: Any) -> Expr:
        return self.member_dot_opt(node, self.build(node.children[0]))

    def walk_member_index(self, node: Any) -> Expr:
        return self.member_index(node, self.build(node.children[0]), self.build(node.children[1]))

    def walk_list(self, node: Any) -> Expr:
        elements = _exprs(node)
        return self.list_lit(node, [self.build(_unopt(e)) for e in elements],
                             frozenset(i for i, e in enumerate(elements) if "" + e.data == "opt_expr"))

    def walk_map(self, node: Any) -> Expr:
        raw = _exprs(node)
        return self.map_lit(node, [self.build(_unopt(e)) for e in raw],
                            frozenset(i // 2 for i, e in enumerate(raw) if i % 2 == 0 and "" + e.data == "opt_expr"))

    def walk_paren(self, node: Any) -> Expr:
        return self.build(node.children[0])

    def walk_global_call(self, node: Any) -> Expr:
        return self.global_call(node, [self.build(a) for a in _exprs(node)])

    def walk_member_call(self, node: Any) -> Expr:
        target_tree, name_token = node.children[0], node.children[1]
        method = str(name_token)
        arg_trees = _exprs(node)
        if method == "bind" and len(arg_trees) == 3 and _simple_name(target_tree) == "cel":
            if _simple_name(arg_trees[0]) is None:
                raise BuildError("cel.bind() variable names must be simple identifiers", _start(arg_trees[0]))
        else:
            two, one = _macro_form(method, len(arg_trees))
            held = arg_trees[:2 if two else 1]
            found = macro_variable_error(method, [_simple_name(a) for a in held]) if one or two else None
            if found is not None:
                raise BuildError(found[1], _start(held[found[0]]))
        return self.member_call(node, self.build(target_tree), [self.build(a) for a in arg_trees])


def build(tree: Any, text: str) -> Expr:
    """The cel-go AST of a finished parse tree (`text` is the expression, for operator positions). Raises
    BuildError. The compile stages take the AST the parser builds as it parses (`celext.syntax.parser`); this
    walk builds it again for a parse tree of either shape, and finds the first BuildError in cel-go's order."""
    return _Builder(text).build(tree)
