"""Compile an expression: the stages in order, once per expression text (cel-go's `Env.Compile`).

- `parse_lean()` (celext.syntax.grammar): the parse tree with positions in the collapsed shape both engines walk
  (no single-child grammar levels, literals decoded), cached, and a bound on its height; syntax errors as
  CompileError. Trees higher than `SHALLOW` levels go through the later stages on headroom's deep thread.
- `rewrite()` (celext.syntax.rewrite): `cel.bind` expanded, namespaced calls as dotted global names, in the
  same collapsed shape.
- `refuse()` (celext.syntax.refusals): constructs celext refuses with a reason.
- `typecheck()`: cel-go's type checker in the DRA environment (`celext.check`), on the AST the parser built
  along with the tree (built from the tree when a cached parse handed it out already): undeclared references,
  undefined fields, calls no overload fits, the DRA result-type rule, with cel-go's texts and positions.
- the cost estimate (`celext.cost`): a selector whose estimated maximum exceeds 1,000,000 is refused as the
  API server refuses it (`too complex, exceeds cost limit`).
- `device_paths()` (celext.analysis.paths): the device paths the tree reads, only when asked (`Prepared.paths`:
  the reference engine's memo, `Selector.paths`).
"""

from __future__ import annotations

import time

from msgspec import Struct, field

from celext.analysis.paths import Path, device_paths
from celext.check.ast import BuildError, Expr
from celext.check.checker import CheckedExpr, result_type_error
from celext.check.checker import check as check_types
from celext.check.regex import instantiation_error
from celext.cost import COST_LIMIT, TOO_COSTLY
from celext.cost.estimator import estimate
from celext.errors import CompileError, CostLimitError
from celext.gcpause import gc_paused
from celext.syntax import MAX_LENGTH, RECURSION_LIMIT_EXCEEDED, headroom, parse
from celext.syntax.build import build
from celext.syntax.grammar import parse_lean
from celext.syntax.nodes import Token, Tree
from celext.syntax.parser import Parsed
from celext.syntax.refusals import check_macros, refuse
from celext.syntax.rewrite import rewrite

__all__ = ["MAX_LENGTH", "Laps", "Path", "Prepared", "gc_paused", "lap", "parse", "prepare", "typecheck"]

# Tree levels a walk may meet before it needs more Python frames than the default recursion limit leaves (the
# deepest walks spend about five frames a level): deeper trees are walked on headroom's thread from the start,
# rather than failing with RecursionError part-way and starting over.
SHALLOW = 120

class Prepared(Struct, frozen=True, eq=False):
    """An expression ready for evaluation: the tree both engines walk, the checked AST (every node's type and
    every call's overload ids), the static cost estimate, a bound on the tree's height (walks deeper than
    `SHALLOW` levels run with recursion headroom from the start) and, on demand, the device paths it reads."""

    expression: str
    tree: Tree[Token]
    checked: CheckedExpr | None = None
    cost: tuple[int, int] = (0, 0)
    height: int = 0
    _paths: list[frozenset[Path] | None] = field(default_factory=list)  # device_paths(), on first use

    @property
    def deep(self) -> bool:
        return self.height > SHALLOW

    @property
    def paths(self) -> frozenset[Path] | None:
        """The device paths the expression reads (`celext.analysis.paths`), derived on first use: only the
        reference engine's memo and `Selector.paths` need them."""
        if not self._paths:
            self._paths.append(headroom.deep(device_paths, self.tree) if self.deep else device_paths(self.tree))
        return self._paths[0]


def _position(expression: str, offset: int) -> tuple[int, int]:
    line_start = expression.rfind("\n", 0, offset) + 1
    return expression.count("\n", 0, offset) + 1, offset - line_start + 1


def typecheck(expression: str, tree: Tree[Token], ast: Expr | None = None) -> CheckedExpr:
    """cel-go's checker on the AST the parser built (`ast`; built from the parse tree when None), then the DRA
    compiler's result-type rule; raises CompileError with the first error by position (cel-go lists its errors
    in source order)."""
    try:
        checked = check_types(ast if ast is not None else build(tree, expression))
    except BuildError as err:
        raise CompileError(err.message, line=_position(expression, err.offset)[0],
                           column=_position(expression, err.offset)[1]) from None
    if checked.errors:
        first = min(checked.errors, key=lambda e: e.offset)
        line, column = _position(expression, first.offset)
        raise CompileError(first.message, line=line, column=column)
    problem = result_type_error(checked.output_type)
    if problem is not None:  # the DRA compiler's own check after cel-go's: its text carries no position
        raise CompileError(problem)
    return checked


Laps = dict[str, float]  # stage name -> CPU seconds, filled when a caller asks (bench_celext_compile)


def lap(laps: Laps | None, stage: str, start: float) -> float:
    """Add the CPU time since `start` to `stage` in `laps` (when timing) and return the time now."""
    if laps is None:
        return 0.0
    now = time.process_time()
    laps[stage] = laps.get(stage, 0.0) + now - start
    return now


def prepare(expression: str, *, cost_limit: int = COST_LIMIT, laps: Laps | None = None) -> Prepared:
    """parse + rewrite + check + type check + cost estimate; raises CompileError and nothing else
    (CostLimitError when the estimated maximum cost exceeds `cost_limit`, as the API server refuses such a
    selector). Walks of expressions nested as deep as cel-go allows get recursion headroom. `laps`, when
    given, receives the CPU time of each stage."""
    try:
        start = time.process_time()
        parsed = parse_lean(expression)
        lap(laps, "parse", start)
        if parsed.height > SHALLOW:
            return headroom.deep(_prepare, expression, parsed, cost_limit, laps)
        return headroom.call(_prepare, expression, parsed, cost_limit, laps)
    except CompileError:
        raise
    except RecursionError:
        raise CompileError(RECURSION_LIMIT_EXCEEDED) from None
    except Exception as err:  # a bug in a compile stage must not escape as anything but CompileError
        raise CompileError(f"internal error while compiling: {type(err).__name__}: {err}".splitlines()[0]) from None


def _prepare(expression: str, parsed: Parsed, cost_limit: int, laps: Laps | None) -> Prepared:
    """The stages after parsing, on the parser's lean tree (already in the collapsed shape both engines walk)."""
    start = time.process_time()
    lean = parsed.tree
    tree = rewrite(lean, expression)
    start = lap(laps, "rewrite", start)
    if parsed.refusable or (parsed.macros and tree is not lean):  # a name or construct a refusal may apply to
        refuse(tree, shared=tree is not lean)
    elif parsed.doubtful:  # only macro calls' forms can be refused: the calls whose ASTs did not show them sound
        check_macros(parsed.doubtful, tree)
    start = lap(laps, "refuse", start)
    checked = typecheck(expression, lean, parsed.claim())
    if checked.regex_calls:  # the DRA compiler builds the program (compiling constant patterns) before the cost
        problem = instantiation_error(checked.regex_calls)
        if problem is not None:
            raise CompileError(problem)
    from celext.check import folding  # (constant conversions and indexes the program's construction evaluates)

    problem = folding.instantiation_error(expression, checked.expr)
    if problem is not None:
        raise CompileError(problem)
    start = lap(laps, "check", start)
    cost = estimate(checked)
    lap(laps, "cost", start)
    if cost[1] > cost_limit:
        raise CostLimitError(TOO_COSTLY, cost=cost)
    return Prepared(expression, tree, checked, cost, parsed.height)
