"""Benchmark `draguard validate` against `draguard lint` through the installed CLI: wall time and peak RSS.

Two input sets: the real corpus (../shared/corpus, read in place) and 3,660 files made of its YAML and JSON
files copied 20 times into a temporary directory (with the walk-through's examples instead when the corpus
is absent). Each command runs as a user runs it (`draguard CMD PATH --format json=FILE`), in a child whose
peak RSS is the largest of its process tree's (worker processes included). Each command runs twice,
interleaved (lint, validate, validate, lint), and the faster run counts. Target: validate within 1.5x of
lint's time. The machine may be shared: read the figures as ratios from one run.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "corpus"
DRAGUARD = Path(sys.executable).parent / "draguard"
FILES = 3_660
SUFFIXES = (".yaml", ".yml", ".json")
ORDER = ("lint", "validate", "validate", "lint")
# Runs the command and prints the peak RSS (KiB on Linux) of the largest process it waited for.
MEASURE = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, "
           "stderr=subprocess.DEVNULL); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


def generated(root: Path) -> Path:
    """FILES files: the corpus's (or the examples') manifests, copied round-robin into numbered folders."""
    source = CORPUS if CORPUS.is_dir() else REPO / "examples" / "manifests"
    files = sorted(p for p in source.rglob("*") if p.suffix in SUFFIXES and p.is_file())
    out = root / "generated"
    for i in range(FILES):
        original = files[i % len(files)]
        target = out / f"copy-{i // len(files):02d}" / original.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(original, target)
    return out


def measure(command: str, path: Path, report: Path) -> tuple[float, int, int]:
    """(seconds, peak RSS in MiB, findings) of one CLI run."""
    argv = [str(DRAGUARD), command, str(path), "--format", f"json={report}"]
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", MEASURE, *argv], capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - started
    findings = len(json.loads(report.read_text(encoding="utf-8"))["findings"])
    return seconds, int(done.stdout.strip()) // 1024, findings


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        sets = {"corpus": CORPUS} if CORPUS.is_dir() else {}
        sets[f"{FILES} files"] = generated(root)
        print(f"{'input':<12} {'command':<9} {'time':>8} {'peak RSS':>9} {'findings':>9}")
        for label, path in sets.items():
            runs: dict[str, list[tuple[float, int, int]]] = {"lint": [], "validate": []}
            for command in ORDER:  # interleaved, best of two: load from other users hits both alike
                runs[command].append(measure(command, path, root / f"{command}.json"))
            figures = {command: min(results) for command, results in runs.items()}
            for command, (seconds, rss, found) in figures.items():
                print(f"{label:<12} {command:<9} {seconds:>7.2f}s {rss:>6} MiB {found:>9}")
            (lint_s, lint_rss, lint_n), (val_s, val_rss, val_n) = figures["lint"], figures["validate"]
            verdict = "ok" if val_s <= 1.5 * lint_s else "OVER the 1.5x target"
            print(f"{label:<12} validate/lint: time {val_s / lint_s:.2f}x ({verdict}), peak RSS "
                  f"{val_rss / max(lint_rss, 1):.2f}x, same number of findings: {val_n == lint_n}")


if __name__ == "__main__":
    main()
