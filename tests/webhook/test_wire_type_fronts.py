"""The claim-side wire-type probes through every front door: `draguard lint`, `draguard validate --strict` (in
process, and once as the installed command on a YAML file) and the admission webhook. Each reports exactly the
`k8s-wire-type` findings of tests/webhook/rules/test_wire_type_claims.py, exits 1 or denies, and nothing else:
no `rule-error`, no traceback."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.webhook.conftest import admission_review
from tests.webhook.rules.test_wire_type_claims import PROBES
from webhook import cli
from webhook.app import Settings, create_app
from webhook.policy import Policy
from webhook.policy_store import PolicyStore

DRAGUARD = Path(sys.executable).parent / "draguard"
SELECTORS = "/validate/selectors"
FINDING = re.compile(r"^\S+:\d+:\d+: (\w+) ([\w-]+): (\S+): (.*)$", re.MULTILINE)
Expected = list[tuple[str, str, str]]


def reported(out: str) -> Expected:
    """(rule, path, message) of each finding line of the text format."""
    return [(rule, path, message) for _action, rule, path, message in FINDING.findall(out)]


@pytest.fixture(scope="module")
def client() -> FlaskClient:
    return create_app(Settings(), PolicyStore.fixed(Policy.default())).test_client()


@pytest.mark.parametrize("command", [["lint"], ["validate", "--strict"]], ids=" ".join)
@pytest.mark.parametrize(("obj", "expected"), list(PROBES.values()), ids=list(PROBES))
def test_the_cli_reports_each_wrong_type(command: list[str], obj: dict[str, Any], expected: Expected,
                                         tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "probe.json"
    path.write_text(json.dumps(obj), encoding="utf-8")
    code = cli.main([*command, str(path)])
    out, err = capsys.readouterr()
    assert (code, err) == (1, "")
    assert reported(out) == expected
    assert out.endswith(f"1 object checked; {len(expected)} deny, 0 warnings, 0 audit\n")


@pytest.mark.parametrize(("obj", "expected"), list(PROBES.values()), ids=list(PROBES))
def test_the_webhook_denies_each_wrong_type(client: FlaskClient, obj: dict[str, Any], expected: Expected) -> None:
    reply = client.post(SELECTORS, json=admission_review(obj, uid="uid-wire"))
    assert reply.status_code == 200
    response = reply.get_json()["response"]
    assert (response["uid"], response["allowed"], response["status"]["code"]) == ("uid-wire", False, 403)
    causes = response["status"]["details"]["causes"]
    assert [("k8s-wire-type", c["field"], c["message"]) for c in causes] == expected
    assert response["status"]["message"].endswith("[k8s-wire-type]")
    assert "warnings" not in response


CLAIM_YAML = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: gpu-and-nic
  namespace: ml
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        selectors: "device.driver == 'gpu.example.com'"
    constraints:
    - matchAttribute: 5
    -
    - resource.kubernetes.io/numaNode
"""


@pytest.mark.parametrize("command", [["lint"], ["validate", "--strict"]], ids=" ".join)
def test_the_installed_command_places_each_finding_in_the_yaml_file(command: list[str], tmp_path: Path) -> None:
    (tmp_path / "claim.yaml").write_text(CLAIM_YAML, encoding="utf-8")
    done = subprocess.run([str(DRAGUARD), *command, "claim.yaml", "--format", "text"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False)
    assert (done.returncode, done.stderr) == (1, "")
    lines = [line for line in done.stdout.splitlines() if not line.startswith(" ")]
    assert lines == [
        "claim.yaml:12:20: deny k8s-wire-type: spec.devices.requests[0].exactly.selectors: "
        "Invalid value: \"device.driver == 'gpu.example.com'\": must be of type array",
        "claim.yaml:14:23: deny k8s-wire-type: spec.devices.constraints[0].matchAttribute: "
        "Invalid value: 5: must be of type string",
        # the null constraint decodes to an empty one, which validation refuses for naming no attribute
        "claim.yaml:15:6: deny constraint-attribute-unqualified: spec.devices.constraints[1]: Required value: "
        'exactly one of "matchAttribute" or "distinctAttribute" is required, but multiple fields are set',
        "claim.yaml:16:7: deny k8s-wire-type: spec.devices.constraints[2]: "
        "Invalid value: \"resource.kubernetes.io/numaNode\": must be of type object",
        "1 object checked; 4 deny, 0 warnings, 0 audit",
    ]
