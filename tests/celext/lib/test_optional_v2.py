"""cel-go's optional library version 2 (cel/library.go, v0.26.0; `cel.OptionalTypes()` defaults to the latest
version in the Kubernetes base environment): `<list>.first()`, `<list>.last()` (`list_first`, `list_last`),
`optional.unwrap(<list>)` and `<list>.unwrapOpt()` (`optional_unwrap`, `optional_unwrapOpt`), on both engines."""

from __future__ import annotations

import pytest

from celext.overloads import BY_ID
from tests.celext.lib.engines import ENGINES, outcome_on

A = 'device.attributes["gpu.example.com"]'


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        (f"{A}.numas.first().orValue(0) == 6", True),
        (f"{A}.numas.last().value() == 7", True),
        (f"{A}.long.last().value() == 58", True),
        ("[1, 2, 3].first().value() == 1 && [1, 2, 3].last().value() == 3", True),
        ("[].first().hasValue() || [].last().hasValue()", False),
        ("[5].first() == optional.of(5) && [5].last() != optional.none()", True),
        ("optional.unwrap([optional.of(1), optional.none()]) == [1]", True),
        ("[optional.of(1), optional.none(), optional.of(3)].unwrapOpt() == [1, 3]", True),
        (f"[{A}.?model, {A}.?nothing].unwrapOpt().size() == 1", True),
        ("optional.unwrap([]) == []", True),
        # a first element that is not an optional fails cel-go's runtime type guard (it looks at no other)
        ("optional.unwrap([dyn(1), dyn(optional.of(2))]) == [2]", "eval: no such overload: optional.unwrap(list)"),
        ("[dyn(1), dyn(optional.of(2))].unwrapOpt() == [2]", "eval: no such overload: unwrapOpt(list)"),
        # a later one is optUnwrap's own error, the value as Go's %v prints it
        ("[dyn(optional.of(1)), dyn(2)].unwrapOpt() == [1]", "eval: value 2 is not optional"),
        ('[dyn(optional.none()), dyn("a")].unwrapOpt() == []', "eval: value a is not optional"),
        (f"{A}.model.first().hasValue()", "eval: no such overload: first(string)"),
        (f"dyn({A}.numas[0]).last().hasValue()", "eval: no such overload: last(int)"),
        ("[1].unwrapOpt() == [1]", "compile: found no matching overload for 'unwrapOpt' applied to 'list(int).()'"),
        ("optional.unwrap([1]) == [1]",
         "compile: found no matching overload for 'optional.unwrap' applied to '(list(int))'"),
        ('"a".first().hasValue()', "compile: found no matching overload for 'first' applied to 'string.()'"),
    ],
)
def test_optional_v2(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression) == expected


def test_declared_as_upstream() -> None:
    signatures = {i: (BY_ID[i].function, BY_ID[i].member, ", ".join(map(str, BY_ID[i].args)), str(BY_ID[i].result))
                  for i in ("list_first", "list_last", "optional_unwrap", "optional_unwrapOpt")}
    assert signatures == {
        "list_first": ("first", True, "list(V)", "optional_type(V)"),
        "list_last": ("last", True, "list(V)", "optional_type(V)"),
        "optional_unwrap": ("optional.unwrap", False, "list(optional_type(V))", "list(V)"),
        "optional_unwrapOpt": ("unwrapOpt", True, "list(optional_type(V))", "list(V)"),
    }
    assert {BY_ID[i].cost for i in signatures} == {"fixed"}  # no estimator upstream: 1 plus the arguments
