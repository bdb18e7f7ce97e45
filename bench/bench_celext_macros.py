"""Benchmark: the macro forms in the compiled engine against the reference engine.

Every macro form runs in the compiled engine: the one-variable loops as generated Python (or the compact form's
own loops), the others (two variables, a condition, the transforms, sortBy) through the compact form's loop,
which the generated form calls (celext.plan.closures `_macro`). Before, the compiled engine handed those to the
reference engine, at its ~5 us per cost unit. Each line: one selector Kubernetes accepts (estimated under
1,000,000), `Selector.evaluate()` on one wire-form device as callers pass it, CPU time per evaluation (best of
ROUNDS) in the generated and the compact form, and the reference engine's time as a multiple of the generated
form's. `map()` is there as the loop that
was always native. Read the figures as ratios from one run: the machine may be shared.
Run: .venv/bin/python bench/bench_celext_macros.py
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import celext
import celext.plan
from celext.compile import prepare
from celext.selector import Selector

ROUNDS = 3
DEVICE = {"name": "d", "attributes": {"n": {"int": 3}}}
INNER = "lists.range(200).filter(x, x > v).size()"
SELECTORS = {
    "map(v, ...) (native before)": f"lists.range(200).map(v, {INNER}).size() > 0",
    "transformList(i, v, ...)": f"lists.range(200).transformList(i, v, {INNER}).size() > 0",
    "transformList(i, v, filter, ...)": f"lists.range(200).transformList(i, v, v % 2 == 0, {INNER}).size() > 0",
    "transformMap(i, v, ...)": f"lists.range(200).transformMap(i, v, {INNER}).size() > 0",
    "all(i, v, ...) over exists(j, w, ...)":
        "lists.range(100).all(i, v, lists.range(100).exists(j, w, w == v + i) || v + i >= 100)",
    "map(v, filter, ...)": f"lists.range(200).map(v, v % 2 == 0, {INNER}).size() > 0",
    "sortBy(x, -x), 300 elements": "lists.range(300).sortBy(x, -x)[0] == 299",
}


def best(run: Callable[[], object]) -> float:
    times = []
    for _ in range(ROUNDS):
        started = time.process_time()
        run()
        times.append(time.process_time() - started)
    return min(times)


def selector(text: str, *, compact: bool) -> Selector:
    """The compiled selector as `celext.compile` makes it, in the form asked for from its first evaluation (the
    compact form runs a selector's first HOT_CALLS evaluations; the generated form the rest)."""
    saved = celext.plan.COMPACT_NODES, celext.plan.HOT_CALLS
    celext.plan.COMPACT_NODES, celext.plan.HOT_CALLS = (-1, saved[1]) if compact else (saved[0], 0)
    try:
        return Selector(prepare(text))
    finally:
        celext.plan.COMPACT_NODES, celext.plan.HOT_CALLS = saved


def main() -> int:
    print(f"macro forms, CPU ms per Selector.evaluate() of a wire-form device (best of {ROUNDS}); "
          "reference / generated")
    for label, text in SELECTORS.items():
        generated, compact = selector(text, compact=False), selector(text, compact=True)
        reference = celext.compile(text, engine="reference")
        runs = [functools.partial(s.evaluate, DEVICE, "d") for s in (generated, compact, reference)]
        answers = {run() for run in runs}
        if len(answers) != 1:
            print(f"  {label}: the engines disagree: {answers}")
            return 1
        took = [best(run) for run in runs]
        print(f"  {label:40} generated {took[0] * 1000:8.1f}  compact {took[1] * 1000:8.1f}  "
              f"reference {took[2] * 1000:8.1f}  {took[2] / took[0]:5.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
