"""Emitting the one-variable comprehensions (all, exists, exists_one, map, filter) as Python loops, with the
results and errors celext.reference.macros gives, and the cost each step charges."""

from __future__ import annotations

from typing import Any

from lark import Tree

from celext.env import MACRO_FORMS
from celext.plan.core import Block, EmitterCore, call_args
from celext.reference.evaluator import FREE, ITERATION_COST


class LoopEmitter(EmitterCore):
    def _comprehension(self, name: str, node: Tree[Any], block: Block, scope: dict[str, str]) -> str:
        """all / exists / exists_one / map / filter with one iteration variable, as reference.macros runs them."""
        variable_tree, body_tree = call_args(node)
        variable = str(variable_tree.children[0].children[0])
        target = self.emit(node.children[0], block, scope)
        out, var, acc = self.tmp(), f"v{next(self._ids)}", self.tmp()
        inner_scope = {**scope, variable: var}
        step = ITERATION_COST + _size(body_tree)
        block.add(f"if isinstance({target}, ERROR):")
        block.inner().add(f"{out} = {target}")
        block.add(f"elif not isinstance({target}, (LIST, MAP)):")
        block.inner().add(f"{out} = rt_not_iterable({target})")
        block.add("else:")
        outer = block.inner()
        start = "0" if name in ("exists_one", "existsOne") else "None" if name in ("all", "exists") else "[]"
        outer.add(f"{acc} = {start}")
        outer.add(f"for {var} in {target}:")
        loop = outer.inner()
        self.uses.add("budget")
        loop.add(f"budget.left -= {step}")
        loop.add("if budget.left < 0:")
        loop.inner().add("rt_cost_exceeded()")
        value = self.emit(body_tree, loop, inner_scope)
        if name in ("all", "exists"):
            decisive = name == "exists"
            loop.add(f"if isinstance({value}, BOOL):")
            loop.inner().add(f"if {'' if decisive else 'not '}{value}:")
            loop.inner().inner().add(f"{out} = {value}")
            loop.inner().inner().add("break")
            loop.add(f"elif {acc} is None:")
            loop.inner().add(f"{acc} = {value} if isinstance({value}, ERROR) else rt_no_overload()")
            outer.add("else:")
            outer.inner().add(f"{out} = {acc} if {acc} is not None else {'FALSE' if decisive else 'TRUE'}")
            return out
        loop.add(f"if isinstance({value}, ERROR):")
        loop.inner().add(f"{out} = {value}")
        loop.inner().add("break")
        if name in ("exists_one", "existsOne", "filter"):
            loop.add(f"if not isinstance({value}, BOOL):")
            loop.inner().add(f"{out} = rt_no_overload()")
            loop.inner().add("break")
        if name in ("exists_one", "existsOne"):
            loop.add(f"if {value}:")
            loop.inner().add(f"{acc} += 1")
            result = f"TRUE if {acc} == 1 else FALSE"
        elif name == "filter":
            loop.add(f"if {value}:")
            loop.inner().add(f"{acc}.append({var})")
            result = f"LIST({acc})"
        else:
            loop.add(f"{acc}.append({value})")
            result = f"LIST({acc})"
        outer.add("else:")
        outer.inner().add(f"{out} = {result}")
        return out


def _size(node: Tree[Any]) -> int:
    """Cost units of one evaluation of a comprehension body at most, counted as the reference engine charges
    (one per node that is not a mere grammar level); a nested comprehension's steps are charged by its own
    loop, so only its target counts here."""
    pending, count = [node], 0
    while pending:
        current = pending.pop()
        counted = current.data not in FREE and not str(current.data).startswith("relation_")
        if counted or (current.data == "const" and isinstance(current.children[0], (list, dict))):  # (an aggregate)
            count += 1
        children = [c for c in current.children if isinstance(c, Tree)]
        if current.data == "member_dot_arg" and str(current.children[1]) in MACRO_FORMS:
            children = children[:1]
        pending.extend(children)
    return count
