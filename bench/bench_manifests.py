"""Benchmark `webhook.manifests`: the three backends on the corpus's ResourceSlices, and `lint --slices`.

1. Reading: every ResourceSlice file of ../shared/corpus (else examples/manifests) read by the ruamel
   round-trip backend, the libyaml backend, and `read()` from the same files and from a JSON text of the same
   objects (`kubectl get -o json` form). Ratios to ruamel, one run.
2. `draguard lint --slices <corpus ResourceSlices> <corpus claims and classes>` as a process, best of 5, wall
   and CPU (user + system, forked worker processes included) time, as it runs by default and in one process
   (`--jobs 1`): with bytecode cached (in a temporary PYTHONPYCACHEPREFIX, as an installed
   package has it) and from source (no bytecode: every module compiled on each run). With
   DRAGUARD_BASELINE=<checkout with a .venv> (e.g. `git worktree add /tmp/wave1 4673221` and `make install`
   there) the same command of that checkout runs interleaved, and the ratios are printed, of the best times
   and of the medians (a shared machine moves single runs by a third: read both); nothing is written into
   either checkout.
3. `draguard validate` on one big `kubectl get -o json` list (the corpus's slices repeated to 12 MB, compact and
   clean; then indented, as kubectl prints it, with a negative numaNode at its start, middle and end; then the
   latter as YAML): wall time and peak RSS of the process, best of 3, interleaved with DRAGUARD_BASELINE's when
   given.

The machine may be shared: read the figures as ratios from one run.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
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
ROUNDS = 5  # interleaved rounds per command
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
            "read(), YAML (libyaml)": lambda: read(paths),
            "read(), JSON (json + places)": lambda: read([str(as_json)]),
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
    # name -> (checkout, extra flags): the default (processes as the input pays for), one process, the baseline
    commands: dict[str, tuple[Path, list[str]]] = {"this checkout": (REPO, []),
                                                   "this checkout, --jobs 1": (REPO, ["--jobs", "1"])}
    if baseline:
        commands["baseline " + baseline] = (Path(baseline), [])
    print(f"draguard lint --slices ({len(inventory) // 2} slice files) over {len(checked)} files, best of {ROUNDS} "
          f"(wall s / CPU s of the process)")
    with tempfile.TemporaryDirectory() as cold, tempfile.TemporaryDirectory() as warm:
        # As pip installs it (bytecode compiled once, kept in a cache outside the checkouts), and from source
        # (every module compiled on every run, as with PYTHONDONTWRITEBYTECODE and no __pycache__).
        modes = {
            "bytecode cached": {**_env(), "PYTHONPYCACHEPREFIX": warm},
            "from source": {**_env(), "PYTHONPYCACHEPREFIX": cold, "PYTHONDONTWRITEBYTECODE": "1"},
        }
        for mode, env in modes.items():
            took: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
            if mode == "bytecode cached":
                for root, flags in commands.values():  # the warm-up run writes the bytecode
                    _timed(root, [*inventory, *checked, *flags], env)
            for _ in range(ROUNDS):  # interleaved, so a burst of load hits both
                for name, (root, flags) in commands.items():
                    took[name].append(_timed(root, [*inventory, *checked, *flags], env))
            mine = min(w for w, _c in took["this checkout"]), min(c for _w, c in took["this checkout"])
            middle = statistics.median(w for w, _c in took["this checkout"])
            print(f"  {mode}:")
            for name, times in took.items():
                wall, cpu = min(w for w, _c in times), min(c for _w, c in times)
                median = statistics.median(w for w, _c in times)
                print(f"    {name:38} {wall:6.2f} s {cpu:6.2f} s  {wall / mine[0]:5.2f}x / {cpu / mine[1]:5.2f}x "
                      f"this checkout (medians: {median:5.2f} s, {median / middle:5.2f}x)")


BIG_JSON = 12 * 2**20  # characters of the compact list
BIG_ROUNDS = 3


def big_json() -> None:
    from webhook.manifests import load_text

    objects = [m.obj for p in files(INVENTORY) for m in load_text(p.read_text(encoding="utf-8"), str(p)).manifests]
    one = len(json.dumps(objects))
    items = []
    for n in range(BIG_JSON // one + 1):
        for obj in objects:
            metadata = obj.get("metadata") or {}
            items.append({**obj, "metadata": {**metadata, "name": f"copy{n}-{metadata.get('name', '')}"}})
    with_devices = [i for i, item in enumerate(items)
                    if isinstance(devices := (item.get("spec") or {}).get("devices"), list) and devices
                    and isinstance(devices[0], dict)]
    broken = json.loads(json.dumps(items))
    for i in (with_devices[0], with_devices[len(with_devices) // 2], with_devices[-1]):
        device = broken[i]["spec"]["devices"][0]
        device.setdefault("attributes", {})["resource.kubernetes.io/numaNode"] = {"int": -1}
    checkouts = {"this checkout": REPO}
    if os.environ.get("DRAGUARD_BASELINE"):
        checkouts["baseline " + os.environ["DRAGUARD_BASELINE"]] = Path(os.environ["DRAGUARD_BASELINE"])
    with tempfile.TemporaryDirectory() as tmp:
        import yaml

        listed = {"apiVersion": "v1", "kind": "List", "items": broken}
        texts = {"JSON, compact, clean": json.dumps({"apiVersion": "v1", "kind": "List", "items": items}),
                 "JSON, indented, 3 findings": json.dumps(listed, indent=4),
                 "YAML, 3 findings": yaml.dump(listed, Dumper=yaml.CSafeDumper, sort_keys=False)}
        for label, text in texts.items():
            path = Path(tmp, "list.yaml" if label.startswith("YAML") else "list.json")
            path.write_text(text, encoding="utf-8")
            print(f"draguard validate, one list of {len(items)} ResourceSlices, {label}: "
                  f"{len(text) / 2**20:.1f} MB, {text.count(chr(10)) + 1:,} lines (best of {BIG_ROUNDS})")
            runs: dict[str, list[tuple[float, int]]] = {name: [] for name in checkouts}
            for _ in range(BIG_ROUNDS):
                for name, root in checkouts.items():
                    runs[name].append(_peak(root, ["validate", str(path)]))
            mine = min(w for w, _r in runs["this checkout"]), min(r for _w, r in runs["this checkout"])
            for name, measured in runs.items():
                wall, rss = min(w for w, _r in measured), min(r for _w, r in measured)
                print(f"    {name:38} {wall:6.2f} s {rss / 2**20:7.0f} MB  {wall / mine[0]:5.2f}x / "
                      f"{rss / mine[1]:5.2f}x this checkout")


def _peak(root: Path, args: list[str]) -> tuple[float, int]:
    """(wall seconds, peak RSS bytes) of one `draguard` process of the checkout at `root`, measured by a wrapper
    process of its own (getrusage's children figure is the peak over every child a process had)."""
    wrapper = ("import resource, subprocess, sys, time; started = time.perf_counter(); "
               "subprocess.run(sys.argv[1:], capture_output=True, check=False); "
               "print(time.perf_counter() - started, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    done = subprocess.run([sys.executable, "-c", wrapper, str(root / ".venv" / "bin" / "draguard"), *args],
                          cwd=root, env=_env(), capture_output=True, text=True, check=True)
    wall, kib = done.stdout.split()
    return float(wall), int(kib) * 1024


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}


def _timed(root: Path, args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, user + system CPU) seconds of one `draguard lint` process of the checkout at `root`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([str(root / ".venv" / "bin" / "draguard"), "lint", *args], cwd=root, env=env,
                   capture_output=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


if __name__ == "__main__":
    readers()
    lint_slices()
    big_json()
