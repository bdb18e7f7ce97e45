"""Leading-dot names (`.device`, `.size(x)`): cel-go resolves `.name` from the root scope, which in the DRA
environment (no container) is `name` itself, and finds a comprehension or binding variable in scope the same way
(env.LookupIdent drops the dot and searches every scope); a name nothing declares is cel-go's undeclared
reference, at the name (or a call's `(`), and `.has(...)` is not the macro there."""

from __future__ import annotations

import pytest

from tests.celext.lib.engines import ENGINES, outcome_on
from tests.celext.outcome import refusal

A = 'device.attributes["gpu.example.com"]'


@pytest.mark.parametrize("expression", [
    f'.{A}.model == "A100-80GB"',
    f'. {A}.model == "A100-80GB"',  # tokens: whitespace may separate the dot from the name
    '.device.driver == "gpu.example.com" && .size("ab") == 2 && .int("3") == 3',
    '.strings.quote("a") == "\\"a\\"" && .sets.contains([1, 2], [1]) && .lists.range(2) == [0, 1]',
    '.optional.of(1).value() == 1 && .ip("1.2.3.4").family() == 4 && .ip.isCanonical("1.2.3.4")',
    f'has(.{A}.model) && .{A}.numas.includes(4)',
    # variables: of a macro (one or two), nested, of a map macro, of cel.bind
    '[1].all(x, .x == 1) && [1, 2].exists(i, v, .i == 1 && .v == 2) && {"a": 1}.all(k, .k == "a")',
    '[1].all(x, [2].all(y, .x < .y)) && [1].map(x, .x + 1) == [2] && cel.bind(b, 5, .b == 5)',
])
@pytest.mark.parametrize("engine", ENGINES)
def test_a_leading_dot_name_is_the_name(engine: str, expression: str) -> None:
    assert outcome_on(engine, expression) is True  # (each part is true on the test device without the dot too)


@pytest.mark.parametrize(("expression", "message", "column"), [
    (".foo == 1", "undeclared reference to '.foo' (in container '')", 2),
    ("1 == 1 && .foo(2) == 1", "undeclared reference to '.foo' (in container '')", 15),  # at the call's `(`
    (".has(device.driver)", "undeclared reference to '.has' (in container '')", 5),  # not the macro after a dot
    (".cel.bind(x, 1, x == 1)", "undeclared reference to '.cel' (in container '')", 2),  # not the binding either
    (".optional == 1", "undeclared reference to '.optional' (in container '')", 2),  # a namespace, no function
    # a variable only inside its macro's arguments, and never as a function
    ("[1].all(x, true) && .x == 1", "undeclared reference to '.x' (in container '')", 22),
    ("[1].all(x, .x(1))", "undeclared reference to '.x' (in container '')", 14),
    ("cel.bind(x, 1, true) && .x == 1", "undeclared reference to '.x' (in container '')", 26),
])
@pytest.mark.parametrize("engine", ENGINES)
def test_an_undeclared_leading_dot_name_is_refused_as_cel_go_refuses_it(engine: str, expression: str, message: str,
                                                                         column: int) -> None:
    assert refusal(expression, engine=engine) == (message, 1, column)
