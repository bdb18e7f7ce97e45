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

`typed_figures` measures the alternative of issue 18 item 5 that was not adopted: validating the devices while
decoding them, with msgspec Structs carrying upstream's limits as constraints (docs/webhook.md, "Validating while
decoding"). Each variant is timed against the fast accept's device verdicts on the same devices, interleaved.
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
    typed_figures()
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


def typed_variants() -> dict[str, Callable[[list[Any]], object]]:
    """What a typed decode can check, as msgspec conversions of one slice's device list (built once, here)."""
    from typing import Annotated, Literal

    import msgspec
    from msgspec import UNSET, Meta, UnsetType

    from webhook.rules.k8s.decode import INT64_MAX, INT64_MIN

    int64 = Annotated[int, Meta(ge=INT64_MIN, le=INT64_MAX)]
    # Upstream's qualified name (DNS subdomain <= 63 / C identifier <= 32) and 64-byte strings (ASCII only, so
    # that characters are bytes) as msgspec patterns: each a regular expression search per value, from C.
    qualified = Annotated[str, Meta(pattern=r"^(?:[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?"
                                            r"(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z_][A-Za-z0-9_]{0,31}$")]
    ascii64 = Annotated[str, Meta(max_length=64, pattern="^[\\x00-\\x7f]*$")]
    # Without a pattern: 64 characters, which are 64 bytes only in an ASCII body without \u escapes (checked on the
    # raw bytes first, in C), else the slice would go to the precise path.
    chars64 = Annotated[str, Meta(max_length=64)]

    def devices_type(text: Any, key: Any) -> Any:
        def listed(item: Any) -> Any:
            return Annotated[list[item], Meta(min_length=1)] | UnsetType
        # Member types only: a Struct cannot say "exactly one member is set".
        members = {"int": int64, "bool": bool, "string": text, "version": text, "ints": listed(int64),
                   "bools": listed(bool), "strings": listed(text), "versions": listed(text)}
        attribute = msgspec.defstruct("Attribute", [(m, t | UnsetType, UNSET) if m in ("int", "bool", "string",
                                      "version") else (m, t, UNSET) for m, t in members.items()],
                                      forbid_unknown_fields=True, gc=False)
        capacity = msgspec.defstruct("Capacity", [("value", str)], forbid_unknown_fields=True, gc=False)
        device = msgspec.defstruct("Device", [
            ("name", Annotated[str, Meta(max_length=63, pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")]),
            ("attributes", Annotated[dict[key, attribute], Meta(max_length=32)], msgspec.field(default_factory=dict)),
            ("capacity", Annotated[dict[key, capacity], Meta(max_length=32)], msgspec.field(default_factory=dict)),
        ], forbid_unknown_fields=True)
        return list[device]

    member = Literal["int", "bool", "string", "version", "ints", "bools", "strings", "versions"]
    one = Annotated[dict[member, int | bool | str | list[int | bool | str]], Meta(min_length=1, max_length=1)]
    # "Exactly one member" only: a union value cannot also pair each member with its type.
    one_of = msgspec.defstruct("OneOf", [("attributes", dict[str, one], msgspec.field(default_factory=dict))])

    def converter(target: Any) -> Callable[[list[Any]], object]:
        def convert(devices: list[Any]) -> object:
            try:
                return msgspec.convert(devices, target)
            except msgspec.ValidationError as err:  # not plain: the precise rules would read it
                return err
        return convert

    return {
        "typed, upstream's patterns": converter(devices_type(ascii64, qualified)),
        "typed, no patterns (keys, bytes unchecked)": converter(devices_type(chars64, str)),
        "exactly-one view alone": converter(list[one_of]),
    }


def typed_figures() -> None:
    """Each typed variant's CPU against the fast accept's verdicts over the same devices (ratios, one run)."""
    import msgspec

    from webhook.rules.k8s.fast import device_verdict
    from webhook.rules.k8s.slice import _fast_fields

    policy = Policy.default()
    fields, most = _fast_fields(policy.profile.version), policy.profile.limit("maxAttributeValues")
    shapes_ = {name: [obj["spec"]["devices"]] for name, obj in shapes().items()}
    if CORPUS.is_dir():
        shapes_["corpus"] = [s["spec"].get("devices") or [] for s in corpus_slices() if isinstance(s.get("spec"), dict)]
    variants = typed_variants()
    print("validating while decoding (msgspec Structs with upstream's limits) against the fast accept's verdicts:")
    for name, lists in shapes_.items():
        raws = [msgspec.json.encode(devices) for devices in lists]
        timed: dict[str, Callable[[], object]] = {
            "fast accept (device_verdict)": lambda: [[device_verdict(d, fields, most) for d in ds] for ds in lists],  # noqa: B023
            "generic decode of the devices": lambda: [msgspec.json.decode(raw) for raw in raws],  # noqa: B023
        }
        for label, convert in variants.items():
            timed[label] = lambda convert=convert: [convert(ds) for ds in lists]  # noqa: B023
        took = {label: min(best(fn, 5) for _ in range(3)) for label, fn in timed.items()}
        base = took["fast accept (device_verdict)"]
        print(f"  {name} ({len(lists)} device lists):")
        for label, seconds in took.items():
            convert = variants.get(label)
            passed = "" if convert is None else \
                f"; {sum(not isinstance(convert(ds), Exception) for ds in lists)} of {len(lists)} lists pass"
            print(f"    {label:44}: {seconds * 1e3:7.3f} ms  ({seconds / base:5.2f}x the fast accept{passed})")


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
        "read JSON (json module) ": lambda: parse(text, "s.json", []),
        "read YAML (libyaml)     ": lambda: libyaml.load(yaml_text, "s.yaml"),
        "read YAML (ruamel)      ": lambda: load_text(yaml_text, "s.yaml"),
    }
    for label, read in readers.items():
        took = best(read, 1)
        print(f"{label}: {took * 1e3:8.2f} ms  ({took / floor:6.1f}x floor)")


if __name__ == "__main__":
    main()
