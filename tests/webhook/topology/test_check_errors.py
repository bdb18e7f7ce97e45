"""topology --check's error lines, as the program prints them: `draguard: ` first, like every command's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.webhook.topology.trees import EPYC_9825_NPS4

DRAGUARD = Path(sys.executable).with_name("draguard")
SLICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: dra.net
  nodeName: node-a
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  devices: []
"""


def draguard(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(DRAGUARD), *argv], capture_output=True, text=True, timeout=120, check=False)


def test_an_unreadable_input_is_worded_as_validate_words_it(tmp_path: Path) -> None:
    root = EPYC_9825_NPS4.build(tmp_path / "sys")
    missing = str(tmp_path / "missing.yaml")
    checked = draguard("topology", "--check", missing, "--sysfs-root", str(root), "--node", "node-a")
    validated = draguard("validate", missing)
    assert (checked.returncode, checked.stderr) == (2, f"draguard: {missing}: no such file or directory\n")
    assert checked.stderr == validated.stderr


def test_no_slice_for_the_node(tmp_path: Path) -> None:
    root = EPYC_9825_NPS4.build(tmp_path / "sys")
    (tmp_path / "s.yaml").write_text(SLICE)
    done = draguard("topology", "--check", str(tmp_path / "s.yaml"), "--sysfs-root", str(root), "--node", "node-z")
    assert (done.returncode, done.stderr) == (
        2, "draguard: no ResourceSlice has spec.nodeName 'node-z' (slices name node-a); pass --node NAME\n")
    assert done.stdout.endswith("; 1 input problem\n")
