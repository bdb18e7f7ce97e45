"""The reference engine's rules for one CEL node whose operands are evaluated: arithmetic, selection, indexing,
`has()`, calls, with cel-go's error texts; and the cost budget both engines charge.

Plain functions over celext's values, importing nothing of cel-python: `celext.reference.evaluator` (cel-python's
tree walk) applies them at each node, and the compiled engine's runtime (`celext.runtime.ops`) calls the same
functions with the values its generated code computed, so both engines agree by construction.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from celext import values as celvalues
from celext.lib import no_such_overload
from celext.lib.format import as_string, go_value
from celext.lib.operators import INT_OVERFLOW, MISSING, OPERATORS, UINT_OVERFLOW, map_get
from celext.lib.optional_value import NONE, OptionalValue, of
from celext.lib.typenames import cel_type_name
from celext.netaddr import Addr, Prefix
from celext.neturl import URL
from celext.quantity import Quantity
from celext.semver import Semver
from celext.values import CELEvalError, UintOverflow

__all__ = ["CALL_COST", "COST_EXCEEDED", "COST_LIMIT", "FREE", "ITERATION_COST", "RELATIONS", "UNDECIDED", "Budget",
           "CostLimitExceeded", "arithmetic", "error_message", "has_field", "index", "invoke", "select", "unary"]

COST_LIMIT = 1_000_000  # CELSelectorExpressionMaxCost
COST_EXCEEDED = "operation cancelled: actual cost limit exceeded"
ITERATION_COST = 3  # cel-go charges each comprehension step: loop condition, accumulator update, result
# Calls cost one unit; regex functions more (cel-go charges them by pattern and text size). With these weights
# the upstream `expensive` case runs out of budget after about as many steps as it does in Kubernetes.
CALL_COST = {"find": 3, "findAll": 3, "matches": 3}

# Nodes that are only grammar levels cost nothing; the rest cost one unit each, as cel-go charges per
# identifier, select, index, call and aggregate literal.
FREE = frozenset({"const", "expr", "conditionalor", "conditionaland", "member", "primary", "literal", "exprlist",
                   "paren_expr", "mapinits", "fieldinits"})

VALUE_TYPES = (celvalues.BoolType, celvalues.IntType, celvalues.UintType, celvalues.DoubleType,
               celvalues.StringType, celvalues.BytesType, celvalues.ListType, celvalues.TimestampType,
               celvalues.DurationType, Semver, Quantity, Addr, Prefix, URL)


RELATIONS = {"relation_lt": OPERATORS["_<_"], "relation_le": OPERATORS["_<=_"], "relation_gt": OPERATORS["_>_"],
              "relation_ge": OPERATORS["_>=_"], "relation_eq": OPERATORS["_==_"], "relation_ne": OPERATORS["_!=_"],
              "relation_in": OPERATORS["_in_"]}


def has_field(target: Any, name: str) -> Any:
    """`has(e.name)` for `e`'s value as cel-go tests it: an error is the result; an optional is false when empty,
    else the test on its value; a map, whether key `name` is present; a list, the error of indexing it by a
    name. None for any other value: cel-python's own test decides (DRAEvaluator.macro_has_eval)."""
    if isinstance(target, CELEvalError):
        return target
    if isinstance(target, OptionalValue):
        if not target.present:
            return celvalues.BoolType(False)
        target = target.value
    if isinstance(target, celvalues.MapType):
        try:
            return celvalues.BoolType(map_get(target, celvalues.StringType(name)) is not MISSING)
        except TypeError:
            return CELEvalError("no such overload")
    if isinstance(target, celvalues.ListType):  # refQualify checks a list's index before the presence test
        return list_index(celvalues.StringType(name))  # (an error: a name is no index)
    return None


def list_index(index: Any) -> int | CELEvalError:
    """cel-go `IndexOrError`: an int, a uint, or a double without a fraction."""
    if isinstance(index, celvalues.DoubleType):
        number = float(index)
        if not math.isfinite(number) or number != int(number):
            return CELEvalError(f"unsupported index value {number} in list")
        return int(number)
    if isinstance(index, int) and not isinstance(index, celvalues.BoolType):
        return int(index)
    return CELEvalError(f"unsupported index type '{cel_type_name(index)}' in list")


def qualify_error(member: Any, key: Any) -> CELEvalError:
    """cel-go refQualify on a value that is neither map nor message: a list wants an index
    (`unsupported index type 'string' in list`), anything else has no keys (`no such key: name`)."""
    if isinstance(member, celvalues.ListType):
        position = list_index(key)
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


ARITHMETIC = {"addition_add": "_+_", "addition_sub": "_-_", "multiplication_mul": "_*_",
              "multiplication_div": "_/_", "multiplication_mod": "_%_"}
_UNARY = {"unary_not": "!_", "unary_neg": "-_"}
# cel-python's list `+` and its double arithmetic return plain builtins: made CEL values
_PLAIN_RESULTS: dict[type, Any] = {list: celvalues.ListType, str: celvalues.StringType, bytes: celvalues.BytesType,
                                   int: celvalues.IntType, float: celvalues.DoubleType}


def _computed(function: Any, operator: str, *operands: Any) -> Any:
    """One operator's function applied, with cel-go's texts for what the values raise: a type they have no
    overload for, a division or modulus by zero, an int64 or uint64 result out of range. An error operand is the
    result, the left one first (cel-go's evalBinary returns an erroneous operand before calling anything)."""
    for operand in operands:
        if isinstance(operand, CELEvalError):
            return operand
    try:
        result = function(*operands)
    except TypeError:
        return CELEvalError("no such overload")
    except ZeroDivisionError:
        return CELEvalError("modulus by zero" if operator == "multiplication_mod" else "division by zero")
    except (ValueError, OverflowError) as err:
        return CELEvalError(UINT_OVERFLOW if isinstance(err, UintOverflow) else INT_OVERFLOW)
    plain = _PLAIN_RESULTS.get(type(result))
    return plain(result) if plain else result


def arithmetic(functions: Mapping[str, Any], operator: str, left: Any, right: Any) -> Any:
    """`left <op> right` for a parse tree's operator name (`addition_add`, `multiplication_mod`, ...)."""
    return _computed(functions[ARITHMETIC[operator]], operator, left, right)


def unary(functions: Mapping[str, Any], operator: str, value: Any) -> Any:
    """`-value` (`unary_neg`) or `!value` (`unary_not`)."""
    return _computed(functions[_UNARY[operator]], operator, value)


def invoke(functions: Mapping[str, Any], name: str, args: list[Any]) -> Any:
    """Call a function with evaluated arguments (receiver first): the first error argument wins, and what a
    function raises on a wrong argument type becomes `no such overload: ...`."""
    for arg in args:
        if isinstance(arg, CELEvalError):
            return arg
    try:
        function = functions[name]
    except KeyError:
        return CELEvalError(f"undeclared reference to '{name}'")
    try:
        return function(*args)
    except (TypeError, AttributeError):  # the standard functions raise these on a wrong argument type
        return no_such_overload(name, tuple(args))
    except ValueError as err:
        return CELEvalError(f"{name}: {err}")


UNDECIDED: Any = object()  # select(): a member that is no CEL value (the tree walk's own rule decides)


def optional_select(member: Any, key: Any, *, test: bool = True) -> Any:
    """`m.?k` / `m[?k]`: optional.of(the value) when present, else optional.none(). Selecting on an optional
    stays optional (cel-go qualifies the rest of an optional chain only if present). `test`: a `.?`/`[?`
    presence test, which finds nothing on a scalar; a plain `.k` later in the chain is an error there."""
    if isinstance(member, CELEvalError):
        return member
    if isinstance(member, OptionalValue):
        if not member.present:
            return member
        member = member.value
    if isinstance(member, celvalues.MapType):
        try:
            found = map_get(member, key)  # a missing domain reads as an empty map, as upstream
        except TypeError:
            return CELEvalError(f"unsupported key type: {cel_type_name(key)}")
        return NONE if found is MISSING else of(found)
    if isinstance(member, celvalues.ListType):
        position = list_index(key)
        if isinstance(position, CELEvalError):
            return position
        return of(member[position]) if 0 <= position < len(member) else NONE
    if isinstance(member, VALUE_TYPES):  # cel-go refQualify: a presence test on a scalar finds nothing
        return NONE if test else qualify_error(member, key)
    return CELEvalError("no such overload")


def select(member: Any, name: str, optional: bool = False) -> Any:
    """`member.name` (`member.?name` when `optional`); UNDECIDED for a member that is no CEL value."""
    if optional:
        return optional_select(member, celvalues.StringType(name))
    if isinstance(member, OptionalValue):
        return optional_select(member, celvalues.StringType(name), test=False)
    if isinstance(member, celvalues.MapType):
        try:
            return member[celvalues.StringType(name)]
        except KeyError:
            return CELEvalError(f"no such key: {name}")
    if isinstance(member, CELEvalError):
        return member
    if not isinstance(member, VALUE_TYPES):
        return UNDECIDED
    return qualify_error(member, celvalues.StringType(name))


def index(member: Any, key: Any, optional: bool = False) -> Any:
    """`member[key]` (`member[?key]` when `optional`). A key cel-go cannot make a qualifier of (newQualifier takes
    strings, ints, uints, bools and doubles) is `invalid qualifier type: <its Go type>`, whatever the member."""
    if optional:
        if isinstance(key, CELEvalError):
            return key
        return _bad_qualifier(key) or optional_select(member, key)
    if isinstance(member, CELEvalError):
        return member
    if isinstance(key, CELEvalError):
        return key
    bad = _bad_qualifier(key)
    if bad is not None:
        return bad
    if isinstance(member, OptionalValue):
        return optional_select(member, key, test=False)
    if isinstance(member, celvalues.MapType):
        try:
            found = map_get(member, key)
        except TypeError:
            return CELEvalError(f"unsupported key type: {cel_type_name(key)}")
        if found is not MISSING:
            return found
        # Go's %v of the key: a string (the usual key) as itself, any other value as Go prints its type
        return CELEvalError(f"no such key: {as_string(key) if isinstance(key, str) else go_value(key)}")
    if isinstance(member, celvalues.ListType):
        position = list_index(key)
        if isinstance(position, CELEvalError):
            return position
        if not 0 <= position < len(member):
            return CELEvalError(f"index out of bounds: {position}")
        return member[position]
    if isinstance(member, VALUE_TYPES):
        return qualify_error(member, key)
    return CELEvalError("no such overload")


def _bad_qualifier(key: Any) -> CELEvalError | None:
    """cel-go newQualifier's refusal of a key that is no string, int, uint, bool or double, named by its Go type."""
    if isinstance(key, (str, int, float)):  # (CEL's bools are ints)
        return None
    from celext.lib.operators import ConcatList
    from celext.lib.typenames import go_type_name
    from celext.reference.values import DomainMap

    if isinstance(key, celvalues.ListType):
        name = "*types.concatList" if isinstance(key, ConcatList) else "*types.baseList"
    elif isinstance(key, celvalues.MapType):
        name = "cel.mapper" if isinstance(key, DomainMap) else "*types.baseMap"  # (the DRA compiler's mapper)
    elif isinstance(key, OptionalValue):
        name = "*types.Optional"
    elif isinstance(key, type):
        name = "*types.Type"
    else:
        name = go_type_name(key)
    return CELEvalError(f"invalid qualifier type: {name}")


def error_message(err: Exception) -> str:
    """The one-line text of an error value."""
    text = str(err.args[0]) if err.args else "evaluation error"
    # cel-python appends the whole activation to some messages; keep them one line and short.
    return text.split(" (in activation", 1)[0]
