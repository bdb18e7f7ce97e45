"""Plain scalars resolved as sigs.k8s.io/yaml (go.yaml.in/yaml/v2 v2.4.x, resolve.go) resolves them, by both readers.

Each row is what `YAMLToJSON` makes of `v: <text>` (and of `<text>: v`, where the key has a JSON form)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from webhook.manifests import libyaml, load_text, parse
from webhook.manifests.goyaml import json_key, key_of, needs_quotes, read_as, resolve_plain

I64_MAX, I64_MIN, U64_MAX = 2**63 - 1, -(2**63), 2**64 - 1

ROWS: list[tuple[str, Any]] = [
    # null
    ("~", None), ("null", None), ("Null", None), ("NULL", None), ("nULL", "nULL"),
    # YAML 1.1 booleans
    *[(word, True) for word in ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON")],
    *[(word, False) for word in ("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF")],
    ("yES", "yES"), ("oN", "oN"), ("tRUE", "tRUE"), ("o", "o"), ("nope", "nope"),
    # integers: ParseInt(text without `_`, base 0)
    ("0", 0), ("-0", 0), ("+7", 7), ("10", 10), ("010", 8), ("0755", 493), ("-010", -8), ("00", 0),
    ("0o17", 15), ("0O17", 15), ("0x1F", 31), ("0X1f", 31), ("-0x1F", -31), ("+0x1F", 31),
    ("0b101", 5), ("0B101", 5), ("-0b101", -5), ("0b-101", -5), ("0b+101", 5),
    ("1_000", 1000), ("1__0", 10), ("1_", 1), ("0x_1F", 31), ("_1", "_1"),
    # int64 and uint64 limits: ParseInt, then ParseUint (no sign), then a float
    (str(I64_MAX - 1), I64_MAX - 1), (str(I64_MAX), I64_MAX), (str(I64_MAX + 1), I64_MAX + 1),
    (str(I64_MIN + 1), I64_MIN + 1), (str(I64_MIN), I64_MIN), (str(I64_MIN - 1), float(I64_MIN - 1)),
    (str(U64_MAX - 1), U64_MAX - 1), (str(U64_MAX), U64_MAX), (str(U64_MAX + 1), float(U64_MAX + 1)),
    ("+" + str(I64_MAX + 1), float(I64_MAX + 1)), ("0xFFFFFFFFFFFFFFFF", U64_MAX),
    ("0x10000000000000000", "0x10000000000000000"),
    ("-0x8000000000000000", I64_MIN), ("-0x8000000000000001", "-0x8000000000000001"),
    # floats
    ("09", 9.0), ("-09", -9.0), ("1e3", 1000.0), ("1E+3", 1000.0), (".5", 0.5), ("-.5", -0.5), ("1.", 1.0),
    ("1_0.5", 10.5), (".5_5", 0.55), ("._5", "._5"), (".5__5", ".5__5"), ("1e400", "1e400"), (".5e400", ".5e400"),
    ("1e-400", 0.0), ("0.1", 0.1),
    (".inf", math.inf), (".Inf", math.inf), ("+.INF", math.inf), ("-.inf", -math.inf), (".iNf", ".iNf"),
    ("+.nan", "+.nan"),
    # strings
    ("0000:00:05.0", "0000:00:05.0"), ("1:20", "1:20"), ("190:20:30", "190:20:30"), ("2024-01-02", "2024-01-02"),
    ("2001-12-14t21:59:43.10-05:00", "2001-12-14t21:59:43.10-05:00"), ("0x", "0x"), ("0b2", "0b2"),
    ("1.2.3", "1.2.3"), ("+", "+"), ("4Gi", "4Gi"), ("0o8", "0o8"), ("name", "name"),
]


def _same(got: Any, want: Any) -> bool:
    if isinstance(want, float) and math.isnan(want):
        return isinstance(got, float) and math.isnan(got)
    return type(got) is type(want) and got == want


@pytest.mark.parametrize(("text", "value"), [*ROWS, (".nan", math.nan), (".NaN", math.nan), (".NAN", math.nan)])
def test_each_class_of_plain_scalar_resolves_as_go_yaml_v2(text: str, value: Any) -> None:
    assert _same(resolve_plain(text), value)
    document = f"kind: X\nv: {text}\nl: [{text}]\nq: '{text}'\n"
    if isinstance(value, float) and not math.isfinite(value):  # no JSON form: kubectl refuses the file
        assert libyaml.load(document, "t.yaml") is None
        (problem,) = load_text(document, "t.yaml").problems
        assert (problem.line, problem.column) == (2, 4)
        assert problem.message.startswith(f"invalid YAML: `{text}` has no JSON form")
        assert needs_quotes(text)
        return
    fast = libyaml.load(document, "t.yaml")
    assert fast is not None, "the fast path reads it"
    (slow,) = load_text(document, "t.yaml").manifests
    for obj in (fast[0].obj, slow.obj):
        assert _same(obj["v"], value) and _same(obj["l"][0], value)
        assert obj["q"] == text  # quoted: always the text
    assert needs_quotes(text) is not isinstance(value, str)


@pytest.mark.parametrize(("value", "key"), [
    (True, "true"), (False, "false"), (0, "0"), (8, "8"), (I64_MAX, str(I64_MAX)), (I64_MIN, str(I64_MIN)),
    (I64_MAX + 1, None), (U64_MAX, None), (None, None), ("s", "s"),
    # strconv.FormatFloat(f, 'g', -1, 32)
    (1000.0, "1000"), (1.5, "1.5"), (0.1, "0.1"), (1e6, "1e+06"), (123456.0, "123456"), (1234567.0, "1.234567e+06"),
    (0.0001, "0.0001"), (0.00001, "1e-05"), (-2.5e-7, "-2.5e-07"), (123456789.0, "1.2345679e+08"), (0.0, "0"),
    (-0.0, "-0"), (9.0, "9"), (1e39, ".inf"), (-1e39, "-.inf"), (math.inf, ".inf"), (math.nan, ".nan"),
    (3.4028235e38, "3.4028235e+38"), (1e100, ".inf"),
])
def test_a_key_becomes_the_json_key_yaml_to_json_makes(value: Any, key: str | None) -> None:
    assert key_of(value) == key


@pytest.mark.parametrize(("text", "value"), [row for row in ROWS if row[1] is not None])
def test_both_readers_make_the_same_json_key(text: str, value: Any) -> None:
    key = key_of(value)
    assert json_key(text) == key
    if key is None or key == "v":
        return
    document = f"kind: X\nm:\n  {text}: v\n"
    fast = libyaml.load(document, "k.yaml")
    assert fast is not None
    (slow,) = load_text(document, "k.yaml").manifests
    assert fast[0].obj["m"] == slow.obj["m"] == {key: "v"}


BOOL_NOTE = "kubectl (YAML 1.1) reads the unquoted `{0}` as the boolean {1}: quote it (\"{0}\") for the string"
NUMBER_NOTE = ("kubectl (YAML 1.1) reads the unquoted `{0}` as the {1}number {2}: write the number in decimal, or "
               "quote it (\"{0}\") for the string")


@pytest.mark.parametrize(("written", "note"), [
    ("on", BOOL_NOTE.format("on", "true")), ("No", BOOL_NOTE.format("No", "false")),
    ("y", BOOL_NOTE.format("y", "true")), ("[off, 1]", BOOL_NOTE.format("off", "false")),
    ("010", NUMBER_NOTE.format("010", "octal ", 8)), ("-010 # c", NUMBER_NOTE.format("-010", "octal ", -8)),
    ("0b11", NUMBER_NOTE.format("0b11", "", 3)), ("1_000", NUMBER_NOTE.format("1_000", "", 1000)),
    ("09", NUMBER_NOTE.format("09", "", 9.0)),
    ("true", None), ("False", None), ("10", None), ("0", None), ("0.5", None), ("1e3", None), ("!!bool yes", None),
    ("&a on", None),
])
def test_what_kubectl_makes_of_a_yaml_1_1_word_or_number_is_named(written: str, note: str | None) -> None:
    text = f"v: {written}\n"
    value = resolve_plain(written.strip("[").split(",")[0].split(" ")[0])
    assert read_as(text, 3 if not written.startswith("[") else 4, value) == note


def test_a_folded_plain_scalar_is_not_named_by_its_first_word() -> None:
    assert read_as("v: on\n  and on\n", 3, "on and on") is None


@pytest.mark.parametrize(("written", "value", "problem"), [
    ("!!int 010", 8, None), ("!!int '0x1F'", 31, None), ("!!bool yes", True, None), ("!!bool \"off\"", False, None),
    ("!!float 1", 1.0, None), ("!!float 1e3", 1000.0, None), ("!!null ~", None, None), ("!!str on", "on", None),
    ("!!int 1.5", None, "t.yaml:2:4: invalid YAML: cannot decode !!float `1.5` as a !!int"),
    ("!!bool '1'", None, "t.yaml:2:4: invalid YAML: cannot decode !!int `1` as a !!bool"),
    ("!!float 18446744073709551615", None,
     "t.yaml:2:4: invalid YAML: cannot decode !!int `18446744073709551615` as a !!float"),
    ("!!null 0", None, "t.yaml:2:4: invalid YAML: cannot decode !!int `0` as a !!null"),
])
def test_a_tagged_scalar_is_resolved_and_held_to_its_tag_as_go_yaml_does(written: str, value: Any,
                                                                         problem: str | None) -> None:
    """A tag sends the text to ruamel, which resolves the text by the same rules (quoted or not) and refuses a
    value of another type in go-yaml's words (`!!bool '1'` raised a KeyError before)."""
    problems: list[Any] = []
    docs = parse(f"kind: X\nv: {written}\n", "t.yaml", problems)
    if problem is None:
        assert problems == [] and _same(docs[0].obj["v"], value)
    else:
        assert docs == [] and [str(p) for p in problems] == [problem]
