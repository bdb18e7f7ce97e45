"""Formats checked as the API server checks them: Go's `^...$` regular expressions end at the end of the text (a
name with a final newline is refused, where Python's `$` would let it through), the semver.org expression puts no
bound on a version's numbers, and a driver name's length is Go's len(), in bytes."""

from __future__ import annotations

import pytest

from celext.semver import is_semver, is_semver_text
from tests.webhook.rules.slice_cases import case
from webhook.rules.k8s.names import (
    LABEL_ERROR,
    LABEL_VALUE_ERROR,
    SUBDOMAIN_ERROR,
    is_c_identifier,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
)
from webhook.rules.plain import BDF


@pytest.mark.parametrize(("check", "name"), [
    (is_dns1123_label, "gpu-0"), (is_dns1123_subdomain, "gpu.example.com"), (is_c_identifier, "memory_gb"),
    (is_qualified_name, "example.com/name"), (is_valid_label_value, "value"),
])
def test_a_final_newline_is_refused_by_every_name_format(check, name) -> None:  # type: ignore[no-untyped-def]
    assert check(name) == []
    assert check(name + "\n") != []
    assert check(name + "\n\n") != []


def test_the_newline_messages_are_the_formats_own() -> None:
    assert is_dns1123_label("gpu-0\n") == [LABEL_ERROR]
    assert is_dns1123_subdomain("example.com\n") == [SUBDOMAIN_ERROR]
    assert is_valid_label_value("value\n") == [LABEL_VALUE_ERROR]


def test_a_slice_with_newline_names_is_denied_field_by_field() -> None:
    found = case({"metadata.name": "slice\n", "spec.driver": "gpu.example.com\n", "spec.pool.name": "pool\n",
                  "spec.devices[0].name": "dev-0\n", "spec.devices[0].attributes": {"model\n": {"string": "x"}}})
    paths = {(rule, path) for rule, path, *_ in found}
    assert {("k8s-object-meta", "metadata.name"), ("k8s-driver", "spec.driver"), ("k8s-pool", "spec.pool.name"),
            ("k8s-device-name", "spec.devices[0].name")} <= paths
    assert any(rule == "k8s-qualified-name" and "model\\n" in message for rule, _path, message, *_ in found)


def test_a_pci_address_with_a_final_newline_is_no_pci_address() -> None:
    assert BDF.fullmatch("0000:3b:00.0")
    assert not BDF.fullmatch("0000:3b:00.0\n")


@pytest.mark.parametrize("text", [
    "99999999999999999999.0.0", "1.99999999999999999999.0", "1.0.99999999999999999999",
    "1.0.0-99999999999999999999", "18446744073709551616.0.0",
])
def test_a_version_beyond_uint64_is_stored_but_not_converted(text: str) -> None:
    """The API server validates with semver.org's regular expression (no bound on the numbers); blang's Parse,
    which converts the attribute for CEL, refuses a number past 2^64-1: the slice is admitted, its device then
    fails every selector (celext's conversion check)."""
    assert is_semver_text(text)
    assert not is_semver(text)
    assert case({"spec.devices[0].attributes": {"v": {"version": text}}}) == []
    assert case({"spec.devices[0].attributes": {"v": {"versions": ["1.0.0", text]}}}) == []


def test_uint64_max_is_a_version_both_ways() -> None:
    text = f"{2**64 - 1}.0.0"
    assert is_semver_text(text) and is_semver(text)


@pytest.mark.parametrize("text", ["01.0.0", "1.0", "1.0.0-01", "1.0.0+", "1.0.0-", "v1.0.0", "1.0.0\n",
                                  "\u0661.0.0", "1.0.0+a..b", "1.0.0-a..b", ""])
def test_a_version_the_expression_refuses_is_refused(text: str) -> None:
    assert not is_semver_text(text)
    assert not is_semver(text)


def test_a_version_of_64_bytes_passes_and_of_65_is_too_long() -> None:
    fits = "1.0.0-" + "a" * 58
    assert len(fits) == 64 and case({"spec.devices[0].attributes": {"v": {"version": fits}}}) == []
    found = case({"spec.devices[0].attributes": {"v": {"version": fits + "a"}}})
    assert [(rule, message) for rule, _path, message, *_ in found] == [
        ("k8s-attribute-value", "Too long: may not be more than 64 bytes")]


@pytest.mark.parametrize(("length", "too_long"), [(62, False), (63, False), (64, True)])
def test_a_driver_name_at_the_byte_limit(length: int, too_long: bool) -> None:
    """`é` (two bytes) and ASCII: `length` bytes in one character fewer; the bytes decide, as Go's len()."""
    driver = "\u00e9" + "a" * (length - 2)
    messages = [message for rule, _path, message, *_ in case({"spec.driver": driver}) if rule == "k8s-driver"]
    assert ("Too long: may not be more than 63 bytes" in messages) is too_long
