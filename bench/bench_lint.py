"""Benchmark `draguard lint`: objects per second on a generated repository, and CLI start-up time.

The repository holds 10,000 ResourceClaimTemplates, ResourceClaims and DeviceClasses in 100 files, with
realistic selectors drawn from a small pool (as real repositories repeat them), a third of them
list-fragile so findings and positions are exercised. Targets: >= 5,000 objects/s, `lint --help` < 0.3 s.

Also measured in the same run, for ratios: lint in one process (wall and CPU time; the default spreads
an input this large over one worker process per CPU), the ruamel round-trip loader alone on a sample
(what lint would cost without the libyaml fast path) and `lint --fix` on a copy. The machine may be
shared: read the figures as ratios from one run.
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

OBJECTS = 10_000
FILES = 100
SELECTORS = [
    'device.driver == "gpu.nvidia.com"',
    'device.attributes["gpu.nvidia.com"].productName == "NVIDIA A100-SXM4-80GB"',
    'device.attributes["gpu.nvidia.com"].productName.includes("NVIDIA H100 80GB HBM3")',
    "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0",
    'device.attributes["resource.kubernetes.io"].pcieRoot == "pci0000:00"',
    'device.attributes["dra.net"].rdma && device.attributes["dra.net"].ifName.startsWith("eth")',
    'has(device.attributes["resource.kubernetes.io"].numaNode)',
    'device.attributes["gpu.nvidia.com"].type == "gpu" && device.attributes["gpu.nvidia.com"].index < 4',
]
CONSTRAINTS = ["resource.kubernetes.io/numaNode", "resource.kubernetes.io/pcieRoot", "dra.net/numaNode"]


def template(i: int, rng: random.Random) -> str:
    picked = rng.sample(SELECTORS, k=rng.choice([1, 1, 2]))
    selectors = "".join(f"          - cel:\n              expression: '{s.replace(chr(39), chr(39) * 2)}'\n"
                        for s in picked)
    return (f"apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata:\n  name: gpu-{i}\n"
            f"  namespace: team-{i % 17}\nspec:\n  spec:\n    devices:\n      requests:\n      - name: gpu\n"
            f"        exactly:\n          deviceClassName: gpu.nvidia.com\n          selectors:\n{selectors}"
            f"      - name: nic\n        exactly:\n          deviceClassName: dranet\n      constraints:\n"
            f"      - requests: [gpu, nic]\n        matchAttribute: {rng.choice(CONSTRAINTS)}\n")


def claim(i: int, rng: random.Random) -> str:
    return (f"apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: claim-{i}\nspec:\n"
            f"  devices:\n    requests:\n    - name: gpu\n      exactly:\n        deviceClassName: gpu.nvidia.com\n"
            f"        selectors:\n        - cel:\n            expression: |\n"
            f"              {rng.choice(SELECTORS)}\n")


def device_class(i: int, rng: random.Random) -> str:
    return (f"apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: class-{i}\nspec:\n"
            f"  selectors:\n  - cel:\n      expression: {rng.choice(SELECTORS[:4])!r}\n")


def generate(root: Path) -> None:
    rng = random.Random(6)
    makers = [template] * 6 + [claim] * 3 + [device_class]
    per_file = OBJECTS // FILES
    for f in range(FILES):
        docs = [rng.choice(makers)(f * per_file + k, rng) for k in range(per_file)]
        (root / f"objects-{f:03}.yaml").write_text("---\n".join(docs), encoding="utf-8")


def startup() -> float:
    exe = Path(sys.executable).parent / "draguard"
    argv = [str(exe), "lint", "--help"] if exe.exists() else [sys.executable, "-m", "webhook", "lint", "--help"]
    times = []
    for _ in range(7):
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    from webhook.lint import lint_paths, tuned_gc
    from webhook.manifests import load_text
    from webhook.policy import Policy

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        root.mkdir()
        generate(root)
        policy = Policy.default()

        with tuned_gc():  # as `draguard lint` does
            start, cpu = time.perf_counter(), time.process_time()
            single = lint_paths([str(root)], policy, jobs=1)
            single_wall, single_cpu = time.perf_counter() - start, time.process_time() - cpu

            start = time.perf_counter()
            result = lint_paths([str(root)], policy)  # default: worker processes for an input this large
            elapsed = time.perf_counter() - start
        rate = result.objects / elapsed
        findings = len(result.findings)
        assert result.findings == single.findings

        sample = sorted(root.iterdir())[:2]
        start = time.perf_counter()
        sampled = sum(len(load_text(p.read_text(encoding="utf-8"), str(p)).manifests) for p in sample)
        ruamel_rate = sampled / (time.perf_counter() - start)

        fix_root = Path(tmp) / "fix"
        shutil.copytree(root, fix_root)
        start = time.perf_counter()
        with tuned_gc():
            fixed = lint_paths([str(fix_root)], policy, fix=True)
        fix_rate = fixed.objects / (time.perf_counter() - start)

    help_time = startup()
    print(f"objects linted:            {result.objects} in {FILES} files, {findings} findings")
    print(f"lint throughput:           {rate:,.0f} objects/s ({elapsed:.2f} s, {os.cpu_count()} CPUs)   "
          f"target >= 5,000: {'met' if rate >= 5000 else 'NOT met'}")
    print(f"  one process:             {single.objects / single_wall:,.0f} objects/s wall, "
          f"{single.objects / single_cpu:,.0f} objects per CPU-second; workers / one process = "
          f"{single_wall / elapsed:.2f}x")
    print(f"ruamel round-trip parse:   {ruamel_rate:,.0f} objects/s (sample of {sampled}); fast path "
          f"lint / ruamel parse alone = {rate / ruamel_rate:.1f}x")
    print(f"lint --fix throughput:     {fix_rate:,.0f} objects/s ({fix_rate / rate:.2f}x of plain lint)")
    print(f"draguard lint --help:      {help_time * 1000:.0f} ms (median of 7)   target < 300 ms: "
          f"{'met' if help_time < 0.3 else 'NOT met'}")


if __name__ == "__main__":
    main()
