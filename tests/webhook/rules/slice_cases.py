"""Small ResourceSlices built by changing one field of a clean one, and the findings the rule runner gives them in
full (rule, field path, message, and the hint when there is one, in the order reported): the shared helpers of
the `test_*_mutants.py` tables."""

from __future__ import annotations

import copy
import re
from typing import Any

from webhook.policy import Policy
from webhook.run import run_rules

Obj = dict[str, Any]
Found = list[tuple[str, ...]]  # (rule, path, message) or, with a hint, (rule, path, message, hint)
_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
DELETE = object()  # a value that removes the field
GATED = "+gates"  # a version ending in this is checked with Kubernetes 1.37's alpha gates on
_GATES = {"DRAOptionalNodeOperations": True, "DRAPartitionableDevicesType": True, "DRANodeAllocatableResources": True}
_POLICIES = {False: Policy.default(), True: Policy.default().with_profile("1.37", gates=_GATES)}


def base(version: str = "v1") -> Obj:
    return {
        "apiVersion": f"resource.k8s.io/{version}", "kind": "ResourceSlice", "metadata": {"name": "slice"},
        "spec": {"driver": "gpu.example.com", "nodeName": "node", "pool": {"name": "pool", "resourceSliceCount": 1},
                 "devices": [{"name": "dev-0"}]},
    }


def put(obj: Obj, path: str, value: Any) -> Obj:
    """`obj` with the field at `path` (`spec.devices[0].taints`) set to `value` (or removed: DELETE)."""
    steps: list[str | int] = [name if name else int(index) for name, index in _STEP.findall(path)]
    here: Any = obj
    for step in steps[:-1]:
        here = here[step]
    if value is DELETE:
        del here[steps[-1]]
    else:
        here[steps[-1]] = copy.deepcopy(value)
    return obj


def changed(changes: dict[str, Any], version: str = "v1") -> Obj:
    obj = base(version)
    for path, value in changes.items():
        put(obj, path, value)
    return obj


def case(changes: dict[str, Any], version: str = "v1") -> Found:
    """The findings for `changes` to a clean slice of `version` (`v1+gates`: with the alpha gates on)."""
    return findings(changed(changes, version.removesuffix(GATED)), gated=version.endswith(GATED))


def findings(obj: Obj, old: Obj | None = None, *, gated: bool = False) -> Found:
    outcome = run_rules(obj, _POLICIES[gated], old=old)
    return [(f.rule, str(f.path), f.message, f.hint) if f.hint else (f.rule, str(f.path), f.message)
            for f in outcome.findings]
