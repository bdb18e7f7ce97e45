"""Benchmark `draguard audit`: 10,000 ResourceSlices served in pages by the HTTPS stand-in.

Each slice is one node's 8 GPUs with the attributes real GPU drivers publish (uuid, PCI bus id, product,
driver version, numaNode as an int on some nodes and a list on others, memory capacity), plus two
DeviceClasses and 200 claims and templates whose selectors come from a small pool, so the selector rules run
against the 80,000 devices the cluster publishes. The audit runs as its own process (`draguard audit`); its
peak RSS is the VmHWM it reports itself (a child's `ru_maxrss` would include the RSS of the parent it was
forked from, which holds the stand-in's objects), and it splits its CPU time: the rule catalogue on the
slices, the selector rules of classes, claims and templates (evaluated against the inventory), everything
else. Targets: RSS < 200 MB, >= 1,000 objects/s.

Also measured, for the ratio that shows memory is bounded by a page rather than by the cluster: the same
audit over 2,000 slices. The machine may be shared: read the figures as ratios from one run.
"""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

# Runs `draguard audit ARGS...`, timing the rule catalogue apart from the rest, and reports the process's own
# CPU time (start-up included), the rules' share and its peak RSS on stderr.
CHILD = """
import sys, time
import webhook.audit.scan as scan
from webhook.cli import main

spent = {"ResourceSlice": 0.0, "other": 0.0}
rules = scan.run_rules

def timed(obj, policy, **options):
    start = time.process_time()
    try:
        return rules(obj, policy, **options)
    finally:
        spent["ResourceSlice" if obj.get("kind") == "ResourceSlice" else "other"] += time.process_time() - start

scan.run_rules = timed
code = main(sys.argv[1:])
print("cpu-split", time.process_time(), spent["ResourceSlice"], spent["other"], file=sys.stderr)
hwm = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print("peak-rss-kb", hwm.split()[1], file=sys.stderr)
sys.exit(code)
"""
SLICES = 10_000
SMALL = 2_000
CLAIMS = 200
DRIVER = "gpu.nvidia.com"
SELECTORS = [
    f'device.driver == "{DRIVER}"',
    f'device.attributes["{DRIVER}"].productName == "NVIDIA H100 80GB HBM3"',
    'device.attributes["resource.kubernetes.io"].numaNode == 0',
    f"device.capacity['{DRIVER}'].memory.compareTo(quantity('40Gi')) >= 0",
    f'device.attributes["{DRIVER}"].driverVersion.isGreaterThan(semver("550.0.0"))',
    f'device.attributes["{DRIVER}"].index < 4',
]


def gpu_slice(node: int, rng: random.Random) -> dict[str, Any]:
    devices = []
    for i in range(8):
        numa: dict[str, Any] = {"ints": [i // 4, 1 - i // 4]} if node % 10 == 0 else {"int": i // 4}
        devices.append({"name": f"gpu-{i}", "attributes": {
            "uuid": {"string": f"GPU-{rng.getrandbits(128):032x}"},
            "index": {"int": i},
            "productName": {"string": "NVIDIA H100 80GB HBM3"},
            "architecture": {"string": "Hopper"},
            "brand": {"string": "Nvidia"},
            "driverVersion": {"version": "560.35.3"},
            "cudaComputeCapability": {"version": "9.0.0"},
            "type": {"string": "gpu"},
            "resource.kubernetes.io/pciBusID": {"string": f"0000:{node % 256:02x}:{i:02x}.0"},
            "resource.kubernetes.io/pcieRoot": {"string": f"pci0000:{i // 2:02x}"},
            "resource.kubernetes.io/numaNode": numa,
        }, "capacity": {"memory": {"value": "80Gi"}}})
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": f"node-{node:05d}-{DRIVER}", "uid": f"uid-{node}"},
            "spec": {"driver": DRIVER, "nodeName": f"node-{node:05d}",
                     "pool": {"name": f"node-{node:05d}", "generation": 1, "resourceSliceCount": 1},
                     "devices": devices}}


def claims(rng: random.Random) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(CLAIMS):
        kind = "ResourceClaim" if i % 2 else "ResourceClaimTemplate"
        devices = {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu", "selectors": [
            {"cel": {"expression": rng.choice(SELECTORS)}}]}}]}
        spec: dict[str, Any] = {"devices": devices} if kind == "ResourceClaim" else {"spec": {"devices": devices}}
        out.append({"apiVersion": "resource.k8s.io/v1", "kind": kind,
                    "metadata": {"name": f"gpu-{i}", "namespace": f"team-{i % 7}"}, "spec": spec})
    return out


CLASSES = [{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": expression}}]}}
           for name, expression in (
               ("gpu", f'device.driver == "{DRIVER}"'),
               ("big-gpu", f"device.capacity['{DRIVER}'].memory.compareTo(quantity('64Gi')) >= 0"))]


@dataclass(frozen=True)
class Run:
    objects: int
    seconds: float  # wall
    cpu: float  # the audit process's CPU, start-up included
    slice_rules: float  # CPU in the rule catalogue on ResourceSlices
    selector_rules: float  # CPU in the rules of classes, claims and templates (selectors against the inventory)
    rss: float  # peak, MB


def audit(slices: int) -> Run:
    """One audit of `slices` slices (plus the claims, templates and classes) in a child process."""
    from tests.webhook.audit.apiserver import AuditAPIServer

    rng = random.Random(7)
    objects = [gpu_slice(n, rng) for n in range(slices)] + CLASSES + claims(rng)
    with tempfile.TemporaryDirectory() as tmp, AuditAPIServer(Path(tmp), objects) as api:
        api.state.record_bodies = False
        api.state.expire["resourceslices"] = "token"  # one expired continue token, as a slow reader meets one
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", CHILD, "audit", "--kubeconfig", str(api.kubeconfig),
                               "--format", f"json={tmp}/audit.json"], cwd=tmp, capture_output=True, text=True,
                              check=False, env={"PYTHONPATH": str(REPO)})
        seconds = time.perf_counter() - start
        if done.returncode not in (0, 1):
            raise SystemExit(f"audit failed ({done.returncode}): {done.stderr}")
        if f"listed {slices} resourceslices" not in done.stderr:
            raise SystemExit(f"audit did not list every slice: {done.stderr}")
    cpu, slice_rules, selector_rules = (float(v) for v in done.stderr.rsplit("cpu-split ", 1)[1].split()[:3])
    rss_kb = int(done.stderr.rsplit("peak-rss-kb ", 1)[1].split()[0])
    return Run(len(objects), seconds, cpu, slice_rules, selector_rules, rss_kb / 1024)


def main() -> None:
    small = audit(SMALL)
    run = audit(SLICES)
    rate, cpu_rate = run.objects / run.seconds, run.objects / run.cpu
    rest = run.cpu - run.slice_rules - run.selector_rules
    print(f"audit of {SLICES:,} ResourceSlices (80,000 devices) + {CLAIMS + len(CLASSES)} claims/templates/classes, "
          f"pages of 500, one expired continue token:")
    print(f"  {run.objects:,} objects in {run.seconds:.1f} s wall: {rate:,.0f} objects/s   target >= 1,000: "
          f"{'met' if rate >= 1000 else 'NOT met'}")
    print(f"  {run.cpu:.1f} s of CPU in the audit process: {cpu_rate:,.0f} objects per CPU-second (wall/CPU "
          f"{run.seconds / run.cpu:.2f}: above 1 the process waited for a shared CPU or the API server)")
    for label, spent in (("rules on the slices", run.slice_rules),
                         ("selector rules against the inventory (classes, claims, templates)", run.selector_rules),
                         ("everything else (start-up, listing, decoding, inventory, reports)", rest)):
        print(f"    {label}: {spent / run.cpu:.0%} of the CPU, {spent * 1000 / run.objects:.2f} ms per object")
    estimate = run.objects / (run.cpu - run.slice_rules * 4 / 5)
    print(f"  estimate with the slice rules 5x cheaper, all else as measured: {estimate:,.0f} objects per CPU-second")
    print(f"  peak RSS {run.rss:.0f} MB   target < 200 MB: {'met' if run.rss < 200 else 'NOT met'}")
    print(f"  {SMALL:,} slices: peak RSS {small.rss:.0f} MB; 5x the slices -> RSS x{run.rss / small.rss:.2f}, "
          f"time x{run.seconds / small.seconds:.2f} ({small.objects:,} -> {run.objects:,} objects)")


if __name__ == "__main__":
    main()
