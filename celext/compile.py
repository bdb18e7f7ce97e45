"""Parse, check and prepare an expression: everything that happens once per expression text.

- `parse()` (celext.grammar): the parse tree with positions, cached; syntax errors as CompileError.
- `check()`: constructs celext refuses with a reason (libraries it does not provide, message construction,
  leading-dot names, malformed macro calls).
- `typecheck()`: cel-go's type checker in the DRA environment (`celext.check`): undeclared references,
  undefined fields, calls no overload fits, the DRA result-type rule, with cel-go's texts and positions.
- `prepare()` also estimates the cost (`celext.cost`) and refuses, as the API server does, a selector whose
  estimated maximum exceeds 1,000,000 (`too complex, exceeds cost limit`).
- `rewrite()`: `cel.bind(x, init, body)` becomes `body` with `(init)` for each free `x` (cel-python has no
  bind macro); `sets.contains(a, b)` style namespaced calls become calls of the dotted function name.
- `device_paths()`: the device paths an expression reads, for result memoisation; None when not derivable.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from celpy.evaluation import CELEvalError
from lark import Token, Tree

from celext import env, headroom, literals
from celext.check.ast import BuildError, build
from celext.check.checker import CheckedExpr, result_type_error
from celext.check.checker import check as check_types
from celext.cost import COST_LIMIT, TOO_COSTLY
from celext.cost.estimator import estimate
from celext.errors import CompileError, CostLimitError
from celext.grammar import MAX_LENGTH, parse
from celext.parser import RECURSION_LIMIT_EXCEEDED

__all__ = ["MAX_LENGTH", "Path", "Prepared", "check", "device_paths", "parse", "prepare", "rewrite",
           "typecheck"]

Path = tuple[str, ...]


def _pos(node: Any | Token) -> tuple[int | None, int | None]:
    if isinstance(node, Token):
        return node.line, node.column
    meta = node.meta
    return getattr(meta, "line", None), getattr(meta, "column", None)


def _fail(message: str, node: Any | Token) -> CompileError:
    line, column = _pos(node)
    return CompileError(message, line=line, column=column)


def simple_ident(node: Any) -> str | None:
    """The identifier when `node` is nothing but one identifier (through the grammar's pass-through levels)."""
    while isinstance(node, Tree):
        if node.data == "ident":
            token = node.children[0]
            return str(token) if isinstance(token, Token) else None
        if len(node.children) != 1 or not isinstance(node.children[0], Tree):
            return None
        node = node.children[0]
    return None


def string_literal(node: Any) -> str | None:
    """The value of a plain string literal, else None."""
    while isinstance(node, Tree) and node.data != "literal":
        if len(node.children) != 1 or not isinstance(node.children[0], Tree):
            return None
        node = node.children[0]
    if not isinstance(node, Tree):
        return None
    token = node.children[0]
    if not isinstance(token, Token) or token.type != "STRING_LIT":
        return None
    text = str(token)
    if text[:1] in "rR" or "\\" in text:
        return None
    return text[1:-1]


def _args(node: Any) -> list[Tree[Token]]:
    """The argument trees of a call node (the exprlist is the last child, when present)."""
    last = node.children[-1]
    if isinstance(last, Tree) and last.data == "exprlist":
        return [c for c in last.children if isinstance(c, Tree)]
    return []


def _paren(expr: Any) -> Any:
    return Tree("primary", [Tree("paren_expr", [expr], expr.meta)], expr.meta)


def _substitute(node: Any, name: str, value: Any) -> Any:
    """Replace free uses of `name` by `(value)`; stop where a macro or an inner bind rebinds it."""
    if node.data == "primary" and simple_ident(node) == name:
        return _paren(value)
    if node.data == "member_dot_arg":
        method = str(node.children[1])
        args = _args(node)
        is_bind = method == "bind" and simple_ident(node.children[0]) == "cel"
        if (is_bind and args and simple_ident(args[0]) == name) or name in macro_variables(node):
            # The rebinding construct: substitute in the target/initialiser only.
            target = _substitute(node.children[0], name, value)
            if is_bind:
                init = _substitute(args[1], name, value) if len(args) > 1 else None
                rest = [args[0], init, *args[2:]] if init is not None else args
                return Tree(node.data, [node.children[0], node.children[1], Tree("exprlist", rest)], node.meta)
            return Tree(node.data, [target, *node.children[1:]], node.meta)
    children = [_substitute(c, name, value) if isinstance(c, Tree) else c for c in node.children]
    return Tree(node.data, children, node.meta)


def rewrite(node: Any) -> Any:
    """Expand `cel.bind` and namespaced calls bottom-up (returns new trees; the input is not changed)."""
    children = [rewrite(c) if isinstance(c, Tree) else c for c in node.children]
    node = Tree(node.data, children, node.meta)
    if node.data != "member_dot_arg":
        return node
    namespace = simple_ident(node.children[0])
    method = str(node.children[1])
    if namespace == "cel" and method == "bind":
        args = _args(node)
        if len(args) != 3 or simple_ident(args[0]) is None:
            raise _fail("cel.bind() takes a variable name, an initialiser and an expression", node)
        return Tree("member", [_paren(_substitute(args[2], str(simple_ident(args[0])), args[1]))], node.meta)
    if namespace in ("sets", "lists", "strings", "optional") and f"{namespace}.{method}" in env.GLOBAL_NAMES:
        token = Token("IDENT", f"{namespace}.{method}")
        token.line, token.column = _pos(node.children[1])
        call = Tree("ident_arg", [token, *node.children[2:]], node.meta)
        return Tree("member", [Tree("primary", [call], node.meta)], node.meta)
    return node


def macro_variables(node: Any) -> tuple[str, ...]:
    """The iteration variables a comprehension macro call binds (empty for anything else or a malformed one)."""
    if node.data != "member_dot_arg":
        return ()
    args = _args(node)
    count = env.MACRO_FORMS.get(str(node.children[1]), {}).get(len(args), 0)
    names = tuple(simple_ident(a) for a in args[:count])
    return () if None in names else tuple(str(n) for n in names)


def _macro_variables(node: Any) -> tuple[str, ...]:
    """macro_variables(), or the CompileError cel-go's parser gives for a malformed macro call."""
    method = str(node.children[1])
    forms = env.MACRO_FORMS[method]
    args = _args(node)
    if len(args) not in forms:
        counts = " or ".join(str(n) for n in sorted(forms))
        raise _fail(f"{method}() macro takes {counts} arguments, not {len(args)}", node)
    variables = macro_variables(node)
    if not variables:  # cel-go's parser texts for the one- and two-variable forms
        what = "argument" if forms[len(args)] == 1 else "iteration variable"
        raise _fail(f"{method}() macro: {what} must be a simple name", node)
    if len(set(variables)) != len(variables):
        raise _fail(f"{method}() macro: the two iteration variables must have different names", node)
    return variables


def check(node: Any, scope: frozenset[str] = frozenset()) -> None:
    """Constructs celext refuses before type checking, each with its reason: functions and libraries it does not
    provide, leading-dot names, message construction, malformed macro calls. Raises CompileError."""
    data = node.data
    if data == "ident":
        name = str(node.children[0])
        if name in env.UNSUPPORTED and name not in scope:
            raise _fail(f"'{name}' is not supported: {env.UNSUPPORTED[name]}", node)
    if data in ("dot_ident", "dot_ident_arg"):
        raise _fail("leading-dot names ('.name') are not supported by celext", node)
    if data == "member_object":
        raise _fail("message construction ('Type{...}') has no meaning for device selectors", node)
    if data == "ident_arg":
        name = str(node.children[0])
        if name not in scope and name not in env.GLOBAL_NAMES and name in env.UNSUPPORTED:
            raise _fail(f"'{name}' is not supported: {env.UNSUPPORTED[name]}", node)
    if data == "member_dot_arg":
        method = str(node.children[1])
        if method in env.UNSUPPORTED:
            receiver = simple_ident(node.children[0])
            shown = f"{receiver}.{method}" if receiver in env.NAMESPACES and receiver not in scope else method
            raise _fail(f"'{shown}' is not supported: {env.UNSUPPORTED[method]}", node.children[1])
        if method in env.MACRO_NAMES and (method in env.MACRO_FORMS and len(_args(node)) in env.MACRO_FORMS[method]):
            variables = _macro_variables(node)
            check(node.children[0], scope)
            for body in _args(node)[len(variables):]:
                check(body, scope | set(variables))
            return
    for child in node.children:
        if isinstance(child, Tree):
            check(child, scope)


_PASS_THROUGH = frozenset({"expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication",
                           "unary", "member", "primary", "paren_expr"})


def _chain(node: Any) -> Path | None:
    """The device path a select/index chain spells (('attributes', 'd', 'id', ...)), else None."""
    data = node.data
    if data in _PASS_THROUGH and len(node.children) == 1 and isinstance(node.children[0], Tree):
        return _chain(node.children[0])
    if data == "ident":
        return () if str(node.children[0]) == "device" else None
    if data in ("member_dot", "member_dot_opt"):  # `.?` reads the same path (its absence is part of the key)
        parent = _chain(node.children[0])
        return None if parent is None else (*parent, str(node.children[1]))
    if data in ("member_index", "member_index_opt"):
        parent = _chain(node.children[0])
        key = string_literal(node.children[1])
        return None if parent is None or key is None else (*parent, key)
    return None


def _complete(path: Path) -> Path | None:
    if path[:1] in (("driver",), ("allowMultipleAllocations",)):
        return path[:1]
    if path[:1] in (("attributes",), ("capacity",)) and len(path) >= 3:
        return path[:3]
    return None


def _walk(node: Any) -> Iterator[Tree[Token]]:
    """Every subtree occurrence (lark's iter_subtrees skips repeats, and cel.bind expansion shares subtrees)."""
    pending: list[Any] = [node]
    while pending:
        current = pending.pop()
        yield current
        pending.extend(c for c in current.children if isinstance(c, Tree))


def _device_uses(node: Any) -> Iterator[Tree[Token]]:
    for sub in _walk(node):
        if sub.data == "ident" and str(sub.children[0]) == "device":
            yield sub


def device_paths(node: Any) -> frozenset[Path] | None:
    """The device paths read; None when some use of `device` is not a plain path (no memoisation)."""
    for sub in _walk(node):
        if "device" in macro_variables(sub):
            return None  # a macro variable shadows `device`
    paths: set[Path] = set()
    covered = 0
    pending = [node]
    while pending:
        current = pending.pop()
        if current.data in _PASS_THROUGH and len(current.children) == 1 and isinstance(current.children[0], Tree):
            pending.append(current.children[0])  # same chain as its child; asking _chain here is quadratic
            continue
        chain = _chain(current)
        complete = _complete(chain) if chain else None
        if complete is not None:
            paths.add(complete)
            covered += 1
            continue
        pending.extend(c for c in current.children if isinstance(c, Tree))
    total = sum(1 for _ in _device_uses(node))
    return frozenset(paths) if covered == total else None


_COLLAPSIBLE = frozenset({"expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication",
                          "unary", "member"})


def collapse(node: Any) -> Any:
    """Drop single-child grammar levels (`expr -> conditionalor -> ... -> member`): about 3x fewer nodes to walk,
    and convert literals once (`const` nodes) instead of at every evaluation.

    Safe for cel-python's interpreter: no rule inspects the `data` of a child that is one of these levels;
    the operator nodes (`relation_lt`, `unary_not`, ...) and `primary` stay.
    """
    while node.data in _COLLAPSIBLE and len(node.children) == 1 and isinstance(node.children[0], Tree):
        node = node.children[0]
    if node.data == "literal":
        value = literals.value(node.children[0])
        if not isinstance(value, CELEvalError):  # a bad literal stays, to fail at evaluation as before
            return Tree("const", [value], node.meta)
    return Tree(str(node.data), [collapse(c) if isinstance(c, Tree) else c for c in node.children], node.meta)


@dataclass(frozen=True, slots=True)
class Prepared:
    """An expression ready for evaluation: the tree the reference engine walks, the device paths it reads,
    the checked AST (every node's type and every call's overload ids) and the static cost estimate."""

    expression: str
    tree: Tree[Token]
    paths: frozenset[Path] | None
    checked: CheckedExpr | None = None
    cost: tuple[int, int] = (0, 0)


def _position(expression: str, offset: int) -> tuple[int, int]:
    line_start = expression.rfind("\n", 0, offset) + 1
    return expression.count("\n", 0, offset) + 1, offset - line_start + 1


def typecheck(expression: str, tree: Tree[Token]) -> CheckedExpr:
    """cel-go's checker on the parse tree, then the DRA compiler's result-type rule; raises CompileError with
    the first error by position (cel-go lists its errors in source order)."""
    try:
        checked = check_types(build(tree, expression))
    except BuildError as err:
        raise CompileError(err.message, line=_position(expression, err.offset)[0],
                           column=_position(expression, err.offset)[1]) from None
    if checked.errors:
        first = min(checked.errors, key=lambda e: e.offset)
        line, column = _position(expression, first.offset)
        raise CompileError(first.message, line=line, column=column)
    problem = result_type_error(checked.output_type)
    if problem is not None:
        raise CompileError(problem, line=1, column=1)
    return checked


def prepare(expression: str, *, cost_limit: int = COST_LIMIT) -> Prepared:
    """parse + rewrite + check + type check + cost estimate; raises CompileError and nothing else
    (CostLimitError when the estimated maximum cost exceeds `cost_limit`, as the API server refuses such a
    selector). Walks of expressions nested as deep as cel-go allows get recursion headroom."""
    try:
        return headroom.call(_prepare, expression, cost_limit)
    except CompileError:
        raise
    except RecursionError:
        raise CompileError(RECURSION_LIMIT_EXCEEDED) from None
    except Exception as err:  # a bug in a compile stage must not escape as anything but CompileError
        raise CompileError(f"internal error while compiling: {type(err).__name__}: {err}".splitlines()[0]) from None


def _prepare(expression: str, cost_limit: int) -> Prepared:
    raw = parse(expression)
    tree = rewrite(raw)
    check(tree)
    checked = typecheck(expression, raw)
    cost = estimate(checked)
    if cost[1] > cost_limit:
        raise CostLimitError(TOO_COSTLY, cost=cost)
    return Prepared(expression, collapse(tree), device_paths(tree), checked, cost)
