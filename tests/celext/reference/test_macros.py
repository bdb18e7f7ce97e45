"""Comprehension macros: the standard ones, three-argument map, two-variable comprehensions
(cel-go ext.TwoVarComprehensions) and lists' sortBy, with cel-go's results and error texts."""

from __future__ import annotations

import pytest

import celext
from tests.celext.outcome import outcome

NUMAS = 'device.attributes["gpu.example.com"].numas'  # [6, 4, 5, 7]


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        # one variable
        (f"{NUMAS}.all(n, n >= 4) && {NUMAS}.exists(n, n == 5) && !{NUMAS}.exists(n, n == 0)", True),
        (f"{NUMAS}.exists_one(n, n > 6) && !{NUMAS}.exists_one(n, n > 4)", True),
        # cel-go's standard macros (cel.StandardMacros, which Kubernetes' base environment has) spell the one-variable
        # form only `exists_one`; `existsOne` is ext.TwoVarComprehensions' two-variable form alone
        (f"{NUMAS}.existsOne(n, n > 6)", "compile: undeclared reference to 'existsOne' (in container '')"),
        (f"{NUMAS}.map(n, n > 4, n * 10) == [60, 50, 70]", True),
        (f"{NUMAS}.filter(n, n % 2 == 0) == [6, 4]", True),
        # an error or a non-bool is absorbed by a later decisive element, as `accu && p` / `accu || p` do
        ("[0, 1].all(x, 1 / x > 5)", False),
        ("[0, 1].exists(x, 1 / x == 1)", True),
        ("[0, 2].exists(x, 1 / x == 1)", "eval: division by zero"),
        ("[1, 2].all(x, x == 1 ? dyn('yes') : false)", False),
        ("[1, 2].all(x, x == 1 ? dyn('yes') : true)", "eval: no such overload"),
        ("[0, 1].exists_one(x, 1 / x == 1)", "eval: division by zero"),
        # two variables: (index, element) on a list, (key, value) on a map
        (f"{NUMAS}.all(i, n, i < 4 && n >= 4) && {NUMAS}.exists(i, n, i == 1 && n == 4)", True),
        (f"{NUMAS}.existsOne(i, n, int(i) == n)", False),
        (f"{NUMAS}.transformList(i, n, int(n) + int(i)) == [6, 5, 7, 10]", True),
        (f"{NUMAS}.transformList(i, n, i > 1, n) == [5, 7]", True),
        (f"{NUMAS}.transformMap(i, n, n) == {{0: 6, 1: 4, 2: 5, 3: 7}}", True),
        ("{'a': 1, 'b': 2}.transformMap(k, v, v > 1, v * 2) == {'b': 4}", True),
        ("{'a': 1, 'b': 2}.transformMapEntry(k, v, {v: k}) == {1: 'a', 2: 'b'}", True),
        ("{'a': 1, 'b': 1}.transformMapEntry(k, v, {v: k}).size() == 1", "eval: insert failed: key 1 already exists"),
        ("device.attributes.exists(domain, ids, domain == 'resource.kubernetes.io' && ids.numaNode == 4)", True),
        # sortBy
        (f"{NUMAS}.sortBy(n, n) == [4, 5, 6, 7] && {NUMAS}.sortBy(n, -n) == [7, 6, 5, 4]", True),
        ("['bb', 'a', 'cc'].sortBy(s, size(s)) == ['a', 'bb', 'cc']", True),
        ("[1, 2].sortBy(x, x == 1 ? dyn('a') : 2) == [1, 2]", "eval: list elements must have the same type"),
        ("[[1], [2]].sortBy(x, dyn(x)) == []", "eval: list elements must be comparable"),
        # errors met at compile time
        ("[1].all(x, y, z, true)", "compile: undeclared reference to 'all' (in container '')"),
        # cel-go's parser texts (parser/macro.go makeQuantifier, ext/comprehensions.go extractIterVars)
        ("[1].all(x.y, true)", "compile: argument must be a simple name"),
        ("[1].transformList(i, v.w, v)", "compile: argument must be a simple name"),
        ("[1].exists(v, v, true)", "compile: duplicate variable name: v"),
        ("[1].map(1, 1) == []", "compile: argument is not an identifier"),  # MakeMap
        ("[1].all(__result__, true)", "compile: iteration variable overwrites accumulator variable"),
        ("optional.of(1).optMap(1, 2) == optional.of(2)",
         "compile: optMap() variable name must be a simple identifier"),
        ("[1].all(i, v, w > 0)", "compile: undeclared reference to 'w' (in container '')"),
        ("[1].transformMap(i, v, v)", "compile: must evaluate to bool or the unknown type, not map(int, int)"),
    ],
)
def test_macro(expression: str, expected: bool | str) -> None:
    assert outcome(expression) == expected


def test_macro_variables_shadow_cel_bind_and_device_for_memoisation() -> None:
    assert outcome("cel.bind(v, 100, [1, 2].exists(i, v, v == 2) && v == 100)") is True
    selector = celext.compile("[1].exists(i, device, device == 1)")
    assert selector.paths is None  # `device` is a loop variable here, not a device path
    assert selector.matches({"name": "d"}, "x") is True
