"""A reader that leaves in the middle of a large report (`draguard lint deploy/ | head -1`): the part that was
not written is never passed over in silence. The run exits 141 (README: "141 when a closed pipe cut the output
off"), with standard output unbuffered (PYTHONUNBUFFERED, as container images set it) or not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.builders import claim_with_selector

DRAGUARD = Path(sys.executable).with_name("draguard")
PIPE_SIZE = 64 * 1024  # Linux's default pipe buffer: a larger report cannot be written before the reader leaves


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Manifests whose lint report is over 64 KB, and slices whose eval listing is too."""
    top = tmp_path_factory.mktemp("big")
    claims = top / "claims"
    claims.mkdir()
    for i in range(500):
        claim = claim_with_selector('device.attributes["gpu.example.com"].model == "A100"', name=f"claim-{i}")
        (claims / f"c{i:03}.yaml").write_text(yaml.safe_dump(claim), encoding="utf-8")
    devices = [{"name": f"device-{i:05}", "attributes": {"model": {"string": "A100"}}} for i in range(8000)]
    slices = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
              "spec": {"driver": "gpu.example.com", "nodeName": "node-a", "pool": {"name": "p",
                       "resourceSliceCount": 1}, "devices": devices}}
    (top / "slices.yaml").write_text(yaml.safe_dump(slices), encoding="utf-8")
    return top


def _cut_off(argv: list[str], *, unbuffered: bool) -> tuple[int, int, str]:
    """Run draguard, read the first bytes of its output and close the pipe: (exit code, bytes read, stderr)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    with subprocess.Popen([str(DRAGUARD), *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        first = proc.stdout.read(16)
        proc.stdout.close()
        err = proc.stderr.read().decode()
        return proc.wait(timeout=120), len(first), err


@pytest.mark.parametrize("unbuffered", [True, False], ids=["unbuffered", "buffered"])
@pytest.mark.parametrize("command", [["lint", "{big}/claims"], ["validate", "{big}/claims"],
                                     ["lint", "{big}/claims", "--format", "json"],
                                     ["eval", "true", "--slices", "{big}/slices.yaml"]],
                         ids=["lint", "validate", "lint-json", "eval"])
def test_a_reader_leaving_midway_through_a_large_report_makes_exit_141(big: Path, command: list[str],
                                                                      unbuffered: bool) -> None:
    argv = [a.format(big=big) for a in command]
    whole = subprocess.run([str(DRAGUARD), *argv], capture_output=True, check=False, timeout=120)
    assert len(whole.stdout) > 2 * PIPE_SIZE  # the report cannot fit in the pipe: it is cut off
    code, read, err = _cut_off(argv, unbuffered=unbuffered)
    assert (code, read) == (141, 16)
    assert "Traceback" not in err and "error" not in err


def test_a_whole_large_report_still_arrives_unbuffered(big: Path) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    done = subprocess.run([str(DRAGUARD), "lint", str(big / "claims"), "--quiet"], capture_output=True, text=True,
                          check=False, timeout=120, env=env)
    assert done.returncode == 1
    assert done.stdout.count("warn list-fragile-compare:") == 500
