"""Optional values: `.?` / `[?]` selection, optional.of/none/ofNonZeroValue, hasValue/value/orValue/or,
optMap/optFlatMap, as cel-go's OptionalTypes has them (the allocator's own hint for missing attributes)."""

from __future__ import annotations

import pytest

import celext
from tests.celext.lib.engines import ENGINES, outcome_on
from tests.celext.outcome import DEVICE, DRIVER, outcome

GPU = 'device.attributes["gpu.example.com"]'


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        # the allocator's hint: `.?` followed by orValue()
        (f'{GPU}.?model.orValue("") == "A100-80GB"', True),
        (f"{GPU}.?missing.orValue(false)", False),
        (f"{GPU}.?missing.orValue(4) == 4 && {GPU}.?healthy.orValue(false)", True),
        ('device.attributes["no.such.domain"].?id.hasValue()', False),
        # a missing domain is an empty map upstream (mapper.Find), so it is present
        ('device.attributes[?"no.such.domain"].hasValue()', True),
        # selection after `.?` stays optional; none propagates
        ('device.attributes[?"no.such.domain"].?id.hasValue() == false', True),
        ("device.attributes.?x.y.z.hasValue() == false", True),
        (f"{GPU}.?numas[?1].value() == 4 && !{GPU}.numas[?9].hasValue()", True),
        (f"{GPU}.?missing.value()", "eval: optional.none() dereference"),
        (f"{GPU}.?model", "compile: must evaluate to bool or the unknown type, not optional_type(dyn)"),
        # functions and macros
        ("optional.of(1).optMap(x, x + 1) == optional.of(2) && optional.none().optMap(x, x + 1) == optional.none()",
         True),
        ("optional.of(1).optFlatMap(x, optional.none()).or(optional.of(3)).value() == 3", True),
        ('!optional.ofNonZeroValue("").hasValue() && optional.ofNonZeroValue([1]).hasValue()', True),
        # cel-go's IsZeroValue: a zero duration, and Go's zero time (year 1), not the Unix epoch
        ('!optional.ofNonZeroValue(duration("0s")).hasValue() && optional.ofNonZeroValue(duration("1ns")).hasValue()',
         True),
        ('!optional.ofNonZeroValue(timestamp("0001-01-01T00:00:00Z")).hasValue() && '
         'optional.ofNonZeroValue(timestamp("1970-01-01T00:00:00Z")).hasValue()', True),
        ("optional.of(1) == optional.of(dyn(1.0)) && optional.none() != optional.of(1)", True),
        ("dyn(1).optMap(x, x) == optional.of(1)", "eval: no such overload"),
        ("optional.none(1).hasValue()",
         "compile: found no matching overload for 'optional.none' applied to '(int)'"),
    ],
)
def test_optional(expression: str, expected: bool | str) -> None:
    assert outcome(expression) == expected


def test_optional_paths_are_memoised_on_presence() -> None:
    selector = celext.compile(f"{GPU}.?healthy.orValue(false)")
    assert selector.paths == frozenset({("attributes", "gpu.example.com", "healthy")})
    without = {**DEVICE, "attributes": {}}
    assert [selector.matches(d, DRIVER) for d in (DEVICE, without, DEVICE, without)] == [True, False, True, False]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        # upstream's `device.attributes` / `device.capacity` are the DRA compiler's `mapper`, which embeds only
        # traits.Mapper: it is no traits.Zeroer, so ofNonZeroValue keeps it even when the device has none
        ("optional.ofNonZeroValue(device.attributes).hasValue()", True),
        ("optional.ofNonZeroValue(device.capacity).value().size() == 0", True),
        ("cel.bind(a, dyn(device.attributes), optional.ofNonZeroValue(a).hasValue())", True),
        # a missing domain reads as the compiler's empty map value, an ordinary (zero) map
        ('optional.ofNonZeroValue(device.attributes["gpu.example.com"]).hasValue()', False),
        ("optional.ofNonZeroValue({}).hasValue()", False),
    ],
)
def test_of_non_zero_value_keeps_the_device_maps(engine: str, expression: str, expected: bool) -> None:
    assert outcome_on(engine, expression, {"name": "bare"}) == expected
