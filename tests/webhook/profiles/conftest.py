"""`run(obj, version, gates)`: the Kubernetes parity findings of `obj` under one release profile."""

from __future__ import annotations

from typing import Any

from webhook.policy import Policy
from webhook.run import run_rules

Row = tuple[str, str, str, str]  # rule, action, path, message


def policy_for(version: str, gates: dict[str, bool] | None = None, **extra: Any) -> Policy:
    return Policy.from_mapping({"kubernetes": version, "featureGates": gates or {}, **extra}, f"k8s-{version}")


def run(obj: dict[str, Any], version: str, gates: dict[str, bool] | None = None,
        old: dict[str, Any] | None = None) -> list[Row]:
    """Findings of the `k8s-*` rules, sorted by path (draguard's own rules are not about profiles)."""
    outcome = run_rules(obj, policy_for(version, gates), old=old)
    rows = [(f.rule, f.action.value if f.action else "", str(f.path), f.message) for f in outcome.findings]
    return sorted(r for r in rows if r[0].startswith("k8s-"))
