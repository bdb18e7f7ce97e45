"""The Kubernetes semver CEL library."""

from __future__ import annotations

import pytest

from tests.celext.outcome import outcome

V = 'device.attributes["gpu.example.com"].driverVersion'


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        (f'{V}.isGreaterThan(semver("1.2.0"))', True),
        (f'{V}.isLessThan(semver("1.2.0"))', False),
        (f'{V}.compareTo(semver("1.3.0"))', "compile: must evaluate to bool or the unknown type, not int"),
        (f'{V}.compareTo(semver("1.3.0")) == 0', True),
        (f'{V} == semver("1.3.0")', True),
        ('semver("1.2.3").major() == 1 && semver("1.2.3").minor() == 2 && semver("1.2.3").patch() == 3', True),
        ('semver("v1.2", true) == semver("1.2.0")', True),
        ('semver("v1.2")', "compile: must evaluate to bool or the unknown type, not kubernetes.Semver"),
        ('semver("v1.2") == semver("1.2.0")', "eval: No Major.Minor.Patch elements found"),
        ('semver("v1.2.0") == semver("1.2.0")', 'eval: Invalid character(s) found in major number "v1"'),
        ('semver("not-a-version") == semver("1.0.0")', "eval: No Major.Minor.Patch elements found"),
        ('isSemver("1.2") || isSemver("v1.2.3")', False),
        ('isSemver("1.2", true) && isSemver("v1.2.3", true)', True),
        ('semver("1.0.0-rc.1").isLessThan(semver("1.0.0"))', True),
        (f'{V} == "1.3.0"', "eval: no such overload"),     # Semver.Equal(string) is an error upstream
        # cel-go's dynamic dispatch (decls.MaybeNoSuchOverload) names the function and the argument types
        (f'{V}.isGreaterThan(quantity("1"))',
         "eval: no such overload: isGreaterThan(kubernetes.Semver, kubernetes.Quantity)"),
    ],
)
def test_semver_library(expression: str, expected: bool | str) -> None:
    assert outcome(expression) == expected
