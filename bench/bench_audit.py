"""Benchmark `draguard audit`: 10,000 ResourceSlices served in pages by the HTTPS stand-in.

Each slice is one node's 8 GPUs with the attributes real GPU drivers publish (uuid, PCI bus id, product,
driver version, numaNode as an int on some nodes and a list on others, memory capacity), plus two
DeviceClasses and 200 claims and templates whose selectors come from a small pool, so the selector rules run
against the 80,000 devices the cluster publishes. The audit runs as its own process (`python -m webhook
audit`); its peak RSS is the VmHWM it reports itself (a child's `ru_maxrss` would include the RSS of the
parent it was forked from, which holds the stand-in's objects). Targets: RSS < 200 MB, >= 1,000 objects/s.

Also measured, for the ratio that shows memory is bounded by a page rather than by the cluster: the same
audit over 2,000 slices. The machine may be shared: read the figures as ratios from one run.
"""

from __future__ import annotations

import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

# Runs `draguard audit ARGS...` and reports the process's own peak RSS on stderr.
CHILD = ("import sys\nfrom webhook.cli import main\ncode = main(sys.argv[1:])\n"
         "hwm = next(line for line in open('/proc/self/status') if line.startswith('VmHWM:'))\n"
         "print('peak-rss-kb', hwm.split()[1], file=sys.stderr)\nsys.exit(code)\n")
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


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def audit(slices: int) -> tuple[int, float, float, float]:
    """(objects, wall seconds, CPU seconds, peak RSS in MB) of one audit in a child process."""
    from tests.webhook.audit.apiserver import AuditAPIServer

    rng = random.Random(7)
    objects = [gpu_slice(n, rng) for n in range(slices)] + CLASSES + claims(rng)
    with tempfile.TemporaryDirectory() as tmp, AuditAPIServer(Path(tmp), objects) as api:
        api.state.record_bodies = False
        api.state.expire["resourceslices"] = "token"  # one expired continue token, as a slow reader meets one
        start, cpu = time.perf_counter(), _cpu()
        done = subprocess.run([sys.executable, "-c", CHILD, "audit", "--kubeconfig", str(api.kubeconfig),
                               "--format", f"json={tmp}/audit.json"], cwd=tmp, capture_output=True, text=True,
                              check=False, env={"PYTHONPATH": str(REPO)})
        seconds, cpu = time.perf_counter() - start, _cpu() - cpu
        if done.returncode not in (0, 1):
            raise SystemExit(f"audit failed ({done.returncode}): {done.stderr}")
        if f"listed {slices} resourceslices" not in done.stderr:
            raise SystemExit(f"audit did not list every slice: {done.stderr}")
    rss_kb = int(done.stderr.rsplit("peak-rss-kb ", 1)[1].split()[0])
    return len(objects), seconds, cpu, rss_kb / 1024


def main() -> None:
    small_objects, small_seconds, _, small_rss = audit(SMALL)
    objects, seconds, cpu, rss = audit(SLICES)
    rate, cpu_rate = objects / seconds, objects / cpu
    print(f"audit of {SLICES:,} ResourceSlices (80,000 devices) + {CLAIMS + len(CLASSES)} claims/templates/classes, "
          f"pages of 500, one expired continue token:")
    print(f"  {objects:,} objects in {seconds:.1f} s wall: {rate:,.0f} objects/s   target >= 1,000: "
          f"{'met' if rate >= 1000 else 'NOT met'}")
    print(f"  {cpu:.1f} s of CPU in the audit process: {cpu_rate:,.0f} objects per CPU-second (wall/CPU "
          f"{seconds / cpu:.2f}: above 1 the process waited for a shared CPU or the API server)")
    print(f"  peak RSS {rss:.0f} MB   target < 200 MB: {'met' if rss < 200 else 'NOT met'}")
    print(f"  {SMALL:,} slices: peak RSS {small_rss:.0f} MB; 5x the slices -> RSS x{rss / small_rss:.2f}, "
          f"time x{seconds / small_seconds:.2f} ({small_objects:,} -> {objects:,} objects)")


if __name__ == "__main__":
    main()
