"""Compile-time cost of celext's type checker and static cost estimator over the corpus expressions.

Prints, from one run on a shared machine, the time per expression of parse (cached parse excluded: cold
parse), AST build + type check, and cost estimate, and their ratios to the parse. Needs ../shared/corpus.
"""

from __future__ import annotations

import time
from pathlib import Path

from ruamel.yaml import YAML

from celext.check.ast import build
from celext.check.checker import check
from celext.cost.estimator import estimate
from celext.syntax.parser import parse as _parse_uncached  # the production parser (celext.parse caches)

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "cel-expressions.yaml"
ROUNDS = 5


def main() -> None:
    if not CORPUS.is_file():
        print(f"skipped: {CORPUS} is absent")
        return
    expressions = [e["expression"] for e in YAML(typ="safe").load(CORPUS.read_text())["expressions"]]
    trees = []
    for text in expressions:
        try:
            trees.append((text, _parse_uncached(text)))
        except Exception:
            continue
    start = time.perf_counter()
    for _ in range(ROUNDS):
        for text, _tree in trees:
            _parse_uncached(text)
    parse_s = time.perf_counter() - start
    start = time.perf_counter()
    checked = []
    for _ in range(ROUNDS):
        checked = [check(build(tree, text)) for text, tree in trees]
    check_s = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(ROUNDS):
        for c in checked:
            if not c.errors:
                estimate(c)
    cost_s = time.perf_counter() - start
    n = len(trees) * ROUNDS
    print(f"{len(trees)} corpus expressions x {ROUNDS} rounds (one run, shared machine)")
    print(f"parse          {parse_s / n * 1e6:8.1f} us/expr  1.00x")
    print(f"build + check  {check_s / n * 1e6:8.1f} us/expr  {check_s / parse_s:.2f}x parse")
    print(f"cost estimate  {cost_s / n * 1e6:8.1f} us/expr  {cost_s / parse_s:.2f}x parse")


if __name__ == "__main__":
    main()
