"""Pure helpers of the mutation run (no mutmut import, so `make test` checks them): in which order a mutant's
tests run and which of them fit the time budget, what the kill log says about likely killers, and the confidence
interval of a sampled score."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

SAME_FUNCTION, SAME_MODULE, UNPROVEN = 0, 1, 2  # what a test has killed before, best first


def module_of(mutant_name: str) -> str:
    """`celext.plan.emit.xǁEmitterǁ_call__mutmut_3` -> `celext.plan.emit` (mutmut's `x_`/`xǁ` function prefix)."""
    return re.split(r"\.x[_ǁ]", mutant_name, maxsplit=1)[0]


def function_of(mutant_name: str) -> str:
    """`celext.plan.emit.xǁEmitterǁ_call__mutmut_3` -> `celext.plan.emit.xǁEmitterǁ_call`."""
    return mutant_name.rpartition("__mutmut_")[0]


@dataclass(frozen=True)
class Killers:
    """Tests that killed earlier mutants (the kill log), counted per mutated function and per module."""

    by_function: Mapping[str, Counter[str]] = field(default_factory=dict)
    by_module: Mapping[str, Counter[str]] = field(default_factory=dict)

    def rank(self, mutant_name: str, test: str) -> tuple[int, int]:
        """(how close a mutant this test killed before, minus how many it killed): the lower, the likelier."""
        return self.ranker(mutant_name)(test)

    def ranker(self, mutant_name: str) -> Callable[[str], tuple[int, int]]:
        """`rank` for one mutant, its function's and module's tables looked up once (a child ranks thousands)."""
        tables = ((SAME_FUNCTION, self.by_function.get(function_of(mutant_name), Counter())),
                  (SAME_MODULE, self.by_module.get(module_of(mutant_name), Counter())))

        def rank(test: str) -> tuple[int, int]:
            for level, kills_by_test in tables:
                kills = kills_by_test[test]
                if kills:
                    return level, -kills
            return UNPROVEN, 0

        return rank


def read_kills(lines: Iterable[str], module: str) -> Killers:
    """The kill log's lines (`mutant<TAB>test`) for mutants of `module`; other modules' kills are not read."""
    by_function: dict[str, Counter[str]] = {}
    by_module: Counter[str] = Counter()
    prefix = f"{module}.x"  # every mutant name of the module starts so: other modules' lines skip the regex
    for line in lines:
        if not line.startswith(prefix):
            continue
        mutant, _, test = line.rstrip("\n").partition("\t")
        if not test or module_of(mutant) != module:
            continue
        by_function.setdefault(function_of(mutant), Counter())[test] += 1
        by_module[test] += 1
    return Killers(by_function, {module: by_module} if by_module else {})


def budgeted(
    tests: Iterable[str], durations: Mapping[str, float], budget: float, mutant: str = "",
    first: Sequence[str] = (), *, killers: Killers | None = None, reach: Mapping[str, int] | None = None,
) -> tuple[list[str], bool]:
    """`tests` in the order to run them, cut once their durations add up to more than `budget` seconds (at least
    one test is kept; 0 means no cut), and whether any were cut.

    Likely killers first, as PIT and Stryker order them: tests that killed a sibling mutant of the same function
    (most kills first), then ones that killed another mutant of the same module. Then the tests of the mutated
    module's own test file (`celext.lib.operators` -> `test_operators*.py`), then those in the files named by
    `first` (a package's own tables), then the rest. Within each group, tests that reach few of the package's
    functions (`reach`, by powers of two: specific unit and table tests) come before broad sweeps, and then the
    fastest first (by measured duration, unmeasured last): otherwise a thousand 2 ms tests that merely reach a
    function spend the budget before a 20 ms table row that checks it."""
    module = module_of(mutant) if mutant else ""
    own = f"test_{module.rpartition('.')[2]}" if module else None
    spread = reach or {}
    rank = (killers or Killers()).ranker(mutant) if mutant else None

    def order(name: str) -> tuple[int, int, int, int, float, str]:
        path = name.split("::", maxsplit=1)[0]
        stem = path.rpartition("/")[2]
        group = 0 if own is not None and stem.startswith(own) else 1 if path in first else 2
        level, kills = rank(name) if rank else (UNPROVEN, 0)
        return (level, kills, group, spread.get(name, 0).bit_length(), durations.get(name, math.inf), name)

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


def reach_by_test(tests_by_function: Mapping[str, Iterable[str]]) -> dict[str, int]:
    """How many of the package's mutated functions each test reaches (from mutmut's statistics)."""
    counts: Counter[str] = Counter()
    for tests in tests_by_function.values():
        counts.update(set(tests))
    return dict(counts)


def wilson(killed: int, counted: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (95 % for z = 1.96) of a package's kill rate, from a sample of its mutants."""
    if not counted:
        return 0.0, 1.0
    p = killed / counted
    centre = (p + z * z / (2 * counted)) / (1 + z * z / counted)
    half = z * math.sqrt(p * (1 - p) / counted + z * z / (4 * counted * counted)) / (1 + z * z / counted)
    return max(0.0, centre - half), min(1.0, centre + half)
