"""What a release profile costs: the maximal ResourceSlice of bench_rules through the Kubernetes parity rules
under the default profile (1.37, every field served), under 1.37 with the DRA gates off that drop fields
(taints, counters, binding conditions, consumable capacity: each device copied without them), and under 1.35
(fields unknown to the release, list attributes dropped). One run, in-process; the figures are ratios to the
default profile, on a machine other engineers share.
"""

from __future__ import annotations

from bench_rules import best, maximal_slice

from webhook.policy import Policy
from webhook.rules.k8s.slice import validate_resource_slice


def main() -> None:
    slice_ = maximal_slice()
    profiles = {
        "1.37 defaults": Policy.default().profile,
        "1.37 gates off": Policy.from_mapping({"featureGates": {
            "DRADeviceTaints": False, "DRAPartitionableDevices": False, "DRAConsumableCapacity": False,
            "DRADeviceBindingConditions": False}}).profile,
        "1.35": Policy.from_mapping({"kubernetes": "1.35"}).profile,
    }
    times = {name: best(lambda p=profile: validate_resource_slice(slice_, None, p), 10)
             for name, profile in profiles.items()}
    base = times["1.37 defaults"]
    for name, seconds in times.items():
        print(f"{name:<15}: {seconds * 1000:7.2f} ms  ({seconds / base:4.2f}x the default profile)")


if __name__ == "__main__":
    main()
