"""cel-python's interpreter, adjusted to the semantics and error texts Kubernetes DRA selectors have.

`DRAEvaluator` subclasses `celpy.evaluation.Evaluator` (the engine stays cel-python; only the seams differ):
- a cost budget: every operation node costs like an upstream cost unit (identifier, select, index, call,
  literal list/map, one unit per comprehension iteration); past the limit the evaluation stops with
  `operation cancelled: actual cost limit exceeded` (cel-go's wording), so runaway expressions end early;
- map lookups of a missing key are `no such key: <key>` for both `m.key` and `m["key"]` (cel-go's text), list
  indexes fail with cel-go's texts, and optional selection (`m.?key`, `m[?key]`, `l[?i]`) yields optional
  values (`celext.lib.optional`); selecting on an optional stays optional;
- the comprehension macros (`all`, `exists`, `exists_one`/`existsOne`, `map`, `filter`, the two-variable
  forms and `transformList`/`transformMap`/`transformMapEntry`, `sortBy`) run in `celext.reference.macros` as cel-go
  expands them; a non-iterable target is `got '<Go type>', expected iterable type`, and cel-python's
  non-standard `min`/`reduce` macros are not macros here (`min()` is the lists library's).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from celpy import celtypes
from celpy.evaluation import Activation, CELEvalError, Evaluator

from celext.env import MACRO_FORMS, OPTIONAL_MACROS
from celext.errors import EvaluationError
from celext.lib import no_such_overload
from celext.lib.format import as_string, go_value
from celext.lib.operators import INT_OVERFLOW, MISSING, OPERATORS, UINT_OVERFLOW, map_get
from celext.lib.optional_value import NONE, OptionalValue, of
from celext.lib.typenames import TYPE_DENOTATIONS, cel_type_name, go_type_name
from celext.netaddr import Addr, Prefix
from celext.neturl import URL
from celext.quantity import Quantity
from celext.reference import macros
from celext.reference.aggregates import build_list, build_map
from celext.semver import Semver
from celext.syntax import headroom, literals
from celext.syntax.nodes import Token, Tree
from celext.syntax.tree import unwrap

__all__ = ["COST_EXCEEDED", "COST_LIMIT", "Budget", "CostLimitExceeded", "DRAEvaluator", "cel_type_name",
           "evaluate", "go_type_name"]

COST_LIMIT = 1_000_000  # CELSelectorExpressionMaxCost
COST_EXCEEDED = "operation cancelled: actual cost limit exceeded"
ITERATION_COST = 3  # cel-go charges each comprehension step: loop condition, accumulator update, result
# Calls cost one unit; regex functions more (cel-go charges them by pattern and text size). With these weights
# the upstream `expensive` case runs out of budget after about as many steps as it does in Kubernetes.
_CALL_COST = {"find": 3, "findAll": 3, "matches": 3}

# Nodes that are only grammar levels cost nothing; the rest cost one unit each, as cel-go charges per
# identifier, select, index, call and aggregate literal.
FREE = frozenset({"const", "expr", "conditionalor", "conditionaland", "member", "primary", "literal", "exprlist",
                   "paren_expr", "mapinits", "fieldinits"})

_VALUE_TYPES = (celtypes.BoolType, celtypes.IntType, celtypes.UintType, celtypes.DoubleType, celtypes.StringType,
                celtypes.BytesType, celtypes.ListType, celtypes.TimestampType, celtypes.DurationType, Semver, Quantity,
                Addr, Prefix, URL)


# The trees walked are celext's (celext.syntax.nodes); cel-python's Evaluator, whose rule methods this class
# overrides or calls, annotates lark's. Its methods read only `data`, `children`, `meta` and tokens' `value`/`type`,
# which celext's nodes have, and test no node's class: they are typed Any here. (The one tree cel-python makes, an
# empty lark `exprlist` for `has()`/`dyn()` without arguments, is only read for its children.)
Node = Any

RELATIONS = {"relation_lt": OPERATORS["_<_"], "relation_le": OPERATORS["_<=_"], "relation_gt": OPERATORS["_>_"],
              "relation_ge": OPERATORS["_>=_"], "relation_eq": OPERATORS["_==_"], "relation_ne": OPERATORS["_!=_"],
              "relation_in": OPERATORS["_in_"]}


def _overflow_text(error: CELEvalError) -> str:
    """cel-go's text for an arithmetic overflow: cel-python says `overflow` for int64 and uint64 results alike,
    and its uint64 operators are the closures of its `uint64` decorator, so the frame that raised tells which."""
    trace = error.__cause__.__traceback__ if error.__cause__ is not None else None
    while trace is not None and trace.tb_next is not None:
        trace = trace.tb_next
    if trace is not None and trace.tb_frame.f_code.co_qualname.startswith("uint64."):
        return UINT_OVERFLOW
    return INT_OVERFLOW


def _arithmetic(result: Any, tree: Node) -> Any:
    """cel-go's wording for arithmetic errors; cel-python's list `+` returns a plain list, made a CEL list."""
    if isinstance(result, CELEvalError):
        text = str(result.args[0]) if result.args else ""
        if text == "return error for overflow":
            return CELEvalError(_overflow_text(result))
        if text == "modulus or divide by zero":
            operator = tree.children[0].data if tree.children else ""
            return CELEvalError("modulus by zero" if operator == "multiplication_mod" else "division by zero")
        if text.startswith("found no matching overload"):
            return CELEvalError("no such overload")
        return result
    plain = _PLAIN_RESULTS.get(type(result))
    return plain(result) if plain else result


_PLAIN_RESULTS: dict[type, Any] = {list: celtypes.ListType, str: celtypes.StringType, bytes: celtypes.BytesType,
                                   int: celtypes.IntType, float: celtypes.DoubleType}


def has_field(target: Any, name: str) -> Any:
    """`has(e.name)` for `e`'s value as cel-go tests it: an error is the result; an optional is false when empty,
    else the test on its value; a map, whether key `name` is present; a list, the error of indexing it by a
    name. None for any other value: cel-python's own test decides (DRAEvaluator.macro_has_eval)."""
    if isinstance(target, CELEvalError):
        return target
    if isinstance(target, OptionalValue):
        if not target.present:
            return celtypes.BoolType(False)
        target = target.value
    if isinstance(target, celtypes.MapType) and not isinstance(target, celtypes.MessageType):
        try:
            return celtypes.BoolType(map_get(target, celtypes.StringType(name)) is not MISSING)
        except TypeError:
            return CELEvalError("no such overload")
    if isinstance(target, celtypes.ListType):  # refQualify checks a list's index before the presence test
        return _list_index(celtypes.StringType(name))  # (an error: a name is no index)
    return None


def _list_index(index: Any) -> int | CELEvalError:
    """cel-go `IndexOrError`: an int, a uint, or a double without a fraction."""
    if isinstance(index, celtypes.DoubleType):
        number = float(index)
        if not math.isfinite(number) or number != int(number):
            return CELEvalError(f"unsupported index value {number} in list")
        return int(number)
    if isinstance(index, int) and not isinstance(index, celtypes.BoolType):
        return int(index)
    return CELEvalError(f"unsupported index type '{cel_type_name(index)}' in list")


def _qualify_error(member: Any, key: Any) -> CELEvalError:
    """cel-go refQualify on a value that is neither map nor message: a list wants an index
    (`unsupported index type 'string' in list`), anything else has no keys (`no such key: name`)."""
    if isinstance(member, celtypes.ListType):
        position = _list_index(key)
        if isinstance(position, CELEvalError):
            return position
        return CELEvalError(f"index out of bounds: {position}")
    return CELEvalError(f"no such key: {go_value(key)}")


class CostLimitExceeded(Exception):
    """Raised through the interpreter when the budget is spent; turned into an EvaluationError."""


class Budget:
    """Cost units left for one evaluation, shared with the nested evaluators of comprehensions."""

    __slots__ = ("left",)

    def __init__(self, limit: int) -> None:
        self.left = limit

    def charge(self, units: int = 1) -> None:
        self.left -= units
        if self.left < 0:
            raise CostLimitExceeded(COST_EXCEEDED)


class DRAEvaluator(Evaluator):
    """One evaluation of one expression (not shared between threads; cheap to create)."""

    def __init__(self, ast: Node, activation: Activation, budget: Budget,
                 functions: Mapping[str, Any] | None = None) -> None:
        super().__init__(ast, activation)
        self.budget = budget
        # One flat table: cel-python chains a new ChainMap per nested scope, so lookups grow with nesting.
        self.functions = functions if functions is not None else dict(activation.functions)

    def sub_evaluator(self, ast: Node) -> DRAEvaluator:
        return DRAEvaluator(ast, self.activation, self.budget, self.functions)

    def _visit_tree(self, tree: Node) -> Any:
        # Both visit() and visit_children() come here (lark's Interpreter's own are not used: the tree is
        # celext's, celext.syntax.nodes): one place to charge.
        if tree.data not in FREE:
            self.budget.left -= 1
            if self.budget.left < 0:
                raise CostLimitExceeded(COST_EXCEEDED)
        return getattr(self, tree.data)(tree)

    visit = _visit_tree

    def visit_children(self, tree: Node) -> list[Any]:
        return [self._visit_tree(c) if isinstance(c, Tree) else c for c in tree.children]

    # Fast paths for the hottest rules; cel-python's versions spend most of their time in typing.cast().

    def const(self, tree: Node) -> Any:
        """A literal converted once at compile time (see celext.reference.collapse)."""
        return tree.children[0]

    def literal(self, tree: Node) -> Any:
        """A literal collapse() left alone (one no CEL value has): its error, as cel-go's decoding reports it."""
        token = tree.children[0]
        return literals.value(token) if isinstance(token, Token) else super().literal(tree)

    def primary(self, tree: Node) -> Any:
        child = tree.children[0]
        kind = child.data
        if kind == "const":
            return child.children[0]
        if kind == "ident":
            self.budget.charge()
            name = str(child.children[0])
            denoted = TYPE_DENOTATIONS.get(name)
            try:
                value = self.activation.resolve_variable(name)
            except KeyError:
                return denoted if denoted is not None else CELEvalError(f"undeclared reference to '{name}'")
            # cel-python resolves a name it has no variable for to the function of that name (`int`)
            return denoted if denoted is not None and callable(value) and not isinstance(value, type) else value
        if kind == "paren_expr":
            return self._visit_tree(child.children[0])
        if kind == "ident_arg" and str(child.children[0]) not in ("has", "dyn"):
            return self._call(child)
        return super().primary(tree)

    def macro_has_eval(self, exprlist: Node) -> Any:
        """`has(e.f)` as cel-go runs it: an error in `e` is the result; on a map, whether key `f` is present; on an
        optional, false when empty, else the test on its value (`has(x.?a.b)`). Other operands keep
        cel-python's test (the select evaluates without error)."""
        select = unwrap(exprlist.children[0]) if exprlist.children else None
        if not (isinstance(select, Tree) and select.data == "member_dot"):
            return super().macro_has_eval(exprlist)
        operand = select.children[0]
        if not isinstance(operand, Tree):
            return super().macro_has_eval(exprlist)
        decided = has_field(self._visit_tree(operand), str(select.children[1]))
        return super().macro_has_eval(exprlist) if decided is None else decided

    def _call(self, call: Node) -> Any:
        name = str(call.children[0])
        self.budget.charge(_CALL_COST.get(name, 1))
        args = self.visit_children(call.children[1]) if len(call.children) > 1 else []
        return self._invoke(name, args)

    def _invoke(self, name: str, args: list[Any]) -> Any:
        """Call a function with evaluated arguments (receiver first): the first error argument wins, and
        raw exceptions from cel-python's own functions become CEL errors."""
        for arg in args:
            if isinstance(arg, CELEvalError):
                return arg
        try:
            function = self.functions[name]
        except KeyError:
            return CELEvalError(f"undeclared reference to '{name}'")
        try:
            return function(*args)
        except (TypeError, AttributeError):  # cel-python's own functions raise these on a wrong argument type
            return no_such_overload(name, tuple(args))
        except ValueError as err:
            return CELEvalError(f"{name}: {err}")

    def relation(self, tree: Node) -> Any:
        if len(tree.children) != 2:
            return super().relation(tree)
        op_tree, right_tree = tree.children
        left = self._visit_tree(op_tree.children[0])
        right = self._visit_tree(right_tree)
        return RELATIONS[op_tree.data](left, right)

    # Logic as cel-go runs it: short-circuit, an error is absorbed by a decisive operand, non-bools are
    # `no such overload` (cel-python's versions report Python classes and mishandle some error operands).

    def conditionaland(self, tree: Node) -> Any:
        return self._logic(tree, decisive=False) if len(tree.children) == 2 else super().conditionaland(tree)

    def conditionalor(self, tree: Node) -> Any:
        return self._logic(tree, decisive=True) if len(tree.children) == 2 else super().conditionalor(tree)

    def _logic(self, tree: Node, *, decisive: bool) -> Any:
        left = self._visit_tree(tree.children[0])
        if isinstance(left, celtypes.BoolType) and bool(left) is decisive:
            return left
        right = self._visit_tree(tree.children[1])
        if isinstance(right, celtypes.BoolType) and bool(right) is decisive:
            return right
        for operand in (left, right):
            if isinstance(operand, CELEvalError):
                return operand
            if not isinstance(operand, celtypes.BoolType):
                return CELEvalError("no such overload")
        return celtypes.BoolType(not decisive)

    def expr(self, tree: Node) -> Any:
        if len(tree.children) != 3:
            return super().expr(tree)
        condition = self._visit_tree(tree.children[0])
        if isinstance(condition, CELEvalError):
            return condition
        if not isinstance(condition, celtypes.BoolType):
            return CELEvalError("no such overload")
        return self._visit_tree(tree.children[1] if condition else tree.children[2])

    def addition(self, tree: Node) -> Any:
        return _arithmetic(super().addition(tree), tree)

    def multiplication(self, tree: Node) -> Any:
        return _arithmetic(super().multiplication(tree), tree)

    def unary(self, tree: Node) -> Any:
        return _arithmetic(super().unary(tree), tree)

    def member_dot_opt(self, tree: Node) -> Any:
        member_tree, name_token = tree.children
        return self._optional_select(self.visit(member_tree), celtypes.StringType(str(name_token)))

    def member_index_opt(self, tree: Node) -> Any:
        member, index = self.visit_children(tree)
        return index if isinstance(index, CELEvalError) else self._optional_select(member, index)

    def _optional_select(self, member: Any, key: Any, *, test: bool = True) -> Any:
        """`m.?k` / `m[?k]`: optional.of(the value) when present, else optional.none(). Selecting on an optional
        stays optional (cel-go qualifies the rest of an optional chain only if present). `test`: a `.?`/`[?`
        presence test, which finds nothing on a scalar; a plain `.k` later in the chain is an error there."""
        if isinstance(member, CELEvalError):
            return member
        if isinstance(member, OptionalValue):
            if not member.present:
                return member
            member = member.value
        if isinstance(member, celtypes.MapType) and not isinstance(member, celtypes.MessageType):
            try:
                found = map_get(member, key)  # a missing domain reads as an empty map, as upstream
            except TypeError:
                return CELEvalError(f"unsupported key type: {cel_type_name(key)}")
            return NONE if found is MISSING else of(found)
        if isinstance(member, celtypes.ListType):
            position = _list_index(key)
            if isinstance(position, CELEvalError):
                return position
            return of(member[position]) if 0 <= position < len(member) else NONE
        if isinstance(member, _VALUE_TYPES):  # cel-go refQualify: a presence test on a scalar finds nothing
            return NONE if test else _qualify_error(member, key)
        return CELEvalError("no such overload")

    def member_dot(self, tree: Node) -> Any:
        member_tree, name_token = tree.children
        name = str(name_token)
        member = self.visit(member_tree)
        if isinstance(member, OptionalValue):
            return self._optional_select(member, celtypes.StringType(name), test=False)
        if isinstance(member, celtypes.MapType) and not isinstance(member, celtypes.MessageType):
            try:
                return member[celtypes.StringType(name)]
            except KeyError:
                return CELEvalError(f"no such key: {name}")
        if isinstance(member, CELEvalError):
            return member
        if isinstance(member, celtypes.MessageType) or not isinstance(member, _VALUE_TYPES):
            return super().member_dot(tree)
        return _qualify_error(member, celtypes.StringType(name))

    def member_index(self, tree: Node) -> Any:
        member, index = self.visit_children(tree)
        if isinstance(member, CELEvalError):
            return member
        if isinstance(index, CELEvalError):
            return index
        if isinstance(member, OptionalValue):
            return self._optional_select(member, index, test=False)
        if isinstance(member, celtypes.MapType):
            try:
                found = map_get(member, index)
            except TypeError:
                return CELEvalError(f"unsupported key type: {cel_type_name(index)}")
            return CELEvalError(f"no such key: {as_string(index)}") if found is MISSING else found  # Go's %v
        if isinstance(member, celtypes.ListType):
            position = _list_index(index)
            if isinstance(position, CELEvalError):
                return position
            if not 0 <= position < len(member):
                return CELEvalError(f"index out of bounds: {position}")
            return member[position]
        if isinstance(member, _VALUE_TYPES):
            return _qualify_error(member, index)
        return CELEvalError("no such overload")

    def member_dot_arg(self, tree: Node) -> Any:
        name = str(tree.children[1])
        if name in MACRO_FORMS and len(tree.children) == 3:
            return self._comprehension(tree, name)
        self.budget.charge(_CALL_COST.get(name, 1) - 1)  # the node itself was charged one unit on entry
        target = self._visit_tree(tree.children[0])
        args = self.visit_children(tree.children[2]) if len(tree.children) == 3 else []
        return self._invoke(name, [target, *args])

    def exprlist(self, tree: Node) -> Any:
        return build_list([(c.data == "opt_expr", c.children[0] if c.data == "opt_expr" else c)
                           for c in tree.children], self._visit_tree)

    def mapinits(self, tree: Node) -> Any:
        """Map literals as cel-go's evalMap builds them (celext.reference.aggregates)."""
        children = tree.children
        return build_map([(k.data == "opt_expr", k.children[0] if k.data == "opt_expr" else k, v)
                          for k, v in zip(children[0::2], children[1::2], strict=True)], self._visit_tree)

    def _comprehension(self, tree: Node, name: str) -> Any:
        target = self.visit(tree.children[0])
        if isinstance(target, CELEvalError):
            return target
        optional_macro = name in OPTIONAL_MACROS
        if optional_macro and not isinstance(target, OptionalValue):
            return CELEvalError("no such overload")
        if not optional_macro and not isinstance(target, (celtypes.ListType, celtypes.MapType)):
            return CELEvalError(f"got '{go_type_name(target)}', expected iterable type")
        args = [c for c in tree.children[2].children if isinstance(c, Tree)]
        count = MACRO_FORMS[name][len(args)]  # compile checked the form
        names = [str(next(a.find_data("ident")).children[0]) for a in args[:count]]
        # One nested scope for the whole loop, its variables rebound per element: cel-python's own macros
        # clone the activation for every element, which dominates the cost of long loops.
        scope = self.activation.nested_activation(vars=dict.fromkeys(names))
        nested = DRAEvaluator(args[count], scope, self.budget, self.functions)
        return macros.run(name, target, macros.Slots([scope.identifiers[n] for n in names]), args[count:],
                          visit=nested.visit, step=self._iteration)

    def _iteration(self) -> None:
        self.budget.charge(ITERATION_COST)


def evaluate(tree: Node, activation: Activation, cost_limit: int = COST_LIMIT,
             functions: Mapping[str, Any] | None = None) -> Any:
    """The CEL value of a prepared tree, or EvaluationError; no other exception escapes.

    An expression nested as deep as cel-go's parser allows needs more Python frames than the default limit: such
    an evaluation is rerun with headroom (`celext.syntax.headroom`), on a fresh budget, so the result is the same.
    """
    def once() -> Any:
        return DRAEvaluator(tree, activation, Budget(cost_limit), functions).visit(tree)

    try:
        result = headroom.call(once)
    except CostLimitExceeded:
        raise EvaluationError(COST_EXCEEDED) from None
    except CELEvalError as err:
        raise EvaluationError(error_message(err)) from None
    except RecursionError:
        raise EvaluationError("the expression nests deeper than the evaluator supports") from None
    except Exception as err:  # cel-python lets some exceptions escape raw; never pass them on
        raise EvaluationError(f"evaluation failed: {type(err).__name__}: {err}".splitlines()[0]) from None
    if isinstance(result, CELEvalError):
        raise EvaluationError(error_message(result))
    return result


def error_message(err: CELEvalError) -> str:
    text = str(err.args[0]) if err.args else "evaluation error"
    # cel-python appends the whole activation to some messages; keep them one line and short.
    return text.split(" (in activation", 1)[0]
