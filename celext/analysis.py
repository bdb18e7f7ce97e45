"""Static facts about one selector expression, for `draguard lint` and the selector rules.

Everything here reads the cel-python parse tree (`celext.parse`) and never evaluates: which device
attributes an expression reads, how it uses each one (compared with `==`, passed to a string method,
used as a bool, ...), which reads are the argument of a `has()` guard, which
`include()`/`includes()` calls it makes, and a rough iteration-cost estimate. Every fact carries a
`Span`: character offsets into the expression text, so a caller can point at the exact token and
rewrite it (positions and literal values of parse-tree nodes come from `celext.syntax`).

    >>> facts = analyze('device.attributes["dra.net"].numaNode == 4')
    >>> [(u.ref.qualified, u.how, u.literal) for u in facts.uses]
    [('dra.net/numaNode', '==', 4)]

The facts are computed once per expression text (cached): DRA repositories repeat selectors a lot.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal

from lark import Token, Tree

from celext.compile import parse
from celext.syntax import (
    AST,
    PASSTHROUGH,
    Node,
    Span,
    Spans,
    args_of,
    has_comment,
    is_list_literal,
    list_literals,
    literal_value,
    operator_span,
    span_of,
    string_value,
    unwrap,
)

__all__ = [  # the syntax helpers are re-exported: callers read every static fact from here
    "AttributeRef", "Call", "DomainRead", "Facts", "Select", "Span", "Spans", "Use", "analyze", "has_comment",
    "literal_value", "parse", "span_of", "string_value", "unwrap",
]

Kind = Literal["attributes", "capacity"]
How = Literal["==", "!=", "<", "<=", ">", ">=", "in", "method", "bool", "arithmetic", "argument"]

# Comprehension macros: they iterate their receiver. On a list attribute they are the right tool.
MACROS = frozenset({"all", "exists", "exists_one", "map", "filter"})
# Methods that work on a list and a scalar alike, the list-aware helpers themselves, and list-only methods
# (Kubernetes and cel-go list libraries: whoever calls them on an attribute already expects a list).
LIST_SAFE_METHODS = MACROS | {
    "includes", "include", "size", "distinct", "flatten", "reverse", "slice", "sort", "isSorted", "sum", "max",
    "min", "join",
}
# Functions that accept a list as readily as a scalar (`has` is the guard itself, `cel.bind` names a value).
LIST_SAFE_FUNCTIONS = frozenset({"has", "size", "dyn", "type", "cel.bind", "sets.contains", "sets.equivalent",
                                 "sets.intersects"})
# Receivers that are function namespaces, not values: `sets.contains(a, b)` is one global function.
NAMESPACES = frozenset({"cel", "sets", "lists", "strings", "math"})
# Upper bounds the Kubernetes cost estimator assumes for DRA values (dynamic-resource-allocation cel/compile.go).
MAX_MAP_ENTRIES = 32  # attribute and capacity maps per device
MAX_ATTRIBUTE_SIZE = 64  # an attribute value (list length) as the size estimator sees it

_RELATIONS: dict[str, How] = {
    "relation_eq": "==", "relation_ne": "!=", "relation_lt": "<", "relation_le": "<=",
    "relation_gt": ">", "relation_ge": ">=", "relation_in": "in",
}


@dataclass(frozen=True, slots=True)
class AttributeRef:
    """One `device.attributes[<domain>].<id>` (or `[<domain>][<id>]`) read with literal keys.

    `domain_key` is the raw text of the domain index, for diagnostics about malformed domains.
    """

    kind: Kind
    domain: str
    name: str
    span: Span  # the whole read, `device.attributes["d"].id`
    name_span: Span  # the id token
    domain_span: Span  # the domain literal, quotes included
    in_guard: bool = False  # the read is itself the argument of has()

    @property
    def qualified(self) -> str:
        return f"{self.domain}/{self.name}"


@dataclass(frozen=True, slots=True)
class DomainRead:
    """`device.attributes[<domain>]` with a literal domain (whether or not an id follows)."""

    kind: Kind
    domain: str
    span: Span  # the domain literal, quotes included


@dataclass(frozen=True, slots=True)
class Use:
    """A use of an attribute value that behaves differently once the attribute is a list.

    `how` is the operator (`==`, `<`, `in`, ...), `"method"` for a method call on the value, `"bool"`
    for the value used directly as a condition, `"arithmetic"` for an operand of `+ - * / %` (or unary
    `-`) and `"argument"` for an argument of a function or method (`isSemver(x)`, `s.startsWith(x)`);
    `method` names the method, function or arithmetic operator. `span` covers the whole comparison /
    call / value; `other` the other operand (for `in`: the container when the attribute is on the left).
    `literal` is the other operand's value when it is an int, string or bool literal, `literals` the
    items of a list literal on the right of `in`, or of the list literal a comprehension variable on the
    other side ranges over (`[0, 1].exists(n, x == n)`).
    """

    ref: AttributeRef
    how: How
    span: Span
    operator: Span | None = None
    other: Span | None = None
    attribute_left: bool = True
    method: str = ""
    literal: int | str | bool | None = None
    literals: tuple[int | str | bool, ...] | None = None


@dataclass(frozen=True, slots=True)
class Call:
    """A member call `<receiver>.<name>(<args>)` or a global call `<name>(<args>)`."""

    name: str
    span: Span
    name_span: Span
    receiver: Span | None
    ref: AttributeRef | None  # the receiver when it is an attribute read
    args: tuple[Span, ...]
    literal_args: tuple[int | str | bool | None, ...]  # each argument's literal value, None when not a literal
    # Each argument's possible literal values: its own, or those of the list literal it ranges over when it
    # is a comprehension variable (`[0, 1].exists(n, x.includes(n))`); () when unknown.
    arg_values: tuple[tuple[int | str | bool, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class Select:
    """`<attribute read>.<field>`: a field of an attribute's value, which has none (a runtime error)."""

    ref: AttributeRef
    name: str
    span: Span  # the field name


@dataclass(frozen=True, slots=True)
class Facts:
    expression: str
    refs: tuple[AttributeRef, ...]
    domains: tuple[DomainRead, ...]
    uses: tuple[Use, ...]
    calls: tuple[Call, ...]
    cost: int  # product of the sizes the nested comprehensions iterate over (1 when none)
    unbounded: tuple[Span, ...]  # comprehensions whose range size is unknown to the estimate
    selects: tuple[Select, ...]  # field reads on attribute values (`....numaNode.int`)

    def variable_free(self, base: str = "v") -> str:
        """An identifier the expression does not use (for a comprehension variable in a rewrite)."""
        name, n = base, 0
        while _mentions_identifier(self.expression, name):
            n += 1
            name = f"{base}{n}"
        return name


@functools.lru_cache(maxsize=4096)
def analyze(expression: str) -> Facts:
    """The facts of one expression; raises `celext.CompileError` when it does not parse."""
    tree = parse(expression)
    walker = _Walker(expression, Spans(expression, tree))
    walker.walk(tree, boolean=True, depth_cost=1)
    return Facts(expression, tuple(walker.refs), tuple(walker.domains), tuple(walker.uses), tuple(walker.calls),
                 walker.cost, tuple(walker.unbounded), tuple(walker.selects))


def _mentions_identifier(expression: str, name: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", expression) is not None


class _Walker:
    """One recursive walk collecting every fact; `boolean` says the node's value is used as a condition."""

    def __init__(self, expression: str, spans: Spans) -> None:
        self.expression = expression
        self.span = spans
        self.refs: list[AttributeRef] = []
        self.domains: list[DomainRead] = []
        self.uses: list[Use] = []
        self.calls: list[Call] = []
        self.cost = 1
        self.unbounded: list[Span] = []
        self.selects: list[Select] = []
        self._ranges: dict[str, tuple[int | str | bool, ...]] = {}  # comprehension variable -> literal items
        self._seen: dict[Span, AttributeRef] = {}

    def walk(self, node: Node, *, boolean: bool, depth_cost: int) -> None:
        if isinstance(node, Token):
            return
        data = node.data
        if data in ("expr", "conditionalor", "conditionaland") and len(node.children) > 1:
            # Operands of &&, || and the ternary condition are conditions; ternary branches keep ours.
            if data == "expr":
                self.walk(node.children[0], boolean=True, depth_cost=depth_cost)
                for child in node.children[1:]:
                    self.walk(child, boolean=boolean, depth_cost=depth_cost)
            else:
                for child in node.children:
                    self.walk(child, boolean=True, depth_cost=depth_cost)
            return
        if data == "unary" and len(node.children) == 2:
            op = node.children[0]
            if isinstance(op, Tree) and op.data == "unary_neg":
                self._arithmetic(node, [node.children[1]], depth_cost)
                return
            negated = isinstance(op, Tree) and op.data == "unary_not"
            self.walk(node.children[1], boolean=negated, depth_cost=depth_cost)
            return
        if data == "relation" and len(node.children) == 2:
            self._relation(node, depth_cost)
            return
        if data in ("addition", "multiplication") and len(node.children) == 2:
            op_node, right = node.children
            assert isinstance(op_node, Tree)
            self._arithmetic(node, [op_node.children[0], right], depth_cost)
            return
        if data in PASSTHROUGH or data == "paren_expr":
            if len(node.children) == 1:
                self.walk(node.children[0], boolean=boolean, depth_cost=depth_cost)
            else:
                for child in node.children:
                    self.walk(child, boolean=False, depth_cost=depth_cost)
            return
        ref = self._attribute(node, in_guard=False)
        if ref is not None:
            if boolean:
                self.uses.append(Use(ref, "bool", ref.span))
            return
        if data == "member_dot_arg":
            self._member_call(node, depth_cost)
            return
        if data == "ident_arg":
            self._global_call(node, depth_cost)
            return
        if data in ("member_index", "member_dot"):
            self._domain(node)
        if data == "member_dot" and len(node.children) == 2:
            receiver = self._ref_of(node.children[0])
            if receiver is not None:
                field = node.children[1]
                self.selects.append(Select(receiver, str(field), self.span(field)))
                return
        for child in node.children:
            self.walk(child, boolean=False, depth_cost=depth_cost)

    # -- attribute reads ------------------------------------------------------------------------

    def _attribute(self, node: AST, in_guard: bool) -> AttributeRef | None:
        """`device.attributes["d"].id` / `device.attributes["d"]["id"]` -> the read (recorded once)."""
        shape = _attribute_shape(node)
        if shape is None:
            return None
        span = self.span(node)
        if span in self._seen:
            return self._seen[span]
        kind, domain, domain_node, name, name_node = shape
        ref = AttributeRef(kind, domain, name, span, self.span(name_node), self.span(domain_node), in_guard=in_guard)
        self._seen[span] = ref
        self.refs.append(ref)
        self.domains.append(DomainRead(kind, domain, self.span(domain_node)))
        return ref

    def _domain(self, node: AST) -> None:
        """`device.attributes["d"]` read without an id (`"id" in device.attributes["d"]`, a macro, ...)."""
        if node.data != "member_index":
            return
        found = _domain_shape(node)
        if found is not None:
            kind, domain, domain_node = found
            self.domains.append(DomainRead(kind, domain, self.span(domain_node)))

    def _ref_of(self, node: Node, in_guard: bool = False) -> AttributeRef | None:
        inner = unwrap(node)
        return self._attribute(inner, in_guard) if isinstance(inner, Tree) else None

    # -- operators and calls --------------------------------------------------------------------

    def _relation(self, node: AST, depth_cost: int) -> None:
        op_node, right = node.children
        assert isinstance(op_node, Tree)
        left = op_node.children[0]
        how = _RELATIONS[op_node.data]
        left_ref, right_ref = self._ref_of(left), self._ref_of(right)
        operator = operator_span(self.expression, self.span(left).end, self.span(right).start)
        # `x == [4]` compares with a list on purpose: the list-aware form already (and false on a scalar).
        equality_with_list = how in ("==", "!=") and (is_list_literal(left) or is_list_literal(right))
        if left_ref is not None and not equality_with_list:
            literals = list_literals(right) if how == "in" else self._range_of(right)
            self.uses.append(Use(left_ref, how, self.span(node), operator, self.span(right), True,
                                 literal=literal_value(right), literals=literals))
        if right_ref is not None and how != "in" and not equality_with_list:
            # `4 in attr` is the list-aware form already (it fails on a scalar, the opposite direction).
            self.uses.append(Use(right_ref, how, self.span(node), operator, self.span(left), False,
                                 literal=literal_value(left), literals=self._range_of(left)))
        for side in (left, right):
            if self._ref_of(side) is None:
                self.walk(side, boolean=False, depth_cost=depth_cost)

    def _range_of(self, node: Node) -> tuple[int | str | bool, ...] | None:
        """The list literal items a comprehension variable ranges over, when `node` is such a variable."""
        name = _identifier(node)
        return self._ranges.get(name) if name else None

    def _values_of(self, args: list[Node]) -> tuple[tuple[int | str | bool, ...], ...]:
        out = []
        for arg in args:
            value = literal_value(arg)
            out.append((value,) if value is not None else self._range_of(arg) or ())
        return tuple(out)

    def _arithmetic(self, node: AST, operands: list[Node], depth_cost: int) -> None:
        """`x + 1`, `2 * x`, `-x`: no arithmetic overload takes a list (`x + [..]` concatenates: list-aware)."""
        concatenation = any(is_list_literal(side) for side in operands)
        for index, side in enumerate(operands):
            ref = self._ref_of(side)
            if ref is None:
                self.walk(side, boolean=False, depth_cost=depth_cost)
            elif not concatenation:
                operator: Span | None = Span(self.span(node).start, self.span(node).start + 1)  # unary `-`
                other: Span | None = None
                if len(operands) == 2:
                    left, right = operands
                    operator = operator_span(self.expression, self.span(left).end, self.span(right).start,
                                              ("+", "-", "*", "/", "%"))
                    other = self.span(operands[1 - index])
                self.uses.append(Use(ref, "arithmetic", self.span(node), operator, other, index == 0,
                                     method=operator.text(self.expression) if operator else "-"))

    def _argument(self, call: AST, name: str, args: list[Node], depth_cost: int) -> None:
        """Arguments of a call: an attribute passed where a scalar is expected is a list-fragile use."""
        for arg in args:
            ref = self._ref_of(arg)
            if ref is None or name in LIST_SAFE_FUNCTIONS:
                self.walk(arg, boolean=False, depth_cost=depth_cost)
            else:
                name_token = call.children[1] if call.data == "member_dot_arg" else call.children[0]
                self.uses.append(Use(ref, "argument", self.span(call), self.span(name_token), method=name))

    def _member_call(self, node: AST, depth_cost: int) -> None:
        receiver, name_token, *rest = node.children
        assert isinstance(name_token, Token)
        args = args_of(rest[0]) if rest else []
        name = str(name_token)
        ref = self._ref_of(receiver)
        self.calls.append(Call(name, self.span(node), self.span(name_token), self.span(receiver), ref,
                               tuple(self.span(a) for a in args), tuple(literal_value(a) for a in args),
                               self._values_of(args)))
        namespace = unwrap(receiver)
        if isinstance(namespace, Tree) and namespace.data == "ident" and str(namespace.children[0]) in NAMESPACES:
            self._argument(node, f"{namespace.children[0]}.{name}", args, depth_cost)
            return
        if ref is not None and name not in LIST_SAFE_METHODS:
            self.uses.append(Use(ref, "method", self.span(node), self.span(name_token), method=name,
                                 literal=literal_value(args[0]) if args else None))
        if ref is None:
            self.walk(receiver, boolean=False, depth_cost=depth_cost)
        if name in MACROS and len(args) >= 2:
            size = _range_size(receiver)
            if size is None:
                self.unbounded.append(self.span(node))
                size = 1
            inner = depth_cost * size
            self.cost = max(self.cost, inner)
            variable, items = _identifier(args[0]), list_literals(receiver)
            outer = self._ranges.pop(variable, None) if variable else None
            if variable and items is not None:
                self._ranges[variable] = items
            for arg in args[1:]:
                self.walk(arg, boolean=name in ("all", "exists", "exists_one", "filter"), depth_cost=inner)
            if variable:
                self._ranges.pop(variable, None)
                if outer is not None:
                    self._ranges[variable] = outer
            return
        self._argument(node, name, args, depth_cost)

    def _global_call(self, node: AST, depth_cost: int) -> None:
        name_token, *rest = node.children
        assert isinstance(name_token, Token)
        args = args_of(rest[0]) if rest else []
        name = str(name_token)
        self.calls.append(Call(name, self.span(node), self.span(name_token), None, None,
                               tuple(self.span(a) for a in args), tuple(literal_value(a) for a in args),
                               self._values_of(args)))
        if name == "has" and len(args) == 1:
            if self._ref_of(args[0], in_guard=True) is None:
                self.walk(args[0], boolean=False, depth_cost=depth_cost)
            return
        self._argument(node, name, args, depth_cost)


def _identifier(node: Node) -> str:
    """The name when `node` is a bare identifier (a comprehension variable), else ""."""
    inner = unwrap(node)
    if isinstance(inner, Tree) and inner.data == "ident" and inner.children:
        return str(inner.children[0])
    return ""


def _is_device_map(node: Node) -> Kind | None:
    """`device.attributes` or `device.capacity` -> which one."""
    node = unwrap(node)
    if not (isinstance(node, Tree) and node.data == "member_dot" and len(node.children) == 2):
        return None
    base, field = node.children
    base = unwrap(base)
    if not (isinstance(base, Tree) and base.data == "ident" and str(base.children[0]) == "device"):
        return None
    return "attributes" if str(field) == "attributes" else "capacity" if str(field) == "capacity" else None


def _domain_shape(node: AST) -> tuple[Kind, str, Node] | None:
    if node.data != "member_index" or len(node.children) != 2:
        return None
    kind = _is_device_map(node.children[0])
    domain = literal_value(node.children[1])
    if kind is None or not isinstance(domain, str):
        return None
    return kind, domain, node.children[1]


def _attribute_shape(node: AST) -> tuple[Kind, str, Node, str, Node] | None:
    if node.data not in ("member_dot", "member_index") or len(node.children) != 2:
        return None
    inner, key = node.children
    inner = unwrap(inner)
    if not isinstance(inner, Tree):
        return None
    found = _domain_shape(inner)
    if found is None:
        return None
    kind, domain, domain_node = found
    if node.data == "member_dot":
        return kind, domain, domain_node, str(key), key
    name = literal_value(key)
    return (kind, domain, domain_node, name, key) if isinstance(name, str) else None


def _range_size(receiver: Node) -> int | None:
    """How many elements a comprehension over `receiver` may visit, by the Kubernetes size bounds."""
    inner = unwrap(receiver)
    if not isinstance(inner, Tree):
        return None
    if inner.data == "member_dot_arg" and str(inner.children[1]) == "range" and len(inner.children) == 3:
        size = literal_value(args_of(inner.children[2])[0]) if args_of(inner.children[2]) else None
        return size if isinstance(size, int) and not isinstance(size, bool) else None
    if inner.data == "list_lit":
        return len(args_of(inner.children[0])) if inner.children else 0
    if _is_device_map(inner) is not None or _domain_shape(inner) is not None:
        return MAX_MAP_ENTRIES
    if _attribute_shape(inner) is not None:
        return MAX_ATTRIBUTE_SIZE
    return None
