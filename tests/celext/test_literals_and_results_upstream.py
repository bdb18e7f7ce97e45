"""Number literals the parser refuses, the hexadecimal prefix, and the error when a selector's result is not a bool,
as Kubernetes answers them (cel-go v0.26.0 parser/parser.go and common/types/*.go; apiserver pkg/cel; the DRA
compiler's cel/compile.go), on both engines."""

from __future__ import annotations

from typing import Any

import pytest

import celext
from celext.syntax.lexer import scan, tokenize

ENGINES = ("compiled", "reference")
DRIVER = "dra.net"
DEVICE: dict[str, Any] = {
    "name": "d0",
    "attributes": {"numaNode": {"int": 1}, "model": {"string": "x"}, "v": {"version": "1.2.3"},
                   "list": {"ints": [1, 2]}, "b": {"bool": True}},
    "capacity": {"memory": {"value": "80Gi"}},
}
A = 'device.attributes["dra.net"]'


def _compile_error(expression: str, engine: str) -> tuple[str, int | None, int | None]:
    with pytest.raises(celext.CompileError) as err:
        celext.compile(expression, engine=engine)
    return err.value.message, err.value.line, err.value.column


def _answer(expression: str, engine: str) -> bool | str:
    selector = celext.compile(expression, engine=engine)
    try:
        return selector.evaluate(DEVICE, DRIVER)
    except celext.EvaluationError as err:
        return f"eval: {err.message}"


# ---- 5: cel-go's VisitInt / VisitUint / VisitDouble refuse a literal strconv cannot read, at the literal (its
# sign included): "invalid int literal", with no more text.

@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("expression", "message", "column"), [
    (f"{A}.numaNode == 9223372036854775808", "invalid int literal", 42),
    ("false && 9223372036854775808 == 0", "invalid int literal", 10),  # never evaluated, still refused
    ("true || 18446744073709551616u == 0u", "invalid uint literal", 9),
    ("-9223372036854775809 == 0", "invalid int literal", 1),  # the sign belongs to the literal
    ("0x10000000000000000 == 0", "invalid int literal", 1),
    ("0x8000000000000000 == 0", "invalid int literal", 1),
    ("-0x8000000000000001 == 0", "invalid int literal", 1),
    ("0x10000000000000000u == 0u", "invalid uint literal", 1),
    ("1e400 > 0.0", "invalid double literal", 1),  # strconv.ParseFloat: ErrRange
    ("-1e400 < 0.0", "invalid double literal", 1),
    ("1.7976931348623159e308 > 0.0", "invalid double literal", 1),  # rounds past the largest double
    (f"{A}.numaNode < 1e309", "invalid double literal", 41),
    ("1 == 1 &&\n  2 == 9223372036854775808", "invalid int literal", 8),
    ("[9223372036854775808] == []", "invalid int literal", 2),
    ("{9223372036854775808: 1} == {}", "invalid int literal", 2),
    ("9223372036854775808", "invalid int literal", 1),  # the parser refuses it before the result rule
    ("[" + ", ".join(["1"] * 20) + ", 99999999999999999999].size() > 0", "invalid int literal", 62),
    ("1 -9223372036854775809 == 0", "invalid int literal", 4),  # a subtraction: the literal has no sign
])
def test_out_of_range_literals_are_compile_errors(engine: str, expression: str, message: str, column: int) -> None:
    line = expression.count("\n") + 1
    assert _compile_error(expression, engine) == (message, line, column)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("expression", "value"), [
    ("-9223372036854775808 == 0", False),  # -2^63 is an int64
    ("-9223372036854775808 < 0", True),
    ("-0x8000000000000000 < 0", True),
    ("18446744073709551615u > 0u", True),
    ("0xFFFFFFFFFFFFFFFFu > 0u", True),
    ("1.7976931348623157e308 > 0.0", True),
    ("1e-400 == 0.0", True),  # underflow reads as 0, not an error, in Go too
])
def test_literals_at_the_edge_of_their_range(engine: str, expression: str, value: bool) -> None:
    assert _answer(expression, engine) is value


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("expression", "message", "column"), [
    # cel-go's grammar has no sign on a uint literal: `-1u` negates `1u`, and no `-_` overload takes a uint
    ("-1u == 0u", "found no matching overload for '-_' applied to '(uint)'", 1),
    ("-0u == 0u", "found no matching overload for '-_' applied to '(uint)'", 1),
    ("dyn(-1u) == 0u", "found no matching overload for '-_' applied to '(uint)'", 5),
    ("-18446744073709551616u == 0u", "invalid uint literal", 2),
])
def test_a_uint_literal_has_no_sign(engine: str, expression: str, message: str, column: int) -> None:
    assert _compile_error(expression, engine) == (message, 1, column)


# ---- 6: cel-go's lexer knows `0x` only (NUM_INT, NUM_UINT in CEL.g4): `0X10` is `0` and the name `X10`.

@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("expression", "message", "column"), [
    ("0X10 == 16", "Syntax error: unexpected 'X10'", 2),
    ("0XFFu == 255u", "Syntax error: unexpected 'XFFu'", 2),
    ("-0X1 == -1", "Syntax error: unexpected 'X1'", 3),
    ("1 == 1 && 0X0 == 0", "Syntax error: unexpected 'X0'", 12),
])
def test_an_upper_case_hex_prefix_is_a_syntax_error(engine: str, expression: str, message: str, column: int) -> None:
    assert _compile_error(expression, engine) == (message, 1, column)


@pytest.mark.parametrize("text", ["0X10", "0XFFu", "-0X1", "a-0X1", "0x1F", "0xaBu", "x\n-0X1u", "1-1u", "-1u"])
def test_both_lexer_paths_agree_on_prefixes_and_signs(text: str) -> None:
    assert tokenize(text) == scan(text)


def test_hex_tokens() -> None:
    assert tokenize("0X1") == [("INT_LIT", "0", 0, 1, 1), ("IDENT", "X1", 1, 1, 2)]
    assert tokenize("0xFFu") == [("UINT_LIT", "0xFFu", 0, 1, 1)]


# ---- 7, 8: the DRA compiler converts the result with `ConvertToNative(reflect.TypeOf(true))` and reports
# `CEL result of type <TypeName> could not be converted to bool: <err>`; each type words <err> its own way.

PREFIX = "eval: CEL result of type {} could not be converted to bool: {}"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("expression", "type_name", "text"), [
    (f"{A}.numaNode", "int", "unsupported type conversion from 'int' to bool"),  # types/int.go
    ("dyn(1u)", "uint", "unsupported type conversion from 'uint' to bool"),  # uint.go
    (f"{A}.model", "string", "unsupported native conversion from string to 'bool'"),  # string.go
    ("dyn(1.5)", "double", "type conversion error from Double to 'bool'"),  # double.go
    ('dyn(b"a")', "bytes", "type conversion error from Bytes to 'bool'"),  # bytes.go
    (f"{A}.list", "list", "type conversion error from list to 'bool'"),  # list.go
    ("dyn([1] + [2])", "list", "type conversion error from list to 'bool'"),
    ("dyn({})", "map", "type conversion error from map to 'bool'"),  # map.go
    ("dyn(device.attributes)", "map", "type conversion error from map to 'bool'"),
    ("dyn(null)", "null_type", "type conversion error from 'null_type' to 'bool'"),  # null.go
    ('dyn(duration("1s"))', "google.protobuf.Duration", "type conversion error from 'Duration' to 'bool'"),
    ("dyn(timestamp(0))", "google.protobuf.Timestamp", "type conversion error from 'Timestamp' to 'bool'"),
    ("dyn(int)", "type", "type conversion not supported for 'type'"),  # types.go
    ("dyn(type(1))", "type", "type conversion not supported for 'type'"),
    (f"{A}.v", "kubernetes.Semver", "type conversion error from 'Semver' to 'bool'"),  # apiserver pkg/cel
    ('dyn(device.capacity["dra.net"].memory)', "kubernetes.Quantity",
     "type conversion error from 'Quantity' to 'bool'"),
    ('dyn(ip("1.2.3.4"))', "net.IP", "type conversion error from 'IP' to 'bool'"),
    ('dyn(cidr("1.2.3.0/24"))', "net.CIDR", "type conversion error from 'CIDR' to 'bool'"),
    # an optional converts its value (types/optional.go), the prefix still names the optional
    ("dyn(optional.of(1))", "optional_type", "unsupported type conversion from 'int' to bool"),
    ("dyn(optional.none())", "optional_type", "optional.none() dereference"),
    ("dyn(optional.of(optional.none()))", "optional_type", "optional.none() dereference"),
    (f"dyn({A}.?zz)", "optional_type", "optional.none() dereference"),
])
def test_a_result_that_is_not_a_bool_fails_with_its_types_text(engine: str, expression: str, type_name: str,
                                                               text: str) -> None:
    expected = PREFIX.format(type_name, text)
    assert _answer(expression, engine) == expected
    with pytest.raises(celext.EvaluationError) as err:  # matches() says the same (and remembers it)
        celext.compile(expression, engine=engine).matches(DEVICE, DRIVER)
    assert f"eval: {err.value.message}" == expected


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("expression", "value"), [
    ("dyn(optional.of(true))", True),
    ("dyn(optional.of(false))", False),
    ("dyn(optional.of(optional.of(true)))", True),
    (f"dyn({A}.?b)", True),
])
def test_an_optional_bool_result_is_its_value(engine: str, expression: str, value: bool) -> None:
    assert _answer(expression, engine) is value
    assert celext.compile(expression, engine=engine).matches(DEVICE, DRIVER) is value


# ---- 9: the DRA compiler's result-type rule is worded after cel-go's check, with no `<input>:l:c` position.

@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("expression", "type_name"), [
    ("1", "int"), ("device.driver", "string"), ("[1].map(x, x)", "list(int)"), (f"{A}.?b", "optional_type(dyn)"),
])
def test_the_result_type_error_has_no_position(engine: str, expression: str, type_name: str) -> None:
    message = f"must evaluate to bool or the unknown type, not {type_name}"
    assert _compile_error(expression, engine) == (message, None, None)
    with pytest.raises(celext.CompileError) as err:
        celext.compile(expression, engine=engine)
    assert str(err.value) == message  # rendered without "(line 1, column 1)"
