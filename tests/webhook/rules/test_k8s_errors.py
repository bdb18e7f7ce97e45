"""The API server's error wording: value rendering, quoting, name formats, key truncation."""

from __future__ import annotations

import pytest

from webhook.fieldpath import FieldPath
from webhook.rules.k8s.errors import (
    GoStruct,
    duplicate,
    forbidden,
    go_json,
    go_quote,
    invalid,
    not_supported,
    required,
    too_long,
    too_many,
    unknown_field,
)
from webhook.rules.k8s.names import (
    is_dns1123_label,
    is_qualified_name,
    truncate_if_too_long,
    validate_driver_name,
    validate_qualified_name,
)

P = FieldPath.root("spec")


@pytest.mark.parametrize(
    ("text", "quoted"),
    [("plain", '"plain"'), ('say "hi"', '"say \\"hi\\""'), ("a\nb\tc", '"a\\nb\\tc"'), ("\x00\x7f", '"\\x00\\x7f"'),
     ("é", '"é"'), ("back\\slash", '"back\\\\slash"')],
)
def test_go_quote(text: str, quoted: str) -> None:
    assert go_quote(text) == quoted


def test_go_json_is_compact_sorted_and_html_escaped() -> None:
    assert go_json({"b": [1, True, None], "a": "<&>"}) == '{"a":"\\u003c\\u0026\\u003e","b":[1,true,null]}'


@pytest.mark.parametrize(
    ("finding_message", "expected"),
    [
        (invalid(P, "", "d").message, 'Invalid value: "": d'),
        (invalid(P, 33, "d").message, "Invalid value: 33: d"),
        (invalid(P, False, "d").message, "Invalid value: false: d"),
        (invalid(P, None, "d").message, "Invalid value: null: d"),
        (invalid(P, [], "d").message, "Invalid value: []: d"),
        (invalid(P, GoStruct({"string": "x", "int": 1}), "d").message, 'Invalid value: {"string":"x","int":1}: d'),
        (required(P).message, "Required value"),
        (required(P, "why").message, "Required value: why"),
        (forbidden(P, "no").message, "Forbidden: no"),
        (duplicate(P, "a").message, 'Duplicate value: "a"'),
        (too_long(P, 64).message, "Too long: may not be more than 64 bytes"),
        (too_long(P, 1).message, "Too long: may not be more than 1 byte"),
        (too_many(P, 129, 128).message, "Too many: 129: must have at most 128 items"),
        (too_many(P, 2, 1).message, "Too many: 2: must have at most 1 item"),
        (not_supported(P, "x", ["A", "B"]).message, 'Unsupported value: "x": supported values: "A", "B"'),
        (unknown_field(P.child("x")).message, 'unknown field "spec.x"'),
    ],
)
def test_error_bodies(finding_message: str, expected: str) -> None:
    assert finding_message == expected


def test_truncated_keys_keep_both_ends() -> None:
    key = "a" * 60 + "/" + "b" * 60
    short = truncate_if_too_long(key, 96)
    assert len(short) == 96 and short.startswith("a" * 47) and short.endswith("b" * 46) and "..." in short
    assert truncate_if_too_long("short", 96) == "short"
    assert truncate_if_too_long("x" * 20, 4) == "x" * 7 + "..." + "x" * 6  # a tiny limit is raised to 16


def test_label_too_long_and_malformed() -> None:
    assert is_dns1123_label("a" * 64)[0] == "must be no more than 63 characters"
    assert is_dns1123_label("ok-1") == []


def test_qualified_name_prefix_problems() -> None:
    assert is_qualified_name("/x") == ["prefix part must be non-empty"]
    assert is_qualified_name("x/") == [
        "name part must be non-empty",
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"]


def test_empty_driver_is_required_and_invalid() -> None:
    assert [f.message.split(":")[0] for f in validate_driver_name("", P)] == ["Required value", "Invalid value"]


def test_qualified_name_with_two_slashes_passes() -> None:
    assert validate_qualified_name("a.io/b/c", P) == []


@pytest.mark.parametrize(
    ("text", "canonical_form"),
    [("1024Mi", "1Gi"), ("1Gi", "1Gi"), ("100Mi", "100Mi"), ("1.5Gi", "1536Mi"), ("1.5Ki", "1536"), ("512", "512"),
     ("1000", "1k"), ("1500m", "1500m"), ("0.5", "500m"), ("1e3", "1e3"), ("1.5e3", "1500"), ("0", "0"),
     ("-2Ki", "-2Ki"), ("10Ki", "10Ki"), ("100", "100"), ("12000000", "12M"), ("1n", "1n")],
)
def test_quantities_print_in_upstream_canonical_form(text: str, canonical_form: str) -> None:
    from celext.quantity import parse_quantity
    from webhook.rules.k8s.capacity import canonical

    assert canonical(parse_quantity(text)) == canonical_form
