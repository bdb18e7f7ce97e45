"""Emitting the one-variable comprehensions (all, exists, exists_one, map, filter) as Python loops, with the
results and errors celext.reference.macros gives, and the cost each step charges."""

from __future__ import annotations

from typing import Any

from celext import values as celvalues
from celext.env import MACRO_FORMS
from celext.plan.core import Block, EmitterCore, call_args
from celext.reference.operations import FREE, ITERATION_COST
from celext.syntax.nodes import Tree

# The macro forms both compiled forms run as loops of their own (one variable, one body); the others run through
# celext.reference.macros (celext.plan.closures `_macro`, which the generated code calls).
ONE_VARIABLE_LOOPS = frozenset({"all", "exists", "exists_one", "existsOne", "map", "filter"})


class LoopEmitter(EmitterCore):
    def _comprehension(self, name: str, node: Tree[Any], block: Block, scope: dict[str, str]) -> str:
        """all / exists / exists_one / map / filter with one iteration variable, as reference.macros runs them:
        a target that is not a list or map is an error (celext.plan.steps.iterable); each step charges the
        budget, then folds the body's value into the result."""
        variable_tree, body_tree = call_args(node)
        variable = str(variable_tree.children[0].children[0])
        target = self.emit(node.children[0], block, scope)
        out, var = self.tmp(), f"v{next(self._ids)}"
        step = comprehension_step_cost(body_tree)
        if type(self.constants.get(target)) in (celvalues.ListType, celvalues.MapType):
            outer = block
        else:
            block.add(f"{out} = rt_iterable({target})")
            block.add(f"if {out} is None:")
            outer = block.inner()
        one = name in ("exists_one", "existsOne")
        if name in ("all", "exists"):
            stop, go = ("TRUE", "FALSE") if name == "exists" else ("FALSE", "TRUE")
            outer.add(f"{out} = {go}")
        else:
            acc = self.tmp()
            outer.add(f"{acc} = {'0' if one else '[]'}")
        outer.add(f"for {var} in {target}:")
        loop = outer.inner()
        self.uses.add("budget")
        loop.add(f"budget.left -= {step}")
        loop.add("if budget.left < 0: rt_cost_exceeded()")
        value = self.emit(body_tree, loop, {**scope, variable: var})
        if name in ("all", "exists"):
            fold = "rt_or" if name == "exists" else "rt_and"
            loop.add(f"if {value} is not {go} and ({value} is {stop} or ({out} := {fold}({out}, {value})) "
                     f"is {stop}): {out} = {stop}; break")
            return out
        if one or name == "filter":
            loop.add(f"if not isinstance({value}, BOOL): {out} = rt_not_bool({value}); break")
            loop.add(f"if {value}: {acc}{' += 1' if one else f'.append({var})'}")
        else:
            loop.add(f"if isinstance({value}, ERROR): {out} = {value}; break")
            loop.add(f"{acc}.append({value})")
        outer.add(f"else: {out} = {'TRUE if ' + acc + ' == 1 else FALSE' if one else f'LIST({acc})'}")
        return out


def comprehension_step_cost(*bodies: Tree[Any]) -> int:
    """What each step of a comprehension with these bodies (a condition and a transform, say) charges the budget."""
    return ITERATION_COST + _size(*bodies)


# Grammar levels and the operator marks under a relation (`relation_eq`, ...): no cost unit of their own.
_UNCOUNTED = FREE | {"relation_lt", "relation_le", "relation_gt", "relation_ge", "relation_eq", "relation_ne",
                     "relation_in"}


def _size(*nodes: Tree[Any]) -> int:
    """Cost units of one evaluation of a comprehension's bodies at most, counted as the reference engine charges
    (one per node that is not a mere grammar level); a nested comprehension's steps are charged by its own
    loop, so only its target counts here. A subtree the body holds several times (a `cel.bind` initialiser at
    each use) counts once: the compiled forms compute it once, as cel-go does."""
    pending, count, seen = list(nodes), 0, set()
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        data = current.data
        if data not in _UNCOUNTED or (data == "const" and isinstance(current.children[0], (list, dict))):
            count += 1  # (a constant list or map: an aggregate)
        children = [c for c in current.children if isinstance(c, Tree)]
        if data == "member_dot_arg" and str(current.children[1]) in MACRO_FORMS:
            children = children[:1]
        pending.extend(children)
    return count
