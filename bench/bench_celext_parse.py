"""Benchmark: the parse stage, before (cel-python's Lark LALR grammar, `celext.syntax.lalr.lark_parse`) and after
(the hand-written parser, `celext.syntax.parser.parse`), and the whole uncached compile (`celext.compile.prepare`).

Two sets: every corpus expression (../shared/corpus/cel-expressions.yaml) and the adversarial expressions of up to
10 KiB of bench_celext_compile (long lists, long operator chains, escapes, deep nesting at cel-go's limit, ...).
Prints p50/p99 per set and the worst adversarial case, in milliseconds of CPU time and as ratios before/after from
this one run.
Targets (issue 14): compile p99 <= 5 ms over the corpus, <= 50 ms for any 10 KiB expression.
Run: .venv/bin/python bench/bench_celext_parse.py   (the corpus set is skipped when ../shared/corpus is absent)
"""

from __future__ import annotations

import contextlib
import importlib
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_celext_compile import adversarial  # the shapes the compile bench times, shared
from ruamel.yaml import YAML

from celext.syntax import grammar, lalr, parser

compile_module = importlib.import_module("celext.compile")
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "cel-expressions.yaml"


def timings(run: Callable[[str], Any], expressions: list[str], repeat: int) -> list[float]:
    out = []
    for expression in expressions:
        best = float("inf")
        for _ in range(repeat):
            start = time.process_time()
            with contextlib.suppress(Exception):  # corpus expressions that fail to compile are workload too
                run(expression)
            best = min(best, time.process_time() - start)
        out.append(best * 1000)
    return out


def uncached_compile(expression: str) -> Any:
    grammar.parse.cache_clear()
    return compile_module.prepare(expression)


def p(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1] if len(values) > 1 else values[0]


def report(title: str, expressions: list[str], repeat: int) -> None:
    lalr.lark_parse("1")  # build the Lark parser outside the timings
    before = timings(lalr.lark_parse, expressions, repeat)
    after = timings(parser.parse, expressions, repeat)
    whole = timings(uncached_compile, expressions, repeat)
    print(f"-- {title}: {len(expressions)} expressions, best of {repeat}")
    for name, values in (("parse before (Lark)", before), ("parse after", after), ("compile after", whole)):
        print(f"  {name:20} p50 {p(values, 50):8.2f} ms   p99 {p(values, 99):8.2f} ms   max {max(values):8.2f} ms")
    print(f"  parse ratio before/after: p50 {p(before, 50) / p(after, 50):.1f}x, "
          f"p99 {p(before, 99) / p(after, 99):.1f}x")


def main() -> None:
    print("timings are this process's CPU time on a machine shared with other jobs: compare the ratios")
    if CORPUS.exists():
        entries = YAML(typ="safe").load(CORPUS.read_text())["expressions"]
        report("corpus", [e["expression"] for e in entries], repeat=5)
    else:
        print(f"corpus set skipped: {CORPUS} is absent", file=sys.stderr)
    cases = adversarial()
    report("adversarial, up to 10 KiB", list(cases.values()), repeat=2)
    whole = timings(uncached_compile, list(cases.values()), repeat=2)
    name, worst = max(zip(cases, whole, strict=True), key=lambda pair: pair[1])
    print(f"  slowest compile: {name} ({worst:.1f} ms)")


if __name__ == "__main__":
    main()
