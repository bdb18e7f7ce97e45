"""Selecting a field of, or indexing, an attribute value that is no map, as cel-go v0.26's `refQualify`
(interpreter/attributes.go) answers at run time (the attribute is `dyn`, so the checker lets it through):
a scalar has no keys (`no such key: name`), a list wants an index (`unsupported index type 'string' in list`),
and a `.?` presence test finds nothing on a scalar but still checks a list's index."""

from __future__ import annotations

from typing import Any

import pytest

from tests.celext.lib.engines import ENGINES, outcome_on

D = "gpu.example.com"
A = f'device.attributes["{D}"]'
DEVICE: dict[str, Any] = {"name": "gpu-0", "attributes": {
    "model": {"string": "A100"}, "numa": {"int": 1}, "list": {"ints": [1, 2]}, "v": {"version": "1.2.3"}}}


@pytest.mark.parametrize(("expression", "expected"), [
    (f'{A}.model.name == "A100"', "eval: no such key: name"),  # the usual slip: a string has no fields
    (f"{A}.v.major == 1", "eval: no such key: major"),  # a semver has methods, not fields
    (f'{A}["numa"]["x"] == 1', "eval: no such key: x"),
    (f"{A}.numa[0] == 1", "eval: no such key: 0"),
    ("dyn(1).foo == 1", "eval: no such key: foo"),
    (f"{A}.list.foo == 1", "eval: unsupported index type 'string' in list"),
    (f"{A}.list[1] == 2", True),
    (f"{A}.list[2] == 2", "eval: index out of bounds: 2"),
    (f"{A}.numa.?foo.hasValue()", False),  # a presence test on a scalar: nothing there
    (f"{A}.list.?foo.hasValue()", "eval: unsupported index type 'string' in list"),
    (f"has({A}.model.foo)", False),
    (f"has({A}.list.foo)", "eval: unsupported index type 'string' in list"),
    (f"{A}.?model.orValue('') == 'A100'", True),
    ("{true: dyn(0)}[?true].absent.hasValue()", "eval: no such key: absent"),  # a plain select later in the chain
])
@pytest.mark.parametrize("engine", ENGINES)
def test_qualifying_a_value_that_is_no_map(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression, DEVICE) == expected
