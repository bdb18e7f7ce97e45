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

from collections.abc import Mapping
from typing import Any

import celpy.evaluation as celpy_evaluation
from celpy.evaluation import Activation, Evaluator

from celext import values as celvalues
from celext.env import FUNCTIONS, MACRO_FORMS, OPTIONAL_MACROS
from celext.errors import EvaluationError
from celext.lib.optional_value import OptionalValue
from celext.lib.typenames import TYPE_DENOTATIONS, cel_type_name, go_type_name
from celext.reference import macros
from celext.reference.aggregates import build_list, build_map
from celext.reference.operations import (
    CALL_COST,
    COST_EXCEEDED,
    COST_LIMIT,
    FREE,
    ITERATION_COST,
    RELATIONS,
    UNDECIDED,
    Budget,
    CostLimitExceeded,
    arithmetic,
    error_message,
    has_field,
    index,
    invoke,
    select,
    unary,
)
from celext.syntax import headroom, literals
from celext.syntax.nodes import Token, Tree
from celext.syntax.tree import unwrap
from celext.values import CELEvalError

# The trees walked are celext's (celext.syntax.nodes); cel-python's Evaluator, whose rule methods this class
# overrides or calls, annotates lark's. Its methods read only `data`, `children`, `meta` and tokens' `value`/`type`,
# which celext's nodes have, and test no node's class: they are typed Any here.
Node = Any

__all__ = ["COST_EXCEEDED", "COST_LIMIT", "Budget", "CostLimitExceeded", "DRAEvaluator", "base_activation",
           "cel_type_name", "error_message", "evaluate", "go_type_name"]


def _ours(result: Any) -> Any:
    """A result of cel-python's own rule with its error value made celext's (the text kept)."""
    if isinstance(result, celpy_evaluation.CELEvalError):
        error = CELEvalError(*result.args)
        error.__cause__ = result
        return error
    return result


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
        if kind in ("list_lit", "map_lit") and not child.children:  # (cel-python would build its own empty value)
            return celvalues.ListType() if kind == "list_lit" else celvalues.MapType()
        return _ours(super().primary(tree))

    def macro_has_eval(self, exprlist: Node) -> Any:
        """`has(e.f)` as cel-go runs it: an error in `e` is the result; on a map, whether key `f` is present; on an
        optional, false when empty, else the test on its value (`has(x.?a.b)`). Other operands keep
        cel-python's test (the select evaluates without error)."""
        selection = unwrap(exprlist.children[0]) if exprlist.children else None
        if not (isinstance(selection, Tree) and selection.data == "member_dot"):
            return self._selects(exprlist)
        operand = selection.children[0]
        if not isinstance(operand, Tree):
            return self._selects(exprlist)
        decided = has_field(self._visit_tree(operand), str(selection.children[1]))
        return self._selects(exprlist) if decided is None else decided

    def _selects(self, exprlist: Node) -> Any:
        """cel-python's `has()` test: whether the selection evaluates without error."""
        return celvalues.BoolType(not isinstance(self.visit_children(exprlist)[0], CELEvalError))

    def _call(self, call: Node) -> Any:
        name = str(call.children[0])
        self.budget.charge(CALL_COST.get(name, 1))
        args = self.visit_children(call.children[1]) if len(call.children) > 1 else []
        return self._invoke(name, args)

    def _invoke(self, name: str, args: list[Any]) -> Any:
        """Call a function with evaluated arguments (receiver first): celext.reference.operations.invoke."""
        return invoke(self.functions, name, args)

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
        if isinstance(left, celvalues.BoolType) and bool(left) is decisive:
            return left
        right = self._visit_tree(tree.children[1])
        if isinstance(right, celvalues.BoolType) and bool(right) is decisive:
            return right
        for operand in (left, right):
            if isinstance(operand, CELEvalError):
                return operand
            if not isinstance(operand, celvalues.BoolType):
                return CELEvalError("no such overload")
        return celvalues.BoolType(not decisive)

    def expr(self, tree: Node) -> Any:
        if len(tree.children) != 3:
            return super().expr(tree)
        condition = self._visit_tree(tree.children[0])
        if isinstance(condition, CELEvalError):
            return condition
        if not isinstance(condition, celvalues.BoolType):
            return CELEvalError("no such overload")
        return self._visit_tree(tree.children[1] if condition else tree.children[2])

    def addition(self, tree: Node) -> Any:
        if len(tree.children) != 2:
            return _ours(super().addition(tree))
        (left, *_), right = self.visit_children(tree)
        return arithmetic(self.functions, str(tree.children[0].data), left, right)

    multiplication = addition

    def unary(self, tree: Node) -> Any:
        if len(tree.children) != 2:
            return _ours(super().unary(tree))
        _, operand = self.visit_children(tree)
        return unary(self.functions, str(tree.children[0].data), operand)

    def member_dot_opt(self, tree: Node) -> Any:
        member_tree, name_token = tree.children
        return select(self.visit(member_tree), str(name_token), optional=True)

    def member_index_opt(self, tree: Node) -> Any:
        member, key = self.visit_children(tree)
        return index(member, key, optional=True)

    def member_dot(self, tree: Node) -> Any:
        member_tree, name_token = tree.children
        result = select(self.visit(member_tree), str(name_token))
        return _ours(super().member_dot(tree)) if result is UNDECIDED else result

    def member_index(self, tree: Node) -> Any:
        member, key = self.visit_children(tree)
        return index(member, key)

    def member_dot_arg(self, tree: Node) -> Any:
        name = str(tree.children[1])
        if name in MACRO_FORMS and len(tree.children) == 3:
            return self._comprehension(tree, name)
        self.budget.charge(CALL_COST.get(name, 1) - 1)  # the node itself was charged one unit on entry
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
        if not optional_macro and not isinstance(target, (celvalues.ListType, celvalues.MapType)):
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


_BASE: list[Activation] = []


def base_activation() -> Activation:
    """The base scope every evaluation nests its variables in: the function table (celext.env), built on first
    use, then shared read-only."""
    if not _BASE:
        _BASE.append(Activation(functions=dict(FUNCTIONS)))
    return _BASE[0]


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
    except (CELEvalError, celpy_evaluation.CELEvalError) as err:
        raise EvaluationError(error_message(err)) from None
    except RecursionError:
        raise EvaluationError("the expression nests deeper than the evaluator supports") from None
    except Exception as err:  # cel-python lets some exceptions escape raw; never pass them on
        raise EvaluationError(f"evaluation failed: {type(err).__name__}: {err}".splitlines()[0]) from None
    result = _ours(result)
    if isinstance(result, CELEvalError):
        raise EvaluationError(error_message(result))
    return result
