"""A resource.k8s.io/v1beta1 claim's selector findings name the path the API server's errors name: it validates the
request converted, its own fields under `exactly` (`spec.devices.requests[0].exactly.selectors[0]...`;
validation.go's ResourceNormalizationRules map the v1beta1 layout onto that one). The file still writes them on the
request itself, and that is where lint places each finding and applies `--fix`."""

from __future__ import annotations

from pathlib import Path

import pytest

from webhook import cli

CLAIM = """\
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata:
  name: gpu
  namespace: default
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu
      selectors:
      - cel:
          expression: device.attributes["resource.kubernetes.io"].numaNode == 1
      - cel:
          expression: device.driver ==
"""
SELECTOR = "spec.devices.requests[0].exactly.selectors"


def _lint(path: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, str]:
    code = cli.main(["lint", "--kubernetes-version", "1.36", "--color", "never", *flags, str(path)])
    return code, capsys.readouterr().out


def test_findings_name_the_servers_path_at_the_files_place(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "claim.yaml"
    path.write_text(CLAIM, encoding="utf-8")
    _code, out = _lint(path, capsys)
    assert f"claim.yaml:13:76: warn list-fragile-compare: {SELECTOR}[0].cel.expression: `==`" in out
    assert f"claim.yaml:15:39: warn selector-compile: {SELECTOR}[1].cel.expression: compilation failed" in out


def test_fix_edits_the_selector_where_the_file_writes_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "claim.yaml"
    path.write_text(CLAIM, encoding="utf-8")
    _lint(path, capsys, "--fix")
    assert path.read_text(encoding="utf-8") == CLAIM.replace(
        '.numaNode == 1', '.numaNode.includes(1)')


def test_a_v1_claim_keeps_its_own_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "claim.yaml"
    path.write_text(CLAIM.replace("v1beta1", "v1").replace(
        "      deviceClassName: gpu\n      selectors:\n", "      exactly:\n        deviceClassName: gpu\n"
        "        selectors:\n").replace("      - cel:\n          expression", "        - cel:\n            expression"),
        encoding="utf-8")
    _code, out = _lint(path, capsys)
    assert f"claim.yaml:14:78: warn list-fragile-compare: {SELECTOR}[0].cel.expression" in out
