"""NodeSelector validation, mirroring corevalidation `ValidateNodeSelector` (required-affinity form).

Used for `spec.nodeSelector` and per-device `nodeSelector` of a ResourceSlice.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webhook.fieldpath import FieldPath
from webhook.findings import Finding
from webhook.rules.k8s.decode import zero_structs
from webhook.rules.k8s.errors import forbidden, invalid, required, type_invalid
from webhook.rules.k8s.names import is_dns1123_subdomain, validate_label_name, validate_label_value

_IN_NOT_IN = ("In", "NotIn")
_EXISTS = ("Exists", "DoesNotExist")
_GT_LT = ("Gt", "Lt")
_EXISTS_VALUES = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
_GT_LT_VALUES = "must be specified single value when `operator` is 'Lt' or 'Gt'"


def validate_node_selector(selector: Mapping[str, Any], path: FieldPath) -> list[Finding]:
    terms_path = path.child("nodeSelectorTerms")
    terms = selector.get("nodeSelectorTerms")
    if not isinstance(terms, list) or not terms:
        if terms is not None and not isinstance(terms, list):
            return [type_invalid(terms_path, terms, "must be of type array")]
        return [required(terms_path, "must have at least one node selector term")]
    errs: list[Finding] = []
    for i, term in enumerate(terms):
        errs += _term(term, terms_path.index(i))
    return errs


def _term(term: Any, path: FieldPath) -> list[Finding]:
    if term is None:  # the zero NodeSelectorTerm: nothing to check
        return []
    if not isinstance(term, Mapping):
        return [type_invalid(path, term, "must be of type object")]
    errs: list[Finding] = []
    for field, check in (("matchExpressions", _expression), ("matchFields", _field)):
        items = term.get(field)
        if items is None:
            continue
        if not isinstance(items, list):
            errs.append(type_invalid(path.child(field), items, "must be of type array"))
            continue
        for j, item in enumerate(zero_structs(items)):
            item_path = path.child(field).index(j)
            if isinstance(item, Mapping):
                errs += check(item, item_path)
            else:
                errs.append(type_invalid(item_path, item, "must be of type object"))
    return errs


def _values(item: Mapping[str, Any]) -> list[str]:
    """The requirement's strings; a null one is Go's zero value ""."""
    values = item.get("values")
    return [v or "" for v in values if v is None or isinstance(v, str)] if isinstance(values, list) else []


def _expression(item: Mapping[str, Any], path: FieldPath) -> list[Finding]:
    """ValidateNodeSelectorRequirement."""
    errs: list[Finding] = []
    operator, values = item.get("operator"), _values(item)
    if operator in _IN_NOT_IN:
        if not values:
            errs.append(required(path.child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
    elif operator in _EXISTS:
        if values:
            errs.append(forbidden(path.child("values"), _EXISTS_VALUES))
    elif operator in _GT_LT:
        if len(values) != 1:
            errs.append(required(path.child("values"), _GT_LT_VALUES))
    else:
        errs.append(invalid(path.child("operator"), operator if isinstance(operator, str) else "",
                            "not a valid selector operator"))
    key = item.get("key")
    errs += validate_label_name(key if isinstance(key, str) else "", path.child("key"))
    for i, value in enumerate(values):
        errs += validate_label_value(value, path.child("values").index(i))
    return errs


def _field(item: Mapping[str, Any], path: FieldPath) -> list[Finding]:
    """ValidateNodeFieldSelectorRequirement: only `metadata.name`, In/NotIn with exactly one value."""
    errs: list[Finding] = []
    operator, values = item.get("operator"), _values(item)
    if operator in _IN_NOT_IN:
        if len(values) != 1:
            errs.append(required(path.child("values"),
                                 "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
    else:
        errs.append(invalid(path.child("operator"), operator if isinstance(operator, str) else "",
                            "not a valid selector operator"))
    key = item.get("key")
    if key != "metadata.name":
        errs.append(invalid(path.child("key"), key if isinstance(key, str) else "", "not a valid field selector key"))
    for i, value in enumerate(values):
        errs += [invalid(path.child("values").index(i), value, m) for m in is_dns1123_subdomain(value)]
    return errs
