"""Ids of the Kubernetes parity rules; the validators tag each error with one so users can tune them apart.

`Errors` is a list of `(rule id, finding)`: upstream's `field.ErrorList`, each error labelled with the
catalogue entry that documents it.
"""

from __future__ import annotations

from webhook.findings import Finding

API_VERSION = "k8s-api-version"
OBJECT_META = "k8s-object-meta"
DRIVER = "k8s-driver"
POOL = "k8s-pool"
IMMUTABLE = "k8s-immutable"
NODE_SELECTION = "k8s-node-selection"
DEVICE_COUNT = "k8s-device-count"
DEVICE_NAME = "k8s-device-name"
ATTRIBUTE_LIMITS = "k8s-attribute-limits"
QUALIFIED_NAME = "k8s-qualified-name"
ATTRIBUTE_UNION = "k8s-attribute-union"
ATTRIBUTE_VALUE = "k8s-attribute-value"
CAPACITY = "k8s-capacity"
TAINTS = "k8s-taints"
COUNTERS = "k8s-counters"
BINDING_CONDITIONS = "k8s-binding-conditions"
WIRE_TYPE = "k8s-wire-type"
UNKNOWN_FIELD = "k8s-unknown-field"
FEATURE_GATE = "k8s-feature-gate"
PARTITION_TYPE = "k8s-partition-type-attribute"
SKIP_NODE_OPERATIONS = "k8s-skip-node-operations"
NODE_ALLOCATABLE = "k8s-node-allocatable-resources"
DEVICE_REQUEST = "k8s-device-request"
DEVICE_CONSTRAINT = "k8s-device-constraint"
DEVICE_CONFIG = "k8s-device-config"
DEVICE_CLASS_SPEC = "k8s-device-class"

Errors = list[tuple[str, Finding]]


def tag(rule: str, findings: list[Finding]) -> Errors:
    return [(rule, f) for f in findings]
