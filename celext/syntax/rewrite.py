"""The syntax rewrites before evaluation: `cel.bind(x, init, body)` becomes `body` with `(init)` for each free
`x` (cel-python has no bind macro), a namespaced call `sets.contains(a, b)` becomes a call of the dotted
global name, and a select chain that spells a dotted type name (`net.IP`, `google.protobuf.Timestamp`) becomes
that one identifier, unless a variable in scope names its first part (as the checker resolves it). One pass over
the tree; subtrees that do not change are shared with the input, not copied. On a tree in the collapsed shape
the engines walk (celext.syntax.parser's lean tree; celext.reference.collapse) the result keeps that shape:
what it substitutes is wrapped only in the levels the shape keeps (`primary`, `paren_expr`), so no second
collapsing pass runs over a long expression.

Also `macro_variables()`: the names a comprehension macro call binds, which a substitution must not cross.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping
from typing import Any, NamedTuple, cast

from celext import env
from celext.errors import CompileError, UnsupportedError
from celext.syntax.nodes import Token, Tree
from celext.syntax.tree import AST, call_args, simple_ident

# Only these identifiers start a rewrite; text without any of them is returned as it is without a walk.
# (A dotted type name's first part counts when a dot follows it, across blanks and line comments: `dra.net` in a
# string, as most DRANET selectors have, is no trigger.)
_TRIGGERS = re.compile(r"\b(?:(?:cel|" + "|".join(sorted(env.NAMESPACES - {"cel"})) + r")\b|(?:"
                       + "|".join(sorted({n.split(".")[0] for n in env.DOTTED_TYPE_NAMES}))
                       + r")\b(?:\s|//[^\n]*)*\.)")
_REWRITTEN_NAMESPACES = frozenset({"sets", "lists", "strings", "optional", "ip"})
_TYPE_NAME_ENDS = frozenset(name.rsplit(".", 1)[1] for name in env.DOTTED_TYPE_NAMES)


def position(node: AST | Token) -> tuple[int | None, int | None]:
    """(line, column) of a node or token, None where unknown."""
    if isinstance(node, Token):
        return node.line, node.column
    return getattr(node.meta, "line", None), getattr(node.meta, "column", None)


def fail(message: str, node: AST | Token, error: type[CompileError] = CompileError) -> CompileError:
    line, column = position(node)
    return error(message, line=line, column=column)


def macro_variables(node: AST) -> tuple[str, ...]:
    """The iteration variables a comprehension macro call binds (empty for anything else or a malformed one)."""
    if node.data != "member_dot_arg":
        return ()
    forms = env.MACRO_FORMS.get(str(node.children[1]))
    if forms is None:
        return ()
    args = call_args(node)
    names = tuple(simple_ident(a) for a in args[:forms.get(len(args), 0)])
    return () if None in names else tuple(str(n) for n in names)


def _paren(expr: AST) -> AST:
    return Tree("primary", [Tree("paren_expr", [expr], expr.meta)], expr.meta)


def _ident(name: str, at: AST) -> AST:
    token = Token("IDENT", name)
    token.line, token.column = position(at)
    return Tree("primary", [Tree("ident", [token], at.meta)], at.meta)


Names = dict[int, tuple[AST, frozenset[str]]]  # id(subtree) -> (it, identifiers(it)), for one rewrite or plan


def identifiers(tree: AST, known: Names) -> frozenset[str]:
    """Every identifier token in `tree` (a superset of its free variables: renaming more is harmless), remembered
    in `known`. A subtree held several times (an initialiser substituted at each use) is read once, and one
    whose names are known is not read again: a walk of every use would take time exponential in the nesting of
    bindings (`cel.bind(b, a + a, cel.bind(c, b + b, ...))`), and one per initialiser quadratic."""
    held = known.get(id(tree))
    if held is not None and held[0] is tree:  # (the node is kept with its names: an id is not reused meanwhile)
        return held[1]
    seen: set[int] = set()
    names: set[str] = set()
    pending = [tree]
    while pending:
        node = pending.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        held = known.get(id(node))
        if held is not None and held[0] is node:
            names |= held[1]
            continue
        for child in node.children:
            if isinstance(child, Tree):
                pending.append(child)
            elif isinstance(child, Token) and child.type == "IDENT":
                names.add(str(child))
    found = known[id(tree)] = (tree, frozenset(names))
    return found[1]


class _Pass(NamedTuple):
    """What one rewrite carries besides the scope."""

    names: Names  # the initialisers' names read so far (identifiers)
    starts: list[int] | None  # where the text's triggers start, ascending (None: the text is not known)

    def untouched(self, node: AST) -> bool:
        """Is `node` a subtree of the source whose text holds no trigger? (Outside a binding, nothing in it is
        rewritten: its walk is saved, most of a long expression's.)"""
        meta = node.meta  # (positions in the source; nodes the parser or this module made may have none)
        start, end = getattr(meta, "start_pos", None), getattr(meta, "end_pos", None)
        if self.starts is None or start is None or end is None:
            return False
        at = bisect.bisect_left(self.starts, start)
        return at == len(self.starts) or self.starts[at] >= end


def rewrite(node: AST, expression: str | None = None) -> AST:
    """Expand `cel.bind` and namespaced calls; the input tree is not changed. With the source `expression`,
    a text without `cel` or a namespace identifier is returned at once (nothing to rewrite), and so is each
    subtree outside a binding whose text holds none."""
    if expression is None:
        return _rewrite(node, {}, frozenset(), _Pass({}, None))
    starts = [found.start() for found in _TRIGGERS.finditer(expression)]
    if not starts:
        return node
    return _rewrite(node, {}, frozenset(), _Pass({}, starts))


def _rewrite(node: AST, bound: Mapping[str, AST], local: frozenset[str], known: _Pass) -> AST:
    """`bound`: the bind variables in scope, each with its (already rewritten, parenthesised) initialiser;
    `local`: the comprehension variables in scope; `known`: what the rewrite has learnt (_Pass)."""
    if not bound and known.untouched(node):
        return node
    data = node.data
    if bound and data == "primary":
        name = simple_ident(node)
        if name is not None and name in bound:
            return bound[name]
    if data == "member_dot_arg":
        return _call(node, bound, local, known)
    if data == "member_dot" and str(node.children[1]) in _TYPE_NAME_ENDS:  # (the chain is walked only then)
        name = _dotted_name(node)
        if name in env.DOTTED_TYPE_NAMES and name.split(".")[0] not in local | bound.keys():
            return _ident(name, node)
    children = node.children
    new = [_rewrite(c, bound, local, known) if isinstance(c, Tree) else c for c in children]
    if all(a is b for a, b in zip(new, children, strict=True)):
        return node
    return Tree(data, new, node.meta)


def _dotted_name(node: AST) -> str:
    """`a.b.c` for a select chain on a plain identifier, else ""."""
    fields: list[str] = []
    while node.data == "member_dot":
        fields.append(str(node.children[1]))
        node = cast(AST, node.children[0])
    root = simple_ident(node)
    return "" if root is None else ".".join([str(root), *reversed(fields)])


def _call(node: AST, bound: Mapping[str, AST], local: frozenset[str], known: _Pass) -> AST:
    namespace = simple_ident(node.children[0])
    method = str(node.children[1])
    if namespace == "cel" and method == "bind":
        args = call_args(node)
        if len(args) != 3:
            raise fail("cel.bind() takes a variable name, an initialiser and an expression", node)
        name = simple_ident(args[0])
        if name is None:  # ext/bindings.go celBind
            raise fail("cel.bind() variable names must be simple identifiers", args[0])
        init = _paren(_rewrite(args[1], bound, local, known))
        return _paren(_rewrite(args[2], {**bound, name: init}, local, known))
    variables = macro_variables(node)
    inner = {k: v for k, v in bound.items() if k not in variables} if variables and bound else bound
    if inner:
        # Capture-avoiding: a macro variable an initialiser in scope names is renamed inside the macro, so the
        # initialiser keeps reading its own (outer) variable, as cel-go's binding of the value does.
        captured = [v for v in variables if any(v in identifiers(init, known.names) for init in inner.values())]
        if captured:
            inner = {**inner, **{v: _ident(f"__bind_{v}_{id(node):x}", node) for v in captured}}
    receiver = _rewrite(cast(AST, node.children[0]), bound, local, known)
    rest = node.children[2:]
    if inner is not bound or variables:  # the macro's variables shadow bindings: its arguments see `inner`
        exprlist: Any = rest[-1]
        scoped = local | frozenset(variables)
        rewritten: list[Any] = [_rewrite(c, inner, scoped, known) for c in exprlist.children]
        if not all(a is b for a, b in zip(rewritten, exprlist.children, strict=True)):
            rest = [Tree(exprlist.data, rewritten, exprlist.meta)]
    else:
        rest = [_rewrite(c, bound, local, known) if isinstance(c, Tree) else c for c in rest]
    if namespace in _REWRITTEN_NAMESPACES and f"{namespace}.{method}" in env.GLOBAL_NAMES:
        token = Token("IDENT", f"{namespace}.{method}")
        token.line, token.column = position(node.children[1])
        return Tree("primary", [Tree("ident_arg", [token, *rest], node.meta)], node.meta)
    if receiver is node.children[0] and all(a is b for a, b in zip(rest, node.children[2:], strict=True)):
        return node
    return Tree(node.data, [receiver, node.children[1], *rest], node.meta)


# celext expands `cel.bind` by substitution, so nested bindings used several times each multiply the tree
# (`cel.bind(a, [1, 1], cel.bind(b, [a, a], ...))` doubles it per level) -- as a tree that holds each initialiser
# once, at every use. The compiled engine and the analyses walk that shared tree once per node (the compact form
# computes a shared initialiser once per evaluation, celext.plan.closures), as Kubernetes evaluates a binding
# once. The reference engine walks every use: it refuses a selector whose expanded tree would exceed this many
# nodes (the largest 10 KiB expression without bindings has about 10,000 after collapsing). The compiled engine
# builds every construct itself and hands the reference engine only leaf identifiers (its guard checks anyway).
MAX_EXPANDED_NODES = 100_000
TOO_EXPANDED = (f"cel.bind expands to more than {MAX_EXPANDED_NODES:,} nodes where celext's reference engine "
                "evaluates it (it substitutes each binding at its every use): use fewer nested bindings")


def check_expansion(tree: AST) -> None:
    """Raise CompileError(TOO_EXPANDED) when the reference engine would walk more than MAX_EXPANDED_NODES nodes."""
    if expanded_size(tree) > MAX_EXPANDED_NODES:
        raise UnsupportedError(TOO_EXPANDED)


def expanded_size(tree: AST) -> int:
    """The node count of `tree` with every shared subtree counted at each of its uses (one pass, memoised)."""
    sizes: dict[int, int] = {}
    pending: list[tuple[Any, bool]] = [(tree, False)]
    while pending:
        node, ready = pending.pop()
        if id(node) in sizes:
            continue
        children = [c for c in node.children if isinstance(c, Tree)]
        if ready:
            sizes[id(node)] = min(1 + sum(sizes[id(c)] for c in children), MAX_EXPANDED_NODES + 1)
        else:
            pending.append((node, True))
            pending.extend((c, False) for c in children if id(c) not in sizes)
    return sizes[id(tree)]
