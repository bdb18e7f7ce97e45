"""Constructs celext refuses before type checking, each with its reason: functions and libraries it does not
provide, leading-dot names, message construction, malformed macro calls (with cel-go's parser texts)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from celext import env
from celext.errors import CompileError, UnsupportedError
from celext.syntax.nodes import Token, Tree
from celext.syntax.rewrite import fail, macro_variables, position
from celext.syntax.tree import AST, call_args, simple_ident


def _checked_variables(node: AST) -> tuple[str, ...]:
    """macro_variables(), or the CompileError cel-go's parser gives for a malformed macro call."""
    method = str(node.children[1])
    forms = env.MACRO_FORMS[method]
    args = call_args(node)
    if len(args) not in forms:
        counts = " or ".join(str(n) for n in sorted(forms))
        raise fail(f"{method}() macro takes {counts} arguments, not {len(args)}", node)
    held = args[:forms[len(args)]]
    found = env.macro_variable_error(method, [simple_ident(a) for a in held])
    if found is not None:  # cel-go's parser texts, at the argument they name
        index, message = found
        raise fail(message, held[index])
    return macro_variables(node)


def refuse(tree: AST, *, shared: bool = True) -> None:
    """Raise CompileError at the first refused construct of the (rewritten) tree, in source order. `shared`:
    the tree may share subtrees (`cel.bind` expansion), which are then visited once. Once is enough: what a
    shared initialiser's names mean is fixed where it is bound (the rewrite renames any macro variable at a use
    that would capture one of them), so every use gives the same answer; once per scope at its uses was
    exponential in the nesting (`cel.bind(b, a.transformList(i, v, a.size()), ...)`, 15 levels: 2 s)."""
    pending: list[tuple[AST, frozenset[str]]] = [(tree, frozenset())]
    seen: set[int] = set()
    while pending:
        node, scope = pending.pop()
        if shared and (len(node.children) > 1 or node.data == "member_dot_arg"):
            if id(node) in seen:
                continue
            seen.add(id(node))
        data = node.data
        if data == "ident":
            name = str(node.children[0])
            if name in env.UNSUPPORTED and name not in scope:
                raise _unsupported(name, name, node)
        elif data in ("dot_ident", "dot_ident_arg"):
            # a leading-dot name the parser did not resolve (celext.syntax.parser._rooted): cel-go's checker finds
            # no declaration for it either (`.has(x)` is not the macro there, `.cel.bind` not the binding). cel-go
            # reports a name at the name, a call at its `(` (right after the name, as it is written)
            dotted = cast(Token, node.children[0])
            line, column = position(dotted)
            if data == "dot_ident_arg" and column is not None:
                column += len(dotted)
            raise CompileError(f"undeclared reference to '.{dotted}' (in container '')", line=line, column=column)
        elif data == "member_object":
            raise fail("message construction ('Type{...}') has no meaning for device selectors", node)
        elif data == "ident_arg":
            name = str(node.children[0])
            if name not in scope and name not in env.GLOBAL_NAMES and name in env.UNSUPPORTED:
                raise _unsupported(name, name, node)
        elif data == "member_dot_arg":
            method = str(node.children[1])
            if method in env.UNSUPPORTED and method not in env.MEMBER_NAMES:  # (`format`: a namespace here)
                receiver = simple_ident(node.children[0])
                shown = f"{receiver}.{method}" if receiver in env.NAMESPACES and receiver not in scope else method
                raise _unsupported(shown, method, node.children[1])
            forms = env.MACRO_FORMS.get(method)
            if method in env.MACRO_NAMES and forms is not None and len(call_args(node)) in forms:
                variables = _checked_variables(node)
                inner = scope | set(variables)
                bodies = call_args(node)[len(variables):]
                pending.extend((body, inner) for body in reversed(bodies))
                pending.append((cast(AST, node.children[0]), scope))
                continue
        pending.extend((child, scope) for child in reversed(node.children) if isinstance(child, Tree))


def check_macros(calls: Sequence[AST], tree: AST) -> None:
    """`refuse(tree)` for a tree in which only the form of macro calls can be refused (no unsupported name, no
    leading dot, no message construction: `Parsed.refusable` is False) and `calls` are all its member calls
    named like a macro: each is checked where the walk would meet it, without the walk. Pre-order is the order
    of (start, longest first), as a call's span holds its arguments' and receiver's; a call without a known
    start (a `true` receiver) leaves the order to the walk."""
    if any(call.meta.start_pos is None for call in calls):
        refuse(tree, shared=False)
        return
    for call in sorted(calls, key=lambda call: (call.meta.start_pos, -call.meta.end_pos)):
        forms = env.MACRO_FORMS.get(str(call.children[1]))
        if forms is not None and len(call_args(call)) in forms:
            _checked_variables(call)


def _unsupported(shown: str, name: str, node: AST | Token) -> CompileError:
    """The refusal of a name celext does not provide: an UnsupportedError where Kubernetes has it (the selector
    would compile there), a plain CompileError where it does not either."""
    error = UnsupportedError if name in env.PROVIDED_UPSTREAM else CompileError
    return fail(f"'{shown}' is not supported: {env.UNSUPPORTED[name]}", node, error)
