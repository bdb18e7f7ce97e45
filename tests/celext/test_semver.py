"""celext.semver: strict semver 2.0.0 (blang Parse) and the CEL library's normalising parse."""

from __future__ import annotations

import itertools
import re

import pytest

from celext.semver import Semver, is_semver, normalize_and_parse, parse_semver


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1.2.3", Semver(1, 2, 3)),
        ("0.0.0", Semver(0, 0, 0)),
        ("1.0.0-rc.1", Semver(1, 0, 0, ("rc", 1))),
        ("1.0.0-alpha-1.0a", Semver(1, 0, 0, ("alpha-1", "0a"))),
        ("1.0.0+build.5", Semver(1, 0, 0, (), ("build", "5"))),
        ("1.0.0-x.7.z.92+exp.sha.5114f85", Semver(1, 0, 0, ("x", 7, "z", 92), ("exp", "sha", "5114f85"))),
    ],
)
def test_valid_versions_parse(text: str, expected: Semver) -> None:
    parsed = parse_semver(text)
    assert (parsed.major, parsed.minor, parsed.patch, parsed.prerelease, parsed.build) == (
        expected.major, expected.minor, expected.patch, expected.prerelease, expected.build)
    assert str(parsed) == text


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "Version string empty"),
        ("1.2", "No Major.Minor.Patch elements found"),
        ("v1.2.3", 'Invalid character(s) found in major number "v1"'),
        ("01.2.3", 'Major number must not contain leading zeroes "01"'),
        ("1.02.3", 'Minor number must not contain leading zeroes "02"'),
        ("1.2.03", 'Patch number must not contain leading zeroes "03"'),
        ("1.2.3-", "Prerelease is empty"),
        ("1.2.3-01", 'Numeric PreRelease version must not contain leading zeroes "01"'),
        ("1.2.3-a_b", 'Invalid character(s) found in prerelease "a_b"'),
        ("1.2.3+", "Build meta data is empty"),
        ("1.2.3+a..b", "Build meta data is empty"),
        ("1.2.x", 'Invalid character(s) found in patch number "x"'),
        (" 1.2.3", 'Invalid character(s) found in major number " 1"'),
    ],
)
def test_invalid_versions_say_why(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match="^" + re.escape(reason) + "$"):
        parse_semver(text)
    assert not is_semver(text)


def test_precedence_follows_semver_spec() -> None:
    ordered = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
               "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.1.0", "2.0.0"]
    versions = [parse_semver(v) for v in ordered]
    shuffled = versions[5:] + versions[:5]
    assert sorted(shuffled) == versions
    for low, high in itertools.pairwise(versions):
        assert low.compare(high) == -1 and high.compare(low) == 1


def test_build_metadata_is_ignored_for_equality_and_order() -> None:
    assert parse_semver("1.0.0+a") == parse_semver("1.0.0+b")
    assert parse_semver("1.0.0+a").compare(parse_semver("1.0.0")) == 0
    assert hash(parse_semver("1.0.0+a")) == hash(parse_semver("1.0.0"))
    assert parse_semver("1.0.0-rc.1") != parse_semver("1.0.0")


@pytest.mark.parametrize(
    ("text", "expected"),
    [("v1.2.3", "1.2.3"), ("1.2", "1.2.0"), ("v1", "1.0.0"), ("01.02.03", "1.2.3"), ("v0.0.1", "0.0.1"),
     ("1.2.3-rc.1", "1.2.3-rc.1"), ("00", "0.0.0")],
)
def test_normalising_parse(text: str, expected: str) -> None:
    assert str(normalize_and_parse(text)) == expected
    assert is_semver(text, normalize=True)


@pytest.mark.parametrize(
    ("text", "reason"),
    [("1.2-rc", "short version cannot contain PreRelease/Build meta data"),
     ("vv1.2.3", 'Invalid character(s) found in major number "0v1"'),  # ParseTolerant pads a non-digit with 0
     ("", 'strconv.ParseUint: parsing "": invalid syntax')],
)
def test_normalising_parse_still_rejects(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match="^" + re.escape(reason) + "$"):
        normalize_and_parse(text)
    assert not is_semver(text, normalize=True)
