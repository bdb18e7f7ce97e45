"""The one walk over a parse tree that collects the facts of `celext.analysis`.

`Walker` visits every node once and records attribute reads, the uses that behave differently once an
attribute is a list, calls, field selects and the iteration cost. It tracks which values are conditions, what
list literal a comprehension variable ranges over, what a `cel.bind` variable stands for (an occurrence of one
bound to a read is that read, used where the variable is), and how an optional read is unwrapped back into a value;
the node shapes it relies on come from `celext.analysis.shapes`, the fact types from `celext.analysis.facts`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Literal, NamedTuple, TypeVar

from celext.analysis.facts import AttributeRef, Call, DomainRead, How, Select, Unwrap, Use
from celext.analysis.shapes import (
    MACROS,
    QUANTIFIERS,
    AttributeShape,
    Binding,
    attribute_shape,
    bound_to,
    domain_shape,
    identifier,
    range_size,
    unwrap_shape,
    variable_count,
)
from celext.syntax.nodes import Token, Tree
from celext.syntax.tree import (
    AST,
    PASSTHROUGH,
    Node,
    Span,
    args_of,
    is_list_literal,
    list_literals,
    literal_value,
    operator_span,
    unwrap,
)

# Methods that work on a list and a scalar alike, the list-aware helpers themselves, and list-only methods
# (Kubernetes and cel-go list libraries: whoever calls them on an attribute already expects a list).
# `size()` is not among them: it counts a string's characters but a list's elements (a "size" use).
LIST_SAFE_METHODS = MACROS | {
    "includes", "include", "distinct", "flatten", "reverse", "slice", "sort", "isSorted", "sum", "max",
    "min", "join",
}
# Functions that accept a list as readily as a scalar (`has` is the guard itself, `cel.bind` names a value).
# Not `dyn`: it hands its argument on unchanged (`dyn(x) == 4` is `x == 4`), so an operand seen through it.
LIST_SAFE_FUNCTIONS = frozenset({"has", "type", "cel.bind", "sets.contains", "sets.equivalent",
                                 "sets.intersects"})
# Receivers that are function namespaces, not values: `sets.contains(a, b)` is one global function.
NAMESPACES = frozenset({"cel", "sets", "lists", "strings", "math"})

_RELATIONS: dict[str, How] = {
    "relation_eq": "==", "relation_ne": "!=", "relation_lt": "<", "relation_le": "<=",
    "relation_gt": ">", "relation_ge": ">=", "relation_in": "in",
}


_V = TypeVar("_V")


class _Operand(NamedTuple):
    """What a subexpression holding an attribute value is: the read, and how an optional read is unwrapped."""

    ref: AttributeRef
    unwrap: Unwrap | None = None
    fallback: Node | None = None  # the orValue() argument, still to be walked
    condition: Node | None = None  # a ternary's condition, still to be walked (fallback: its other branch)


class Walker:
    """One recursive walk collecting every fact; `boolean` says the node's value is used as a condition."""

    def __init__(self, expression: str, spans: Callable[[Node], Span]) -> None:
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
        self._bound: dict[str, Binding] = {}  # cel.bind variable in scope -> what it stands for
        self._seen: dict[Span, AttributeRef] = {}

    def walk(self, node: Node, *, boolean: bool, depth_cost: int) -> None:
        if isinstance(node, Token) or node.data == "const":
            return  # (a lean tree's literal: no facts)
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
        operand = self._operand(node)
        if operand is not None:
            if boolean:
                self.uses.append(Use(operand.ref, "bool", _operand_span(operand), unwrap=operand.unwrap))
            self._finish(operand, depth_cost)
            return
        if self._attribute(node, in_guard=False) is not None:
            return  # an optional read itself: an optional, not an attribute value
        if data == "member_dot_arg":
            self._member_call(node, depth_cost, boolean)
            return
        if data == "ident_arg":
            self._global_call(node, depth_cost)
            return
        if data in ("member_index", "member_index_opt"):
            self._domain(node)
        if data in ("member_dot", "member_dot_opt") and len(node.children) == 2:
            receiver = self._ref_of(node.children[0])
            if receiver is not None:
                field = node.children[1]
                self.selects.append(Select(receiver, str(field), self.span(field)))
                return
        for child in node.children:
            self.walk(child, boolean=False, depth_cost=depth_cost)

    # -- attribute reads ------------------------------------------------------------------------

    def _attribute(self, node: AST, in_guard: bool, dereferenced: bool = False) -> AttributeRef | None:
        """`device.attributes["d"].id` / `device.attributes["d"]["id"]` / `....?id` -> the read (recorded once)."""
        shape = attribute_shape(node, self._bound)
        return None if shape is None else self._read(node, shape, in_guard, dereferenced)

    def _read(self, node: AST, shape: AttributeShape, in_guard: bool, dereferenced: bool = False) -> AttributeRef:
        span = self.span(node)
        if span in self._seen:
            return self._seen[span]
        kind, domain, domain_node, name, name_node, optional, by_driver = shape
        domain_span = self.span(domain_node)
        ref = AttributeRef(kind, domain, name, span, self.span(name_node), domain_span, in_guard=in_guard,
                           optional=optional, dereferenced=optional and dereferenced, by_driver=by_driver,
                           alias=node.data == "ident")
        self._seen[span] = ref
        self.refs.append(ref)
        if span.start <= domain_span.start and domain_span.end <= span.end:  # else read where a variable is bound
            self.domains.append(DomainRead(kind, domain, domain_span, by_driver))
        return ref

    def _domain(self, node: AST) -> None:
        """`device.attributes["d"]` read without an id (`"id" in device.attributes["d"]`, a macro, ...)."""
        found = domain_shape(node)
        if found is not None:
            kind, domain, domain_node, _, by_driver = found
            self.domains.append(DomainRead(kind, domain, self.span(domain_node), by_driver))

    def _ref_of(self, node: Node, in_guard: bool = False) -> AttributeRef | None:
        """The read `node` is, optional or not."""
        inner = unwrap(node)
        return self._attribute(inner, in_guard) if isinstance(inner, Tree) else None

    def _operand(self, node: Node) -> _Operand | None:
        """The attribute value `node` stands for: a plain read, or an optional read's `.value()`/`.orValue(x)`
        (an optional read itself is an optional, which no comparison or method treats as the value)."""
        inner = unwrap(node)
        if not isinstance(inner, Tree):
            return None
        if inner.data == "ident_arg" and str(inner.children[0]) == "dyn" and len(inner.children) > 1:
            args = args_of(inner.children[1])  # dyn(x) is x to every operator and method: as fragile
            return self._operand(args[0]) if len(args) == 1 else None
        binding = bound_to(inner, self._bound)
        if binding is not None and binding.unwrap is not None:
            # A variable bound to `<optional read>.orValue(x)`: the value, unwrapped (and its fallback walked)
            # where it is bound.
            assert binding.attribute is not None
            bound_ref = self._read(inner, binding.attribute, in_guard=False)
            return self._unwrapped(inner, bound_ref, binding.unwrap, binding.fallback, walk_fallback=False)
        found = unwrap_shape(inner, self._bound)
        if found is not None:
            read, method, fallback = found
            ref = self._attribute(read, in_guard=False, dereferenced=method == "value")
            assert ref is not None
            return self._unwrapped(inner, ref, method, fallback, walk_fallback=True)
        ref = self._attribute(inner, in_guard=False)
        return _Operand(ref) if ref is not None and not ref.optional else None

    def _unwrapped(self, node: AST, ref: AttributeRef, method: Literal["value", "orValue"],
                   fallback: Node | None, *, walk_fallback: bool) -> _Operand:
        how = Unwrap(method, self.span(node), self.span(fallback) if fallback is not None else None,
                     literal_value(fallback) if fallback is not None else None)
        return _Operand(ref, how, fallback if walk_fallback else None)

    def _finish(self, operand: _Operand, depth_cost: int) -> None:
        """Walk what an operand holds besides the read (the orValue() fallback; a ternary's condition and other
        branch)."""
        if operand.condition is not None:
            self.walk(operand.condition, boolean=True, depth_cost=depth_cost)
        if operand.fallback is not None:
            self.walk(operand.fallback, boolean=False, depth_cost=depth_cost)

    def _compared(self, node: Node) -> _Operand | None:
        """A comparison's operand: `_operand`, or a ternary with an attribute value in a branch (`(has(x) ? x :
        -1) == 4`, the guard idiom from before optional reads: the branch is compared, list or not)."""
        found = self._operand(node)
        inner = unwrap(node)
        if found is not None or not isinstance(inner, Tree) or inner.data != "expr" or len(inner.children) != 3:
            return found
        condition, *branches = inner.children
        for index, branch in enumerate(branches):
            operand = self._operand(branch)
            if operand is not None and operand.unwrap is None:
                other = branches[1 - index]
                how = Unwrap("ternary", self.span(inner), self.span(other), literal_value(other))
                return _Operand(operand.ref, how, other, condition)
        return None

    # -- operators and calls --------------------------------------------------------------------

    def _relation(self, node: AST, depth_cost: int) -> None:
        op_node, right = node.children
        assert isinstance(op_node, Tree)
        left = op_node.children[0]
        how = _RELATIONS[op_node.data]
        left_op, right_op = self._compared(left), self._compared(right)
        operator = operator_span(self.expression, self.span(left).end, self.span(right).start)
        # `x == [4]` compares with a list on purpose: the list-aware form already (and false on a scalar).
        equality_with_list = how in ("==", "!=") and (is_list_literal(left) or is_list_literal(right))
        if left_op is not None and not equality_with_list:
            literals = list_literals(right) if how == "in" else self._range_of(right)
            self.uses.append(Use(left_op.ref, how, self.span(node), operator, self.span(right), True,
                                 literal=literal_value(right), literals=literals, unwrap=left_op.unwrap))
        if right_op is not None and how != "in" and not equality_with_list:
            # `4 in attr` is the list-aware form already (it fails on a scalar, the opposite direction).
            self.uses.append(Use(right_op.ref, how, self.span(node), operator, self.span(left), False,
                                 literal=literal_value(left), literals=self._range_of(left), unwrap=right_op.unwrap))
        for side, operand in ((left, left_op), (right, right_op)):
            if operand is None:
                self.walk(side, boolean=False, depth_cost=depth_cost)
            else:
                self._finish(operand, depth_cost)

    def _range_of(self, node: Node) -> tuple[int | str | bool, ...] | None:
        """The list literal items a comprehension variable ranges over, when `node` is such a variable."""
        name = identifier(node)
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
            operand = self._operand(side)
            if operand is None:
                self.walk(side, boolean=False, depth_cost=depth_cost)
                continue
            self._finish(operand, depth_cost)
            if not concatenation:
                operator: Span | None = Span(self.span(node).start, self.span(node).start + 1)  # unary `-`
                other: Span | None = None
                if len(operands) == 2:
                    left, right = operands
                    operator = operator_span(self.expression, self.span(left).end, self.span(right).start,
                                              ("+", "-", "*", "/", "%"))
                    other = self.span(operands[1 - index])
                self.uses.append(Use(operand.ref, "arithmetic", self.span(node), operator, other, index == 0,
                                     method=operator.text(self.expression) if operator else "-",
                                     unwrap=operand.unwrap))

    def _argument(self, call: AST, name: str, args: list[Node], depth_cost: int) -> None:
        """Arguments of a call: an attribute passed where a scalar is expected is a list-fragile use."""
        for arg in args:
            operand = self._operand(arg)
            if operand is None or name in LIST_SAFE_FUNCTIONS:
                self.walk(arg, boolean=False, depth_cost=depth_cost)
            else:
                name_token = call.children[1] if call.data == "member_dot_arg" else call.children[0]
                how: How = "size" if name == "size" and call.data == "ident_arg" and len(args) == 1 else "argument"
                self.uses.append(Use(operand.ref, how, self.span(call), self.span(name_token), method=name,
                                     unwrap=operand.unwrap))
                self._finish(operand, depth_cost)

    def _member_call(self, node: AST, depth_cost: int, boolean: bool) -> None:
        receiver, name_token, *rest = node.children
        assert isinstance(name_token, Token)
        args = args_of(rest[0]) if rest else []
        name = str(name_token)
        if name == "bind" and len(args) == 3 and identifier(receiver) == "cel" and identifier(args[0]):
            self.calls.append(Call(name, self.span(node), self.span(name_token), self.span(receiver), None,
                                   tuple(self.span(a) for a in args), tuple(literal_value(a) for a in args),
                                   self._values_of(args)))
            self._bind(identifier(args[0]), args[1], args[2], boolean, depth_cost)
            return
        # `x.?id.hasValue()` guards like has(x.id); an optional read takes only optional methods.
        read = self._ref_of(receiver, in_guard=name == "hasValue" and not args)
        operand = self._operand(receiver) if read is None else None
        ref = read if read is not None else operand.ref if operand is not None else None
        self.calls.append(Call(name, self.span(node), self.span(name_token), self.span(receiver), ref,
                               tuple(self.span(a) for a in args), tuple(literal_value(a) for a in args),
                               self._values_of(args)))
        namespace = unwrap(receiver)
        if isinstance(namespace, Tree) and namespace.data == "ident" and str(namespace.children[0]) in NAMESPACES:
            self._argument(node, f"{namespace.children[0]}.{name}", args, depth_cost)
            return
        # Methods on an optional read itself are optional methods (hasValue(), orValue(), ...), never a list's.
        if ref is not None and name not in LIST_SAFE_METHODS and not (read is not None and read.optional):
            how: How = "size" if name == "size" and not args else "method"
            self.uses.append(Use(ref, how, self.span(node), self.span(name_token), method=name,
                                 literal=literal_value(args[0]) if args else None,
                                 unwrap=operand.unwrap if operand is not None else None))
        if operand is not None:
            self._finish(operand, depth_cost)
        elif ref is None:
            self.walk(receiver, boolean=False, depth_cost=depth_cost)
        variables = variable_count(name, len(args))
        if variables and len(args) > variables:
            self._macro(node, name, receiver, args, variables, depth_cost)
            return
        self._argument(node, name, args, depth_cost)

    def _bind(self, variable: str, init: Node, body: Node, boolean: bool, depth_cost: int) -> None:
        """`cel.bind(variable, init, body)`: the body's value is the call's; in it the variable stands for what
        `init` is (an attribute read, a domain map, an optional read's value, a literal or what a comprehension
        variable ranges over), and hides an outer variable of its name."""
        self.walk(init, boolean=False, depth_cost=depth_cost)
        value = literal_value(init)
        values = (value,) if value is not None else self._range_of(init)
        with self._scope({variable: self._binding(init)}, {variable: values}):
            self.walk(body, boolean=boolean, depth_cost=depth_cost)

    def _binding(self, init: Node) -> Binding | None:
        inner = unwrap(init)
        if not isinstance(inner, Tree):
            return None
        if inner.data == "ident_arg" and str(inner.children[0]) == "dyn" and len(inner.children) > 1:
            args = args_of(inner.children[1])  # dyn(x) is x
            return self._binding(args[0]) if len(args) == 1 else None
        if identifier(inner):
            return bound_to(inner, self._bound)  # (None: not a cel.bind variable)
        found = unwrap_shape(inner, self._bound)
        if found is not None:
            read, method, fallback = found
            return Binding(attribute=attribute_shape(read, self._bound), unwrap=method, fallback=fallback)
        attribute = attribute_shape(inner, self._bound)
        if attribute is not None:
            return Binding(attribute=attribute)
        domain = domain_shape(inner, self._bound)
        return Binding(domain=domain) if domain is not None else None

    @contextmanager
    def _scope(self, bound: Mapping[str, Binding | None],
               ranges: Mapping[str, tuple[int | str | bool, ...] | None]) -> Iterator[None]:
        """Variables in scope for a body (None: the name is no binding, or ranges over nothing known); the
        outer variables of the same names are hidden until it ends."""
        saved_bound, saved_ranges = _enter(self._bound, bound), _enter(self._ranges, ranges)
        try:
            yield
        finally:
            _leave(self._bound, bound, saved_bound)
            _leave(self._ranges, ranges, saved_ranges)

    def _macro(self, node: AST, name: str, receiver: Node, args: list[Node], variables: int,  # noqa: PLR0917
               depth_cost: int) -> None:
        """A comprehension: its variables range over the receiver, its bodies cost once per element."""
        size = 1 if name in ("optMap", "optFlatMap") else range_size(receiver, self._bound)
        if size is None:
            self.unbounded.append(self.span(node))
            size = 1
        inner = depth_cost * size
        self.cost = max(self.cost, inner)
        names = [identifier(arg) for arg in args[:variables]]
        items = list_literals(receiver)
        # Over a list literal one variable is the element; of two, the first is the index.
        ranges: list[tuple[int | str | bool, ...] | None] = (
            [items] if variables == 1 else [tuple(range(len(items))) if items is not None else None, items])
        bodies = args[variables:]
        # The macro's variables hide cel.bind variables of their names.
        with self._scope(dict.fromkeys(filter(None, names)),
                         {n: values for n, values in zip(names, ranges, strict=True) if n}):
            for index, body in enumerate(bodies):
                # The predicate of a quantifier or filter; the filter of a 3-arg map / 4-arg transform.
                condition = name in QUANTIFIERS or name == "filter" or (len(bodies) == 2 and index == 0)
                self.walk(body, boolean=condition and name not in ("sortBy", "optMap", "optFlatMap"),
                          depth_cost=inner)

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



def _enter(table: dict[str, _V], names: Mapping[str, _V | None]) -> dict[str, _V]:
    """Put `names` in scope in `table` (a None value hides the name); what they hid, for `_leave`."""
    saved = {n: table.pop(n) for n in names if n in table}
    table.update({n: v for n, v in names.items() if v is not None})
    return saved


def _leave(table: dict[str, _V], names: Mapping[str, object], saved: dict[str, _V]) -> None:
    for n in names:
        table.pop(n, None)
    table.update(saved)


def _operand_span(operand: _Operand) -> Span:
    return operand.unwrap.span if operand.unwrap is not None else operand.ref.span
