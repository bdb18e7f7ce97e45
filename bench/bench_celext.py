"""Benchmark: celext's compiled engine against hand-written Python and the reference engine.

1. Selectors on the corpus-derived 10,000-device fleet in wire form (`spec.devices[i]` dicts as users pass
   them; every other dra.net numaNode in KEP-6072 list form). Four selectors (a numaNode includes, a
   quantity compare, a semver compare, a string equality), each next to a hand-written Python predicate
   (the baseline). Ratios of CPU time per device to the predicate's:
   - uncached: `Selector.evaluate` (no answers remembered), the devices' conversion verdicts known from an
     earlier pass (the engine's own speed);
   - cold: the same with the verdicts dropped first (every device's attributes checked, as on first sight);
   - check: that first-sight check alone (celext.runtime.verdict), the part of cold the engine cannot skip;
   - matches(): `Selector.matches`, the face callers use, after one pass (answers remembered per device);
   - reference: the tree-walking engine (`engine="reference"`, `evaluate`, on 1,000 devices);
   - collections: the cyclic garbage collector's runs per generation during the three cold passes (what the
     engine remembers on first sight must not be containers the collector tracks: celext.runtime.verdict).
   Targets (issue 14): uncached <= 10x, judged on the cold column (a device the webhook or CLI has just decoded
   has no verdict yet: that is the user's path), matches() <= 3x. All answers must agree.
   The hand-written predicates are what a user would write, and they skip what CEL's semantics require:
   Kubernetes fails every selector on a device with one attribute it cannot convert, so the engine checks the
   whole device (every attribute's member and type, int64 ranges, semver and quantity syntax) before it reads
   the one value the predicate reads. The predicates are kept as they are; the check column shows that part.
   For the quantity and semver selectors that check is most of the 10x budget on its own: their predicates
   compare the driver and stop on 94 % of this fleet's devices (0.3-0.5 us), while the engine must still check
   every attribute of each device. The columns of one selector are measured in interleaved rounds (hand, cold,
   uncached, matches(), check in turn, the best round of each), so both sides of a ratio ran under the same load
   of the shared machine.
2. `explain` on the 128-device example node of bench_explain.py and `draguard lint --slices` over the
   corpus, before (DRAGUARD_CEL_ENGINE=reference) and after (compiled); target >= 5x.
CPU time (process_time, and the children's for lint) is reported because the machine is shared: read the
figures as ratios from one run. Skips with a message when ../shared/corpus is absent.
Run: .venv/bin/python bench/bench_celext.py
"""

from __future__ import annotations

import copy
import gc
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

import celext  # noqa: E402
from celext.alloc.pools import slice_devices  # noqa: E402
from celext.quantity import parse_quantity  # noqa: E402
from celext.runtime import verdict, wire  # noqa: E402
from celext.semver import parse_semver  # noqa: E402
from celext.vocabulary import device_body  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpus"
FLEET = 10_000
REFERENCE_SAMPLE = 1_000
Pair = tuple[dict[str, Any], str]


def corpus_devices() -> list[Pair]:
    pairs: list[Pair] = []
    yaml = YAML(typ="safe")
    for path in sorted(CORPUS.rglob("*.yaml")):
        try:
            documents = list(yaml.load_all(path.read_text()))
        except Exception:  # a few corpus files are fragments, not manifests
            continue
        pairs += [(dict(d), driver) for d, driver in slice_devices(documents)]
    return pairs


def fleet(pairs: list[Pair]) -> list[Pair]:
    """FLEET copies cycling through the corpus; every other dra.net numaNode in KEP-6072 list form."""
    # Only devices Kubernetes would accept: a hand-written corpus page with capacity `quantity:` is left out.
    pairs = [(d, v) for d, v in pairs if celext.to_device(d, v).error is None]
    out: list[Pair] = []
    for i in range(FLEET):
        device, driver = pairs[i % len(pairs)]
        device = copy.deepcopy(device)
        device["name"] = f"{device.get('name', 'dev')}-{i}"
        numa = (device.get("attributes") or {}).get("dra.net/numaNode")
        if i % 2 and isinstance(numa, dict) and isinstance(numa.get("int"), int):
            node = numa.pop("int")
            numa["ints"] = [node, node ^ 1]
        out.append((device, driver))
    return out


def _attr(device: dict[str, Any], driver: str, domain: str, name: str) -> Any:
    attributes = (device.get("basic") or device).get("attributes") or {}
    return attributes.get(f"{domain}/{name}") or (attributes.get(name) if driver == domain else None)


def numa_by_hand(device: dict[str, Any], driver: str) -> bool:
    value = _attr(device, driver, "dra.net", "numaNode")
    if value is None:
        return False
    return 1 in value["ints"] if "ints" in value else value.get("int") == 1


GIB_40 = parse_quantity("40Gi").value


def memory_by_hand(device: dict[str, Any], driver: str) -> bool:
    if driver != "gpu.nvidia.com":
        return False
    capacity = (device.get("basic") or device).get("capacity") or {}
    entry = capacity.get("gpu.nvidia.com/memory") or capacity.get("memory")
    return parse_quantity(str(entry["value"])).value > GIB_40


V550 = parse_semver("550.0.0")


def version_by_hand(device: dict[str, Any], driver: str) -> bool:
    if driver != "gpu.nvidia.com":
        return False
    return parse_semver(_attr(device, driver, "gpu.nvidia.com", "driverVersion")["version"]) > V550


def vendor_by_hand(device: dict[str, Any], driver: str) -> bool:
    value = _attr(device, driver, "dra.net", "pciVendor")
    return (value or {}).get("string", "") == "Mellanox Technologies"


SELECTORS: list[tuple[str, str, Callable[[dict[str, Any], str], bool]]] = [
    ("numaNode includes", 'has(device.attributes["dra.net"].numaNode) && '
                          'device.attributes["dra.net"].numaNode.includes(1)', numa_by_hand),
    ("quantity compare", 'device.driver == "gpu.nvidia.com" && '
                         'device.capacity["gpu.nvidia.com"].memory.isGreaterThan(quantity("40Gi"))', memory_by_hand),
    ("semver compare", 'device.driver == "gpu.nvidia.com" && '
                       'device.attributes["gpu.nvidia.com"].driverVersion.isGreaterThan(semver("550.0.0"))',
     version_by_hand),
    ("string equality", 'device.attributes["dra.net"].?pciVendor.orValue("") == "Mellanox Technologies"',
     vendor_by_hand),
]


def run_all(check: Callable[[Any, str], Any], devices: list[Pair]) -> list[Any]:
    """check(device, driver) for every device; an evaluation error is recorded as "error"."""
    results: list[Any] = []
    append = results.append
    for device, driver in devices:
        try:
            append(bool(check(device, driver)))
        except celext.EvaluationError:
            append("error")
    return results


def cpu_per_device(check: Callable[[Any, str], Any], devices: list[Pair], *, before: Callable[[], None] | None = None,
                   rounds: int = 3) -> tuple[float, list[Any]]:
    """The best of `rounds` passes, in CPU microseconds per device."""
    best, results = float("inf"), []
    for _ in range(rounds):
        if before:
            before()
        start = time.process_time()
        results = run_all(check, devices)
        best = min(best, time.process_time() - start)
    return best / len(devices) * 1e6, results


COLLECTIONS: dict[str, list[int]] = {}  # check name -> the collector's runs per generation over its passes


def interleaved(checks: dict[str, tuple[Callable[[Any, str], Any], Callable[[], None] | None]],
                devices: list[Pair], rounds: int = 3) -> tuple[dict[str, float], dict[str, list[Any]]]:
    """cpu_per_device for several checks, one pass of each per round in turn (best round of each); the cyclic
    collector's runs during each check's passes are counted in COLLECTIONS."""
    best = dict.fromkeys(checks, float("inf"))
    results: dict[str, list[Any]] = {}
    COLLECTIONS.clear()
    counting: list[list[int]] = []  # the counts of the check being measured (empty between passes)

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and counting:
            counting[0][info["generation"]] += 1

    gc.callbacks.append(count)
    try:
        for _ in range(rounds):
            for name, (check, before) in checks.items():
                if before:
                    before()
                counting.append(COLLECTIONS.setdefault(name, [0, 0, 0]))
                us, results[name] = cpu_per_device(check, devices, rounds=1)
                counting.clear()
                best[name] = min(best[name], us)
    finally:
        gc.callbacks.remove(count)
    return best, results


def _maps(device: dict[str, Any]) -> tuple[Any, Any]:
    body = device_body(device)
    return body.get("attributes"), body.get("capacity")


def selectors(devices: list[Pair]) -> bool:
    print(f"{'selector':18} {'by hand':>9} {'uncached':>9} {'cold':>9} {'check':>9} {'matches()':>9} "
          f"{'reference':>9}   agree  collections in 3 cold passes (generation 0/1/2)")
    ok, agreed = [], []
    for label, expression, by_hand in SELECTORS:
        compiled = celext.compile(expression)
        run_all(compiled.matches, devices)  # matches() is measured after one pass
        us, runs = interleaved({
            "hand": (by_hand, None), "cold": (compiled.evaluate, wire.VERDICTS.clear),
            "uncached": (compiled.evaluate, None), "matches": (compiled.matches, None),
            "check": (lambda device, _driver: verdict.clean(*_maps(device)), None)}, devices)
        hand_us, cold_us, uncached_us, warm_us, check_us = (us[k] for k in ("hand", "cold", "uncached", "matches",
                                                                            "check"))
        hand, cold, uncached, warm = (runs[k] for k in ("hand", "cold", "uncached", "matches"))
        reference = celext.compile(expression, engine="reference")
        sample = devices[:REFERENCE_SAMPLE]
        reference_us, referenced = cpu_per_device(reference.evaluate, sample, rounds=1)
        agree = cold == warm == uncached and [r is True for r in cold] == hand \
            and referenced == cold[:REFERENCE_SAMPLE]
        agreed.append(agree)
        ok.append(cold_us / hand_us <= 10 and warm_us / hand_us <= 3)
        collected = "/".join(str(n) for n in COLLECTIONS["cold"])
        print(f"{label:18} {hand_us:7.2f}us {uncached_us / hand_us:8.1f}x {cold_us / hand_us:8.1f}x "
              f"{check_us / hand_us:8.1f}x {warm_us / hand_us:8.1f}x {reference_us / hand_us:8.0f}x   {agree!s:5}  "
              f"{collected}")
    print("ratios: CPU time per device / the hand-written predicate's; targets cold <= 10x, matches() <= 3x:",
          all(ok))
    return all(agreed)


def explain_ms(engine: str) -> float:
    """CPU ms per claim; engine "python" answers the selectors with bench_explain's plain Python (the floor)."""
    from bench_explain import CLAIM, CLASSES, inventory, python_matcher

    from celext.alloc.explain import celext_matcher, explain
    from celext.alloc.pools import Node

    celext.DEFAULT_ENGINE = engine if engine != "python" else "compiled"
    celext._CACHE.clear()
    slices, node = inventory(False), [Node("node")]
    samples = []
    for _ in range(6):
        start = time.process_time()
        explain(CLAIM, CLASSES, slices, node, matcher=python_matcher if engine == "python" else celext_matcher())
        samples.append(time.process_time() - start)
    celext.DEFAULT_ENGINE = "compiled"
    return sorted(samples)[len(samples) // 2] * 1000


def lint_cpu(engine: str) -> float:
    """CPU seconds of `draguard lint CORPUS --slices CORPUS` (the process and its workers)."""
    exe = Path(sys.executable).parent / "draguard"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([str(exe), "lint", str(CORPUS), "--slices", str(CORPUS), "--format", f"json={os.devnull}"],
                   env={**os.environ, "DRAGUARD_CEL_ENGINE": engine}, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    if not CORPUS.is_dir():
        print(f"skipped: the corpus is absent ({CORPUS})")
        return 0
    devices = fleet(corpus_devices())
    print(f"fleet: {len(devices)} wire-form devices from the corpus ResourceSlices (CPU time, shared machine)")
    agree = selectors(devices)
    before, after, floor = explain_ms("reference"), explain_ms("compiled"), explain_ms("python")
    print(f"explain, 128-device node: reference {before:.1f} ms, compiled {after:.1f} ms CPU per claim "
          f"({before / after:.1f}x faster; with plain Python selectors {floor:.1f} ms)")
    before, after = lint_cpu("reference"), lint_cpu("compiled")
    print(f"lint --slices over the corpus: reference {before:.2f} s, compiled {after:.2f} s CPU "
          f"({before / after:.1f}x faster; YAML loading and the other rules are most of it)")
    print("all answers agree:", agree)
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
