"""Device node-allocatable resources: 1.37 `nodeAllocatableResources`, 1.36 `nodeAllocatableResourceMappings`.

1.37 mirrors `validateNodeAllocatableResources` (kubernetes pkg/apis/resource/validation, PR #140009
"native-dra-alpha2"): keys are node-allocatable resource names (cpu, memory, ephemeral-storage,
hugepages-*), each entry sets `mapping` or `overhead`; `capacityKey` names a capacity of the device and
comes with a positive `capacityMultiplier`; `deviceMultiplier` is positive; overheads are not negative.
1.36 (alpha, replaced in 1.37) follows the rules listed in ../shared/reference/kubernetes-releases.md §1.2.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webhook.fieldpath import FieldPath
from webhook.rules.k8s import ids
from webhook.rules.k8s.capacity import canonical, quantity_at
from webhook.rules.k8s.decode import decode_item_map, decode_map, decode_str, unknown_fields
from webhook.rules.k8s.errors import declarative_union, invalid, not_found, required
from webhook.rules.k8s.ids import Errors

NODE_ALLOCATABLE = ("cpu", "memory", "ephemeral-storage")
ENTRY_FIELDS = frozenset({"mapping", "overhead"})
MAPPING_FIELDS = frozenset({"capacityKey", "capacityMultiplier", "deviceMultiplier"})
MAPPING_UNION = ("capacityKey", "deviceMultiplier")  # NodeAllocatableMapping's union members, in field order
OVERHEAD_FIELDS = frozenset({"perPod", "perContainer"})
MAPPINGS_136_FIELDS = frozenset({"capacityKey", "allocationMultiplier"})
NOT_ALLOCATABLE = "must be a node allocatable resource name"


def is_node_allocatable(name: str) -> bool:
    """core helper IsNodeAllocatableResourceName: a native compute resource, never an extended one."""
    return name in NODE_ALLOCATABLE or name.startswith("hugepages-")


def _positive(errs: Errors, obj: Mapping[str, Any], key: str, path: FieldPath, detail: str, *, zero_ok: bool) -> bool:
    quantity = quantity_at(errs, obj, key, path)
    if quantity is None:
        return obj.get(key) is not None
    if quantity.sign() < 0 or (quantity.sign() == 0 and not zero_ok):
        errs.append((ids.NODE_ALLOCATABLE, invalid(path.child(key), canonical(quantity), detail)))
    return True


def validate_node_allocatable_resources(
    resources: Mapping[str, Any], capacity: Mapping[str, Any], path: FieldPath, errs: Errors, *,
    declarative: bool = True,
) -> None:
    """1.37 `devices[i].nodeAllocatableResources` (`path`). `declarative`: declarative validation runs (not on an
    update that leaves the spec as it was), whose unprefixed `+k8s:unionMember` tags make a mapping's `capacityKey`
    and `deviceMultiplier` a union every 1.37 server enforces."""
    for name, item in resources.items():
        key_path = path.key(str(name))
        if not is_node_allocatable(str(name)):
            errs.append((ids.NODE_ALLOCATABLE, invalid(key_path, name, NOT_ALLOCATABLE)))
        entry = decode_item_map(errs, item, key_path)
        unknown_fields(errs, entry, ENTRY_FIELDS, key_path)
        mapping = decode_map(errs, entry, "mapping", key_path)
        overhead = decode_map(errs, entry, "overhead", key_path)
        if mapping is None and overhead is None:
            errs.append((ids.NODE_ALLOCATABLE, required(key_path, "at least one of mapping or overhead must be set")))
        if mapping is not None:
            _mapping(mapping, capacity, key_path.child("mapping"), errs)
            if declarative:
                specified = [m for m in MAPPING_UNION if mapping.get(m) is not None]
                union = declarative_union(key_path.child("mapping"), MAPPING_UNION, specified)
                if union is not None:
                    errs.append((ids.NODE_ALLOCATABLE, union))
        if overhead is not None:
            _overhead(overhead, key_path.child("overhead"), errs)


def _mapping(mapping: Mapping[str, Any], capacity: Mapping[str, Any], path: FieldPath, errs: Errors) -> None:
    unknown_fields(errs, mapping, MAPPING_FIELDS, path)
    key = decode_str(errs, mapping, "capacityKey", path)
    has_multiplier = mapping.get("capacityMultiplier") is not None
    if key is not None:
        if key == "":
            errs.append((ids.NODE_ALLOCATABLE, invalid(path.child("capacityKey"), "",
                                                       "capacityKey must not be an empty string")))
        elif key not in capacity:
            errs.append((ids.NODE_ALLOCATABLE, not_found(path.child("capacityKey"), key)))
        if not has_multiplier:
            errs.append((ids.NODE_ALLOCATABLE, required(path.child("capacityMultiplier"),
                                                        "capacityMultiplier is required when capacityKey is set")))
        else:
            _positive(errs, mapping, "capacityMultiplier", path, "must be positive", zero_ok=False)
    if mapping.get("deviceMultiplier") is not None:
        _positive(errs, mapping, "deviceMultiplier", path, "must be positive", zero_ok=False)
    if has_multiplier and key is None:
        errs.append((ids.NODE_ALLOCATABLE, required(path.child("capacityKey"),
                                                    "capacityKey is required when capacityMultiplier is set")))


def _overhead(overhead: Mapping[str, Any], path: FieldPath, errs: Errors) -> None:
    unknown_fields(errs, overhead, OVERHEAD_FIELDS, path)
    if overhead.get("perPod") is None and overhead.get("perContainer") is None:
        errs.append((ids.NODE_ALLOCATABLE, invalid(path, "", "at least one of perPod or perContainer must be set")))
        return
    for key in ("perPod", "perContainer"):
        if overhead.get(key) is not None:
            _positive(errs, overhead, key, path, "must be non-negative", zero_ok=True)


def validate_node_allocatable_mappings(
    mappings: Mapping[str, Any], capacity: Mapping[str, Any], path: FieldPath, errs: Errors
) -> None:
    """1.36 `devices[i].nodeAllocatableResourceMappings` (`path`)."""
    for name, item in mappings.items():
        key_path = path.key(str(name))
        if not is_node_allocatable(str(name)):
            errs.append((ids.NODE_ALLOCATABLE, invalid(key_path, name, NOT_ALLOCATABLE)))
        entry = decode_item_map(errs, item, key_path)
        unknown_fields(errs, entry, MAPPINGS_136_FIELDS, key_path)
        key = decode_str(errs, entry, "capacityKey", key_path)
        if key is None and entry.get("allocationMultiplier") is None:
            errs.append((ids.NODE_ALLOCATABLE, required(
                key_path, "at least one of allocationMultiplier or capacityKey must be set")))
        if entry.get("allocationMultiplier") is not None:
            _positive(errs, entry, "allocationMultiplier", key_path, "must be positive", zero_ok=False)
        if key is not None and key not in capacity:
            errs.append((ids.NODE_ALLOCATABLE, not_found(key_path.child("capacityKey"), key)))
