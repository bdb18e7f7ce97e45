"""The Kubernetes 1.37 slice-level fields `spec.partitionTypeAttribute` and `spec.skipNodeOperations`.

Mirrors `validatePartitionTypeAttribute` and `validateSkipNodeOperations` (kubernetes pkg/apis/resource/
validation, merged with KEP-5815's partition type and PR #139933) plus the declarative tags of
`resource/v1/types.go` @ 10b39a39: the attribute name is a fully qualified name, the operations a set
of `*`, `NodePrepareResources`, `NodeUnprepareResources`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webhook.fieldpath import FieldPath
from webhook.rules.k8s import ids
from webhook.rules.k8s.attribute import go_attribute
from webhook.rules.k8s.decode import decode_list, decode_str, strings
from webhook.rules.k8s.errors import duplicate, invalid, not_supported, required
from webhook.rules.k8s.ids import Errors, tag
from webhook.rules.k8s.names import validate_fully_qualified_name

SKIP_OPERATIONS = ("*", "NodePrepareResources", "NodeUnprepareResources")  # sorted, as the enum check lists them
NO_COUNTERS = "may only be set on a slice which declares devices that consume counters"
MISSING = "device consumes counters and `partitionTypeAttribute` names this attribute, so it must be set"
NOT_STRING = "must be a string value because `partitionTypeAttribute` names this attribute"
PREPARE_ALONE = "NodePrepareResources cannot be skipped unless NodeUnprepareResources is also skipped"


def validate_partition_type(
    spec: Mapping[str, Any], devices: list[Any], path: FieldPath, errs: Errors
) -> None:
    """`spec.partitionTypeAttribute`: only where devices consume counters, each of which sets it as a string."""
    name = decode_str(errs, spec, "partitionTypeAttribute", path)
    if name is None:
        return
    field_path = path.child("partitionTypeAttribute")
    format_errors = tag(ids.PARTITION_TYPE, validate_fully_qualified_name(name, field_path))
    errs += format_errors
    consuming = [(i, d) for i, d in enumerate(devices) if isinstance(d, Mapping) and d.get("consumesCounters")]
    if not consuming:
        errs.append((ids.PARTITION_TYPE, invalid(field_path, name, NO_COUNTERS)))
        return
    if format_errors:  # no device can carry a malformed name: checking them would bury that one error
        return
    driver = spec.get("driver") if isinstance(spec.get("driver"), str) else ""
    bare = name.removeprefix(f"{driver}/")
    for i, device in consuming:
        attributes = device.get("attributes")
        attributes = attributes if isinstance(attributes, Mapping) else {}
        attribute = attributes.get(name, attributes.get(bare))
        attr_path = path.child("devices").index(i).child("attributes").key(name)
        if attribute is None and name not in attributes and bare not in attributes:
            errs.append((ids.PARTITION_TYPE, required(attr_path, MISSING)))
        elif not isinstance(attribute, Mapping) or attribute.get("string") is None:
            shown = go_attribute(attribute) if isinstance(attribute, Mapping) else attribute
            errs.append((ids.PARTITION_TYPE, invalid(attr_path, shown, NOT_STRING)))


def validate_skip_node_operations(spec: Mapping[str, Any], path: FieldPath, errs: Errors) -> None:
    """`spec.skipNodeOperations`: a set of known operations; preparing may be skipped only with unpreparing."""
    raw = decode_list(errs, spec, "skipNodeOperations", path)
    if raw is None:
        return
    ops_path = path.child("skipNodeOperations")
    ops = strings(errs, raw, ops_path)
    seen: set[str] = set()
    for i, op in enumerate(ops):
        if op is None:
            continue
        if op not in SKIP_OPERATIONS:
            errs.append((ids.SKIP_NODE_OPERATIONS, not_supported(ops_path.index(i), op, SKIP_OPERATIONS)))
        if op in seen:
            errs.append((ids.SKIP_NODE_OPERATIONS, duplicate(ops_path.index(i), op)))
        seen.add(op)
    if "NodePrepareResources" in seen and not seen & {"NodeUnprepareResources", "*"}:
        errs.append((ids.SKIP_NODE_OPERATIONS, invalid(ops_path, [op for op in ops if op is not None], PREPARE_ALONE)))
