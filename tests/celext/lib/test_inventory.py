"""Every function name celext offers, pinned per library (STYLE.md section 4): adding or dropping a name must
be a deliberate change of this table, with the Kubernetes release or library that introduced it."""

from __future__ import annotations

import pytest

from celext import env
from celext import values as celvalues
from celext.lib import Library, bind, overload

KNOWN = {
    # DRA (k8s.io/dynamic-resource-allocation, 1.36: includes; include = the KEP-5491 text's spelling)
    "dra.includes": {"includes", "include"},
    # apiserver library.SemverLib version 1 (1.33)
    "kubernetes.Semver": {"semver", "isSemver", "major", "minor", "patch", "isGreaterThan", "isLessThan",
                          "compareTo"},
    # apiserver library.Quantity (1.29)
    "kubernetes.quantity": {"quantity", "isQuantity", "sign", "isGreaterThan", "isLessThan", "compareTo",
                            "asApproximateFloat", "asInteger", "isInteger", "add", "sub"},
    # apiserver library.Lists (1.27) + cel-go ext.Lists v3 (1.34)
    "kubernetes.lists+ext.lists": {"isSorted", "sum", "min", "max", "indexOf", "lastIndexOf", "slice", "flatten",
                                   "distinct", "reverse", "sort", "lists.range"},
    # cel-go ext.Strings v2
    "ext.strings": {"charAt", "indexOf", "lastIndexOf", "lowerAscii", "upperAscii", "replace", "split",
                    "substring", "trim", "join", "format", "strings.quote"},
    # apiserver library.Regex (1.27)
    "kubernetes.regex": {"find", "findAll"},
    # cel-go ext.Sets (1.29)
    "ext.sets": {"sets.contains", "sets.equivalent", "sets.intersects"},
    # cel-go OptionalTypes (1.28; version 2's first, last, optional.unwrap, unwrapOpt: Kubernetes enables the latest)
    "cel.optional": {"optional.of", "optional.none", "optional.ofNonZeroValue", "hasValue", "value", "orValue", "or",
                     "first", "last", "optional.unwrap", "unwrapOpt"},
    # apiserver library.IP and library.CIDR (1.30)
    "kubernetes.net": {"ip", "isIP", "ip.isCanonical", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
                       "isLinkLocalUnicast", "isGlobalUnicast", "cidr", "isCIDR", "containsIP", "containsCIDR",
                       "prefixLength", "masked"},
    # apiserver library.URLs (1.27)
    "kubernetes.urls": {"url", "isURL", "getScheme", "getHost", "getHostname", "getPort", "getEscapedPath",
                        "getQuery"},
}
STANDARD = {"size", "int", "uint", "double", "string", "bytes", "bool", "duration", "timestamp", "type", "dyn",
            "has", "matches", "contains", "startsWith", "endsWith", "getDate", "getDayOfMonth", "getDayOfWeek",
            "getDayOfYear", "getFullYear", "getMonth", "getHours", "getMilliseconds", "getMinutes", "getSeconds",
            "all", "exists", "exists_one", "map", "filter",
            # cel-go ext.TwoVarComprehensions (1.32: existsOne, only with two variables), ext.Lists sortBy (1.34)
            "existsOne", "transformList", "transformMap", "transformMapEntry", "sortBy",
            # cel-go OptionalTypes macros (1.28)
            "optMap", "optFlatMap"}


def test_function_names_are_pinned_per_library() -> None:
    assert {lib.name: set(lib.names()) for lib in env.libraries()} == KNOWN


def test_every_callable_name_is_known() -> None:
    names = env.GLOBAL_NAMES | env.MEMBER_NAMES
    assert names == set().union(*KNOWN.values()) | STANDARD
    assert all(name in env.FUNCTIONS or name in env.MACRO_NAMES or name in ("has", "dyn") for name in names)


def test_unsupported_names_never_overlap_supported_ones() -> None:
    # `format` is refused as the Kubernetes format library's namespace; as a member it is the strings extension's
    assert set(env.UNSUPPORTED) & (env.GLOBAL_NAMES | env.MEMBER_NAMES) == {"format"}
    assert "format" not in env.GLOBAL_NAMES


def test_bind_refuses_two_overloads_with_one_signature() -> None:
    a = Library("a", (overload("f", "a_f", (int,), lambda x: x),))
    b = Library("b", (overload("f", "b_f", (int,), lambda x: x),))
    with pytest.raises(ValueError, match=r"^overload b_f of f\(\) collides with a_f$"):
        bind([a, b])


def test_dispatch_picks_by_type_and_reports_no_overload() -> None:
    lib = Library("t", (overload("f", "f_int", (int,), lambda x: "int"),
                        overload("f", "f_str", (str,), lambda x: "str")))
    f = bind([lib])["f"]
    assert (f(1), f("x")) == ("int", "str")
    assert str(f(celvalues.DoubleType(1.5))) == "no such overload: f(double)"
    assert str(f(None)) == "no such overload: f(null_type)"
