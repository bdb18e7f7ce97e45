"""DeviceAttribute validation, mirroring upstream `validateDeviceAttribute` (v1.36 with KEP-5491 lists).

Exactly one of int/bool/string/version/ints/bools/strings/versions; a list counts as set even when
empty, and an empty list is itself an error; strings and versions are at most 64 bytes; versions are
strict semver 2.0.0. Duplicates inside a list are accepted (listType=atomic), as upstream does.

`null` is Go's zero value wherever the decoder meets it (sigs.k8s.io/json leaves a null primitive untouched):
an attribute that is null is an empty DeviceAttribute, and a null list item is 0, false or "" (a version ""
then fails semver), so neither is a wrong type.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from celext.semver import is_semver_text
from celext.vocabulary import LIST_MEMBERS, MEMBERS
from webhook.fieldpath import FieldPath
from webhook.rules.k8s.decode import INT64_MAX, INT64_MIN, go_len, is_int64, wrong_type
from webhook.rules.k8s.errors import GoStruct, declarative_union, invalid, too_long, unknown_field
from webhook.rules.k8s.ids import ATTRIBUTE_UNION, ATTRIBUTE_VALUE, UNKNOWN_FIELD, Errors

MAX_VALUE_LENGTH = 64  # DeviceAttributeMaxValueLength (bytes)
MAX_ATTRIBUTES_AND_CAPACITIES = 32  # ResourceSliceMaxAttributesAndCapacitiesPerDevice
SEMVER_ERROR = "must be a string compatible with semver.org spec 2.0.0"
UNION_ERROR = "exactly one value must be specified"


def validate_device_attribute(attribute: Any, path: FieldPath, errs: Errors, declared: FieldPath | None = None) -> None:
    """Append the attribute's errors to `errs`; `path` is `…attributes[<key>]` (the key shortened as
    validateMap shortens it). `declared`: where declarative validation's union reports, when the release enforces
    it (1.37, `+k8s:beta` with DeclarativeValidationBeta on by default): it then replaces the hand-written union
    error of the same path, and stands beside it where the hand-written path is the shortened one."""
    specified: set[str] = set()
    if not isinstance(attribute, Mapping):
        if attribute is not None:  # null decodes to an empty DeviceAttribute: only the union error
            wrong_type(errs, attribute, path, "object")
        _union(attribute, specified, path, declared, errs)
        return
    for member, value in attribute.items():
        if value is None:
            continue
        if member == "int":
            if not is_int64(value):
                wrong_type(errs, value, path.child(member), "integer")
        elif member == "bool":
            if not isinstance(value, bool):
                wrong_type(errs, value, path.child(member), "boolean")
        elif member == "string":
            _string(value, path.child(member), errs)
        elif member == "version":
            _version(value, path.child(member), errs)
        elif member in LIST_MEMBERS:
            _list(member, value, path.child(member), errs)
        else:
            errs.append((UNKNOWN_FIELD, unknown_field(path.child(str(member)))))
            continue
        specified.add(member)
    _union(attribute, specified, path, declared, errs)


def _union(attribute: Any, specified: set[str], path: FieldPath, declared: FieldPath | None, errs: Errors) -> None:
    """Exactly one member: the hand-written error (validateDeviceAttribute) or the declarative one."""
    if declared is not None:
        finding = declarative_union(declared, MEMBERS, [m for m in MEMBERS if m in specified])
        if finding is None:
            return
        errs.append((ATTRIBUTE_UNION, finding))
        if declared == path:
            return  # FilterCoveredHandwrittenErrors: same type, path and origin ("union")
    if not specified:
        errs.append((ATTRIBUTE_UNION, invalid(path, "", UNION_ERROR)))
    elif len(specified) > 1:
        errs.append((ATTRIBUTE_UNION, invalid(path, go_attribute(attribute), UNION_ERROR)))


def go_attribute(attribute: Mapping[str, Any]) -> GoStruct:
    """The attribute as upstream's error shows it: Go field order, empty fields omitted (omitempty)."""
    return GoStruct({m: attribute[m] for m in MEMBERS if attribute.get(m) not in (None, [])})


def fits(value: str) -> bool:
    """At most 64 bytes (Go's len); a string of at most 16 characters, or an ASCII one (a byte per character),
    needs no encoding to tell."""
    chars = len(value)
    return (chars <= MAX_VALUE_LENGTH // 4 or (chars <= MAX_VALUE_LENGTH and value.isascii())
            or go_len(value) <= MAX_VALUE_LENGTH)


def _string(value: Any, path: FieldPath, errs: Errors) -> None:
    if not isinstance(value, str):
        wrong_type(errs, value, path, "string")
    elif not fits(value):
        errs.append((ATTRIBUTE_VALUE, too_long(path, MAX_VALUE_LENGTH)))


def _version(value: Any, path: FieldPath, errs: Errors) -> None:
    if not isinstance(value, str):
        wrong_type(errs, value, path, "string")
        return
    if not is_semver_text(value):
        errs.append((ATTRIBUTE_VALUE, invalid(path, value, SEMVER_ERROR)))
    if not fits(value):
        errs.append((ATTRIBUTE_VALUE, too_long(path, MAX_VALUE_LENGTH)))


def _list(member: str, values: Any, path: FieldPath, errs: Errors) -> None:
    if not isinstance(values, list):
        wrong_type(errs, values, path, "array")
        return
    if not values:
        errs.append((ATTRIBUTE_UNION, invalid(path, values, "must not be empty if specified")))
        return
    if member == "ints":
        # The common case in C: all plain ints within int64.
        if not (all(type(v) is int for v in values) and min(values) >= INT64_MIN and max(values) <= INT64_MAX):
            for i, v in enumerate(values):
                if v is not None and not is_int64(v):
                    wrong_type(errs, v, path.index(i), "integer")
    elif member == "bools":
        for i, v in enumerate(values):
            if v is not None and not isinstance(v, bool):
                wrong_type(errs, v, path.index(i), "boolean")
    elif member == "strings":
        for i, v in enumerate(values):
            _string("" if v is None else v, path.index(i), errs)
    else:
        for i, v in enumerate(values):
            _version("" if v is None else v, path.index(i), errs)


def decodes(member: str, values: Any) -> bool:
    """Would the API server's decoder take `values` into the list field `member` (null items are zero values)?"""
    if not isinstance(values, list):
        return values is None
    if member == "ints":
        return all(v is None or is_int64(v) for v in values)
    if member == "bools":
        return all(v is None or isinstance(v, bool) for v in values)
    return all(v is None or isinstance(v, str) for v in values)


def count_values(attributes: Mapping[str, Any]) -> int:
    """Upstream numEntriesDeviceAttribute: a list counts its length, anything else counts 1."""
    total = 0
    for attribute in attributes.values():
        n = 0
        if isinstance(attribute, Mapping):
            for member in LIST_MEMBERS:
                values = attribute.get(member)
                if isinstance(values, list):
                    n += len(values)
        total += n or 1
    return total


def has_list_values(attribute: Any) -> bool:
    """Upstream haveListAttributes for one attribute: any list field non-nil (an empty list counts)."""
    return isinstance(attribute, Mapping) and any(attribute.get(m) is not None for m in LIST_MEMBERS)
