"""Benchmark `webhook.manifests`: the three backends on the corpus's ResourceSlices, and `lint --slices`.

1. Reading: every ResourceSlice file of ../shared/corpus (else examples/manifests) read by the ruamel
   round-trip backend, the libyaml backend, and values first (`read(..., positions=False)`) from the same
   files and from JSON texts of the same objects (`kubectl get -o json` form). Ratios to ruamel, one run.
2. `draguard lint --slices <corpus ResourceSlices> <corpus claims and classes>` as a process, best of 3.
   With DRAGUARD_BASELINE=<checkout with a .venv> (e.g. `git worktree add /tmp/wave1 4673221` and
   `make install` there) the same command of that checkout runs interleaved, and the ratio is printed.

The machine may be shared: read the figures as ratios from one run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
CORPUS = REPO.parent / "shared" / "corpus"
INVENTORY = ("kind: ResourceSlice",)
CHECKED = ("kind: ResourceClaim\n", "kind: ResourceClaimTemplate\n", "kind: DeviceClass\n")


def files(markers: tuple[str, ...]) -> list[Path]:
    root = CORPUS if CORPUS.is_dir() else REPO / "examples" / "manifests"
    return sorted(p for p in root.rglob("*.yaml") if any(m in p.read_text(encoding="utf-8") for m in markers))


def best(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times)


def readers() -> None:
    from webhook.manifests import libyaml, load_text, read

    slices = files(INVENTORY)
    texts = [(str(p), p.read_text(encoding="utf-8")) for p in slices]
    objects = [m.obj for source, text in texts for m in load_text(text, source).manifests]
    with tempfile.TemporaryDirectory() as tmp:
        as_json = Path(tmp, "slices.json")
        as_json.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
        paths = [str(p) for p in slices]
        runs = {
            "ruamel round-trip (reference)": lambda: [load_text(t, s) for s, t in texts],
            "libyaml, positions kept": lambda: [libyaml.load(t, s) for s, t in texts],
            "read(positions=False), YAML": lambda: read(paths, positions=False),
            "read(positions=False), JSON": lambda: read([str(as_json)], positions=False),
        }
        floor = best(runs["ruamel round-trip (reference)"], 2)
        print(f"read {len(objects)} ResourceSlices from {len(slices)} files (ratio: time / ruamel)")
        for label, run in runs.items():
            took = best(run, 2 if "ruamel" in label else 5)
            print(f"  {label:32} {took * 1000:8.1f} ms  {took / floor:6.3f}x")


def lint_slices() -> None:
    inventory = [a for p in files(INVENTORY) for a in ("--slices", str(p))]
    checked = [str(p) for p in files(CHECKED)]
    baseline = os.environ.get("DRAGUARD_BASELINE")
    commands = {"this checkout": REPO}
    if baseline:
        commands["baseline " + baseline] = Path(baseline)
    took: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(3):  # interleaved, so a burst of load hits both
        for name, root in commands.items():
            argv = [str(root / ".venv" / "bin" / "draguard"), "lint", *inventory, *checked]
            started = time.perf_counter()
            subprocess.run(argv, cwd=root, capture_output=True, check=False)
            took[name].append(time.perf_counter() - started)
    print(f"draguard lint --slices ({len(inventory) // 2} slice files) over {len(checked)} files, best of 3")
    mine = min(took["this checkout"])
    for name, times in took.items():
        print(f"  {name:40} {min(times):7.2f} s  {min(times) / mine:6.2f}x this checkout")


if __name__ == "__main__":
    readers()
    lint_slices()
