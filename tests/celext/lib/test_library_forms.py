"""Which library functions are called as globals (`semver(s)`) and which as members (`s.x()`): the receiver
flag of every overload in the libraries' tables, built afresh at test time (celext reads them once at import,
so only a fresh build shows a wrong flag to a test). The globals are the ones each library's upstream
declares with `Overload` rather than `MemberOverload`."""

from __future__ import annotations

from celext import env

GLOBALS = {
    ("isQuantity", "is_quantity_string"), ("quantity", "string_to_quantity"), ("sign", "quantity_sign"),
    ("isSemver", "is_semver_string"), ("isSemver", "is_semver_string_bool"),
    ("semver", "string_to_semver"), ("semver", "string_bool_to_semver"),
    ("lists.range", "lists_range"), ("strings.quote", "strings_quote"),
    ("sets.contains", "list_sets_contains_list"), ("sets.equivalent", "list_sets_equivalent_list"),
    ("sets.intersects", "list_sets_intersects_list"),
    ("optional.none", "optional_none"), ("optional.of", "optional_of"),
    ("optional.ofNonZeroValue", "optional_of_non_zero_value"), ("optional.unwrap", "optional_unwrap"),
    ("ip", "string_to_ip"), ("isIP", "is_ip"), ("ip.isCanonical", "ip_is_canonical"), ("cidr", "string_to_cidr"),
    ("isCIDR", "is_cidr"), ("url", "string_to_url"), ("isURL", "is_url_string"),
}


def test_global_overloads_are_exactly_the_upstream_globals() -> None:
    overloads = [o for library in env.libraries() for o in library.overloads]
    assert {(o.name, o.id) for o in overloads if not o.member} == GLOBALS
    assert all(o.member for o in overloads if (o.name, o.id) not in GLOBALS)
