"""includes()/include(): upstream includesFunc semantics on scalars and lists."""

from __future__ import annotations

import pytest

from celext.lib.includes import TOO_LONG
from tests.celext.outcome import outcome

A = 'device.attributes["gpu.example.com"]'
N = 'device.attributes["resource.kubernetes.io"].numaNode'


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        (f"{N}.includes(4)", True),                       # scalar receiver: equality
        (f"{N}.includes(5)", False),
        (f"{A}.numas.includes(5)", True),                  # list receiver: membership
        (f"{A}.numas.includes(8)", False),
        (f'{N}.includes("4")', False),                    # type mismatch is false, never an error
        (f"{N}.includes(4.0)", True),                      # int and double compare numerically
        ("dyn(1).includes(1.0)", True),
        ("[1, 2].includes(2.0)", True),
        ("true.includes(1)", False),
        ('"fish".includes("fi")', False),                  # string receiver is equality, not substring
        ('"fish".includes("fish")', True),
        ('semver("1.0.0+a").includes(semver("1.0.0+b"))', True),  # build metadata ignored
        ('semver("1.0.0-rc.1").includes(semver("1.0.0"))', False),
        ('semver("1.0.0").includes("1.0.0")', False),     # a plain string never equals a semver
        (f"{A}.driverVersion.includes(semver(\"1.3.0\"))", True),
        (f"{A}.long.includes(47)", True),                  # a match among the first 48 wins
        (f"{A}.long.includes(48)", f"eval: {TOO_LONG}"),   # index 48 is checked before it is read
        (f"{A}.long.includes(100)", f"eval: {TOO_LONG}"),
        (f"{A}.numas.include(4)", True),                   # the KEP's spelling
        (f"{A}.missing.includes(1)", "eval: no such key: missing"),  # receiver errors propagate
        ("[[1], [2]].includes([2])", True),
        ('{"a": 1}.includes({"a": 1})', True),
    ],
)
def test_includes(expression: str, expected: bool | str) -> None:
    assert outcome(expression) == expected
