"""CEL's names for runtime values, as cel-go's error texts spell them."""

from __future__ import annotations

from typing import Any

from celext import values as celvalues
from celext.lib.optional_value import OptionalValue
from celext.netaddr import Addr, Prefix
from celext.neturl import URL
from celext.quantity import Quantity, QuantityPointer
from celext.semver import Semver

_GO_TYPE_NAMES: tuple[tuple[type, str], ...] = (
    (celvalues.BoolType, "types.Bool"), (celvalues.IntType, "types.Int"), (celvalues.UintType, "types.Uint"),
    (celvalues.DoubleType, "types.Double"), (celvalues.StringType, "types.String"),
    (celvalues.BytesType, "types.Bytes"), (celvalues.TimestampType, "types.Timestamp"),
    (celvalues.DurationType, "types.Duration"), (Semver, "cel.Semver"), (QuantityPointer, "*cel.Quantity"),
    (Quantity, "cel.Quantity"),
    (Addr, "cel.IP"), (Prefix, "cel.CIDR"), (URL, "cel.URL"),
)
_CEL_TYPE_NAMES: tuple[tuple[type, str], ...] = (
    (celvalues.BoolType, "bool"), (celvalues.IntType, "int"), (celvalues.UintType, "uint"),
    (celvalues.DoubleType, "double"), (celvalues.StringType, "string"), (celvalues.BytesType, "bytes"),
    (celvalues.ListType, "list"), (celvalues.MapType, "map"), (celvalues.TimestampType, "google.protobuf.Timestamp"),
    (celvalues.DurationType, "google.protobuf.Duration"), (Semver, "kubernetes.Semver"),
    (Quantity, "kubernetes.Quantity"), (Addr, "net.IP"), (Prefix, "net.CIDR"), (URL, "kubernetes.URL"),
    (OptionalValue, "optional_type"),
    (type, "type"),
)


def go_type_name(value: Any) -> str:
    """The Go type cel-go names in `got '<type>', expected iterable type`."""
    for cls, name in _GO_TYPE_NAMES:
        if isinstance(value, cls):
            return name
    return "types.Null" if value is None else type(value).__name__


def cel_type_name(value: Any) -> str:
    """The CEL type name (`TypeName()`), as in `CEL result of type list could not be converted to bool`."""
    for cls, name in _CEL_TYPE_NAMES:
        if isinstance(value, cls):
            return name
    return "null_type" if value is None else type(value).__name__


# The type denotations CEL declares as identifiers (`type(x) == string`); values are what `type()` returns.
TYPE_DENOTATIONS: dict[str, type] = {
    "bool": celvalues.BoolType, "int": celvalues.IntType, "uint": celvalues.UintType, "double": celvalues.DoubleType,
    "string": celvalues.StringType, "bytes": celvalues.BytesType, "list": celvalues.ListType, "map": celvalues.MapType,
    "null_type": type(None), "type": celvalues.TypeType, "optional_type": OptionalValue,
    # env.DOTTED_TYPE_NAMES: celext.syntax.rewrite turns the select chain that spells one into one identifier
    "google.protobuf.Timestamp": celvalues.TimestampType, "google.protobuf.Duration": celvalues.DurationType,
    "net.IP": Addr, "net.CIDR": Prefix,
}


def type_of(value: Any) -> type:
    """CEL `type()`: the value's type, as cel-python's `TypeType` answers it, except that celext's subclasses of
    cel-python's values answer as the type they are (a concatenated list is a `list`, a nanosecond duration a
    `google.protobuf.Duration`)."""
    if type(value) is type:
        return celvalues.TypeType
    for cls in type(value).__mro__:
        if cls.__module__ == celvalues.__name__:
            return cls
    return type(value)


def type_value_name(value: type) -> str:
    """The CEL name of a type value (`type(1)` is `int`), as `string(type(x))` and `format` print it."""
    if value is type(None):
        return "null_type"
    if value is celvalues.TypeType or value is type:
        return "type"
    for cls, name in _CEL_TYPE_NAMES:
        if cls is not type and issubclass(value, cls):
            return name
    return value.__name__
