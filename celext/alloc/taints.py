"""Device taints and request tolerations (DRADeviceTaints): whether a request may be given a tainted device, as
the allocator decides (upstream taintPreventsAllocation, resourceclaim.ToleratesTaint), and a taint as shown."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def untolerated(device: Mapping[str, Any], tolerations: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The device's first NoSchedule or NoExecute taint no toleration tolerates (upstream
    taintPreventsAllocation; other effects, None included, never refuse a device)."""
    for taint in device.get("taints") or ():
        if isinstance(taint, Mapping) and taint.get("effect") in ("NoSchedule", "NoExecute") and not any(
                tolerates(t, taint) for t in tolerations):
            return taint
    return None


def describe_taint(taint: Mapping[str, Any]) -> str:
    """`key=value:Effect`, or `key:Effect` without a value, as kubectl shows node taints."""
    key, value, effect = taint.get("key", ""), taint.get("value"), taint.get("effect", "")
    return f"{key}={value}:{effect}" if value else f"{key}:{effect}"


def tolerates(toleration: Mapping[str, Any], taint: Mapping[str, Any]) -> bool:
    """resourceclaim.ToleratesTaint: an empty effect or key matches any; operator Exists matches any value,
    Equal (or none) an equal value."""
    if toleration.get("effect") and toleration.get("effect") != taint.get("effect"):
        return False
    if toleration.get("key") and toleration.get("key") != taint.get("key"):
        return False
    operator = toleration.get("operator") or "Equal"
    if operator == "Equal":
        return (toleration.get("value") or "") == (taint.get("value") or "")
    return operator == "Exists"
