"""`<`, `<=`, `>`, `>=` with a NaN operand: cel-go's standard bindings return `Compare`'s error, and
`Double.Compare` (and `Int`/`Uint.Compare` against a Double) is `NaN values cannot be ordered`
(common/types/double.go, int.go, uint.go, v0.26.0). The compiled engine inlines double ordering: its template
keeps the plain comparison and gives the error when neither the ordering nor its complement holds."""

from __future__ import annotations

import pytest

from tests.celext.lib.engines import ENGINES, outcome_on

NAN = "eval: NaN values cannot be ordered"
DEVICE = {"name": "d", "attributes": {"x": {"string": "NaN"}, "y": {"string": "2.5"}}}
X = 'double(device.attributes["gpu.example.com"].x)'
Y = 'double(device.attributes["gpu.example.com"].y)'


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        (f"{X} > 1.0", NAN),
        (f"{X} < 1.0", NAN),
        (f"{X} <= {X}", NAN),
        (f"{X} >= {Y}", NAN),
        (f"1.0 < {X}", NAN),
        (f"!({X} < 1.0)", NAN),
        (f"{X} < 1.0 || true", True),  # an error absorbed by `||`
        (f"{X} < 1.0 && false", False),
        ('2 < double("NaN")', NAN),
        ('double("NaN") <= double("NaN")', NAN),
        ('2 >= double("NaN")', NAN),
        ("0.0/0.0 > 1.0", NAN),
        ('dyn(double("NaN")) < dyn(1)', NAN),
        ('dyn(1u) > dyn(double("NaN"))', NAN),
        ('dyn(double("NaN")) < dyn("a")', NAN),  # Double.Compare looks at itself first
        ('dyn("a") < dyn(double("NaN"))', "eval: no such overload"),  # String.Compare does not
        ("cel.bind(n, 0.0/0.0, n >= 0.0)", NAN),
        ("[0.0/0.0].exists(n, n > 1.0)", NAN),
        # the fast path keeps its answers without a NaN
        (f"{Y} > 1.0 && {Y} >= 2.5 && {Y} < 3.0 && {Y} <= 2.5 && !({Y} < 2.5) && !({Y} > 2.5)", True),
        ('double("NaN") == double("NaN")', False),  # equality is not ordering
        ('[1.0, double("NaN")].max() == 1.0', True),  # Kubernetes' max ignores the failed comparison
    ],
)
def test_nan_ordering(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression, DEVICE) == expected
