"""Benchmark: the planner's two forms (celext.plan): the generated Python and the compact form (closures,
taken by trees over `celext.plan.COMPACT_NODES` nodes), on selectors around that threshold and on 10 KiB
shapes of bench_celext_compile.py.

Per shape: the tree's node count, the CPU ms to plan it in each form (generating and compiling the source, or
building the closures; median of 3) and the CPU us per evaluation on a wire-form device in each form, with
the compact form's ratio to the generated one. Then the tiers (celext.plan.HOT_CALLS) on the corpus
selectors (../shared/corpus/cel-expressions.yaml, skipped when absent) over corpus devices in wire form: the
mean CPU time to plan a selector in each form, to evaluate it in each form, the evaluations after which the
compact form's extra time equals the cost of generating (the break-even HOT_CALLS is set near), and a
corpus-sized lint's evaluations (a few dozen per selector) planned eagerly against tiered.
One run on a shared machine: read the ratios.
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

import celext
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
    tiers()


CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
LINT_EVALUATIONS = 16  # the median evaluations per selector of a corpus `lint --slices` (docs/celext.md)


def tiers() -> None:
    """The generated and compact forms of the corpus selectors, and what tiering does with them."""
    expressions_file = CORPUS / "cel-expressions.yaml"
    if not expressions_file.is_file():
        print(f"tiers skipped: {expressions_file} is absent", file=sys.stderr)
        return
    import yaml

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_celext import corpus_devices, fleet

    texts = sorted({e["expression"] for e in yaml.safe_load(expressions_file.read_text())["expressions"]})
    prepared = []
    for text in texts:
        try:
            prepared.append(compile_module.prepare(text))
        except celext.CompileError:  # a corpus selector that does not compile: not planned
            continue
    devices = fleet(corpus_devices())[:1000]
    plan_ms, eval_us = {}, {}
    for compact in (False, True):
        best_plan, best_eval = float("inf"), float("inf")
        for _ in range(3):  # best of 3 rounds, forms interleaved round by round
            start = time.process_time()
            functions = [celext.plan.plan(p, compact=compact).function for p in prepared]
            best_plan = min(best_plan, (time.process_time() - start) / len(prepared) * 1000)
            start = time.process_time()
            for function in functions:
                for device, driver in devices:
                    function(device, driver, 1_000_000)
            best_eval = min(best_eval, (time.process_time() - start) / len(prepared) / len(devices) * 1e6)
        plan_ms[compact], eval_us[compact] = best_plan, best_eval
    extra = eval_us[True] - eval_us[False]
    even = (plan_ms[False] - plan_ms[True]) * 1000 / extra if extra > 0 else float("inf")
    eager = plan_ms[False] + LINT_EVALUATIONS * eval_us[False] / 1000
    tiered = plan_ms[True] + LINT_EVALUATIONS * eval_us[True] / 1000
    print(f"tiers, {len(prepared)} corpus selectors x {len(devices)} corpus devices (mean per selector):")
    print(f"  plan: generated {plan_ms[False]:.3f} ms, compact {plan_ms[True]:.3f} ms "
          f"({plan_ms[False] / plan_ms[True]:.0f}x)")
    print(f"  evaluate: generated {eval_us[False]:.2f} us, compact {eval_us[True]:.2f} us "
          f"({eval_us[True] / eval_us[False]:.1f}x)")
    print(f"  break-even: {even:.0f} evaluations (HOT_CALLS = {celext.plan.HOT_CALLS})")
    print(f"  a selector evaluated {LINT_EVALUATIONS} times: eager {eager:.3f} ms, tiered {tiered:.3f} ms "
          f"({eager / tiered:.1f}x)")


if __name__ == "__main__":
    main()
