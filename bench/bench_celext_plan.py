"""Benchmark: the planner's two forms (celext.plan): the generated Python and the compact form (closures,
taken by trees over `celext.plan.COMPACT_NODES` nodes), on selectors around that threshold and on 10 KiB
shapes of bench_celext_compile.py.

Per shape: the tree's node count, the CPU ms to plan it in each form (generating and compiling the source, or
building the closures; median of 3) and the CPU us per evaluation on a wire-form device in each form, with
the compact form's ratio to the generated one. One run on a shared machine: read the ratios.
Run: .venv/bin/python bench/bench_celext_plan.py
"""

from __future__ import annotations

import importlib
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import celext.plan

compile_module = importlib.import_module("celext.compile")
EVALUATIONS = 300
DEVICE = {"attributes": {**{f"a{i}": {"int": 0} for i in range(300)}, "l": {"ints": [1, 2, 3]}, "n": {"int": 2}}}


def _fill(joiner: str, part: str, limit: int) -> str:
    count = (limit + len(joiner)) // (len(part) + len(joiner))
    return joiner.join(part.format(i=i) for i in range(count))


SHAPES = {
    "50 attribute reads": _fill(" || ", 'device.attributes["d.io"].a{i} == 1', 1950),
    "12 macros": _fill(" && ", 'device.attributes["d.io"].l.all(x, x > 0)', 540),
    "40 driver tests": _fill(" && ", 'device.driver == "d.io"', 1070),
    "40 nested ternaries": "device.allowMultipleAllocations ? false : " * 40 + "true",
    "10 KiB attribute reads": _fill(" || ", 'device.attributes["d.io"].a{i} == 1', 10240),
    "10 KiB macros": _fill(" && ", 'device.attributes["d.io"].l.all(x, x > 0)', 10240),
}


def _nodes(tree: Any) -> int:
    low, high = 1, 1
    while celext.plan.larger_than(tree, high):
        low, high = high, high * 2
    while low < high:
        middle = (low + high) // 2
        low, high = (middle + 1, high) if celext.plan.larger_than(tree, middle) else (low, middle)
    return low


def main() -> None:
    print("CPU time, one run on a machine shared with other jobs: compare the ratios")
    print(f"{'shape':24} {'nodes':>6} {'plan generated':>15} {'plan compact':>13} {'eval generated':>15} "
          f"{'eval compact':>13} {'compact/generated':>18}")
    for name, text in SHAPES.items():
        prepared = compile_module.prepare(text)
        plans, evals = {}, {}
        for compact in (False, True):
            times = []
            for _ in range(3):
                start = time.process_time()
                function = celext.plan.plan(prepared, compact=compact).function
                times.append((time.process_time() - start) * 1000)
            plans[compact] = statistics.median(times)
            start = time.process_time()
            for _ in range(EVALUATIONS):
                function(DEVICE, "d.io", 1_000_000)
            evals[compact] = (time.process_time() - start) / EVALUATIONS * 1e6
        print(f"{name:24} {_nodes(prepared.tree):6} {plans[False]:12.2f} ms {plans[True]:10.2f} ms "
              f"{evals[False]:12.1f} us {evals[True]:10.1f} us {evals[True] / evals[False]:17.1f}x")
    print(f"trees over {celext.plan.COMPACT_NODES} nodes take the compact form")


if __name__ == "__main__":
    main()
