"""The compiled engine: each prepared selector becomes one Python function, generated as source text and
compiled with `compile()` (as fastjsonschema and jinja2 turn schemas and templates into Python).

    plan(prepared) -> Plan        Plan.function(device, driver, cost_limit) -> CEL value (or a CELEvalError value)

The function reads the wire-form `spec.devices[i]` dict (v1, or v1beta1 with `basic`) directly: constant
device paths are dict lookups, and only the entries read are decoded (celext.runtime.wire). The caller checks
the device once with `celext.runtime.verdict.device_error` (Kubernetes fails every selector on a device it
cannot convert). Values and operations are the reference engine's (celext.runtime.ops), so both engines give
the same results and error texts; where the type checker resolves an overload that has a code template in the
overload table, the template is inlined behind a class guard (celext.plan.typed). Cost: each comprehension
step charges the budget the iteration cost plus the size of its body (an upper bound of what the reference
engine charges per visited node); straight-line code is bounded by the expression size and is not metered.

Tiers. Generating and compiling a corpus selector's source costs ~0.35 ms, ~15x building its compact form
(celext.plan.closures: one closure per node, no source), which evaluates ~3x slower (~4.3 us against ~1.5 us
per device; bench_celext_plan.py). Most selectors a CLI run or an admission request compiles are evaluated a
few dozen times or never, so a selector starts in the compact form and its source is generated and compiled
on its HOT_CALLS-th evaluation (when the compact form's extra time has caught up with the cost of compiling:
the ski-rental rule, at most twice the better of the two choices made in hindsight). A tree of more than
COMPACT_NODES nodes stays compact: Python's `compile()` of a large expression's source alone would take tens
of milliseconds. Its `Plan.source` is still the Python the generator emits for the tree, generated (not
compiled) on first access, under a first line saying the compact form runs instead.
"""

from __future__ import annotations

import logging
import re
import sys
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

from celext import values as celvalues
from celext.compile import Laps, Prepared, lap
from celext.lib import optional_value as optional
from celext.plan import closures, overloads, steps
from celext.plan.emit import PARAMS, Block, Emitter
from celext.plan.typed import Typed
from celext.runtime import ops, wire
from celext.shield import Shield
from celext.syntax import headroom
from celext.syntax.nodes import Tree
from celext.values import CELEvalError

__all__ = ["COMPACT_HEADER", "COMPACT_NODES", "HOT_CALLS", "Plan", "generate", "larger_than", "namespace", "plan"]

T = TypeVar("T")
log = logging.getLogger(__name__)
Function = Callable[[Any, str, int], Any]  # (wire device, driver, cost limit) -> CEL value or error value

_RUNTIME: dict[str, Any] = {
    "BUDGET": ops.Budget, "BOOL": celvalues.BoolType, "TRUE": ops.TRUE, "FALSE": ops.FALSE, "ERROR": CELEvalError,
    "LIST": celvalues.ListType, "MAP": celvalues.MapType, "STRING": celvalues.StringType, "NEW_STR": str.__new__,
    "ABSENT": wire.ABSENT, "OPT_NONE": optional.NONE, "OPT_OF": optional.of,
    "rt_body": wire.body, "rt_entries": wire.entries, "rt_lookup": wire.lookup, "rt_attribute": wire.attribute,
    "rt_capacity": wire.capacity, "rt_arith": ops.arith, "rt_unary": ops.unary,
    "rt_select": ops.select, "rt_index": ops.index, "rt_invoke": ops.invoke, "rt_make_list": ops.make_list,
    "rt_subtree": ops.subtree, "FRAME": closures.Frame, "rt_no_key": ops.no_key, "rt_no_overload": ops.no_overload,
    "rt_not_iterable": ops.not_iterable, "rt_cost_exceeded": ops.cost_exceeded,
    "INT": celvalues.IntType, "NEW_INT": int.__new__, "UINT": celvalues.UintType, "DOUBLE": celvalues.DoubleType,
    "rt_includes": ops.includes, "rt_includes_raw": wire.includes, "rt_impl_error": overloads.impl_error,
    "rt_converted": wire.converted, "rt_has_domain": wire.has_domain,
    "rt_and": steps.and_step, "rt_or": steps.or_step, "rt_not_bool": steps.not_bool, "rt_iterable": steps.iterable,
}


class Plan:
    """One compiled selector: the function it runs and its Python source. The compact form keeps no source:
    `source` generates it on first access (not compiled; kept afterwards). `compact`: does the function run in
    the compact form (closures) rather than compiled source, now?"""

    __slots__ = ("__weakref__", "_prepared", "_source", "_tiered", "compact", "expression", "function")

    def __init__(self, expression: str, function: Function, source: str | None = None, *,
                 prepared: Prepared | None = None, tiered: bool = False) -> None:
        """With `source`, the function runs it; else it is the compact form of `prepared`, promoted by
        `promote()` when `tiered`."""
        self.expression, self.function, self._source = expression, function, source
        self.compact = source is None
        self._prepared, self._tiered = prepared, tiered

    @property
    def source(self) -> str:
        """The generated Python: what runs once the selector is hot (a tiered plan's, without a header), or
        what a compact form that stays so stands for (under COMPACT_HEADER)."""
        if self._source is None:
            assert self._prepared is not None
            text = generate(self._prepared)[0]
            self._source = text if self._tiered else COMPACT_HEADER + text  # two threads: the same text
        return self._source

    def promote(self) -> None:
        """Generate and compile the source now and run it from here on (a tiered plan's HOT_CALLS-th
        evaluation calls this). Two threads may both compile it: the same function. Should the generator
        fail (a bug), the compact form, which gives the same answers, goes on running, for good, and the
        failure is logged."""
        prepared = self._prepared
        if not self._tiered or prepared is None:
            return
        self._tiered = False
        try:
            function, source = _generated(prepared, None)
        except Exception:  # a bug in the generator: the compact form stays correct
            log.exception("celext: could not compile the generated form of %r; the compact form goes on",
                          self.expression[:200])
            self._source = None  # generated again on access, under the compact form's header
            return
        self.function, self._source, self.compact, self._prepared = function, source, False, None

    @property
    def size(self) -> int:
        """Approximate bytes held (source, code objects and constants), for the compile cache's budget; the
        compact form is weighed by its expression until its source is generated on demand."""
        source = 16 * len(self.expression) if self._source is None else len(self._source)
        return 4 * source + 64 * len(self.expression) + 2048


_DEEP_LOCK = threading.Lock()
DEEP_RECURSION_LIMIT = 20_000  # the emitter recurses a few frames per tree level; cel-go allows 250 levels


def _emit(prepared: Prepared) -> tuple[Emitter, list[str]]:
    emitter = Emitter(typed=Typed.of(prepared.checked))
    lines: list[str] = []
    body = Block(lines, 1)
    result = emitter.emit(prepared.tree, body, {})
    body.add(f"return {result}")
    return emitter, lines


def _deep(walk: Callable[[Any], T], tree: Any) -> T:
    """A walk of a tree deeper than Python's default recursion limit allows: the limit is raised while it
    runs (Python-to-Python calls use no C stack in CPython 3.11) and put back afterwards."""
    with _DEEP_LOCK, Shield() as shield:  # the limit is put back whatever interrupts the walk (celext.shield)
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, DEEP_RECURSION_LIMIT))
        try:
            with shield.open():
                return headroom.roomy(walk, tree)
        finally:
            sys.setrecursionlimit(old)


# A tree holds a subtree twice only where the rewrite substituted a `cel.bind` initialiser at its uses: without
# the word in the text, the compact form skips the search for shared subtrees (half of planning a long chain).
_BIND = re.compile(r"\bbind\b")


def larger_than(tree: Tree[Any], nodes: int) -> bool:
    """Has the tree more than `nodes` nodes? (counts no further than that)"""
    pending, count = [tree], 0
    while pending:
        node = pending.pop()
        count += 1
        if count > nodes:
            return True
        pending.extend(c for c in node.children if isinstance(c, Tree))
    return False


def plan(prepared: Prepared, laps: Laps | None = None, *, compact: bool | None = None) -> Plan:
    """The selector's function: by default tiered (the compact form, celext.plan.closures, until the
    HOT_CALLS-th evaluation, then the generated and compiled source), or compact for good when the tree has
    more than COMPACT_NODES nodes; `compact` forces either form from the start (False: generated and compiled
    now). `laps`, when given, receives the CPU time of generating the source or building the closures
    (`plan`) and of Python's `compile()` (`py compile`) done here."""
    tiered = compact is None and HOT_CALLS > 0
    if compact is None:
        compact = larger_than(prepared.tree, COMPACT_NODES)
        tiered = tiered and not compact
    if not compact and not tiered:
        function, source = _generated(prepared, laps)
        return Plan(prepared.expression, function, source)
    start = time.process_time()
    try:
        build = closures.build if _BIND.search(prepared.expression) else closures.build_unshared
        run = _deep(build, prepared.tree) if prepared.deep else build(prepared.tree)
    except RecursionError:  # a safety net, as for the generated form
        run = _deep(build, prepared.tree)
    lap(laps, "plan", start)
    if not tiered:
        return Plan(prepared.expression, _compact_function(run), prepared=prepared)
    planned = Plan(prepared.expression, _compact_function(run), prepared=prepared, tiered=True)
    held = weakref.ref(planned)  # not the plan itself: its function would hold it in a cycle until promoted

    def hot() -> None:
        live = held()
        if live is not None:
            live.promote()

    planned.function = _compact_function(run, hot)
    return planned


def _generated(prepared: Prepared, laps: Laps | None) -> tuple[Function, str]:
    """The selector's generated function and its source (`laps`: the `plan` and `py compile` CPU times)."""
    start = time.process_time()
    source, constants = generate(prepared)
    scope = namespace(constants)
    start = lap(laps, "plan", start)
    code = compile(source, f"<celext selector {prepared.expression[:60]!r}>", "exec")
    lap(laps, "py compile", start)
    exec(code, scope)
    assert PARAMS[0] == "device"
    return scope["evaluate"], source


def generate(prepared: Prepared) -> tuple[str, dict[str, Any]]:
    """The selector's generated Python (defining `evaluate(device, driver, limit)`) and the constants it
    reads besides the runtime names (celext.plan._RUNTIME)."""
    if prepared.deep:  # sized up front from the parser's height bound: no failed first run
        emitter, lines = _deep(_emit, prepared)
    else:
        try:
            emitter, lines = _emit(prepared)
        except RecursionError:  # a safety net only: the height bound is meant to send such trees above
            emitter, lines = _deep(_emit, prepared)
    header = ["def evaluate(device, driver, limit):",
              "    B = device.get('basic') or device if type(device) is dict else rt_body(device)",
              "    if type(B) is not dict:",
              "        B = rt_body(device)",
              f"    budget = {'BUDGET(limit)' if 'budget' in emitter.uses else 'None'}"]
    parts = ["\n".join(f) for f in emitter.functions] + ["\n".join(header + lines)]
    return "\n\n".join(parts) + "\n", emitter.constants


def namespace(constants: dict[str, Any]) -> dict[str, Any]:
    """The globals generated source runs with: the runtime names and the selector's constants."""
    return {**_RUNTIME, **constants}


# Trees larger than this take the compact form: generating and compiling the source of a tree this size takes
# up to about 5 ms on a quiet machine, and evaluates 1.5-3x faster than the compact form; the corpus's largest
# selector has 107 nodes.
COMPACT_NODES = 400
# Evaluations a selector of at most COMPACT_NODES nodes runs in the compact form before its source is generated
# and compiled: ~0.35 ms of generating and compiling a corpus selector, against ~2.8 us more per evaluation in
# the compact form, break even after ~110 evaluations (bench_celext_plan.py). 0: generate when planned.
HOT_CALLS = 128
# The first line of a compact-form selector's `source`.
COMPACT_HEADER = ("# runs in the compact form (one closure per node, celext.plan.closures), not as this Python; "
                  "the differential test checks that both forms give the same answers\n")


def _compact_function(run: closures.Run, hot: Callable[[], None] | None = None) -> Function:
    """The compact form's function; with `hot`, one that calls `hot()` on its HOT_CALLS-th evaluation (the
    count is not locked: a lost increment only delays the promotion)."""
    def evaluate(device: Any, driver: str, limit: int) -> Any:
        body = device.get("basic") or device if type(device) is dict else wire.body(device)
        if type(body) is not dict:
            body = wire.body(device)
        return run(closures.Frame(device, driver, body, ops.Budget(limit)))

    if hot is None:
        return evaluate
    calls = 0

    def counted(device: Any, driver: str, limit: int) -> Any:
        nonlocal calls
        calls += 1
        if calls == HOT_CALLS:
            hot()
        return evaluate(device, driver, limit)
    return counted
