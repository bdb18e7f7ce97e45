"""`draguard validate` on a real YAML ResourceSlice, as a CI job runs it (a subprocess of the installed entry
point): the decoder's refusals (`bindsToNode` of the wrong type, a taint `timeAdded` Go's time.Parse does not
read), 1.37's keys for validValues (`AsDec().String()`: `1` and `1.0` differ, `1k` and `1000` do not; 1.36 keys by
`Value()`) and 1.37's [0, MaxInt64] bounds on an integer validRange (kubernetes#140666)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

DRAGUARD = Path(sys.executable).parent / "draguard"
SLICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: gpu-node-a
spec:
  driver: gpu.example.com
  nodeName: node-a
  pool: {name: node-a, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    bindsToNode: "true"
    allowMultipleAllocations: true
    capacity:
      memory:
        value: 100E
        requestPolicy:
          default: "1"
          validValues: ["1", "1.0", 1k, "1000"]
      cores:
        value: "64"
        requestPolicy:
          default: "-2"
          validRange: {min: "-4", step: "2"}
    taints:
    - {key: example.com/maintenance, effect: NoSchedule, timeAdded: "2026-07-24 10:00:00"}
"""
P = "spec.devices[0]"
BINDS = f's.yaml:11:18: deny k8s-wire-type: {P}.bindsToNode: Invalid value: "true": must be of type boolean'
TIME = (f's.yaml:25:69: deny k8s-wire-type: {P}.taints[0].timeAdded: Invalid value: "2026-07-24 10:00:00": must be a '
        'time in RFC 3339 format, e.g. "2006-01-02T15:04:05Z"')
VALUES = f"{P}.capacity[memory].requestPolicy.validValues"
RANGE = f"{P}.capacity[cores].requestPolicy.validRange"
NEGATIVE = "must be greater than or equal to 0"


@pytest.mark.parametrize(("release", "expected"), [
    ("1.36", [BINDS, f's.yaml:18:30: deny k8s-capacity: {VALUES}[1]: Duplicate value: "1"',
              f's.yaml:18:41: deny k8s-capacity: {VALUES}[3]: Duplicate value: "1000"', TIME]),
    ("1.37", [BINDS, f's.yaml:18:41: deny k8s-capacity: {VALUES}[3]: Duplicate value: "1000"',
              f's.yaml:23:23: deny k8s-capacity: {RANGE}.default: Invalid value: "-2": {NEGATIVE}',
              f's.yaml:23:29: deny k8s-capacity: {RANGE}.min: Invalid value: "-4": {NEGATIVE}',
              TIME]),
])
def test_validate_reports_what_the_release_refuses(release: str, expected: list[str], tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(SLICE, encoding="utf-8")
    done = subprocess.run([str(DRAGUARD), "validate", "s.yaml", "-q", "--no-color", "--kubernetes-version", release],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert (done.returncode, done.stderr) == (1, "")
    assert [line for line in done.stdout.splitlines() if not line.startswith("  help: ")] == expected
