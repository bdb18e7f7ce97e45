"""The Kubernetes format library (apiserver pkg/cel/library/format.go: `format.dns1123Label()`, `format.named()`,
...) is in the base environment since 1.31; celext does not provide it and refuses it by name, as it refuses the
URL and authz libraries, while the strings extension's `"...".format([...])` stays supported."""

from __future__ import annotations

import pytest

from tests.celext.lib.engines import ENGINES, outcome_on

REFUSED = ("compile: 'format' is not supported: the Kubernetes format library (format.dns1123Label(), "
           "format.named(), ...) is not provided by celext")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('format.dns1123Label().validate(device.attributes["gpu.example.com"].model).hasValue() == false', REFUSED),
        ('format.named("dns1123Label").hasValue()', REFUSED),
        ('device.driver == "x" || format.uuid().validate("a").hasValue()', REFUSED),
        ('"%s-%d".format(["a", 1]) == "a-1"', True),
        ('device.attributes["gpu.example.com"].model.format([]) == "A100-80GB"', True),
        ("[1].all(format, format > 0)", True),  # a variable of that name is not the library
        ("cel.bind(format, 2, format > 1)", True),
    ],
)
def test_format_library_refused(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression) == expected
