"""`findings_of(changes, version)`: `slice_cases.case`, plus two releases by name for the `test_*_mutants.py`
tables: "1.36" (its node-allocatable gate on; capacity ranges without the fractional gate), "1.34" (also with its
DRADeviceTaints gate on), and 1.37 with
DRAPartitionableDevices and DRADeviceTaints off."""

from __future__ import annotations

import contextlib
from typing import Any

from tests.webhook.rules.slice_cases import Found, case, changed
from webhook.policy import Policy
from webhook.rules.k8s.fast import precise_only
from webhook.run import run_rules

RELEASES = {"1.36": Policy.default().with_profile("1.36", gates={"DRANodeAllocatableResources": True}),
            "1.34": Policy.default().with_profile("1.34"),
            "1.34 with taints": Policy.default().with_profile("1.34", gates={"DRADeviceTaints": True}),
            "1.37 two gates off": Policy.default().with_profile(
                "1.37", gates={"DRAPartitionableDevices": False, "DRADeviceTaints": False})}


def findings_of(changes: dict[str, Any], version: str) -> Found:
    if version not in RELEASES:
        return case(changes, version)
    outcome = run_rules(changed(changes), RELEASES[version])
    return [(f.rule, str(f.path), f.message, f.hint) if f.hint else (f.rule, str(f.path), f.message)
            for f in outcome.findings]


def alone(rule_id: str, obj: dict[str, Any], **policy: Any) -> Found:
    """The findings of `obj` with every rule of the catalogue off but `rule_id` (on at its default action, or
    warn when that is off): a rule's own findings when it is the first, and only, rule to read the slice.
    `policy` adds top-level policy keys (e.g. `numaNode`)."""
    from webhook.rules import CATALOGUE

    rules = {other: "off" for other in CATALOGUE if other != rule_id}
    if CATALOGUE[rule_id].default.value == "off":
        rules[rule_id] = "warn"
    outcome = run_rules(obj, Policy.from_mapping({**policy, "rules": rules}))
    return [(f.rule, str(f.path), f.message, f.hint) if f.hint else (f.rule, str(f.path), f.message)
            for f in outcome.findings]


def devices_alone(rule: str, devices: list[dict[str, Any]], *, precise: bool, **policy: Any) -> Found:
    """The findings of `rule` alone on a slice of devices with these attribute maps (`dev-0`, `dev-1`, ...), on
    the served path or, with `precise`, on the precise one only."""
    obj = changed({"spec.devices": [{"name": f"dev-{i}", "attributes": a} for i, a in enumerate(devices)]})
    with precise_only() if precise else contextlib.nullcontext():
        return alone(rule, obj, **policy)
