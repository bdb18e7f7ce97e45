"""Rules on a maximal ResourceSlice vs the floor any validator pays: json.loads + json.dumps of it.

The slice has 64 devices (the limit once list attributes are used), each with 48 attribute values
(the per-device limit) over 29 attributes plus 3 capacities (32, the other per-device limit), shaped
like a NUMA-aware GPU driver's output. Everything runs in-process, in one run; the figure is a ratio.
Target: rules cost at most 2x the floor.

For context it also times reading the same slice from a file the ways `draguard validate` can (JSON fast
path, libyaml, ruamel), since reading, not the rules, dominates a validate run.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from webhook.policy import Policy
from webhook.run import run_rules

ROUNDS = 7


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
    """Best per-call time over ROUNDS rounds of `repeat` calls (the least disturbed by the shared machine)."""
    times = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for _ in range(repeat):
            fn()
        times.append((time.perf_counter() - start) / repeat)
    return min(times)


def main() -> None:
    obj = maximal_slice()
    text = json.dumps(obj)
    policy = Policy.default()
    outcome = run_rules(obj, policy)
    assert not outcome.findings, [f"{f.rule} {f.path} {f.message}" for f in outcome.findings]
    values = sum(
        sum(len(a[m]) if isinstance(a[m], list) else 1 for m in a)
        for d in obj["spec"]["devices"] for a in d["attributes"].values()
    )
    floor = best(lambda: json.dumps(json.loads(text)), 20)
    rules = best(lambda: run_rules(obj, policy), 20)
    print(f"maximal slice: 64 devices, {values} attribute values, {len(text)} bytes of JSON")
    print(f"json.loads + json.dumps : {floor * 1e3:8.2f} ms")
    print(f"run_rules (all rules)   : {rules * 1e3:8.2f} ms")
    print(f"ratio rules / floor     : {rules / floor:8.2f}x   (target <= 2x)")
    read_figures(obj, text, floor)


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
