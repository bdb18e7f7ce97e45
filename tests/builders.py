"""Object builders for tests: small, valid DRA objects with only the interesting part spelled out.

    slice_with(numa={"ints": [6, -1]})                    one device publishing that numaNode attribute
    slice_with(device("gpu-0", numa=4), device("gpu-1", numa=[5, 4]))
    claim_with_selector('device.attributes["resource.kubernetes.io"].numaNode == 0')

Every builder returns plain dicts (wire form, as a decoded YAML file gives them) that pass all rules
unless a test makes them fail.
"""

from __future__ import annotations

from typing import Any

NUMA = "resource.kubernetes.io/numaNode"
DRIVER = "gpu.example.com"
API_VERSION = "resource.k8s.io/v1"


def attr(value: Any) -> dict[str, Any]:
    """A DeviceAttribute from a Python value: 4 -> {int: 4}, [4, 5] -> {ints: [4, 5]}, "1.2.3" -> {string: ...}.

    A dict is taken as already written (use it for versions, empty lists and broken unions).
    """
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, bool):
        return {"bool": value}
    if isinstance(value, int):
        return {"int": value}
    if isinstance(value, str):
        return {"string": value}
    if isinstance(value, list):
        if value and all(isinstance(v, bool) for v in value):
            return {"bools": list(value)}
        if value and all(isinstance(v, str) for v in value):
            return {"strings": list(value)}
        return {"ints": list(value)}
    raise TypeError(f"no DeviceAttribute for {value!r}")


def device(
    name: str = "dev-0",
    *,
    numa: Any = None,
    attributes: dict[str, Any] | None = None,
    capacity: dict[str, Any] | None = None,
    **fields: Any,
) -> dict[str, Any]:
    """One `spec.devices` entry. `numa` sets resource.kubernetes.io/numaNode (via `attr`); `attributes`
    values go through `attr` too; extra keyword arguments become device fields as given."""
    out: dict[str, Any] = {"name": name}
    attrs: dict[str, Any] = {}
    if numa is not None:
        attrs[NUMA] = attr(numa)
    for key, value in (attributes or {}).items():
        attrs[key] = attr(value)
    if attrs:
        out["attributes"] = attrs
    if capacity is not None:
        out["capacity"] = {k: (v if isinstance(v, dict) else {"value": v}) for k, v in capacity.items()}
    out.update(fields)
    return out


def slice_with(
    *devices: dict[str, Any],
    numa: Any = None,
    driver: str = DRIVER,
    pool: str = "pool-0",
    node_name: str | None = "node-0",
    name: str = "node-0-gpu",
    annotations: dict[str, str] | None = None,
    **spec: Any,
) -> dict[str, Any]:
    """A ResourceSlice. Without devices it has one device, `dev-0`, publishing `numa` when given.

    `spec` keywords replace or add spec fields (`allNodes=True` with `node_name=None`, `sharedCounters=[...]`).
    """
    if not devices:
        devices = (device("dev-0", numa=numa),)
    body: dict[str, Any] = {
        "driver": driver,
        "pool": {"name": pool, "generation": 0, "resourceSliceCount": 1},
    }
    if node_name is not None:
        body["nodeName"] = node_name
    body["devices"] = list(devices)
    body.update(spec)
    metadata: dict[str, Any] = {"name": name}
    if annotations:
        metadata["annotations"] = dict(annotations)
    return {"apiVersion": API_VERSION, "kind": "ResourceSlice", "metadata": metadata, "spec": body}


def claim_with_selector(
    *expressions: str,
    name: str = "claim",
    device_class: str = DRIVER,
    kind: str = "ResourceClaim",
    constraints: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A ResourceClaim (or, with kind="ResourceClaimTemplate", a template) with one exact request
    whose selectors are the given CEL expressions."""
    exactly: dict[str, Any] = {"deviceClassName": device_class}
    if expressions:
        exactly["selectors"] = [{"cel": {"expression": e}} for e in expressions]
    devices: dict[str, Any] = {"requests": [{"name": "req-0", "exactly": exactly}]}
    if constraints is not None:
        devices["constraints"] = constraints
    spec: dict[str, Any] = {"devices": devices}
    if kind == "ResourceClaimTemplate":
        spec = {"spec": spec}
    return {"apiVersion": API_VERSION, "kind": kind, "metadata": {"name": name}, "spec": spec}


def device_class_with_selector(*expressions: str, name: str = DRIVER) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if expressions:
        spec["selectors"] = [{"cel": {"expression": e}} for e in expressions]
    return {"apiVersion": API_VERSION, "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}
