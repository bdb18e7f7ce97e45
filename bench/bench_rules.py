"""Rules on a maximal ResourceSlice vs the floor any validator pays: json.loads + json.dumps of it.

Two maximal shapes, both 64 devices (the limit once list attributes are used) of 48 attribute values (the
per-device limit): this file's own (29 attributes plus 3 capacities, 32 in all, the other per-device limit),
shaped like a NUMA-aware GPU driver's output, and `bench_webhook.py`'s (25 attributes, 4 capacities), the
body the served figures use. Each is timed through `run_rules` as served (the fast accept) and under
`precise_only()` (every device read by the precise validator, what main did before the fast path), in one
run, as CPU time per slice and as ratios. Targets: run_rules at most 2x the floor (issue 7), and about
1 ms per maximal slice on a quiet machine (issue 18: 2.5 ms CPU per served request in all).

The corpus slices (../shared/corpus, skipped with a message when absent), decoded to plain JSON values as the
webhook and `draguard audit` see them, are timed the same two ways: the mean CPU time per slice over all of them,
what the audit pays per slice (issue 19).

For context it also times reading the same slice from a file the ways `draguard validate` can (JSON fast
path, libyaml, ruamel), since reading, not the rules, dominates a validate run.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from webhook.policy import Policy
from webhook.run import run_rules

ROUNDS = 7
REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "corpus"


def maximal_slice() -> dict[str, Any]:
    devices = []
    for i in range(64):
        node = i % 8
        attributes: dict[str, Any] = {
            "resource.kubernetes.io/numaNode": {"ints": [node, *sorted({node ^ 1, node ^ 2, node ^ 3})]},  # 4 values
            "resource.kubernetes.io/pcieRoot": {"strings": [f"pci0000:{node:02x}", f"pci0001:{node:02x}"]},  # 2
            "resource.kubernetes.io/pciBusID": {"string": f"0000:{i + 16:02x}:00.0"},
            "dra.net/numaNode": {"int": node},
            "gpu.example.com/lanes": {"ints": list(range(16))},  # 16 values
            "driverVersion": {"version": "560.35.3"},
            "cudaComputeCapability": {"version": "9.0.0"},
            "productName": {"string": "Example H100 80GB HBM3"},
            "architecture": {"string": "Hopper"},
            "uuid": {"string": f"GPU-{i:08x}-1f2e-4d3c-8b7a-{i:012x}"},
            "migCapable": {"bool": True},
            "index": {"int": i},
        }
        for j in range(17):  # 17 more scalars: 29 attributes, 48 values in all
            attributes[f"gpu.example.com/feature{j}"] = {"int": j} if j % 2 else {"string": f"value-{j}"}
        devices.append({
            "name": f"gpu-{i}",
            "attributes": attributes,
            "capacity": {"memory": {"value": "80Gi"}, "sm": {"value": "132"}, "power": {"value": "700"}},
        })
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "node-0-gpu.example.com-abcde"},
        "spec": {"driver": "gpu.example.com", "nodeName": "node-0",
                 "pool": {"name": "node-0", "generation": 1, "resourceSliceCount": 1}, "devices": devices},
    }


def best(fn: Callable[[], object], repeat: int) -> float:
    """Best per-call CPU time over ROUNDS rounds of `repeat` calls (the least disturbed by the shared machine)."""
    times = []
    for _ in range(ROUNDS):
        start = time.process_time()
        for _ in range(repeat):
            fn()
        times.append((time.process_time() - start) / repeat)
    return min(times)


def shapes() -> dict[str, dict[str, Any]]:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_webhook import resource_slice

    return {"bench_rules": maximal_slice(), "bench_webhook": resource_slice(64, maximal=True)}


def main() -> None:
    from webhook.rules.k8s.fast import precise_only

    policy = Policy.default()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} (shared: read the ratios)")
    for name, obj in shapes().items():
        text = json.dumps(obj)
        outcome = run_rules(obj, policy)
        assert not outcome.findings, [f"{f.rule} {f.path} {f.message}" for f in outcome.findings]
        values = sum(
            sum(len(a[m]) if isinstance(a[m], list) else 1 for m in a)
            for d in obj["spec"]["devices"] for a in d["attributes"].values()
        )
        floor = best(lambda: json.dumps(json.loads(text)), 20)  # noqa: B023 (called within the iteration)
        rules = best(lambda: run_rules(obj, policy), 20)  # noqa: B023
        with precise_only():
            precise = best(lambda: run_rules(obj, policy), 10)  # noqa: B023
        print(f"maximal slice ({name}): 64 devices, {values} attribute values, {len(text)} bytes of JSON")
        print(f"  json.loads + json.dumps : {floor * 1e3:8.2f} ms")
        print(f"  run_rules (as served)   : {rules * 1e3:8.2f} ms   ({rules / floor:5.2f}x floor; target <= 2x)")
        print(f"  run_rules (precise only): {precise * 1e3:8.2f} ms   ({precise / floor:5.2f}x floor)")
        print(f"  fast accept speed-up    : {precise / rules:8.2f}x")
    corpus_figures(policy, precise_only)
    obj = maximal_slice()
    text = json.dumps(obj)
    read_figures(obj, text, best(lambda: json.dumps(json.loads(text)), 20))


def corpus_slices() -> list[dict[str, Any]]:
    """Every ResourceSlice of the corpus as plain JSON values (what msgspec or json.loads hands the rules)."""
    from webhook.manifests import load_paths

    loaded = load_paths([str(CORPUS)])
    return [json.loads(json.dumps(m.obj)) for m in loaded.manifests if m.obj.get("kind") == "ResourceSlice"]


def corpus_figures(policy: Policy, precise_only: Callable[[], Any]) -> None:
    if not CORPUS.is_dir():
        print(f"corpus slices: skipped, the corpus is absent ({CORPUS})")
        return
    slices = corpus_slices()
    devices = sum(len(s["spec"].get("devices") or ()) for s in slices if isinstance(s.get("spec"), dict))

    def all_slices() -> None:
        for obj in slices:
            run_rules(obj, policy)

    rules = best(all_slices, 5) / len(slices)
    with precise_only():
        precise = best(all_slices, 2) / len(slices)
    print(f"corpus slices: {len(slices)} slices, {devices} devices, mean CPU per slice")
    print(f"  run_rules (as served)   : {rules * 1e3:8.3f} ms   ({1 / rules:7.0f} slices/s)")
    print(f"  run_rules (precise only): {precise * 1e3:8.3f} ms   ({precise / rules:5.2f}x as served)")


def read_figures(obj: dict[str, Any], text: str, floor: float) -> None:
    """validate's readers on the same slice, each as a ratio to the floor (one run, same machine)."""
    import io

    from ruamel.yaml import YAML

    from webhook.manifests import libyaml, load_text, parse

    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    buffer = io.StringIO()
    yaml.dump(obj, buffer)
    yaml_text = buffer.getvalue()
    readers = {
        "read JSON (values first)": lambda: parse(text, "s.json", [], positions=False),
        "read YAML (libyaml)     ": lambda: libyaml.load(yaml_text, "s.yaml"),
        "read YAML (ruamel)      ": lambda: load_text(yaml_text, "s.yaml"),
    }
    for label, read in readers.items():
        took = best(read, 1)
        print(f"{label}: {took * 1e3:8.2f} ms  ({took / floor:6.1f}x floor)")


if __name__ == "__main__":
    main()
