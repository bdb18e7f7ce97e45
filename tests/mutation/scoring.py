"""Pure helpers of the mutation run (no mutmut import, so `make test` checks them): which of a mutant's tests
run within the time budget, and the confidence interval of a sampled score."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence


def budgeted(
    tests: Iterable[str], durations: Mapping[str, float], budget: float, module: str = "",
    first: Sequence[str] = (),
) -> tuple[list[str], bool]:
    """`tests` in the order to run them, cut once their durations add up to more than `budget` seconds (at least
    one test is kept; 0 means no cut), and whether any were cut. The tests of the mutated module's own test file
    (`celext.lib.operators` -> `test_operators*.py`) come first, then the rest; each group fastest first (by
    measured duration, unmeasured last): a function that hundreds of tests reach is checked by its own tests
    before the budget is spent on the cheapest of the others. Tests in the files named by `first` (a package's
    own tables) come next, before the rest: a thousand 2 ms tests that cannot tell a planner mutant apart would
    otherwise spend the budget before a 20 ms table row that can."""
    own = f"test_{module.rpartition('.')[2]}" if module else None

    def order(name: str) -> tuple[int, float, str]:
        path = name.split("::", maxsplit=1)[0]
        stem = path.rpartition("/")[2]
        group = 0 if own is not None and stem.startswith(own) else 1 if path in first else 2
        return (group, durations.get(name, math.inf), name)

    ordered = sorted(tests, key=order)
    if budget <= 0:
        return ordered, False
    kept: list[str] = []
    spent = 0.0
    for name in ordered:
        spent += durations.get(name, math.inf)
        if kept and spent > budget:
            break
        kept.append(name)
    return kept, len(kept) < len(ordered)


def wilson(killed: int, counted: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (95 % for z = 1.96) of a package's kill rate, from a sample of its mutants."""
    if not counted:
        return 0.0, 1.0
    p = killed / counted
    centre = (p + z * z / (2 * counted)) / (1 + z * z / counted)
    half = z * math.sqrt(p * (1 - p) / counted + z * z / (4 * counted * counted)) / (1 + z * z / counted)
    return max(0.0, centre - half), min(1.0, centre + half)
