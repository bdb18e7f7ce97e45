"""`==` / `!=` across types as cel-go v0.26 and Kubernetes answer them, on both engines and both compiled forms.

Upstream sources (read, not copied):
- cel-go common/types/util.go `Equal`: null on either side is decided first (`Bool(lNull == rNull)`), then the
  LEFT operand's `Equal` answers;
- cel-go interpreter/interpretable.go `evalEq.Eval` / `evalNe.Eval`: an operand's error is the result; `!=` is
  `types.Bool(types.Equal(l, r) != types.True)`, so an error from `Equal` makes `!=` true;
- Kubernetes staging/src/k8s.io/apiserver/pkg/cel/semver.go `Semver.Equal`: another type is
  `types.MaybeNoSuchOverloadErr(other)` (`no such overload`);
- Kubernetes staging/src/k8s.io/apiserver/pkg/cel/quantity.go `Quantity.Equal`: another type is `types.False`;
- cel-go common/types/{int,double,string,bool}.go `Equal`: another type is false;
- cel-go common/types/list.go `baseList.Equal` and map.go `baseMap.Equal`: unequal only when an element pair's
  `Equal` is `False`; an element pair's error is passed over (a list literal is a baseList);
- cel-go common/types/list.go `baseList.Add` / `concatList.Equal`: `a + b` of two non-empty lists is a
  concatList, whose `Equal` answers the first element pair's error when no pair is false (an empty operand
  gives the other list itself);
- cel-go common/types/optional.go `Optional.Equal`: false for another type, empty equals empty only, else the two
  values' own `Equal` (so a semver inside answers `no such overload`, which a list passes over).
"""

from __future__ import annotations

from typing import Any

import pytest

from celext.compile import prepare
from celext.cost import COST_LIMIT
from celext.plan import plan
from celext.values import CELEvalError
from tests.celext.lib.engines import ENGINES
from tests.celext.outcome import outcome

A = 'device.attributes["d.io"]'
C = 'device.capacity["d.io"]'
DEVICE: dict[str, Any] = {
    "name": "x",
    "attributes": {"n": {"int": 1}, "v": {"version": "1.0.0"}, "s": {"string": "a"}},
    "capacity": {"m": {"value": "1"}},
}

CASES = [
    # semver on the left: Semver.Equal -> no such overload; != is then true (evalNe)
    (f"{A}.v == {A}.s", "eval: no such overload"),
    (f"{A}.v != {A}.s", True),
    (f"{A}.v == {A}.n", "eval: no such overload"),
    (f"{A}.v != {A}.n", True),
    (f"{A}.v == dyn({C}.m)", "eval: no such overload"),
    (f"{A}.v == {A}.v && !({A}.v != {A}.v)", True),
    # another type on the left: its Equal is false
    (f"{A}.n == {A}.v", False),
    (f"{A}.n != {A}.v", True),
    (f"{A}.s == {A}.v", False),
    (f"dyn(true) == {A}.v", False),
    (f"dyn(1.0) == dyn({C}.m)", False),
    # quantity on the left: Quantity.Equal is MaybeNoSuchOverloadErr for another type (apiserver pkg/cel/quantity.go)
    (f"dyn({C}.m) == dyn(1)", "eval: no such overload"),
    (f"dyn({C}.m) != dyn(1)", True),
    (f"dyn({C}.m) == dyn({A}.v)", "eval: no such overload"),
    ('dyn(quantity("1k")) == 1000', "eval: no such overload"),
    # null is decided before either side is asked
    (f"dyn({A}.v) == dyn(null)", False),
    (f"dyn(null) == dyn({A}.v)", False),
    (f"dyn({A}.v) != dyn(null)", True),
    (f"dyn({C}.m) == dyn(null)", False),
    # lists and maps: only a false element pair decides; a semver element's error is passed over
    (f"dyn([{A}.v]) == dyn([{A}.n])", True),
    (f"dyn([{A}.v]) != dyn([{A}.n])", False),
    (f"dyn([{A}.n]) == dyn([{A}.v])", False),
    (f"dyn([{A}.v, dyn(1)]) == dyn([{A}.n, dyn(2)])", False),
    (f'dyn({{"k": {A}.v}}) == dyn({{"k": 1}})', True),
    (f'dyn({{"k": {A}.v}}) == dyn({{"j": 1}})', False),
    # a concatenated list on the left reports the first pair's error; on the right (or empty + list) it does not
    (f"[{A}.v] + [{A}.v] == [{A}.n, {A}.n]", "eval: no such overload"),
    (f"[{A}.v] + [{A}.v] != [{A}.n, {A}.n]", True),
    (f"[{A}.v] + [{A}.v] == [{A}.n, dyn(2)] || true", True),  # (the error is absorbed by ||)
    (f"dyn([{A}.v] + [dyn(1)]) == dyn([{A}.n, dyn(2)])", False),  # a false pair decides first
    (f"[{A}.n, {A}.n] == [{A}.v] + [{A}.v]", False),
    (f"[{A}.v, {A}.v] == [{A}.n, {A}.n]", True),
    (f"[] + [{A}.v] == [{A}.n] && [{A}.v] + [] == [{A}.n]", True),
    (f"[[{A}.v] + [{A}.v]] == [[{A}.n, {A}.n]]", True),  # nested: the outer literal passes the error over
    ("[1] + [2] + [3] == [1, 2, 3] && [1] + [2] != [2, 1]", True),
    # optionals: Optional.Equal asks the values (their error passed over by the list around them)
    (f"[{A}.?v] == [{A}.?n]", True),
    (f"[{A}.?n] == [{A}.?v]", False),
    (f"[{A}.?zz] == [{A}.?yy] && !([{A}.?n] == [{A}.?zz])", True),
    (f"[{A}.?v] + [{A}.?v] == [{A}.?n, {A}.?n]", "eval: no such overload"),
    (f"dyn({A}.?n) == dyn(1)", False),
    ("[optional.of(1)] == [optional.of(1)] && [optional.of(1)] != [optional.of(2)]", True),
    # an operand's own error is the result of both operators
    (f"{A}.missing != {A}.v", "eval: no such key: missing"),
    (f"{A}.v != {A}.missing", "eval: no such key: missing"),
    # membership asks for a true Equal only
    (f"{A}.v in [{A}.s]", False),
    (f"{A}.s in dyn([{A}.v])", False),
]


@pytest.mark.parametrize(("expression", "expected"), CASES)
@pytest.mark.parametrize("engine", ENGINES)
def test_cross_type_equality(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome(expression, DEVICE, "d.io", engine=engine) == expected


def _answer(value: Any) -> bool | str:
    return f"eval: {value.args[0]}" if isinstance(value, CELEvalError) else bool(value)


@pytest.mark.parametrize(("expression", "expected"), CASES)
@pytest.mark.parametrize("compact", [False, True], ids=["generated", "compact"])
def test_cross_type_equality_both_forms(compact: bool, expression: str, expected: bool | str) -> None:
    compiled = plan(prepare(expression), compact=compact)
    assert _answer(compiled.function(DEVICE, "d.io", COST_LIMIT)) == expected
