"""Golden runs of `eval`, `explain` and `topology --check` on examples/ and the corpus, in-process, as a user
runs them from the repository root: exact stdout, stderr and exit code, one file per case in
tests/golden/runs/. DRAGUARD_UPDATE_GOLDEN=1 rewrites them for a reviewed diff. Corpus cases skip when
../shared/corpus is absent (the outputs name devices and lines of it; the objects are never copied).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import CORPUS, REPO
from tests.webhook.topology.test_corpus import NODE, snc_on_machine
from tests.webhook.topology.trees import EPYC_9825_NPS4
from webhook import cli

GOLDEN = REPO / "tests" / "golden" / "runs"
E = "examples/manifests"
C = os.path.relpath(CORPUS, REPO)
TCP = f"{C}/topology-co-placement"
SYSFS = "<sysfs>"  # replaced by the tree built for the case

CASES: dict[str, list[str]] = {
    "eval-examples": ["eval", 'device.driver == "gpu.example.com"', "--slices", f"{E}/slices.yaml"],
    "eval-examples-json": ["eval", 'device.attributes["resource.kubernetes.io"].numaNode == 1', "--slices", E,
                           "--format", "json"],
    "explain-examples": ["explain", f"{E}/claim.yaml", "--slices", f"{E}/slices.yaml", "--classes",
                         f"{E}/classes.yaml"],
    "explain-examples-json": ["explain", E, "--slices", E, "--format", "json"],
    "topology-examples": ["topology", "--sysfs-root", SYSFS, "--check", E, "--node", "node-a"],
}
CORPUS_CASES: dict[str, list[str]] = {
    "eval-corpus-json": ["eval", "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == "
                         "'gpu'", "--slices", f"{TCP}/manifests-nvidia-a40-resourceslices.yaml", "--format", "json"],
    "explain-corpus": ["explain", f"{TCP}/claims-4driver-numa-aligned.yaml", "--slices",
                       f"{TCP}/manifests-nvidia-a40-resourceslices.yaml", "--classes", TCP],
    "topology-corpus": ["topology", "--sysfs-root", SYSFS, "--check",
                        f"{TCP}/results-xe9680-hardware-snc-off-resourceslices.yaml", "--node", NODE],
    "topology-corpus-json": ["topology", "--sysfs-root", SYSFS, "--check",
                             f"{TCP}/results-xe9680-hardware-snc-off-resourceslices.yaml", "--node", NODE,
                             "--format", "json"],
}


def record(argv: list[str], capsys: pytest.CaptureFixture[str], sysfs: Path) -> str:
    """The run's exit code, stdout and stderr, the temporary sysfs root shown as <sysfs>."""
    code = cli.main([str(sysfs) if a == SYSFS else a for a in argv])
    out, err = capsys.readouterr()
    return f"exit: {code}\n--- stdout\n{out}--- stderr\n{err}".replace(str(sysfs), SYSFS)


def expected(case: str, actual: str) -> str:
    path = GOLDEN / f"{case}.txt"
    if os.environ.get("DRAGUARD_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("case", sorted(CASES))
def test_examples(case: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                  tmp_path: Path) -> None:
    monkeypatch.chdir(REPO)
    actual = record(CASES[case], capsys, EPYC_9825_NPS4.build(tmp_path / "sys"))
    assert actual == expected(case, actual)


@pytest.mark.parametrize("case", sorted(CORPUS_CASES))
def test_corpus(case: str, corpus: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                tmp_path: Path) -> None:
    monkeypatch.chdir(REPO)
    if SYSFS in CORPUS_CASES[case]:
        snc_on_machine(tmp_path / "sys", corpus)
    actual = record(CORPUS_CASES[case], capsys, tmp_path / "sys")
    assert actual == expected(case, actual)
