"""Benchmark `draguard lint`: objects per second on a generated repository, and CLI start-up time.

The repository holds 10,000 ResourceClaimTemplates, ResourceClaims and DeviceClasses in 100 files, with
realistic selectors drawn from a small pool (as real repositories repeat them), a third of them
list-fragile so findings and positions are exercised. Targets: >= 5,000 objects/s, `lint --help` < 0.3 s.

Also measured in the same run, for ratios: lint in one process (wall and CPU time; the default spreads
an input this large over one worker process per CPU), the ruamel round-trip loader alone on a sample
(what lint would cost without the libyaml fast path) and `lint --fix` on a copy. The machine may be
shared: read the figures as ratios from one run.

`cli_path()` measures what a user waits for: `draguard lint` as a process on one small file (start-up), and
on a set built from ../shared/corpus/cel-expressions.yaml (every corpus selector as a DeviceClass), start-up
included.
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


# -- The user's path: `draguard lint` as a process, on one small file and on the corpus-derived set -----------

CORPUS_INDEX = REPO.parent / "shared" / "corpus" / "cel-expressions.yaml"
CLI_OBJECTS = 5_000  # corpus expressions repeated (as DeviceClasses) until the set is this large
CLI_FILES = 50
SMALL = ("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec:\n  selectors:\n"
         "  - cel:\n      expression: device.attributes[\"gpu.example.com\"].family == \"ampere\"\n")


def _draguard(*args: str) -> list[str]:
    exe = Path(sys.executable).parent / "draguard"
    return [str(exe), *args] if exe.exists() else [sys.executable, "-m", "webhook", *args]


def _timed(argv: list[str], runs: int) -> float:
    """Median wall time of `argv`; exit 0 or 1 (findings) are both a completed lint."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(argv, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
        if done.returncode not in (0, 1):
            raise SystemExit(f"bench: {' '.join(argv)} exited {done.returncode}")
    return statistics.median(times)


def corpus_set(root: Path) -> int:
    """The corpus index's selector expressions, each as a DeviceClass, repeated into CLI_FILES files."""
    import json

    from ruamel.yaml import YAML

    index = YAML(typ="safe", pure=True).load(CORPUS_INDEX.read_text(encoding="utf-8"))
    expressions = [str(e["expression"]) for e in index["expressions"]]
    per_file = CLI_OBJECTS // CLI_FILES
    for f in range(CLI_FILES):
        docs = []
        for k in range(per_file):
            i = f * per_file + k
            expression = json.dumps(expressions[i % len(expressions)])  # a JSON string is a YAML flow scalar
            docs.append(f"apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {{name: c-{i}}}\nspec:\n"
                        f"  selectors:\n  - cel:\n      expression: {expression}\n")
        (root / f"corpus-{f:03}.yaml").write_text("---\n".join(docs), encoding="utf-8")
    return per_file * CLI_FILES


def cli_path() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        small = Path(tmp) / "class.yaml"
        small.write_text(SMALL, encoding="utf-8")
        help_time = _timed(_draguard("lint", "--help"), 5)
        one_file = _timed(_draguard("lint", str(small)), 5)
        print(f"CLI start-up (lint one small file): {one_file * 1000:.0f} ms (median of 5); "
              f"`lint --help` {help_time * 1000:.0f} ms, so linting one file = {one_file / help_time:.1f}x --help")
        if not CORPUS_INDEX.exists():
            print(f"CLI throughput on the corpus-derived set: skipped ({CORPUS_INDEX} not found)")
            return
        root = Path(tmp) / "corpus"
        root.mkdir()
        objects = corpus_set(root)
        elapsed = _timed(_draguard("lint", str(root)), 3)
        print(f"CLI throughput on the corpus-derived set: {objects / elapsed:,.0f} objects/s ({objects} DeviceClasses "
              f"from {CORPUS_INDEX.name} in {CLI_FILES} files, {elapsed:.2f} s median of 3, start-up included)")


if __name__ == "__main__":
    main()
    cli_path()
