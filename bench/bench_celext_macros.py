"""Benchmark: the macro forms in the compiled engine against the reference engine.

Every macro form runs in the compiled engine: the one-variable loops as generated Python (or the compact form's
own loops), the others (two variables, a condition, the transforms, sortBy) through the compact form's loop,
which the generated form calls (celext.plan.closures `_macro`). Before, the compiled engine handed those to the
reference engine, at its ~5 us per cost unit. Each line: one selector Kubernetes accepts (estimated under
1,000,000), evaluated on one device, CPU time per evaluation (best of ROUNDS) in the generated and the compact
form, and the reference engine's time as a multiple of the generated form's. `map()` is there as the loop that
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
from celext.compile import prepare
from celext.plan import plan

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


def main() -> int:
    print(f"macro forms, CPU ms per evaluation (best of {ROUNDS}); reference / generated")
    for label, text in SELECTORS.items():
        prepared = prepare(text)
        generated = plan(prepared, compact=False).function
        compact = plan(prepared, compact=True).function
        reference = celext.compile(text, engine="reference")
        answers = {bool(generated(DEVICE, "d", 1_000_000)), bool(compact(DEVICE, "d", 1_000_000)),
                   reference.evaluate(DEVICE, "d")}
        if len(answers) != 1:
            print(f"  {label}: the engines disagree: {answers}")
            return 1
        took = [best(lambda f=f: f(DEVICE, "d", 1_000_000)) for f in (generated, compact)]
        slow = best(functools.partial(reference.evaluate, DEVICE, "d"))
        print(f"  {label:40} generated {took[0] * 1000:8.1f}  compact {took[1] * 1000:8.1f}  "
              f"reference {slow * 1000:8.1f}  {slow / took[0]:5.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
