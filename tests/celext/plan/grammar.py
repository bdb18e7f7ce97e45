"""Random selectors over the DRA grammar and random wire-form devices, for the differential test.

One grammar, two drivers: every generator takes a `Chooser` (anything with `choice(seq)` and
`randint(a, b)`): a seeded `random.Random` builds the fixed pools `make test` samples from (parsed once,
then cached), and `HypothesisChooser` lets hypothesis draw (and shrink) fresh expressions.

Expressions mix well-typed and ill-typed uses of everything a selector can say: device paths of every
attribute kind and list form, capacities, literals of every type, every operator, every library function
(with right and wrong argument counts and types), the comprehension macros in all their forms, `cel.bind`,
`has()`, optional values. Devices are v1 and v1beta1 (`basic`) entries with qualified and bare names (now and
then both spellings), and now and then an entry Kubernetes could not convert.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

from hypothesis import strategies as st

T = TypeVar("T")


class Chooser(Protocol):
    def choice(self, seq: Sequence[T]) -> T: ...

    def randint(self, a: int, b: int) -> int: ...


_INDEXES = [st.just(0), *(st.integers(0, n - 1) for n in range(1, 64))]


class HypothesisChooser:
    """Draws through hypothesis (`st.data()`), so failures shrink."""

    def __init__(self, data: Any) -> None:
        self._data = data

    def choice(self, seq: Sequence[T]) -> T:
        # An index, not st.sampled_from(seq): a fresh sampled_from hashes the whole sequence on every draw.
        return seq[self._data.draw(_INDEXES[len(seq)] if len(seq) < len(_INDEXES) else st.integers(0, len(seq) - 1))]

    def randint(self, a: int, b: int) -> int:
        return self._data.draw(st.integers(a, b))  # type: ignore[no-any-return]


DRIVERS = ["d.io", "gpu.example.com", "other.io", ""]
DOMAINS = ["d.io", "gpu.example.com", "resource.kubernetes.io", "other.io"]
NAMES = ["i", "b", "s", "v", "il", "bl", "sl", "vl", "numaNode", "missing"]

# --- devices ----------------------------------------------------------------------------------------------

_INTS = [-3, -1, 0, 1, 2, 4, 7, 47, 48, 60, 2**31, 2**63 - 1, -(2**63)]
_TEXTS = ["", "A100", "a100-80gb", "x.y", "Hello World", "ab,cd", "0", "1.2.3", "日本", "10.0.8.8",
          "192.168.155.224/19", "fd00::1", "fe80::1%eth0"]
# Versions around the precedence rules the compiled comparison relies on (celext.semver.precedence): build
# metadata ignored, a release after its pre-releases, numeric identifiers before alphanumeric ones and by
# value, a longer list of equal identifiers after a shorter one, uint64 parts.
_VERSIONS = ["1.0.0", "1.2.3-rc.1+b", "10.20.30", "2.0.0-alpha", "0.0.1", "1.0.0+build.5", "1.0.0-alpha",
             "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0-1",
             "1.0.0-0a", "1.0.0-alpha-1", "18446744073709551615.0.0", "1.2.3", "1.0.0+001", "1.0.0-x.7.z.92",
             "1.0.0-0.3.7", "1.0.0-alpha+001"]
SEMVERS = ["1.2.3", "1.0.0", "1.0.0-rc.1", "1.0.0+other", "1.0.0-alpha.1", "1.0.0-beta.2", "1.0.0-11"]
_BAD = [{}, {"version": "v1"}, {"version": "01.0.0"}, {"int": "1"}, {"int": 2**63}, {"string": "x", "int": 3},
        {"ints": [1, "2"]}, {"versions": ["1.0"]}, {"version": "1.0.0-01"}, {"version": "1.0.0+"},
        {"version": "1.2.3\n"}, {"ints": [True]}, {"bool": 1}, {"version": "1.02.0"}, {"version": "1.0.0-alpha..1"},
        {"version": "1.0.0-"}, {"version": "1.0"}]
# Quantities in every suffix family and around the exact-compare edges: binary and decimal SI, exponents
# (huge ones too), fractions rounded up to nano, signed zeros, equal values spelt differently.
QUANTITIES = ["1Gi", "40Gi", "1.5", "100m", "1e3", "0", "-1", "16", "80Gi", "1k", "1Ki", "1024", "1000", "0.5",
              "500m", "-0", "+0.0", "1E-2", "10m", "1e999", "-1e999", "0.0000000001", "1n", ".5", "1.", "1.5Ki",
              "9223372036854775807Ki", "99999999999999999999", "1Ei", "8E", "1e-3", "-1Mi", "0.1Ki"]
BROKEN_QUANTITIES = ["x", "1Kb", "1e", "1.5.5", "Gi", "1 Gi", "1e2147483648", "",
                     "1e-2147483649", "1ki", "--1", "1Gi\n", "1e1.5", "1Kii", "1iK"]


def _list(ch: Chooser, items: Sequence[T], longest: int) -> list[T]:
    return [ch.choice(items) for _ in range(ch.randint(0, longest))]


def attribute_value(ch: Chooser, name: str) -> dict[str, Any]:
    kind = {"i": "int", "b": "bool", "s": "string", "v": "version", "il": "ints", "bl": "bools", "sl": "strings",
            "vl": "versions"}.get(name) or ch.choice(["int", "ints"])
    if kind == "int":
        return {"int": ch.choice(_INTS)}
    if kind == "bool":
        return {"bool": ch.choice([True, False])}
    if kind == "string":
        return {"string": ch.choice(_TEXTS)}
    if kind == "version":
        return {"version": ch.choice(_VERSIONS)}
    if kind == "ints":
        longest = ch.choice([3, 3, 52])  # past the 48-value includes() limit now and then
        return {"ints": [ch.randint(-2, 60) for _ in range(ch.randint(0, longest))]}
    if kind == "bools":
        return {"bools": _list(ch, [True, False], 3)}
    if kind == "strings":
        return {"strings": _list(ch, _TEXTS, 3)}
    return {"versions": _list(ch, _VERSIONS, 3)}


def device(ch: Chooser) -> dict[str, Any]:
    attributes: dict[str, Any] = {}
    for _ in range(ch.randint(0, 6)):
        name = ch.choice(NAMES[:-1])
        spelling = ch.choice([name, *[f"{d}/{name}" for d in DOMAINS]])
        attributes[spelling] = attribute_value(ch, name)
    if ch.randint(0, 15) == 0:
        attributes[ch.choice(["bad", "d.io/bad"])] = ch.choice(_BAD)
    capacity = {ch.choice(["memory", "d.io/memory", "gpu.example.com/cores", "cores"]): {"value": ch.choice(QUANTITIES)}
                for _ in range(ch.randint(0, 3))}
    if ch.randint(0, 30) == 0:
        capacity["d.io/broken"] = {"value": ch.choice(BROKEN_QUANTITIES)}
    body: dict[str, Any] = {"attributes": attributes, "capacity": capacity}
    if ch.randint(0, 1):
        body["allowMultipleAllocations"] = ch.choice([True, False])
    if ch.randint(0, 5) == 0:
        return {"name": "dev", "basic": body if ch.randint(0, 20) else ch.choice(["x", ["x"], 1])}
    return {"name": "dev", **body}


# --- expressions ------------------------------------------------------------------------------------------

LITERALS = [
    "0", "1", "2", "4", "-1", "47", "48", '"A100"', '"a100-80gb"', '""', '"x.y"', "true", "false", "1.5", "0.0", "2u",
    "0u", "null", 'b"ab"', "[1, 2]", "[]", '["a", "b"]', "[1, 2.0, 3u]", '{"a": 1}', "{}", "9223372036854775807",
    "-9223372036854775808", "18446744073709551615u", 'semver("1.2.3")', 'semver("v1", true)', 'quantity("1Gi")',
    'quantity("40Gi")', 'quantity("x")', "[true, false]", "[[1], [2, 3]]", "lists.range(4)", "optional.of(1)",
    "optional.none()", '"%s-%d"', '"^A"', '"[a-"', "1e300", "-0.0", 'ip("10.0.0.1")', 'ip("::1")',
    'cidr("10.0.0.0/8")', 'cidr("fd00::/8")', '"10.1.2.3"', '"10.0.0.0/16"',
]
BINARY = ["==", "!=", "<", "<=", ">", ">=", "&&", "||", "+", "-", "*", "/", "%", "in"]
MEMBER_CALLS = [
    "includes", "include", "isGreaterThan", "isLessThan", "compareTo", "major", "minor", "patch", "add", "sub",
    "asInteger", "isInteger", "asApproximateFloat", "sign", "isSorted", "sum", "min", "max", "indexOf",
    "lastIndexOf", "slice", "flatten", "distinct", "reverse", "sort", "charAt", "lowerAscii", "upperAscii",
    "replace", "split", "substring", "trim", "join", "format", "find", "findAll", "matches", "startsWith",
    "endsWith", "contains", "size", "hasValue", "value", "orValue", "or", "family", "isLoopback",
    "isGlobalUnicast", "containsIP", "containsCIDR", "masked", "prefixLength", "ip",
]
GLOBAL_CALLS = ["size", "int", "uint", "double", "string", "bytes", "dyn", "semver", "isSemver", "quantity",
                "isQuantity", "sign", "sets.contains", "sets.equivalent", "sets.intersects", "strings.quote",
                "lists.range", "optional.of", "optional.ofNonZeroValue", "matches", "ip", "cidr", "isIP", "isCIDR",
                "ip.isCanonical"]
MACROS_ONE = ["all", "exists", "exists_one", "map", "filter", "sortBy"]
MACROS_TWO = ["all", "exists", "existsOne", "transformList", "transformMap", "transformMapEntry"]
CONDITIONS = ["x > 0", "y == x", "x in y", "y", "x == 1 || y == 1", "1 / x > 0"]  # the 4-argument forms' filters


def attribute(ch: Chooser) -> str:
    domain, name = ch.choice(DOMAINS), ch.choice(NAMES)
    return ch.choice([f'device.attributes["{domain}"].{name}', f'device.attributes["{domain}"]["{name}"]',
                      f"device.attributes.{domain.split('.')[0]}.{name}"])


def capacity(ch: Chooser) -> str:
    return f'device.capacity["{ch.choice(DOMAINS)}"].{ch.choice(["memory", "cores", "x"])}'


def atom(ch: Chooser) -> str:
    pick = ch.randint(0, 9)
    if pick <= 2:
        return attribute(ch)
    if pick == 3:
        return capacity(ch)
    if pick <= 6:
        return ch.choice(LITERALS)
    return ch.choice(["device.driver", "device.allowMultipleAllocations", "device.attributes", "x", "y",
                      f'device.attributes["{ch.choice(DOMAINS)}"]', "device"])


def expression(ch: Chooser, depth: int = 3) -> str:
    """Any expression (well-typed or not) at most `depth` operators deep."""
    if depth <= 0 or ch.randint(0, 3) == 0:
        return atom(ch)

    def sub() -> str:
        return expression(ch, depth - 1)

    form = ch.randint(0, 20)
    if form <= 3:
        return f"{sub()} {ch.choice(BINARY)} {sub()}"
    if form == 4:
        return f"({sub()}) {ch.choice(BINARY)} ({sub()})"
    if form <= 7:
        return f"{sub()}.{ch.choice(MEMBER_CALLS)}({', '.join(sub() for _ in range(ch.randint(0, 2)))})"
    if form == 8:
        return f"{ch.choice(GLOBAL_CALLS)}({', '.join(sub() for _ in range(ch.randint(0, 2)))})"
    if form == 9:
        return f"{ch.choice(['!', '-'])}({sub()})"
    if form == 10:
        return f"({sub()}) ? ({sub()}) : ({sub()})"
    if form == 11:
        return ch.choice([f"[{sub()}, {sub()}]", f"{{{sub()}: {sub()}}}", f"({sub()})[{sub()}]"])
    if form == 12:
        return f"({sub()}).{ch.choice(MACROS_ONE)}(x, {ch.choice(['', 'x == 1 || '])}{sub()})"
    if form == 13:
        return ch.choice([f"({sub()}).map(x, {sub()}, {sub()})",
                          f"({sub()}).{ch.choice(MACROS_TWO)}(x, y, {sub()})",
                          f"({sub()}).{ch.choice(MACROS_TWO[3:])}(x, y, {ch.choice(CONDITIONS)}, {sub()})",
                          f"({sub()}).transformMapEntry(x, y, {{x: {sub()}}})",
                          f"({sub()}).transformMapEntry(x, y, {ch.choice(CONDITIONS)}, {{y: {sub()}}})",
                          f"({sub()}).sortBy(x, {sub()})"])
    if form == 14:
        return f"cel.bind(x, {sub()}, {sub()})"
    if form == 15:
        return ch.choice([f"has({attribute(ch)})", f"has(({sub()}).{ch.choice(NAMES)})",
                          f"has(dyn({sub()}).{ch.choice(NAMES)})"])
    if form == 16:
        return f'device.attributes["{ch.choice(DOMAINS)}"].?{ch.choice(NAMES)}.orValue({sub()})'
    if form == 17:
        return ch.choice([f"({sub()})[?{sub()}].hasValue()", f"optional.of({sub()}).optMap(y, {sub()}).orValue(false)",
                          f"({sub()}).optFlatMap(y, {sub()}).orValue(false)",
                          f"({sub()})[?{sub()}].optFlatMap(y, optional.of({sub()})).hasValue()",
                          f"({sub()}).?{ch.choice(NAMES)}"])
    return selector(ch)


_INCLUDED = ["-1", "0", "1", "4", "7", "47", "59", '"A100"', "1u", "true"]


def typed_test(ch: Chooser) -> str:
    """A test whose operands the checker types (string, int, bool, list): the planner's inlined overloads."""
    text = ch.choice(["device.driver", f"string({attribute(ch)})", '"A100"', '""', "strings.quote(device.driver)"])
    number = ch.choice([f"int({attribute(ch)})", f"size({text})", f"{text}.size()", f"{capacity(ch)}.asInteger()",
                        f'{attribute(ch)}.compareTo(semver("1.2.3"))', "4", "-1", f"size({attribute(ch)})"])
    form = ch.randint(0, 6)
    if form == 0:
        return f'{text}.{ch.choice(["startsWith", "endsWith", "contains"])}({ch.choice(_TEXT_ARGS)})'
    if form == 1:
        return f"{number} {ch.choice(['==', '!=', '<', '<=', '>', '>='])} {number}"
    if form == 2:
        return f"{text} {ch.choice(['==', '!=', '<', '<=', '>', '>='])} {text}"
    if form == 3:
        return f'{text} + {ch.choice(_TEXT_ARGS)} == {ch.choice(_TEXT_ARGS)} + {text}'
    if form == 4:
        flag = ch.choice(["device.allowMultipleAllocations", f"has({attribute(ch)})", f"bool({attribute(ch)})"])
        return f"!{flag} {ch.choice(['==', '!=', '<', '>='])} {ch.choice(['true', 'false', flag])}"
    if form == 5:
        items = ch.choice([f"[{number}, 1]", f"{attribute(ch)}.split(',')", "[]", f"[{text}]"])
        return f"size({items}) {ch.choice(['>', '==', '<='])} {ch.randint(0, 2)}"
    return f"{number} {ch.choice(['<', '>=', '=='])} {ch.choice(['1u', '1.5', 'dyn(1)'])}"


_TEXT_ARGS = ['"gpu"', '"io"', '""', '"A"', '"."', "device.driver", '"日本"']


def device_test(ch: Chooser) -> str:
    """One device test as real selectors write them."""
    form = ch.randint(0, 10)
    if form >= 9:
        return typed_test(ch)
    if form == 8:
        return f'"{ch.choice(DOMAINS)}" in device.{ch.choice(["attributes", "capacity"])}'
    if form == 0:
        return f"{attribute(ch)}.includes({ch.choice(_INCLUDED)})"
    if form == 1:
        value = ch.choice(["1", "4", '"A100"', "true", "2u", "1.5", 'semver("1.0.0")'])
        return f"{attribute(ch)} {ch.choice(['==', '!=', '<', '>=', '>'])} {value}"
    if form == 2:
        method = ch.choice(["isGreaterThan", "isLessThan", "compareTo"])
        other = ch.choice([f'quantity("{ch.choice(QUANTITIES + BROKEN_QUANTITIES[:2])}")', capacity(ch)])
        return f'{capacity(ch)}.{method}({other})'
    if form == 3:
        method = ch.choice(["isGreaterThan", "isLessThan", "compareTo"])
        other = ch.choice([f'semver("{ch.choice(SEMVERS)}")', attribute(ch), 'semver("v1.2", true)'])
        return f'{attribute(ch)}.{method}({other})'
    if form == 4:
        return f"has({attribute(ch)})"
    if form == 5:
        return f'device.driver == "{ch.choice(DRIVERS)}"'
    if form == 6:
        return f"{attribute(ch)}.exists(x, x == {ch.randint(0, 4)})"
    return f'{attribute(ch)}.matches("^A")'


def selector(ch: Chooser) -> str:
    """A conjunction (or disjunction) of device tests."""
    joiner = ch.choice([" && ", " && ", " || "])
    return joiner.join(device_test(ch) for _ in range(ch.randint(1, 4)))


def pool(size: int, seed: int, make: Any) -> list[Any]:
    rng = random.Random(seed)
    return [make(rng) for _ in range(size)]


# --- long shapes (the planner's flat chains and its compact form) -------------------------------------------

_CHAIN_OPERANDS = ["true", "false", "1 / 0 == 1", "dyn(1)", 'dyn("x")', "device.allowMultipleAllocations",
                   'device.driver == "d.io"', 'device.attributes["d.io"].b']


def long_chain(ch: Chooser) -> str:
    """A long `&&` or `||` chain, grouped at random, with errors, non-bool values and deciding values in any
    position (the flat chain must keep CEL's commutative error absorption)."""
    operator = ch.choice([" && ", " || "])
    operands = [ch.choice([*_CHAIN_OPERANDS, device_test(ch)]) for _ in range(ch.randint(2, 40))]
    while len(operands) > 1 and ch.randint(0, 2):  # some operands grouped in parentheses, or other operators
        i = ch.randint(0, len(operands) - 2)
        joiner = ch.choice([operator, operator, " && ", " || "])
        operands[i:i + 2] = [f"({operands[i]}{joiner}{operands[i + 1]})"]
    return operator.join(operands)


def arithmetic_chain(ch: Chooser) -> str:
    """A chain of int arithmetic near the int64 limits (overflow errors part-way)."""
    start = ch.choice(["9223372036854775800", "-9223372036854775800", "1", f"int({attribute(ch)})"])
    terms = "".join(f" {ch.choice(['+', '-', '*'])} {ch.choice(['1', '2', '3', '4'])}"
                    for _ in range(ch.randint(1, 30)))
    return f"{start}{terms} {ch.choice(['>', '<', '=='])} {ch.choice(['0', '9223372036854775807'])}"


def deep_ternary(ch: Chooser) -> str:
    """Ternaries nested in either branch, with constant, device and erroneous conditions."""
    text = ch.choice(["true", "false", device_test(ch), "1 / 0 == 1"])
    for _ in range(ch.randint(1, 30)):
        condition = ch.choice(["true", "false", "device.allowMultipleAllocations", device_test(ch), "1 / 0 == 1",
                               "dyn(1)", 'device.attributes["d.io"].b'])
        other = ch.choice(["true", "false", device_test(ch)])
        text = f"{condition} ? ({text}) : {other}" if ch.randint(0, 1) else f"{condition} ? {other} : ({text})"
    return text


def long_shape(ch: Chooser) -> str:
    return ch.choice([long_chain, arithmetic_chain, deep_ternary])(ch)
