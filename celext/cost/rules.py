"""The cost rules the overload table names (`celext.overloads`, column `cost`), as cel-go and Kubernetes define them.

Each rule gets the call, its receiver and arguments as the estimator sees them (type, field path, size) and
the arguments' costs, and returns (cost, result size, whether the cost already includes the arguments), or
None for cel-go's default of one unit plus the arguments. Precedence follows upstream: cel-go's extension
estimators (lists v3, sets: `cel.CostEstimatorOptions`, consulted first), the DRA compiler's `includes` (48),
then the Kubernetes library estimator's rules by function, then cel-go's by overload id.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Protocol

from msgspec import Struct

from celext.check import types as t
from celext.check.ast import Call, Expr, Literal
from celext.cost.sizes import (
    LIST_CREATE,
    ONE,
    REGEX_LENGTH,
    STRING_TRAVERSAL,
    U64,
    UNKNOWN,
    ZERO,
    Range,
    device_size,
    fixed,
)

__all__ = ["OWN_EQUALITY", "RULES", "Entry", "Node", "Path", "Rule", "Sizes", "compare_sizes"]

Path = tuple[str, ...]


class Entry(Struct):
    """Key and value sizes of a list or map literal (cel-go entrySizeEstimate)."""

    container: str  # "list" or "map"
    key: Range
    val: Range

    def union(self, other: Entry | None) -> Entry | None:
        if other is None:
            return None
        return Entry(self.container, self.key.union(other.key), self.val.union(other.val))


class Node(Struct):
    """What a cost rule sees of an argument (cel-go AstNode)."""

    expr: Expr | None
    type: t.Type
    path: Path | None
    size: Range | None


class Sizes(Protocol):
    """What a rule may ask the estimator."""

    def type(self, e: Expr) -> t.Type: ...

    def size_or_unknown(self, e: Expr | Node) -> Range: ...

    def entry(self, e: Expr) -> Entry | None: ...

    def set_entry(self, e: Expr, entry: Entry | None) -> None: ...


# Cost rules, by the name the overload table gives. Each returns (cost, result size, whether the cost already
# includes the arguments) or None for cel-go's default of one unit plus the arguments.
Rule = Callable[[Sizes, Call, Node | None, list[Node], list[Range]], "tuple[Range, Range | None, bool] | None"]


def _fixed(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
           ) -> tuple[Range, Range | None, bool] | None:
    return None


def _includes(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
              ) -> tuple[Range, Range | None, bool] | None:
    # DRA: ResourceSliceMaxAttributeValuesPerDevice (48) comparisons at most, whatever the receiver
    return (Range(0, 48), None, False) if target is not None else None


def _k8s_size(n: Node) -> Range:
    """Kubernetes' sizeEstimate(): the computed size, else the path estimate, else unknown."""
    if n.size is not None:
        return n.size
    estimated = device_size(n.path or ())
    return estimated if estimated is not None else UNKNOWN


def _list_traversal(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
                    ) -> tuple[Range, Range | None, bool] | None:
    if target is None:
        return None
    if target.type.params:
        elem_type = target.type.params[0]
        elem = Node(None, elem_type, (*target.path, "@items") if target.path else None, None)
        per = ONE
        if elem_type.kind in ("string", "bytes"):
            per = per.add(_k8s_size(elem).factor(STRING_TRAVERSAL))
        return _k8s_size(target).mul(per), None, False
    return _k8s_size(target).factor(STRING_TRAVERSAL), None, False


def _traverse_target(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
                     ) -> tuple[Range, Range | None, bool] | None:
    if target is None:
        return None
    size = _k8s_size(target)
    return size.factor(STRING_TRAVERSAL), size, False


def _replace(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
             ) -> tuple[Range, Range | None, bool] | None:
    if target is None or len(args) < 2:
        return None
    size, old, new = _k8s_size(target), _k8s_size(args[0]), _k8s_size(args[1])
    if old.min == 0:
        count_max, kept_max = (size.max + 1 if size.max < U64 else size.max), size.max
    elif new.max <= old.min:
        count_max, kept_max = 0, size.max
    else:
        count_max, kept_max = -(-size.max // old.min), 0
    if old.max == 0:
        count_min, kept_min = (size.min + 1 if size.min < U64 else size.min), size.min
    elif old.max <= new.min:
        count_min, kept_min = 0, size.min
    else:
        count_min, kept_min = -(-size.min // old.max), 0
    result = Range(count_min, count_max).mul(new).add(Range(kept_min, kept_max))
    return size.factor(2 * STRING_TRAVERSAL), result, False


def _split(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
           ) -> tuple[Range, Range | None, bool] | None:
    if target is None:
        return None
    size = _k8s_size(target)
    most = size.max
    if len(args) > 1 and isinstance(args[1].expr, Literal) and args[1].expr.kind == "int":
        most = int(args[1].expr.value) % 2**64  # Go's uint64(int64) conversion
    return size.factor(2 * STRING_TRAVERSAL), Range(0, most), False


def _join(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
          ) -> tuple[Range, Range | None, bool] | None:
    if target is None:
        return None
    count = _k8s_size(target)
    size = ZERO
    if target.type.params:
        elem = Node(None, target.type.params[0], (*target.path, "@items") if target.path else None, None)
        size = count.mul(_k8s_size(elem))
    if args:
        separators = Range(max(count.min - 1, 0), max(count.max - 1, 0))
        size = size.add(_k8s_size(args[0]).mul(separators))
    return size.factor(STRING_TRAVERSAL), size, False


def _find(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
          ) -> tuple[Range, Range | None, bool] | None:
    if target is None or not args:
        return None
    size = _k8s_size(target)
    text = size.add(ONE).factor(STRING_TRAVERSAL)
    regex = _k8s_size(args[0]).factor(REGEX_LENGTH)
    return text.mul(regex), Range(0, size.max), False


def _parse(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
           ) -> tuple[Range, Range | None, bool] | None:
    return (_k8s_size(args[0]).factor(STRING_TRAVERSAL), None, False) if args else None


def _parse_sized(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
                 ) -> tuple[Range, Range | None, bool] | None:
    # url(): a parse, and a result as large as the text (library/cost.go)
    if not args:
        return None
    size = _k8s_size(args[0])
    return size.factor(STRING_TRAVERSAL), size, False


def _parse_twice(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
                 ) -> tuple[Range, Range | None, bool] | None:
    # ip.isCanonical parses, then compares the parsed form with the text
    return (_k8s_size(args[0]).factor(2 * STRING_TRAVERSAL), None, False) if args else None


_ADDRESS_BYTES = Range(4, 16)  # an IPv4 or IPv6 address, as Kubernetes' estimator sizes the two compared


def _contains_net(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
                  ) -> tuple[Range, Range | None, bool] | None:
    """Kubernetes' containsIP / containsCIDR: compare two addresses; containsCIDR masks and compares the
    lengths too (one more address traversal, plus one); a string argument is parsed first. cel-go estimates
    each overload a call may resolve to and takes their union."""
    if not args:
        return None
    cost = _ADDRESS_BYTES.add(_ADDRESS_BYTES).factor(STRING_TRAVERSAL)
    if e.function == "containsCIDR":
        cost = cost.add(_ADDRESS_BYTES.factor(STRING_TRAVERSAL)).add(ONE)
    if args[0].type in (t.STRING, t.DYN):  # parsed first; a `dyn` argument fits both overloads: their union
        parsed = cost.add(_k8s_size(args[0]).factor(STRING_TRAVERSAL))
        cost = parsed if args[0].type == t.STRING else cost.union(parsed)
    return cost, None, False


def _node_as_int(n: Node, default: int) -> int:
    """cel-go ext/lists.go nodeAsIntValue: an int literal's value (0 when negative), else `default`."""
    e = n.expr
    if isinstance(e, Literal) and e.kind == "int" and isinstance(e.value, int) and not isinstance(e.value, bool):
        return max(e.value, 0)
    return default


def _allocating_list(factor: float, size: Range) -> tuple[Range, Range | None, bool]:
    """cel-go ext/lists.go estimateAllocatingListCall: the list size times the factor, plus the call (1) and
    the list's creation (ListCreateBaseCost, 10); the result is a list of that size."""
    return size.factor(factor).add(fixed(1 + LIST_CREATE)), size, False


def _list_slice(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
                ) -> tuple[Range, Range | None, bool] | None:
    if target is None or len(args) != 2:
        return None
    start, end = _node_as_int(args[0], 0), _node_as_int(args[1], _k8s_size(target).max)
    return _allocating_list(1, fixed((end - start) % 2**64))  # Go's uint64 subtraction wraps


def _lists_range(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
                 ) -> tuple[Range, Range | None, bool] | None:
    if target is not None or len(args) != 1:
        return None
    return _allocating_list(1, fixed(_node_as_int(args[0], U64)))


def _list_reverse(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
                  ) -> tuple[Range, Range | None, bool] | None:
    if target is None or args:
        return None
    return _allocating_list(1, _k8s_size(target))


def _list_flatten(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
                  ) -> tuple[Range, Range | None, bool] | None:
    if target is None or len(args) > 1:
        return None
    depth = _node_as_int(args[0], U64) if args else 1
    return _allocating_list(float(depth), _k8s_size(target))


def _list_distinct(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
                   ) -> tuple[Range, Range | None, bool] | None:
    if target is None or args:
        return None
    size = _k8s_size(target)
    return _allocating_list(2.0, size.mul(size))  # (the result size too is n*n upstream)


def _list_sort(text: bool) -> Rule:
    """estimateListSort / estimateListSortBy: O(n^2) over the list (sort) or the keys (sortBy's
    @sortByAssociatedKeys), factor 2, plus the string traversal factor for string and bytes elements."""
    factor = 2.0 + STRING_TRAVERSAL if text else 2.0

    def rule(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
             ) -> tuple[Range, Range | None, bool] | None:
        if target is None or len(args) > 1:
            return None
        size = _k8s_size(args[0] if args else target)
        return _allocating_list(factor, size.mul(size))
    return rule


def _sets(factor: float) -> Rule:
    """cel-go ext/sets.go estimateSetsCost: the two lists' sizes multiplied, times the factor, plus 1."""
    def rule(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
             ) -> tuple[Range, Range | None, bool] | None:
        if len(args) != 2:
            return None
        return _k8s_size(args[0]).mul(_k8s_size(args[1])).factor(factor).add(ONE), None, False
    return rule


def _logical(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
             ) -> tuple[Range, Range | None, bool] | None:
    lhs, rhs = costs
    return Range(lhs.min, lhs.add(rhs).max), None, True  # the right side may be short-circuited


def _conditional(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
                 ) -> tuple[Range, Range | None, bool] | None:
    size = c.size_or_unknown(args[1]).union(c.size_or_unknown(args[2]))
    assert args[1].expr is not None and args[2].expr is not None
    then = c.entry(args[1].expr)
    c.set_entry(e, then.union(c.entry(args[2].expr)) if then is not None else None)
    return costs[0].add(costs[1].union(costs[2])), size, True


# Kubernetes estimates `==` of two values of one of its own types as one unit (library/cost.go), of two URLs
# by their size
UNIT_EQUALITY = (t.QUANTITY, t.SEMVER, t.IP, t.CIDR)
OWN_EQUALITY = (*UNIT_EQUALITY, t.URL)


def own_equality(left: t.Type, right: t.Type, right_size: Range | None) -> Range | None:
    """Kubernetes' estimate of `==` between two values of one of its own types, else None (cel-go's). Two URLs
    compare their texts: a traversal of the right operand's computed size (upstream reads the right operand for
    both sides), one unit when it has none."""
    if left != right or left not in OWN_EQUALITY:
        return None
    if left != t.URL:
        return ONE
    return Range(1, right_size.max if right_size is not None else 1).factor(STRING_TRAVERSAL)


def _equality(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
              ) -> tuple[Range, Range | None, bool] | None:
    if e.function == "_==_":
        own = own_equality(args[0].type, args[1].type, args[1].size)
        if own is not None:
            return own, None, False
    return _compare_size(c, e, target, args, costs)


def _compare_size(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
                  ) -> tuple[Range, Range | None, bool] | None:
    return compare_sizes(c.size_or_unknown(args[0]), c.size_or_unknown(args[1])), None, False


@functools.lru_cache(maxsize=1024)  # (a few distinct sizes recur: every comparison of one attribute; looked up in C)
def compare_sizes(left: Range, right: Range) -> Range:
    """The cost of comparing two values of these sizes: a traversal of the shorter one."""
    smallest = left.max if left.max < right.max else right.max
    return Range(1 if smallest > 0 else 0, smallest).factor(STRING_TRAVERSAL)


def _concat(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
            ) -> tuple[Range, Range | None, bool] | None:
    size = c.size_or_unknown(args[0]).add(c.size_or_unknown(args[1]))
    assert args[0].expr is not None and args[1].expr is not None
    left = c.entry(args[0].expr)
    if left is not None:
        c.set_entry(e, left.union(c.entry(args[1].expr)))
    if e.function == "_+_" and c.type(e).kind == "list":
        return ONE, size, False
    return size.factor(STRING_TRAVERSAL), size, False


def _in_list(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
             ) -> tuple[Range, Range | None, bool] | None:
    return c.size_or_unknown(args[1]).factor(1), None, False


def _prefix(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
            ) -> tuple[Range, Range | None, bool] | None:
    return c.size_or_unknown(args[0]).factor(STRING_TRAVERSAL), None, False


def _contains(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
              ) -> tuple[Range, Range | None, bool] | None:
    if target is None:
        return None
    text = c.size_or_unknown(target).factor(STRING_TRAVERSAL)
    return text.mul(c.size_or_unknown(args[0]).factor(STRING_TRAVERSAL)), None, False


def _matches(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
             ) -> tuple[Range, Range | None, bool] | None:
    if target is None:  # cel-go estimates the global matches(s, re) as one unit
        return None
    text = c.size_or_unknown(target).add(ONE).factor(STRING_TRAVERSAL)
    return text.mul(c.size_or_unknown(args[0]).factor(REGEX_LENGTH)), None, False


def _format(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
            ) -> tuple[Range, Range | None, bool] | None:
    return (c.size_or_unknown(target).factor(STRING_TRAVERSAL), None, False) if target is not None else None


def _converts(scale_min: Callable[[int], int], scale_max: Callable[[int], int]) -> Rule:
    def rule(c: Sizes, e: Call, target: Node | None, args: list[Node], costs: list[Range]
             ) -> tuple[Range, Range | None, bool] | None:
        size = c.size_or_unknown(args[0])
        return size.factor(STRING_TRAVERSAL), Range(scale_min(size.min), scale_max(size.max)), False
    return rule


RULES: dict[str, Rule] = {
    "fixed": _fixed, "includes": _includes, "list_traversal": _list_traversal, "traverse_target": _traverse_target,
    "replace": _replace, "split": _split, "join": _join, "find": _find, "parse": _parse, "logical": _logical,
    "parse_twice": _parse_twice, "parse_sized": _parse_sized, "contains_ip": _contains_net,
    "contains_cidr": _contains_net,
    "conditional": _conditional, "equality": _equality, "compare_size": _compare_size, "concat": _concat,
    "concat_list": _concat, "in_list": _in_list, "prefix": _prefix, "contains": _contains, "matches": _matches,
    "format": _format,
    # cel-go ext.Lists v3 and ext.Sets estimators (ext/lists.go, ext/sets.go), which cel-go consults first
    "list_slice": _list_slice, "lists_range": _lists_range, "list_reverse": _list_reverse,
    "list_flatten": _list_flatten, "list_distinct": _list_distinct, "list_sort": _list_sort(False),
    "list_sort_text": _list_sort(True), "sets": _sets(1.0), "sets_equivalent": _sets(2.0),
    "string_to_bytes": _converts(lambda n: n, lambda n: min(n * 4, U64)),
    "bytes_to_string": _converts(lambda n: n // 4, lambda n: n),
    "quote": _converts(lambda n: min(n + 2, U64), lambda n: min(n * 2 + 2, U64)),
}
