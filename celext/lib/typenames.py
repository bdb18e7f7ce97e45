"""CEL's names for runtime values, as cel-go's error texts spell them."""

from __future__ import annotations

from typing import Any

from celpy import celtypes

from celext.lib.optional_value import OptionalValue
from celext.netaddr import Addr, Prefix
from celext.neturl import URL
from celext.quantity import Quantity, QuantityPointer
from celext.semver import Semver

_GO_TYPE_NAMES: tuple[tuple[type, str], ...] = (
    (celtypes.BoolType, "types.Bool"), (celtypes.IntType, "types.Int"), (celtypes.UintType, "types.Uint"),
    (celtypes.DoubleType, "types.Double"), (celtypes.StringType, "types.String"),
    (celtypes.BytesType, "types.Bytes"), (celtypes.TimestampType, "types.Timestamp"),
    (celtypes.DurationType, "types.Duration"), (Semver, "cel.Semver"), (QuantityPointer, "*cel.Quantity"),
    (Quantity, "cel.Quantity"),
    (Addr, "cel.IP"), (Prefix, "cel.CIDR"), (URL, "cel.URL"),
)
_CEL_TYPE_NAMES: tuple[tuple[type, str], ...] = (
    (celtypes.BoolType, "bool"), (celtypes.IntType, "int"), (celtypes.UintType, "uint"),
    (celtypes.DoubleType, "double"), (celtypes.StringType, "string"), (celtypes.BytesType, "bytes"),
    (celtypes.ListType, "list"), (celtypes.MapType, "map"), (celtypes.TimestampType, "google.protobuf.Timestamp"),
    (celtypes.DurationType, "google.protobuf.Duration"), (Semver, "kubernetes.Semver"),
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
    "bool": celtypes.BoolType, "int": celtypes.IntType, "uint": celtypes.UintType, "double": celtypes.DoubleType,
    "string": celtypes.StringType, "bytes": celtypes.BytesType, "list": celtypes.ListType, "map": celtypes.MapType,
    "null_type": type(None), "type": celtypes.TypeType, "optional_type": OptionalValue,
    # env.DOTTED_TYPE_NAMES: celext.syntax.rewrite turns the select chain that spells one into one identifier
    "google.protobuf.Timestamp": celtypes.TimestampType, "google.protobuf.Duration": celtypes.DurationType,
    "net.IP": Addr, "net.CIDR": Prefix,
}


def type_of(value: Any) -> type:
    """CEL `type()`: the value's type, as cel-python's `TypeType` answers it, except that celext's subclasses of
    cel-python's values answer as the type they are (a concatenated list is a `list`, a nanosecond duration a
    `google.protobuf.Duration`)."""
    if type(value) is type:
        return celtypes.TypeType
    for cls in type(value).__mro__:
        if cls.__module__ == celtypes.__name__:
            return cls
    return type(value)


def type_value_name(value: type) -> str:
    """The CEL name of a type value (`type(1)` is `int`), as `string(type(x))` and `format` print it."""
    if value is type(None):
        return "null_type"
    if value is celtypes.TypeType or value is type:
        return "type"
    for cls, name in _CEL_TYPE_NAMES:
        if cls is not type and issubclass(value, cls):
            return name
    return value.__name__
