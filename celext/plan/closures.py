"""The compact form of the compiled engine, for expressions too large for generated Python (celext.plan).

Python's `compile()` costs about a microsecond per token of generated source, and a large selector (a long
chain of distinct attribute tests, hundreds of comprehensions) turns into hundreds of KB of source: tens of
milliseconds before it can run. Above `celext.plan.COMPACT_NODES` tree nodes the planner builds this form
instead: one Python closure per node, built in one walk of the tree and never compiled. It reads the same
wire-form device, calls the same operations (celext.runtime.ops, celext.plan.steps) and charges the same cost
per comprehension step as the generated code, so results and error texts are the same; it gives up the
generated code's inlining, which only pays on the short selectors real drivers write.

`build(tree)` returns `run(frame)`; a `Frame` holds one evaluation's device, driver, body, budget and the
comprehension variables in scope (keyed per binding, so a nested comprehension may reuse a name). It builds every
construct a checked selector can hold, so the generated form hands it the ones it does not generate itself (the
macro forms other than the one-variable loops, map literals, `[?x]` elements, has() of a non-device value:
`build_part`); only an identifier that names no variable goes to the reference engine.

`cel.bind(x, init, body)` reaches the planner as `body` with the one `init` subtree at each use of `x`
(celext.syntax.rewrite), so nested bindings used twice each double the tree that would be walked. A subtree the
tree holds more than once is built once, and its value is kept for the evaluation (while the comprehension
variables it reads hold the same values): cel-go evaluates a binding once, on first use, and so does this form.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, cast

from celext import values as celvalues
from celext.env import MACRO_FORMS, OPTIONAL_MACROS
from celext.gostrconv import INT64
from celext.lib import optional_value as optional
from celext.plan import steps
from celext.plan.core import call_args, chain_operands
from celext.plan.device import DevicePath, device_path
from celext.plan.emit_device import device_table
from celext.plan.emit_loops import ONE_VARIABLE_LOOPS, comprehension_step_cost
from celext.reference import aggregates, macros
from celext.reference.operations import has_field
from celext.runtime import ops, wire
from celext.syntax.nodes import Tree
from celext.syntax.rewrite import Names, check_expansion, identifiers
from celext.syntax.tree import unwrap
from celext.values import CELEvalError

__all__ = ["Frame", "build"]

Run = Callable[["Frame"], Any]
_BOOL, _LIST, _INT, _STRING = celvalues.BoolType, celvalues.ListType, celvalues.IntType, celvalues.StringType
_new_str, _new_int = str.__new__, int.__new__
_INT_ARITHMETIC = {"addition_add": int.__add__, "addition_sub": int.__sub__, "multiplication_mul": int.__mul__}
_INT64_MIN, _INT64_MAX = INT64
_COMPARE = {"relation_eq": "__eq__", "relation_ne": "__ne__", "relation_lt": "__lt__", "relation_le": "__le__",
            "relation_gt": "__gt__", "relation_ge": "__ge__"}
_TRUE, _FALSE = ops.TRUE, ops.FALSE


class Frame:
    """One evaluation: what every closure reads."""

    __slots__ = ("body", "bound", "budget", "device", "driver", "reads", "variables")

    def __init__(self, device: Any, driver: str, body: Any, budget: ops.Budget,
                 variables: dict[int, Any] | None = None) -> None:
        self.device, self.driver, self.body, self.budget = device, driver, body, budget
        self.variables: dict[int, Any] = {} if variables is None else variables
        self.reads: dict[str, Any] = {}  # device paths decoded so far (a large selector repeats them)
        # shared subtree's key -> (the comprehension variables' values it was computed for, its value); made by
        # the first shared subtree evaluated (most expressions have none: no dict per evaluation for them)
        self.bound: dict[int, tuple[tuple[Any, ...], Any]] | None = None


Scope = dict[str, int]  # CEL variable name -> its key in Frame.variables


class _Builder:
    def __init__(self, shared: Mapping[int, frozenset[str]]) -> None:
        self._keys = itertools.count()
        self._shared = shared  # id of a subtree held more than once -> the identifiers in it
        self._built: dict[int, Run] = {}

    def build(self, node: Tree[Any], scope: Scope) -> Run:
        if id(node) in self._shared:
            run = self._built.get(id(node))
            if run is None:
                run = self._built[id(node)] = self._once(node, scope)
            return run
        return self._build(node, scope)

    def _once(self, node: Tree[Any], scope: Scope) -> Run:
        """A shared subtree (a bound initialiser): computed on first use, then its value reused while the
        comprehension variables it reads are the same objects. The rewrite keeps an initialiser's names bound as
        at its binding (it renames macro variables that would capture them), so it reads the same frame keys at
        every use."""
        inner = self._build(node, scope)
        reads = tuple(key for name, key in scope.items() if name in self._shared[id(node)])
        slot = next(self._keys)

        def run(f: Frame) -> Any:
            now = tuple(f.variables[key] for key in reads)
            bound = f.bound
            if bound is None:
                bound = f.bound = {}
            held = bound.get(slot)
            if held is not None and all(a is b for a, b in zip(held[0], now, strict=True)):
                return held[1]
            value = inner(f)
            bound[slot] = (now, value)
            return value
        return run

    def _build(self, node: Tree[Any], scope: Scope) -> Run:
        data = node.data
        if data == "primary" and node.children[0].data == "const":
            return _constant(node.children[0].children[0])
        if data in _PATHS:
            path = device_path(node, cast(dict[str, str], scope))  # (it asks only whether `device` is bound)
            if path is not None:
                return _device(path)
        method = _METHODS.get(data)
        built = method(self, node, scope) if method is not None else None
        return built if built is not None else self._fallback(node, scope)

    def _fallback(self, node: Tree[Any], scope: Scope) -> Run:
        """The reference engine evaluates this subtree, with the variables in scope. Every construct the checker
        accepts is built here but an identifier that names no variable (a type name: `int`, `google.protobuf.
        Int64Value`), so what reaches it is a leaf; a subtree holding bindings would be walked at each use of
        them, so one whose expansion is past the reference engine's limit is refused (a guard)."""
        if self._shared:
            check_expansion(node)
        names = list(scope.items())

        def run(f: Frame) -> Any:
            return ops.subtree(node, f.budget, f.device, f.driver, {n: f.variables[k] for n, k in names})
        return run

    # --- grammar levels -------------------------------------------------------------------------------

    def _primary(self, node: Tree[Any], scope: Scope) -> Run | None:
        child = node.children[0]
        kind = str(child.data)
        if kind == "const":
            return _constant(child.children[0])
        if kind == "paren_expr":
            return self.build(child.children[0], scope)
        if kind == "ident":
            name = str(child.children[0])
            if name in scope:
                key = scope[name]
                return lambda f: f.variables[key]
            if name == "device":
                return lambda f: wire.converted(f.device, f.driver)
            return None
        if kind == "list_lit":
            last = child.children[-1] if child.children else None
            elements = list(last.children) if isinstance(last, Tree) and last.data == "exprlist" else []
            if any(isinstance(e, Tree) and e.data == "opt_expr" for e in elements):  # `[?x]`: the general rules
                parts = [(e.data == "opt_expr", self.build(_entry(e), scope)) for e in elements]
                return lambda f: aggregates.build_list(parts, lambda part: part(f))
            items = [self.build(c, scope) for c in call_args(child)]
            return lambda f: ops.make_list([item(f) for item in items])
        if kind == "map_lit":
            inits = child.children[0].children if child.children else []
            entries = [(k.data == "opt_expr", self.build(_entry(k), scope), self.build(v, scope))
                       for k, v in zip(inits[0::2], inits[1::2], strict=True)]
            return lambda f: aggregates.build_map(entries, lambda part: part(f))
        if kind == "ident_arg":
            if str(child.children[0]) == "has":
                return self._has(child, scope)
            return self._global_call(child, scope)
        return None

    # --- logic ----------------------------------------------------------------------------------------

    def _conditionaland(self, node: Tree[Any], scope: Scope) -> Run | None:
        return self._logic(node, scope, decisive=False)

    def _conditionalor(self, node: Tree[Any], scope: Scope) -> Run | None:
        return self._logic(node, scope, decisive=True)

    def _logic(self, node: Tree[Any], scope: Scope, *, decisive: bool) -> Run | None:
        operands = chain_operands(node, self._shared)
        if operands is None:
            return None
        runs = [self.build(o, scope) for o in operands]
        stop, go = (_TRUE, _FALSE) if decisive else (_FALSE, _TRUE)
        step = steps.or_step if decisive else steps.and_step

        def run(f: Frame) -> Any:
            pending = go
            for operand in runs:
                value = operand(f)
                if value is go:
                    continue
                if value is stop:
                    return stop
                pending = step(pending, value)
                if pending is stop:
                    return stop
            return pending
        return run

    def _expr(self, node: Tree[Any], scope: Scope) -> Run | None:
        if len(node.children) != 3:
            return None
        condition, yes, no = (self.build(c, scope) for c in node.children)

        def run(f: Frame) -> Any:
            value = condition(f)
            if not isinstance(value, _BOOL):
                return steps.not_bool(value)
            return yes(f) if value else no(f)
        return run

    # --- operators ------------------------------------------------------------------------------------

    def _relation(self, node: Tree[Any], scope: Scope) -> Run | None:
        if len(node.children) != 2:
            return None
        op, right_tree = node.children
        operator = str(op.data)
        driver_test = _driver_relation(operator, op.children[0], right_tree, scope)
        if driver_test is not None:
            return driver_test
        domain_test = _domain_relation(operator, op.children[0], right_tree, scope)
        if domain_test is not None:
            return domain_test
        left, right = self.build(op.children[0], scope), self.build(right_tree, scope)
        general = ops.relation(operator)
        symbol = _COMPARE.get(operator)
        if symbol is None:
            return _binary(general, left, right)
        on_int, on_str = getattr(int, symbol), getattr(str, symbol)

        def compare(f: Frame) -> Any:
            """Two ints or two strings: the builtin comparison (what the general operator computes for them)."""
            a, b = left(f), right(f)
            kind = a.__class__
            if kind is b.__class__:
                if kind is _INT:
                    return _TRUE if on_int(a, b) else _FALSE
                if kind is _STRING:
                    return _TRUE if on_str(a, b) else _FALSE
            return general(a, b)
        return compare

    def _addition(self, node: Tree[Any], scope: Scope) -> Run | None:
        if len(node.children) != 2:
            return None
        op, right_tree = node.children
        operator = str(op.data)
        general = functools.partial(ops.arith, operator)
        left, right = self.build(op.children[0], scope), self.build(right_tree, scope)
        on_int = _INT_ARITHMETIC.get(operator)
        if on_int is None:
            return _binary(general, left, right)

        def compute(f: Frame) -> Any:
            """Two ints, the result in int64: the builtin operation (as the generated code inlines it); anything
            else, an overflow included, the general operator."""
            a, b = left(f), right(f)
            if a.__class__ is _INT and b.__class__ is _INT:
                value = on_int(a, b)
                if _INT64_MIN <= value <= _INT64_MAX:
                    return _new_int(_INT, value)
            return general(a, b)
        return compute

    _multiplication = _addition

    def _unary(self, node: Tree[Any], scope: Scope) -> Run | None:
        if len(node.children) != 2:
            return None
        op, operand = node.children
        count = 1
        # A run of one operator (`!!!!x`, cel-go lets it be any length) is built as at most two applications:
        # `!` and `-` undo themselves on every value they accept, and a value they refuse is refused by the
        # first; the closures stay as shallow as the tree's other nesting (a 1,000-long run would not).
        while (isinstance(operand, Tree) and operand.data == "unary" and len(operand.children) == 2
               and operand.children[0].data == op.data):
            operand, count = operand.children[1], count + 1
        compute, value = functools.partial(ops.unary, str(op.data)), self.build(operand, scope)
        if op.data == "unary_not":  # on a bool, the overload table's logical_not template; else the general
            if count % 2 == 0:
                return lambda f: _not_not(value(f), compute)
            return lambda f: _not(value(f), compute)
        if count % 2:
            return lambda f: compute(value(f))
        return lambda f: compute(compute(value(f)))

    # --- selection ------------------------------------------------------------------------------------

    def _member_dot(self, node: Tree[Any], scope: Scope, optional_: bool = False) -> Run | None:
        member, name = self.build(node.children[0], scope), str(node.children[1])
        return lambda f: ops.select(member(f), name, optional_)

    def _member_dot_opt(self, node: Tree[Any], scope: Scope) -> Run | None:
        return self._member_dot(node, scope, True)

    def _member_index(self, node: Tree[Any], scope: Scope, optional_: bool = False) -> Run | None:
        member, key = self.build(node.children[0], scope), self.build(node.children[1], scope)
        return lambda f: ops.index(member(f), key(f), optional_)

    def _member_index_opt(self, node: Tree[Any], scope: Scope) -> Run | None:
        return self._member_index(node, scope, True)

    # --- calls and macros -----------------------------------------------------------------------------

    def _has(self, call: Tree[Any], scope: Scope) -> Run | None:
        """`has(e.f)` of anything but a device path (built before it gets here), as the reference engine tests
        it: celext.reference.evaluator.has_field, and for a value that leaves undecided, cel-python's test (true
        unless selecting `f` from it is an error), with the reference engine's select."""
        args = call_args(call)
        select = unwrap(args[0]) if len(args) == 1 else None
        if not isinstance(select, Tree) or select.data != "member_dot" or not isinstance(select.children[0], Tree):
            return None
        operand, name = self.build(select.children[0], scope), str(select.children[1])

        def run(f: Frame) -> Any:
            target = operand(f)
            decided = has_field(target, name)
            if decided is None:
                return _FALSE if isinstance(ops.select(target, name), CELEvalError) else _TRUE
            return decided
        return run

    def _global_call(self, node: Tree[Any], scope: Scope) -> Run | None:
        name = str(node.children[0])
        args = [self.build(a, scope) for a in call_args(node)]
        if name == "dyn":
            return args[0] if args else None
        return lambda f: ops.invoke(name, [a(f) for a in args])

    def _member_dot_arg(self, node: Tree[Any], scope: Scope) -> Run | None:
        name = str(node.children[1])
        args = call_args(node)
        if name in MACRO_FORMS and len(node.children) == 3:
            count = MACRO_FORMS[name].get(len(args))
            names = [_variable_name(a) for a in args[:count or 0]]
            if count is None or None in names:  # (the parser refuses these forms)
                return None
            if name in ONE_VARIABLE_LOOPS and count == len(args) - 1 == 1:  # (every other form: _macro)
                return self._comprehension(name, node, args, scope)
            return self._macro(name, node, cast(list[str], names), args[count:], scope)
        target = self.build(node.children[0], scope)
        values = [self.build(a, scope) for a in args]
        if name in ("includes", "include") and len(values) == 1:
            item = values[0]
            return lambda f: ops.includes(target(f), item(f))
        return lambda f: ops.invoke(name, [target(f), *(v(f) for v in values)])

    def _comprehension(self, name: str, node: Tree[Any], args: list[Tree[Any]], scope: Scope) -> Run:
        variable_tree, body_tree = args
        key = next(self._keys)
        target = self.build(node.children[0], scope)
        body = self.build(body_tree, {**scope, str(variable_tree.children[0].children[0]): key})
        cost = comprehension_step_cost(body_tree)
        if name in ("all", "exists"):
            stop, go = (_TRUE, _FALSE) if name == "exists" else (_FALSE, _TRUE)
            step = steps.or_step if name == "exists" else steps.and_step

            def quantifier(f: Frame) -> Any:
                items = target(f)
                failed = steps.iterable(items)
                if failed is not None:
                    return failed
                pending = go
                for _, value in _steps(f, items, cost, key, body):
                    if value is not go and (value is stop or (pending := step(pending, value)) is stop):
                        return stop
                return pending
            return quantifier
        one = name in ("exists_one", "existsOne")

        def collect(f: Frame) -> Any:
            items = target(f)
            failed = steps.iterable(items)
            if failed is not None:
                return failed
            kept, count = [], 0
            for item, value in _steps(f, items, cost, key, body):
                if name == "map":
                    if isinstance(value, CELEvalError):
                        return value
                    kept.append(value)
                    continue
                if not isinstance(value, _BOOL):
                    return steps.not_bool(value)
                if value:
                    count += 1
                    kept.append(item)
            return (_TRUE if count == 1 else _FALSE) if one else _LIST(kept)
        return collect

    def _macro(self, name: str, node: Tree[Any], names: list[str], bodies: list[Tree[Any]], scope: Scope) -> Run:
        """Any other macro form (two variables, a condition, the transforms, sortBy, optMap): the bodies built
        here, run by the reference engine's loop (celext.reference.macros.run), each step charged as above."""
        keys = [next(self._keys) for _ in names]
        target = self.build(node.children[0], scope)
        inner = {**scope, **dict(zip(names, keys, strict=True))}
        built = [self.build(b, inner) for b in bodies]
        cost = comprehension_step_cost(*bodies)
        optional_target = name in OPTIONAL_MACROS

        def run(f: Frame) -> Any:
            items = target(f)
            if optional_target:
                if not isinstance(items, optional.OptionalValue):
                    return items if isinstance(items, CELEvalError) else ops.no_overload()
            elif (failed := steps.iterable(items)) is not None:
                return failed
            budget, variables = f.budget, f.variables

            def step() -> None:
                budget.left -= cost
                if budget.left < 0:
                    ops.cost_exceeded()

            return macros.run(name, items, _Variables(variables, keys), built, visit=lambda body: body(f), step=step)
        return run


class _Variables:
    """A macro's iteration variables in the frame (celext.reference.macros.Binder)."""

    __slots__ = ("keys", "variables")

    def __init__(self, variables: dict[int, Any], keys: list[int]) -> None:
        self.variables, self.keys = variables, keys

    def rows(self, target: Any) -> list[tuple[Any, ...]]:
        return macros.rows(target, len(self.keys))

    def bind(self, row: tuple[Any, ...]) -> None:
        for key, value in zip(self.keys, row, strict=True):
            self.variables[key] = value


def _entry(node: Tree[Any]) -> Tree[Any]:
    """A literal's element or key without its `?` (an `opt_expr` node)."""
    return cast(Tree[Any], node.children[0]) if node.data == "opt_expr" else node


def _variable_name(arg: Tree[Any]) -> str | None:
    """The name a macro's variable argument declares, None when it is not a plain identifier."""
    if arg.data == "primary" and arg.children[0].data == "ident":
        return str(arg.children[0].children[0])
    return None


_PATHS = frozenset({"member_dot", "member_index", "member_dot_opt", "primary"})  # where device paths start
_METHODS: dict[str, Callable[[_Builder, Tree[Any], Scope], Run | None]] = {
    name[1:]: method for name, method in vars(_Builder).items() if name.startswith("_") and not name.startswith("__")
    and callable(method) and name not in ("_fallback", "_logic", "_comprehension", "_macro", "_has", "_global_call")}


def _driver_relation(operator: str, left: Tree[Any], right: Tree[Any], scope: Scope) -> Run | None:
    """`device.driver == "x"` / `!=`: the driver string compared as it comes (as the generated code does)."""
    path = device_path(left, cast(dict[str, str], scope))
    if path is None or path.head != "driver" or operator not in ("relation_eq", "relation_ne") \
            or right.data != "primary" or right.children[0].data != "const" \
            or type(right.children[0].children[0]) is not _STRING:
        return None
    constant, equal = str(right.children[0].children[0]), operator == "relation_eq"
    return lambda f: _TRUE if ((f.driver or "") == constant) is equal else _FALSE


def _domain_relation(operator: str, left: Tree[Any], right: Tree[Any], scope: Scope) -> Run | None:
    """`"domain" in device.attributes` (or capacity): a scan of the entries' names (as the generated code does),
    not the whole device converted."""
    table = device_table(right, cast(dict[str, str], scope)) if operator == "relation_in" else None
    if table is None or left.data != "primary" or left.children[0].data != "const" \
            or type(left.children[0].children[0]) is not _STRING:
        return None
    domain = str(left.children[0].children[0])

    def run(f: Frame) -> Any:
        entries = f.body.get(table)
        if type(entries) is not dict:
            entries = wire.entries(f.body, table)
        return _TRUE if wire.has_domain(entries, f.driver, domain) else _FALSE
    return run


def _not(value: Any, compute: Callable[[Any], Any]) -> Any:
    if value.__class__ is _BOOL:
        return _FALSE if value else _TRUE
    return compute(value)


def _not_not(value: Any, compute: Callable[[Any], Any]) -> Any:
    return value if value.__class__ is _BOOL else compute(compute(value))


def _constant(value: Any) -> Run:
    return lambda f: value


def _binary(compute: Callable[[Any, Any], Any], left: Run, right: Run) -> Run:
    return lambda f: compute(left(f), right(f))


def _device(path: DevicePath) -> Run:
    """A constant device path read from the wire form, as celext.plan.emit_device generates it."""
    if path.head == "driver":
        return lambda f: _new_str(_STRING, f.driver or "")  # (StringType's own constructor is slower)
    if path.head == "allowMultipleAllocations":
        return lambda f: _TRUE if f.body.get("allowMultipleAllocations") is True else _FALSE
    field, domain, ident, kind = path.head, path.domain, path.ident, path.kind
    decode = wire.attribute if field == "attributes" else wire.capacity

    def raw(f: Frame) -> Any:
        entries = f.body.get(field)
        if type(entries) is not dict:
            entries = wire.entries(f.body, field)
        return wire.lookup(entries, f.driver, domain, ident)

    if kind == "has":
        return lambda f: _FALSE if raw(f) is wire.ABSENT else _TRUE
    if kind == "optional":
        def optional_read(f: Frame) -> Any:
            found = raw(f)
            return optional.NONE if found is wire.ABSENT else optional.of(decode(found))
        return optional_read

    key = f"{field}\0{domain}\0{ident}"  # (a string caches its hash)

    def read(f: Frame) -> Any:
        value = f.reads.get(key, wire.ABSENT)
        if value is wire.ABSENT:
            found = raw(f)
            value = f.reads[key] = ops.no_key(ident) if found is wire.ABSENT else decode(found)
        return value
    return read


def _steps(f: Frame, items: Any, cost: int, key: Any, body: Run) -> Iterator[tuple[Any, Any]]:
    """Each item of a comprehension with the body's value for it, the step's cost charged first (as cel-go does)."""
    budget, variables = f.budget, f.variables
    for item in items:
        budget.left -= cost
        if budget.left < 0:
            ops.cost_exceeded()
        variables[key] = item
        yield item, body(f)


def build(tree: Tree[Any]) -> Run:
    return _Builder(shared_subtrees(tree)).build(tree, {})


def build_part(tree: Tree[Any], names: Sequence[str]) -> tuple[Run, list[int]]:
    """A subtree of a generated selector in the compact form (a macro the generator leaves to it), reading the
    comprehension variables `names` of the code around it: the run and each name's key in `Frame.variables`
    (negative: the builder numbers its own from 0). The generated code runs it on a frame of its own that
    shares the selector's budget."""
    keys = [-1 - i for i in range(len(names))]
    return _Builder(shared_subtrees(tree)).build(tree, dict(zip(names, keys, strict=True))), keys


def build_unshared(tree: Tree[Any]) -> Run:
    """`build` for a tree known to hold no subtree twice (no `cel.bind` in its text): no search for them."""
    return _Builder({}).build(tree, {})


def shared_subtrees(tree: Tree[Any]) -> dict[int, frozenset[str]]:
    """The subtrees `tree` holds more than once (by identity), each with the identifiers in it: one visit per
    distinct node, however often the tree repeats it, and the identifiers read only for those subtrees."""
    seen: set[int] = set()
    shared: dict[int, Tree[Any]] = {}
    pending = [tree]
    while pending:
        node = pending.pop()
        if id(node) in seen:
            shared[id(node)] = node
            continue
        seen.add(id(node))
        pending.extend(c for c in node.children if isinstance(c, Tree))
    known: Names = {}
    return {key: identifiers(node, known) for key, node in shared.items()}
