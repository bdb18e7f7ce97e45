"""cel-go's type checker (checker/checker.go) over celext's AST, in the DRA environment Kubernetes declares.

The environment: the variable `device` of type `kubernetes.DRADevice` (`driver` string, `attributes`
map(string, map(string, dyn)), `capacity` map(string, map(string, kubernetes.Quantity)),
`allowMultipleAllocations` bool), type names as identifiers (`int` is `type(int)`), and every overload in
`celext.overloads`. Rules follow cel-go: an overload matches when each argument is assignable to its
parameter (type parameters are instantiated afresh per call; `dyn` is assignable both ways); several
matching overloads give `dyn` unless their results agree; list and map literals must be homogeneous
(Kubernetes' HomogeneousAggregateLiterals); a comprehension ranges over a list, a map or `dyn`.
Errors carry cel-go's texts; the first one by position is reported.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping as MappingABC
from itertools import compress
from operator import attrgetter, not_
from typing import Any

from msgspec import Struct, field

from celext.check import format_calls, homogeneous, regex, time_literals
from celext.check import types as t
from celext.check.ast import Call, Comprehension, CreateList, CreateMap, Expr, Ident, Literal, Select
from celext.check.types import Mapping, Type
from celext.overloads import FUNCTIONS, OverloadDecl

__all__ = ["CheckedExpr", "TypeError_", "check"]

DEVICE_FIELDS: MappingABC[str, Type] = {
    "driver": t.STRING,
    "attributes": t.map_of(t.STRING, t.map_of(t.STRING, t.DYN)),
    "capacity": t.map_of(t.STRING, t.map_of(t.STRING, t.QUANTITY)),
    "allowMultipleAllocations": t.BOOL,
}
STRUCT_FIELDS: MappingABC[str, MappingABC[str, Type]] = {t.DEVICE.name: DEVICE_FIELDS}
VARIABLES: MappingABC[str, Type] = {
    "device": t.DEVICE,
    # type names are identifiers whose value is the type (cel-go's standard declarations)
    **{name: t.type_of(value) for name, value in (
        ("bool", t.BOOL), ("int", t.INT), ("uint", t.UINT), ("double", t.DOUBLE), ("string", t.STRING),
        ("bytes", t.BYTES), ("null_type", t.NULL), ("type", t.TYPE), ("dyn", t.DYN),
        ("list", t.list_of(t.DYN)), ("map", t.map_of(t.DYN, t.DYN)), ("optional_type", t.optional_of(t.DYN)),
        ("google.protobuf.Timestamp", t.TIMESTAMP), ("google.protobuf.Duration", t.DURATION),
        # Kubernetes registers its IP and CIDR types (cel.Types in apiserver library/ip.go, cidr.go)
        ("net.IP", t.IP), ("net.CIDR", t.CIDR),
    )},
}
_LITERALS = {"bool": t.BOOL, "int": t.INT, "uint": t.UINT, "double": t.DOUBLE, "string": t.STRING,
             "bytes": t.BYTES, "null": t.NULL}
_LOGICAL = {name: (FUNCTIONS[name][0].id,) for name in ("_&&_", "_||_")}
# The last part of every dotted variable and function name: a select or member call named otherwise cannot be
# part of a qualified name, so the chain under it is not walked (`_qualified_name`) for each select.
_DOTTED_VARIABLES = frozenset(name.rsplit(".", 1)[1] for name in VARIABLES if "." in name)
_DOTTED_FUNCTIONS = frozenset(name.rsplit(".", 1)[1] for name in FUNCTIONS if "." in name)


# Overload resolution of a call whose argument types are all ground depends on nothing else (the declarations
# are constant): remembered, so a long chain of `+` or `==` pays the overload trials once per signature.
# (result, overload ids, type variables the trials numbered): a hit numbers as many, so that the names of later
# type variables in messages (`_var2`) do not depend on what an earlier compile left in this table.
# A binary operator's entry is also kept under the identities of its operand types (`_BY_IDENTITY`, the types
# themselves at the end of the value, so those identities stay theirs): found without hashing the types, whose
# hash is a Python-level call.
RESOLVED: dict[tuple[Any, ...], tuple[Any, ...]] = {}
RESOLVED_SIZE = 4096
_BY_IDENTITY = "#identity"


class TypeError_(Struct, frozen=True):
    """One checker error: cel-go's message and the character offset it is reported at."""

    offset: int
    message: str


class CheckedExpr(Struct):
    """The checked AST: the type of every node and, for calls, the overload ids that may apply.

    Keys are `Expr.id`; each `Expr.tree` is the parse-tree node of `celext.parse(expression)` it was built from
    (macro expansions make nodes with no tree). With a `dyn` argument several overloads may apply.
    """

    expr: Expr
    types: dict[int, Type] = field(default_factory=dict)
    overloads: dict[int, tuple[str, ...]] = field(default_factory=dict)
    errors: list[TypeError_] = field(default_factory=list)
    regex_calls: list[Call] = field(default_factory=list)  # matches/find/findAll calls (celext.check.regex)
    time_calls: list[Call] = field(default_factory=list)  # duration/timestamp calls (celext.check.time_literals)
    aggregates: list[CreateList | CreateMap] = field(default_factory=list)  # literals that may mix (homogeneous)
    format_calls: list[Call] = field(default_factory=list)  # `x.format(...)` calls (celext.check.format_calls)

    @property
    def output_type(self) -> Type:
        return self.types[self.expr.id]

    def type_of(self, node: Expr) -> Type:
        return self.types.get(node.id, t.DYN)


def _type_string(x: Type) -> str:
    """cel-go's Type.String(), which the DRA compiler's result-type error uses (`null_type`, `list(int)`)."""
    if not x.params:
        return x.name
    return f"{x.name}({', '.join(_type_string(p) for p in x.params)})"


_LOOSE_KINDS = frozenset({"param", "dyn", "error", "null"})


def _may_assign(param: Type, arg: Type) -> bool:
    """A necessary condition of `assignable(param, arg)`, without a trial: types of two kinds never match unless
    one is a type parameter, dyn, an error or null (a list of overloads is mostly ruled out by it)."""
    return param.kind == arg.kind or param.kind in _LOOSE_KINDS or arg.kind in _LOOSE_KINDS


def result_type_error(out: Type) -> str | None:
    """The DRA compiler's check: the result must be exactly bool or the attribute type (dyn)."""
    if out in (t.BOOL, t.DYN):
        return None
    return f"must evaluate to bool or the unknown type, not {_type_string(out)}"


class _Checker:
    def __init__(self, checked: CheckedExpr) -> None:
        self.out = checked
        self.mapping = Mapping()
        self.scopes: list[dict[str, Type]] = []
        self.fresh = 0
        self.exempt = 0  # inside how many format() calls (homogeneous.EXEMPT): their literals may mix

    # helpers -----------------------------------------------------------------------------------------------
    def error(self, node: Expr, message: str) -> None:
        self.out.errors.append(TypeError_(node.offset, message))

    def set(self, node: Expr, value: Type) -> None:
        self.out.types[node.id] = value

    def get(self, node: Expr) -> Type:
        return self.out.types.get(node.id, t.ERROR)

    def new_var(self) -> Type:
        self.fresh += 1
        return t.param(f"_var{self.fresh}")

    def lookup(self, name: str) -> Type | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return VARIABLES.get(name)

    # expressions -------------------------------------------------------------------------------------------
    def check(self, node: Expr) -> None:
        walk = _WALKS.get(type(node))
        if walk is not None:
            walk(self, node)

    def check_literal(self, node: Literal) -> None:
        self.out.types[node.id] = _LITERALS[node.kind]

    def check_ident(self, node: Ident) -> None:
        found = self.lookup(node.name)
        if found is None:
            self.error(node, f"undeclared reference to '{node.name}' (in container '')")
            found = t.ERROR
        self.out.types[node.id] = found

    def check_select(self, node: Select) -> None:
        assert node.operand is not None
        qualified = _qualified_name(node) if node.field in _DOTTED_VARIABLES else None
        if qualified is not None and self.lookup(qualified.split(".")[0]) is None and qualified in VARIABLES:
            self.set(node, VARIABLES[qualified])  # a dotted type name (google.protobuf.Timestamp)
            return
        result = self.select_field(node, node.operand, node.field, optional=False)
        self.out.types[node.id] = (t.BOOL if node.test_only else result if result.ground
                                   else self.mapping.substitute(result))

    def select_field(self, node: Expr, operand: Expr, name: str, *, optional: bool) -> Type:
        walk = _WALKS.get(type(operand))  # (`check`, inline)
        if walk is not None:
            walk(self, operand)
        target = self.out.types.get(operand.id, t.ERROR)
        if not target.ground:
            target = self.mapping.substitute(target)
        target, is_opt = t.unwrap_optional(target) if target.kind == "opaque" else (target, False)
        result = t.ERROR
        if target.kind == "map":
            result = target.params[1]
        elif target.kind == "struct":
            fields = STRUCT_FIELDS.get(target.name, {})
            if name in fields:
                result = fields[name]
            else:
                self.error(node, f"undefined field '{name}'")
        elif target.kind == "param":
            self.mapping.assignable(t.DYN, target)
            result = t.DYN
        else:
            if not t.is_dyn_or_error(target):
                self.error(node, f"type '{t.fmt(target)}' does not support field selection")
            result = t.DYN
        return t.optional_of(result) if (is_opt or optional) else result

    def check_call(self, node: Call) -> None:
        if node.function == "_?._":
            operand, name = node.args
            assert isinstance(name, Literal)
            result = self.select_field(node, operand, str(name.value), optional=True)
            self.set(node, self.mapping.substitute(result))
            self.out.overloads[node.id] = ("select_optional_field",)
            return
        if node.function in regex.FUNCTIONS:
            self.out.regex_calls.append(node)
        elif node.function in time_literals.FUNCTIONS:
            self.out.time_calls.append(node)
        if node.function in homogeneous.EXEMPT:  # (an error raised inside abandons the whole check)
            if node.target is not None:
                self.out.format_calls.append(node)
            self.exempt += 1
            self.check_operands(node)
            self.exempt -= 1
        else:
            self.check_operands(node)

    def check_operands(self, node: Call) -> None:
        for arg in node.args:  # (`check`, inline: a frame fewer per argument)
            walk = _WALKS.get(type(arg))
            if walk is not None:
                walk(self, arg)
        if node.target is None:
            if len(node.args) == 2 and self.check_binary(node):
                return
            overloads = FUNCTIONS.get(node.function)
            if overloads is None:
                self.error(node, f"undeclared reference to '{node.function}' (in container '')")
                self.set(node, t.ERROR)
                return
            self.resolve(node, node.function, overloads, None)
            return
        qualified = _qualified_name(node.target) if node.function in _DOTTED_FUNCTIONS else None
        if qualified is not None and f"{qualified}.{node.function}" in FUNCTIONS:
            # A namespaced global (sets.contains, optional.none): cel-go rewrites the node into a plain call.
            node.function, node.target = f"{qualified}.{node.function}", None
            self.resolve(node, node.function, FUNCTIONS[node.function], None)
            return
        if node.target.id not in self.out.types:  # (once: see check_comprehension)
            self.check(node.target)
        overloads = FUNCTIONS.get(node.function)
        if overloads is None:
            self.error(node, f"undeclared reference to '{node.function}' (in container '')")
            self.set(node, t.ERROR)
            return
        self.resolve(node, node.function, overloads, node.target)

    def check_binary(self, node: Call) -> bool:
        """`resolve` in short for a binary operator on bool operands (`&&`, `||`) or on ground types resolved
        before; False when the trials must run."""
        types = self.out.types
        left = types.get(node.args[0].id, t.ERROR)
        right = types.get(node.args[1].id, t.ERROR)
        logical = _LOGICAL.get(node.function)
        if logical is not None:
            if left is not t.BOOL or right is not t.BOOL:
                return False
            types[node.id] = t.BOOL
            self.out.overloads[node.id] = logical
            return True
        if not (left.ground and right.ground):
            return False
        function = node.function
        known = RESOLVED.get((function, _BY_IDENTITY, id(left), id(right)))
        if known is not None and known[3] is left and known[4] is right:
            types[node.id] = known[0]
            self.out.overloads[node.id] = known[1]
            self.fresh += known[2]
            return True
        known = RESOLVED.get((function, False, (left, right)))
        if known is None:
            return False
        types[node.id] = known[0]
        self.out.overloads[node.id] = known[1]
        self.fresh += known[2]
        if len(RESOLVED) >= RESOLVED_SIZE:
            RESOLVED.clear()
        RESOLVED[(function, _BY_IDENTITY, id(left), id(right))] = (*known[:3], left, right)
        return True

    def recall(self, node: Call, key: tuple[str, bool, tuple[Type, ...]]) -> bool:
        """The remembered resolution of a call on ground argument types (RESOLVED), if any."""
        known = RESOLVED.get(key)
        if known is None:
            return False
        self.out.types[node.id] = known[0]
        self.out.overloads[node.id] = known[1]
        self.fresh += known[2]
        return True

    def resolve(self, node: Call, name: str, overloads: tuple[OverloadDecl, ...], target: Expr | None) -> None:
        types = self.out.types
        arg_types = [types.get(a.id, t.ERROR) for a in node.args]
        if target is not None:
            arg_types.insert(0, types.get(target.id, t.ERROR))
        if name in ("_&&_", "_||_"):
            failed = False
            for arg, arg_type in zip(node.args, arg_types, strict=True):
                if arg_type is not t.BOOL and not self.mapping.assignable(arg_type, t.BOOL):
                    self.error(arg, f"expected type 'bool' but found '{t.fmt(arg_type)}'")
                    failed = True
            self.set(node, t.ERROR if failed else t.BOOL)
            if not failed:
                self.out.overloads[node.id] = (overloads[0].id,)
            return
        key: tuple[str, bool, tuple[Type, ...]] | None = (name, target is not None, tuple(arg_types))
        for arg_type in arg_types:
            if not arg_type.ground:
                key = None
                break
        if key is not None and self.recall(node, key):  # ground arguments: the answer of last time, no trials
            return
        numbered = self.fresh
        result: Type | None = None
        matched: list[str] = []
        for overload in overloads:
            if overload.member != (target is not None) or len(overload.args) != len(arg_types) \
                    or not all(map(_may_assign, overload.args, arg_types)):
                continue
            params, out = list(overload.args), overload.result
            if overload.type_params:
                fresh = Mapping({p: self.new_var() for p in overload.type_params})
                params = [fresh.substitute(p) for p in params]
                out = fresh.substitute(out)
            if self.mapping.assignable_list(arg_types, params):
                matched.append(overload.id)
                resolved = self.mapping.substitute(out)
                if result is None:
                    result = resolved
                elif result.kind != "dyn" and resolved != result:
                    result = t.DYN
        if result is None:
            shown = [t.fmt(self.mapping.substitute(a, params_to_dyn=True)) for a in arg_types]
            signature = (f"{shown[0]}.({', '.join(shown[1:])})" if target is not None
                         else f"({', '.join(shown)})")
            self.error(node, f"found no matching overload for '{name}' applied to '{signature}'")
            self.set(node, t.ERROR)
            return
        self.set(node, result)
        self.out.overloads[node.id] = tuple(matched)
        if key is not None and result.ground:
            if len(RESOLVED) >= RESOLVED_SIZE:
                RESOLVED.clear()
            RESOLVED[key] = (result, tuple(matched), self.fresh - numbered)

    def check_list(self, node: CreateList) -> None:
        if node.constant:  # literals of one kind: nothing to join
            elem_type = _LITERALS[node.constant]
            for item in node.elements:
                self.set(item, elem_type)
            self.set(node, t.list_of(elem_type))
            return
        elem: Type | None = None
        for i, item in enumerate(node.elements):
            self.check(item)
            found = self.optional_value(item) if i in node.optional else self.get(item)
            elem = self.join(elem, found)
        if (len(node.elements) > 1 or node.optional) and not self.exempt:
            self.out.aggregates.append(node)
        self.set(node, t.list_of(elem if elem is not None else self.new_var()))

    def check_map(self, node: CreateMap) -> None:
        if node.constant:  # keys literals of one kind, values too: nothing to join
            first_key, first_value = node.entries[0]
            assert isinstance(first_key, Literal) and isinstance(first_value, Literal)
            key_kind, value_kind = _LITERALS[first_key.kind], _LITERALS[first_value.kind]
            for key, value in node.entries:
                self.set(key, key_kind)
                self.set(value, value_kind)
            self.set(node, t.map_of(key_kind, value_kind))
            return
        key_type: Type | None = None
        value_type: Type | None = None
        for i, (key, value) in enumerate(node.entries):
            self.check(key)
            key_type = self.join(key_type, self.get(key))
            self.check(value)
            found = self.optional_value(value) if i in node.optional else self.get(value)
            value_type = self.join(value_type, found)
        if (len(node.entries) > 1 or node.optional) and not self.exempt:
            self.out.aggregates.append(node)
        if key_type is None or value_type is None:
            self.set(node, t.map_of(self.new_var(), self.new_var()))
        else:
            self.set(node, t.map_of(key_type, value_type))

    def optional_value(self, node: Expr) -> Type:
        """The element type an optional entry (`[?x]`, `{?k: x}`) adds: x must be an optional (or dyn)."""
        found = self.get(node)
        if found.kind == "opaque" and found.name == "optional_type" and found.params:
            return found.params[0]
        if found in (t.DYN, t.ERROR):
            return found
        # cel-go's checkCreateList/checkCreateMap: the optional of the type found, then joined as it is
        self.error(node, f"expected type '{t.fmt(t.optional_of(found))}' but found '{t.fmt(found)}'")
        return found

    def join(self, previous: Type | None, current: Type) -> Type:
        """cel-go's joinTypes with mixed literals allowed (the validator refuses them after the check:
        celext.check.homogeneous)."""
        if previous is None:
            return current
        if self.mapping.assignable(previous, current):
            return t.most_general(previous, current)
        return t.DYN

    def check_comprehension(self, node: Comprehension) -> None:
        assert node.iter_range is not None and node.accu_init is not None
        assert node.loop_condition is not None and node.loop_step is not None and node.result is not None
        walks = _WALKS  # (`check`, inline here and below: a frame fewer per part)
        walk = walks.get(type(node.iter_range))
        # A range checked already is the target a macro expansion holds twice (sortBy's is sorted and mapped;
        # optMap's, a call target, is tested and read): checked once, or a chain of them would be 2 ** length.
        if walk is not None and node.iter_range.id not in self.out.types:
            walk(self, node.iter_range)
        walk = walks.get(type(node.accu_init))
        if walk is not None:
            walk(self, node.accu_init)
        range_type = self.mapping.substitute(self.get(node.iter_range))
        accu_type = self.get(node.accu_init)
        self.scopes.append({node.accu_var: accu_type})
        var2: Type | None = None
        if range_type.kind == "list":
            var = range_type.params[0]
            if node.iter_var2:
                var, var2 = t.INT, var
        elif range_type.kind == "map":
            var = range_type.params[0]
            var2 = range_type.params[1] if node.iter_var2 else None
        elif range_type.kind in ("dyn", "error", "param"):
            self.mapping.assignable(t.DYN, range_type)
            var, var2 = t.DYN, t.DYN if node.iter_var2 else None
        else:
            self.error(node.iter_range, f"expression of type '{t.fmt(range_type)}' cannot be range of a "
                                        "comprehension (must be list, map, or dynamic)")
            var, var2 = t.ERROR, t.ERROR if node.iter_var2 else None
        loop_scope = {node.iter_var: var}
        if node.iter_var2 and var2 is not None:
            loop_scope[node.iter_var2] = var2
        self.scopes.append(loop_scope)
        walk = walks.get(type(node.loop_condition))
        if walk is not None:
            walk(self, node.loop_condition)
        self.assert_type(node.loop_condition, t.BOOL)
        walk = walks.get(type(node.loop_step))
        if walk is not None:
            walk(self, node.loop_step)
        self.assert_type(node.loop_step, accu_type)
        self.scopes.pop()
        walk = walks.get(type(node.result))
        if walk is not None:
            walk(self, node.result)
        self.scopes.pop()
        self.set(node, self.mapping.substitute(self.get(node.result)))

    def assert_type(self, node: Expr, expected: Type) -> None:
        actual = self.get(node)
        if actual is not expected and not self.mapping.assignable(expected, actual):
            self.error(node, f"expected type '{t.fmt(expected)}' but found '{t.fmt(actual)}'")


_WALKS: dict[type, Callable[[_Checker, Any], None]] = {
    Call: _Checker.check_call, Literal: _Checker.check_literal, Ident: _Checker.check_ident,
    Select: _Checker.check_select, CreateList: _Checker.check_list, CreateMap: _Checker.check_map,
    Comprehension: _Checker.check_comprehension}


_GROUND = attrgetter("ground")


def _qualified_name(node: Expr) -> str | None:
    """`a.b.c` for a chain of selects on an identifier (cel-go containers.ToQualifiedName), else None."""
    parts: list[str] = []
    while isinstance(node, Select) and not node.test_only:
        parts.append(node.field)
        assert node.operand is not None
        node = node.operand
    if not isinstance(node, Ident):
        return None
    return ".".join([node.name, *reversed(parts)])


def check(expr: Expr) -> CheckedExpr:
    """Type-check an AST; errors are collected in `CheckedExpr.errors` (in the order found)."""
    checked = CheckedExpr(expr)
    checker = _Checker(checked)
    checker.check(expr)
    # Final substitution: every node's type with what its type parameters were resolved to.
    if checker.mapping.subs or checker.fresh:
        substitute = checker.mapping.substitute
        types = checked.types
        for key in list(compress(types, map(not_, map(_GROUND, types.values())))):  # (most are ground; in C)
            types[key] = substitute(types[key], params_to_dyn=True)
    if not checked.errors:  # cel-go runs its AST validators on a clean check only (errors sort by position)
        if checked.aggregates:
            mixed = homogeneous.mismatches(checked.aggregates, checked.types)
            checked.errors += [TypeError_(node.offset, message) for node, message in mixed]
        if checked.time_calls:
            refused = time_literals.refused(checked.time_calls)
            checked.errors += [TypeError_(literal.offset, message) for literal, message in refused]
        if checked.regex_calls:
            patterns = regex.refused_matches(checked.regex_calls)
            checked.errors += [TypeError_(pattern.offset, regex.INVALID_MATCHES) for pattern in patterns]
        if checked.format_calls:
            formats = format_calls.refused(checked.format_calls, checked.types, checked.overloads)
            checked.errors += [TypeError_(node.offset, message) for node, message in formats]
    return checked
