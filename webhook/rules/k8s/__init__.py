"""Kubernetes parity: upstream's ResourceSlice validation (pkg/apis/resource/validation), worded as it words it.

    slice      ValidateResourceSlice / validateResourceSliceSpec: the whole object, in upstream's order
    device     validateDevice: name, limits, attributes, capacity, taints, counters, node selection, ...
    fast       a one-pass proof that a device has nothing to report (the hot path; `device` when it fails)
    attribute  validateDeviceAttribute (KEP-5491 lists included)
    capacity   validateMultiAllocatableCapacityMap / validateRequestPolicy, quantities
    partition  partitionTypeAttribute, skipNodeOperations
    node_allocatable, node_selector, gates (dropDisabledFields), names (apimachinery's name formats)
    errors     field.Error texts; ids: the catalogue id each error is tagged with; decode: the decoder's types

The catalogue entries that report these errors are in `webhook.rules.resourceslice`.
"""
