"""Semver parts at and beyond int64 and uint64, as Kubernetes answers.

blang/semver v4 `Parse` (v4/semver.go) reads major, minor, patch and numeric pre-release identifiers with
`strconv.ParseUint(s, 10, 64)` and returns its error unchanged (`strconv.ParseUint: parsing "...": value out of
range`, or `invalid syntax` for an empty part); its other errors quote the part with Go's `%q`.
k8s.io/apiserver/pkg/cel/library/semverlib.go returns `types.Int(v.Major)`: Go's uint64 -> int64 conversion
wraps, so 2^63 reads as -2^63 and 2^64-1 as -1, while `compareTo` & co. compare the uint64 parts."""

from __future__ import annotations

import re
from typing import Any

import pytest

from celext.semver import is_semver, normalize_and_parse, parse_semver
from tests.celext.lib.engines import ENGINES, outcome_on

I63 = 2**63  # int64 overflows here
U64 = 2**64  # uint64 overflows here


def out_of_range(number: int) -> str:
    return f'strconv.ParseUint: parsing "{number}": value out of range'


EMPTY = 'strconv.ParseUint: parsing "": invalid syntax'


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        # .major() / .minor() / .patch(): int64(uint64) at 2^63-2, 2^63-1, 2^63, 2^63+1 and 2^64-2, 2^64-1
        (f'semver("{I63 - 2}.0.0").major() == {I63 - 2}', True),
        (f'semver("{I63 - 1}.0.0").major() == {I63 - 1}', True),
        (f'semver("{I63}.0.0").major() == -{I63}', True),
        (f'semver("{I63 + 1}.0.0").major() == -{I63 - 1}', True),
        (f'semver("{U64 - 2}.0.0").major() == -2', True),
        (f'semver("{U64 - 1}.0.0").major() == -1', True),
        (f'semver("0.{I63}.0").minor() == -{I63} && semver("0.0.{I63}").patch() == -{I63}', True),
        (f'semver("0.{U64 - 1}.{U64 - 1}").minor() == -1 && semver("0.0.{U64 - 1}").patch() == -1', True),
        # parsing: 2^64-1 is the last part that parses; 2^64 and 2^64+1 are strconv.ParseUint's range error
        (f'semver("{U64}.0.0") == semver("1.0.0")', f"eval: {out_of_range(U64)}"),
        (f'semver("{U64 + 1}.0.0") == semver("1.0.0")', f"eval: {out_of_range(U64 + 1)}"),
        (f'semver("0.{U64}.0") == semver("1.0.0")', f"eval: {out_of_range(U64)}"),
        (f'semver("0.0.{U64}") == semver("1.0.0")', f"eval: {out_of_range(U64)}"),
        (f'semver("0.0.{U64}-rc.1+b") == semver("1.0.0")', f"eval: {out_of_range(U64)}"),
        (f'semver("1.0.0-{U64}") == semver("1.0.0")', f"eval: {out_of_range(U64)}"),  # numeric pre-release
        (f'semver("1.0.0-{U64}a").isLessThan(semver("1.0.0"))', True),  # alphanumeric: no number to parse
        (f'semver("1.0.0-{U64 - 1}").isGreaterThan(semver("1.0.0-{U64 - 2}"))', True),
        (f'isSemver("{U64 - 1}.{U64 - 1}.{U64 - 1}-{U64 - 1}")', True),
        (f'isSemver("{U64}.0.0") || isSemver("0.{U64}.0") || isSemver("0.0.{U64}") || isSemver("1.0.0-{U64}")',
         False),
        # the normalising parse strips leading zeros first, then parses as strictly
        (f'semver("v0{U64 - 1}", true).major() == -1', True),
        (f'isSemver("v{U64 - 1}.1", true) && !isSemver("v{U64}", true) && !isSemver("v1.{U64}", true)', True),
        (f'semver("v{U64}", true) == semver("1.0.0")', f"eval: {out_of_range(U64)}"),
        # comparisons use the uint64 parts, not the wrapped ints
        (f'semver("{I63}.0.0").isGreaterThan(semver("{I63 - 1}.0.0"))', True),
        (f'semver("{U64 - 1}.0.0").compareTo(semver("{I63}.0.0")) == 1', True),
        (f'semver("{I63}.0.0").major() < semver("{I63 - 1}.0.0").major()', True),
        (f'semver("0.0.{U64 - 1}").isLessThan(semver("0.1.0"))', True),
        (f'semver("{U64 - 1}.0.0+a") == semver("{U64 - 1}.0.0+b")', True),
        # an empty part is ParseUint's syntax error; blang's other errors quote with %q
        ('semver("1..0") == semver("1.0.0")', f"eval: {EMPTY}"),
        ('semver("1.0.") == semver("1.0.0")', f"eval: {EMPTY}"),
        ('semver(".1.0") == semver("1.0.0")', f"eval: {EMPTY}"),
        ('semver("1.0.-rc") == semver("1.0.0")', f"eval: {EMPTY}"),
        ('semver("", true) == semver("1.0.0")', f"eval: {EMPTY}"),
        ('semver("1.2.x") == semver("1.0.0")', 'eval: Invalid character(s) found in patch number "x"'),
        ("semver('1.0.0+a\"b') == semver(\"1.0.0\")", 'eval: Invalid character(s) found in build meta data "a\\"b"'),
        ('semver("1.0.0-a\\tb") == semver("1.0.0")', 'eval: Invalid character(s) found in prerelease "a\\tb"'),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_semver_parts_beyond_int64(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression) == expected


def _device(version: Any) -> dict[str, Any]:
    return {"name": "gpu-0", "attributes": {"v": version}}


V = 'device.attributes["gpu.example.com"].v'


@pytest.mark.parametrize(
    ("attribute", "expression", "expected"),
    [
        ({"version": f"{U64 - 1}.0.0"}, f"{V}.major() == -1", True),
        ({"version": f"{I63}.0.0"}, f'{V}.major() == -{I63} && {V}.isGreaterThan(semver("{I63 - 1}.0.0"))', True),
        ({"version": f"{U64}.0.0"}, "true", f"eval: attribute v: parse semantic version: {out_of_range(U64)}"),
        ({"versions": ["1.0.0", f"1.0.{U64}"]}, "true",
         f"eval: attribute v: parse semantic version: {out_of_range(U64)}"),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_version_attributes_beyond_int64(engine: str, attribute: dict[str, Any], expression: str,
                                         expected: bool | str) -> None:
    assert outcome_on(engine, expression, _device(attribute)) == expected


@pytest.mark.parametrize(
    ("text", "parts"),
    [(f"{I63 - 1}.{I63}.{I63 + 1}", (I63 - 1, I63, I63 + 1)), (f"{U64 - 2}.{U64 - 1}.0", (U64 - 2, U64 - 1, 0))],
)
def test_parse_keeps_uint64_parts(text: str, parts: tuple[int, int, int]) -> None:
    version = parse_semver(text)
    assert (version.major, version.minor, version.patch) == parts
    assert str(version) == text


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (f"{U64}.0.0", out_of_range(U64)),
        (f"0.{U64 + 1}.0", out_of_range(U64 + 1)),
        (f"0.0.{U64}", out_of_range(U64)),
        (f"0.0.0-rc.{U64}", out_of_range(U64)),
        ("1..0", EMPTY),
        ("1.0.+b", EMPTY),
        ("1.2.3+a\x00b", 'Invalid character(s) found in build meta data "a\\x00b"'),
        ("1.2.3-a\u00a0b", 'Invalid character(s) found in prerelease "a\\u00a0b"'),
        ("1.2.é", 'Invalid character(s) found in patch number "é"'),
    ],
)
def test_parse_fails_in_go_words(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match="^" + re.escape(reason) + "$"):
        parse_semver(text)
    assert not is_semver(text)


def test_normalising_parse_at_uint64() -> None:
    assert normalize_and_parse(f"v{U64 - 1}").major == U64 - 1
    with pytest.raises(ValueError, match="^" + re.escape(out_of_range(U64)) + "$"):
        normalize_and_parse(f"v1.{U64}")
