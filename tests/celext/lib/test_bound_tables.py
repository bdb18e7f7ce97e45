"""Each library's overload table, bound afresh with `bind(env.libraries())`, calls the implementation its
documentation names with the argument types it names (one call per overload).

The tables are read when celext is imported; these tests bind them again at test time, so a wrong name,
signature, receiver flag or implementation in `library()` fails here and not only in the selectors' tests.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

from celext import env
from celext import values as celvalues
from celext.lib import Library, bind, includes, overload
from celext.lib.net import parse_cidr as C
from celext.lib.net import parse_ip as A
from celext.lib.optional import NONE, OptionalValue
from celext.netaddr import Addr, Prefix
from celext.neturl import URL, parse_url
from celext.quantity import parse_quantity
from celext.semver import parse_semver
from celext.values import CELEvalError

S, Int, U, D, B, L, M = (celvalues.StringType, celvalues.IntType, celvalues.UintType, celvalues.DoubleType,
                       celvalues.BoolType, celvalues.ListType, celvalues.MapType)
Q, V = parse_quantity, parse_semver


def _ints(*values: int) -> Any:
    return L(Int(v) for v in values)


def _strs(*values: str) -> Any:
    return L(S(v) for v in values)


# (function, arguments, expected value, expected CEL type); an expected str starting "error: " is a CELEvalError.
CALLS: list[tuple[str, tuple[Any, ...], Any, type | None]] = [
    ("includes", (_ints(1, 2), Int(2)), True, B),
    ("include", (Int(4), Int(4)), True, B),
    ("semver", (S("1.2.3"),), V("1.2.3"), None),
    ("semver", (S("v1.2"), B(True)), V("1.2.0"), None),
    ("semver", (S("v1.2"), B(False)), "error: ", None),
    ("isSemver", (S("1.2.3"),), True, B),
    ("isSemver", (S("v1.2"),), False, B),
    ("isSemver", (S("v1.2"), B(True)), True, B),
    ("isSemver", (S("v1.2"), B(False)), False, B),
    ("major", (V("1.2.3"),), 1, Int),
    ("minor", (V("1.2.3"),), 2, Int),
    ("patch", (V("1.2.3"),), 3, Int),
    ("isGreaterThan", (V("2.0.0"), V("1.0.0")), True, B),
    ("isGreaterThan", (V("1.0.0"), V("1.0.0")), False, B),
    ("isLessThan", (V("1.0.0"), V("2.0.0")), True, B),
    ("isLessThan", (V("1.0.0"), V("1.0.0")), False, B),
    ("compareTo", (V("1.0.0"), V("2.0.0")), -1, Int),
    ("compareTo", (V("2.0.0"), V("1.0.0")), 1, Int),
    ("quantity", (S("1k"),), Q("1000"), None),
    ("quantity", (S("1x"),), "error: quantities must match the regular expression", None),
    ("isQuantity", (S("1Ki"),), True, B),
    ("isQuantity", (S("1x"),), False, B),
    ("sign", (Q("-2"),), -1, Int),
    ("sign", (Q("0"),), 0, Int),
    ("isGreaterThan", (Q("2"), Q("1")), True, B),
    ("isGreaterThan", (Q("1"), Q("1")), False, B),
    ("isLessThan", (Q("1"), Q("2")), True, B),
    ("isLessThan", (Q("1"), Q("1")), False, B),
    ("compareTo", (Q("1"), Q("2")), -1, Int),
    ("compareTo", (Q("1k"), Q("1000")), 0, Int),
    ("asApproximateFloat", (Q("1500m"),), 1.5, D),
    ("asInteger", (Q("1k"),), 1000, Int),
    ("asInteger", (Q("1500m"),), "error: cannot convert value to integer", None),
    ("isInteger", (Q("1k"),), True, B),
    ("isInteger", (Q("1500m"),), False, B),
    ("add", (Q("1k"), Q("24")), Q("1024"), None),
    ("add", (Q("1k"), Int(24)), Q("1024"), None),
    ("sub", (Q("1k"), Q("24")), Q("976"), None),
    ("sub", (Q("1k"), Int(24)), Q("976"), None),
    ("isSorted", (_ints(1, 1, 2),), True, B),
    ("sum", (_ints(1, 2),), 3, Int),
    ("min", (_ints(2, 1, 3),), 1, Int),
    ("max", (_ints(2, 3, 1),), 3, Int),
    ("min", (L(),), "error: min called on empty list", None),
    ("max", (L(),), "error: max called on empty list", None),
    ("indexOf", (_ints(1, 2, 1), Int(1)), 0, Int),
    ("lastIndexOf", (_ints(1, 2, 1), Int(1)), 2, Int),
    ("slice", (_ints(1, 2, 3), Int(1), Int(2)), _ints(2), L),
    ("flatten", (L([_ints(1), L([_ints(2)])]),), L([Int(1), _ints(2)]), L),
    ("flatten", (L([_ints(1), L([_ints(2)])]), Int(2)), _ints(1, 2), L),
    ("distinct", (_ints(1, 1, 2),), _ints(1, 2), L),
    ("reverse", (_ints(1, 2),), _ints(2, 1), L),
    ("sort", (_ints(2, 1),), _ints(1, 2), L),
    ("lists.range", (Int(2),), _ints(0, 1), L),
    ("charAt", (S("abc"), Int(1)), "b", S),
    ("indexOf", (S("abcabc"), S("c")), 2, Int),
    ("indexOf", (S("abcabc"), S("c"), Int(3)), 5, Int),
    ("lastIndexOf", (S("abcabc"), S("c")), 5, Int),
    ("lastIndexOf", (S("abcabc"), S("c"), Int(3)), 2, Int),
    ("lowerAscii", (S("AbÄ"),), "abÄ", S),
    ("upperAscii", (S("aBä"),), "ABä", S),
    ("replace", (S("aaa"), S("a"), S("b")), "bbb", S),
    ("replace", (S("aaa"), S("a"), S("b"), Int(1)), "baa", S),
    ("split", (S("a,b,c"), S(",")), _strs("a", "b", "c"), L),
    ("split", (S("a,b,c"), S(","), Int(2)), _strs("a", "b,c"), L),
    ("substring", (S("hello"), Int(3)), "lo", S),
    ("substring", (S("hello"), Int(1), Int(3)), "el", S),
    ("trim", (S(" \tx \n"),), "x", S),
    ("join", (_strs("a", "b"),), "ab", S),
    ("join", (_strs("a", "b"), S("-")), "a-b", S),
    ("format", (S("%d-%s"), L([Int(1), S("x")])), "1-x", S),
    ("strings.quote", (S('a"b'),), '"a\\"b"', S),
    ("find", (S("a12b3"), S("[0-9]+")), "12", S),
    ("findAll", (S("a12b3"), S("[0-9]+")), _strs("12", "3"), L),
    ("findAll", (S("a12b3"), S("[0-9]+"), Int(1)), _strs("12"), L),
    ("sets.contains", (_ints(1, 2), _ints(2)), True, B),
    ("sets.contains", (_ints(1), _ints(1, 2)), False, B),
    ("sets.equivalent", (_ints(1, 2), _ints(2, 1, 1)), True, B),
    ("sets.equivalent", (_ints(1, 2), _ints(1)), False, B),
    ("sets.equivalent", (_ints(1), _ints(1, 2)), False, B),
    ("sets.intersects", (_ints(1, 2), _ints(3, 2)), True, B),
    ("sets.intersects", (_ints(1), _ints(2)), False, B),
    ("optional.of", (Int(1),), OptionalValue(Int(1)), OptionalValue),
    ("optional.none", (), NONE, OptionalValue),
    ("optional.ofNonZeroValue", (S(""),), NONE, OptionalValue),
    ("optional.ofNonZeroValue", (Int(0),), NONE, OptionalValue),
    ("optional.ofNonZeroValue", (None,), NONE, OptionalValue),
    ("optional.ofNonZeroValue", (M(),), NONE, OptionalValue),
    ("optional.ofNonZeroValue", (Int(2),), OptionalValue(Int(2)), OptionalValue),
    ("hasValue", (OptionalValue(Int(1)),), True, B),
    ("hasValue", (NONE,), False, B),
    ("value", (OptionalValue(Int(1)),), 1, Int),
    ("value", (NONE,), "error: optional.none() dereference", None),
    ("orValue", (OptionalValue(Int(1)), Int(2)), 1, Int),
    ("orValue", (NONE, Int(2)), 2, Int),
    ("or", (OptionalValue(Int(1)), OptionalValue(Int(2))), OptionalValue(Int(1)), OptionalValue),
    ("or", (NONE, OptionalValue(Int(2))), OptionalValue(Int(2)), OptionalValue),
    ("first", (_ints(3, 4),), OptionalValue(Int(3)), OptionalValue),
    ("last", (_ints(3, 4),), OptionalValue(Int(4)), OptionalValue),
    ("last", (_ints(),), NONE, OptionalValue),
    ("optional.unwrap", (celvalues.ListType([OptionalValue(Int(1)), NONE]),), _ints(1), L),
    ("unwrapOpt", (celvalues.ListType([NONE, Int(2)]),), "error: value 2 is not optional", None),
    ("ip", (S("10.0.8.8"),), A("10.0.8.8"), Addr),
    ("ip", (S("10.0.8.8/24"),), "error: IP Address \"10.0.8.8/24\" parse error during conversion from string", None),
    ("ip", (C("10.0.8.8/24"),), A("10.0.8.8"), Addr),
    ("isIP", (S("::1"),), True, B),
    ("isIP", (S("::1/128"),), False, B),
    ("ip.isCanonical", (S("::1"),), True, B),
    ("ip.isCanonical", (S("0::1"),), False, B),
    ("family", (A("::1"),), 6, Int),
    ("isUnspecified", (A("::"),), True, B),
    ("isLoopback", (A("127.0.0.2"),), True, B),
    ("isLinkLocalMulticast", (A("ff02::1"),), True, B),
    ("isLinkLocalUnicast", (A("169.254.0.1"),), True, B),
    ("isGlobalUnicast", (A("10.0.0.1"),), True, B),
    ("cidr", (S("10.0.0.0/8"),), C("10.0.0.0/8"), Prefix),
    ("isCIDR", (S("10.0.0.0/8"),), True, B),
    ("isCIDR", (S("10.0.0.0"),), False, B),
    ("containsIP", (C("10.0.0.0/8"), S("10.1.2.3")), True, B),
    ("containsIP", (C("10.0.0.0/8"), A("11.1.2.3")), False, B),
    ("containsCIDR", (C("10.0.0.0/8"), S("10.1.0.0/16")), True, B),
    ("containsCIDR", (C("10.0.0.0/16"), C("10.0.0.0/8")), False, B),
    ("prefixLength", (C("10.0.0.0/8"),), 8, Int),
    ("masked", (C("10.1.2.3/8"),), C("10.0.0.0/8"), Prefix),
    ("url", (S("https://u@[::1]:8443/a%20b?k=v&k=w#f"),), parse_url("https://u@[::1]:8443/a b?k=v&k=w#f"), URL),
    ("url", (S("a/b"),), 'error: URL parse error during conversion from string: parse "a/b": invalid URI for request',
     None),
    ("isURL", (S("/a"),), True, B),
    ("isURL", (S("a"),), False, B),
    ("getScheme", (parse_url("HTTPS://h/"),), "https", S),
    ("getHost", (parse_url("https://[::1]:8443/"),), "[::1]:8443", S),
    ("getHostname", (parse_url("https://[::1]:8443/"),), "::1", S),
    ("getPort", (parse_url("https://[::1]:8443/"),), "8443", S),
    ("getEscapedPath", (parse_url("/a b"),), "/a%20b", S),
    ("getQuery", (parse_url("/?k=v&k=w&x"),), M({S("k"): L([S("v"), S("w")]), S("x"): L([S("")])}),
     celvalues.MapType),
]


def _bound() -> Mapping[str, Callable[..., Any]]:
    return bind(env.libraries())  # at test time: the tables as they are now


@pytest.mark.parametrize(("name", "args", "expected", "kind"), CALLS, ids=lambda v: v if isinstance(v, str) else "")
def test_each_overload_calls_its_implementation(name: str, args: tuple[Any, ...], expected: Any,
                                                kind: type | None) -> None:
    result = _bound()[name](*args)
    if isinstance(expected, str) and expected.startswith("error: "):
        assert isinstance(result, CELEvalError)
        assert str(result).startswith(expected.removeprefix("error: "))
        return
    assert not isinstance(result, CELEvalError), result
    assert result == expected
    if kind is not None:
        assert isinstance(result, kind)
        assert kind is not Int or not isinstance(result, B)


def test_every_overload_of_the_tables_is_called_above() -> None:
    called = {(name, len(args)) for name, args, _, _ in CALLS}
    declared = {(o.name, len(o.signature)) for lib in env.libraries() for o in lib.overloads}
    assert declared == called


def test_global_functions_are_the_ones_upstream_declares_global() -> None:
    """The rest are member functions (`x.f(y)`); the compiler refuses each in the other spelling."""
    globals_ = {o.name for lib in env.libraries() for o in lib.overloads if not o.member}
    assert globals_ == {"semver", "isSemver", "quantity", "isQuantity", "sign", "lists.range", "strings.quote",
                        "sets.contains", "sets.equivalent", "sets.intersects", "optional.of", "optional.none",
                        "optional.ofNonZeroValue", "optional.unwrap", "ip", "isIP", "ip.isCanonical", "cidr", "isCIDR",
                        "url", "isURL"}


def test_the_include_alias_can_be_left_out() -> None:
    assert includes.library(include_alias=False).names() == frozenset({"includes"})
    assert includes.library().names() == frozenset({"includes", "include"})


def test_overloads_of_one_name_are_picked_by_argument_type() -> None:
    lists_and_strings = _bound()
    assert lists_and_strings["indexOf"](_ints(5, 6), Int(6)) == 1
    assert lists_and_strings["indexOf"](S("56"), S("6")) == 1
    assert str(lists_and_strings["indexOf"](Int(1), Int(1))) == "no such overload: indexOf(int, int)"


def test_the_dispatcher_hands_errors_back_as_values() -> None:
    def boom(_: Any) -> Any:
        raise KeyError("k")

    def refuse(_: Any) -> Any:
        raise CELEvalError("refused")

    def deep(_: Any) -> Any:
        raise RecursionError("deep")

    table = bind([Library("t", (overload("boom", "t_boom", (Int,), boom),
                                overload("refuse", "t_refuse", (Int,), refuse),
                                overload("deep", "t_deep", (Int,), deep),
                                overload("two", "t_two", (Int, S), lambda a, b: b)))])
    assert str(table["boom"](Int(1))) == "boom: 'k'"  # a raw exception becomes an error value naming the function
    assert str(table["refuse"](Int(1))) == "refused"
    with pytest.raises(RecursionError, match=r"^deep$"):  # the evaluator turns this one into its depth error
        table["deep"](Int(1))
    failed = CELEvalError("earlier")
    assert table["boom"](failed) is failed  # an error argument no overload takes is passed on unchanged
    assert table["two"](Int(1), failed) is failed
    assert str(table["two"](S("x"), Int(1))) == "no such overload: two(string, int)"
    assert str(table["two"](Int(1))) == "no such overload: two(int)"
    assert table["two"](Int(1), S("y")) == "y"
    assert table["boom"].__name__ == "boom"



def test_optionals_are_equal_when_both_are_empty_or_both_hold_equal_values() -> None:
    assert OptionalValue(Int(1)) == OptionalValue(D(1.0))
    assert OptionalValue(Int(1)) != OptionalValue(Int(2))
    empty = NONE
    assert empty == OptionalValue(present=False)
    assert empty != OptionalValue(None)  # optional.of(null) holds a value
    assert OptionalValue(None) != empty
    assert OptionalValue(Int(1)) != Int(1)
    assert repr(OptionalValue(S("x"))) == f"optional.of({S('x')!r})"
    assert repr(NONE) == "optional.none()"
