"""The estimator's short paths (calls with one overload whose rule reads nothing, and `cost_compare`: binary
operators whose overloads' cost rules read only the operands' sizes or nothing) give exactly the (min, max) the
general path gives: the same expressions are estimated with the short paths turned off and compared."""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from celext.compile import prepare
from celext.cost import estimator
from celext.errors import CompileError, CostLimitError

A = 'device.attributes["dra.example.com"]'
CORPUS = Path(__file__).resolve().parents[4] / "shared" / "corpus" / "cel-expressions.yaml"
EXPRESSIONS = [
    'device.driver == "a"',
    'device.driver != "gpu.example.com"',
    f'{A}.name == "fish"',
    f"{A}.name > 0",  # dyn > int: every ordering overload applies
    f"{A}.name >= {A}.other",  # dyn, dyn
    f"{A}.name < 'abc'",
    f"{A}.names.all(x, x > 0 && x <= 10)",
    f"{A}.names.exists(x, x == 'a' || x != 'b')",
    'device.capacity["d"].mem == quantity("1Gi")',  # Kubernetes' O(1) equality of its own types
    'device.capacity["d"].mem != quantity("1Gi")',  # (`!=` is not: a size comparison)
    f'{A}.version == semver("1.0.0")',
    f'semver("1.0.0") == {A}.version',
    f"{A}.name == {A}.other",
    '"abc" < "abd" && b"a" < b"b" && 1u < 2u && 1.5 > 0.5',
    "[1, 2] == [1, 2] && {'a': 1} == {'a': 2}",
    f"{A}.s + 'x' == 'yx'",
    f"{A}.l + [1] == [1]",
    f"1 + 2 * 3 - {A}.n / 4 % 5 > 0",
    f"{A}.s.size() == 3",
    f"{A}.names.map(x, x + 1).filter(y, y > 2).size() > 0",
    f"cel.bind(s, {A}.s, s == 'a' || s < 'b')",
    f"[{A}.a, {A}.b].all(x, x == 'p')",
    "duration('1s') < duration('2s') && timestamp('2020-01-01T00:00:00Z') > timestamp('2019-01-01T00:00:00Z')",
]


def _estimate(expression: str) -> tuple[int, int] | str:
    """The estimate as compiling finds it, or the compile error (corpus expressions that do not compile)."""
    try:
        return prepare(expression).cost
    except CostLimitError as err:
        return err.cost
    except CompileError as err:
        return err.message


def _expressions() -> list[str]:
    found = list(EXPRESSIONS)
    if CORPUS.is_file():
        found += [e["expression"] for e in YAML(typ="safe").load(CORPUS.read_text())["expressions"]]
    return found


def test_short_path_is_taken() -> None:
    taken: list[str] = []
    original = estimator._Coster.cost_compare

    def spy(self: estimator._Coster, e: object, *args: object) -> object:
        taken.append(getattr(e, "function", ""))
        return original(self, e, *args)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(estimator._Coster, "cost_compare", spy)
        _estimate(f"{A}.name > 0 && device.driver == 'a'")
    assert sorted(taken) == ["_==_", "_>_"]


def test_short_path_estimates_as_the_general_path() -> None:
    expressions = _expressions()
    short = [_estimate(e) for e in expressions]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(estimator, "_COMPARES", frozenset())
        patch.setattr(estimator, "_PLAIN", frozenset())
        general = [_estimate(e) for e in expressions]
    assert sum(isinstance(s, tuple) for s in short) >= len(EXPRESSIONS)
    differing = [(e, s, g) for e, s, g in zip(expressions, short, general, strict=True) if s != g]
    assert differing == []
