"""Fuzz: random expressions on random devices; nothing but celext's typed errors may escape."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import celext

NAMES = ["numaNode", "model", "v", "l", "missing"]
DOMAINS = ["d.io", "resource.kubernetes.io", "other.io"]

values = st.one_of(
    st.fixed_dictionaries({"int": st.integers(-(2**63), 2**63 - 1)}),
    st.fixed_dictionaries({"bool": st.booleans()}),
    st.fixed_dictionaries({"string": st.text(max_size=8)}),
    st.fixed_dictionaries({"version": st.sampled_from(["1.0.0", "1.2.3-rc.1+b", "v1", "01.0.0", ""])}),
    st.fixed_dictionaries({"ints": st.lists(st.integers(-5, 60), max_size=60)}),
    st.fixed_dictionaries({"strings": st.lists(st.text(max_size=3), max_size=4)}),
    st.fixed_dictionaries({"versions": st.lists(st.sampled_from(["1.0.0", "2.0.0", "x"]), max_size=3)}),
    st.just({}),
)
devices = st.builds(
    lambda attrs, caps: {"name": "d", "attributes": attrs, "capacity": caps},
    st.dictionaries(st.sampled_from(["numaNode", "model", "d.io/v", "resource.kubernetes.io/numaNode", "l"]),
                    values, max_size=4),
    st.dictionaries(st.sampled_from(["memory", "other.io/cores"]),
                    st.builds(lambda v: {"value": v}, st.sampled_from(["1Gi", "1.5", "100m", "1e3", "x", "-1"])),
                    max_size=2),
)

attribute = st.builds(lambda d, n: f'device.attributes["{d}"].{n}', st.sampled_from(DOMAINS), st.sampled_from(NAMES))
literal = st.one_of(st.integers(-3, 50).map(str), st.sampled_from(['"A100"', "true", "1.5", '""', "[1, 2]", "{}",
                                                                  'semver("1.0.0")', 'quantity("1Gi")', "null"]))
atom = st.one_of(attribute, literal, st.just('device.capacity["d.io"].memory'), st.just("device.driver"))


def _combine(children: Any) -> Any:
    call = st.sampled_from(["includes", "include", "isGreaterThan", "compareTo", "indexOf", "startsWith",
                            "matches", "find", "split", "size", "sum", "sort", "nosuch", "orValue"])
    return st.one_of(
        st.builds(lambda a, op, b: f"{a} {op} {b}", children,
                  st.sampled_from(["==", "!=", "<", ">=", "&&", "||", "+", "-", "*", "/", "%", "in"]), children),
        st.builds(lambda a, f, b: f"{a}.{f}({b})", children, call, children),
        st.builds(lambda a: f"!({a})", children),
        st.builds(lambda a, m, b: f"[{a}, 1].{m}(x, {b} || x == 1)", children,
                  st.sampled_from(["all", "exists", "exists_one", "filter", "map", "sortBy"]), children),
        st.builds(lambda a, m, b: f"[{a}, 1].{m}(i, x, {b} || x == i)", children,
                  st.sampled_from(["all", "exists", "existsOne", "transformList", "transformMap",
                                   "transformMapEntry"]), children),
        st.builds(lambda d, n, b: f'device.attributes["{d}"].?{n}.orValue({b})', st.sampled_from(DOMAINS),
                  st.sampled_from(NAMES), children),
        st.builds(lambda a, b: f"{a}[?{b}].hasValue()", children, children),
        st.builds(lambda a, b: f"optional.of({a}).optMap(x, {b}).value()", children, children),
        st.builds(lambda a, b: f"cel.bind(x, {a}, {b})", children, children),
        st.builds(lambda a: f"has({a})", attribute),
        st.builds(lambda a, b: f"({a}) ? {b} : false", children, children),
    )


expressions = st.recursive(atom, _combine, max_leaves=6)
noise = st.text(alphabet="()[]{}.,?:!&|=<>\"'` abcdevx0123456789\\", max_size=30)


@settings(max_examples=200, deadline=None)
@given(st.one_of(expressions, noise), devices, st.sampled_from(["d.io", "", "gpu.example.com"]))
def test_only_celext_errors_escape(expression: str, device: dict[str, Any], driver: str) -> None:
    try:
        selector = celext.compile(expression)
    except celext.CompileError as err:
        assert err.message
        return
    answers = []
    for run in (selector.evaluate, selector.matches, selector.matches):
        for candidate in (device, celext.to_device(device, driver)):
            try:
                result = run(candidate, driver)
            except celext.EvaluationError as err:
                assert err.message and "\n" not in err.message
                answers.append(err.message)
            else:
                assert isinstance(result, bool)
                answers.append(result)
    # The memo (wire keys, converted keys, hits and misses) never changes an answer.
    assert answers == [answers[0]] * len(answers)
