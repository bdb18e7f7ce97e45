"""ResourceSlices written in YAML, as a driver author publishes them, through the real loader and rule runner."""

from __future__ import annotations

from webhook.manifests.roundtrip import load_text
from webhook.policy import Policy
from webhook.run import run_rules

Row = tuple[str, str, str, str]  # rule, action, path, message
ATTRS = "spec.devices[0].attributes"
HEAD = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-0-gpu}
spec:
  driver: gpu.example.com
  pool: {name: node-0, resourceSliceCount: 1}
"""


def slice_yaml(spec: str) -> str:
    """A slice of driver gpu.example.com whose spec goes on with `spec` (lines indented by two spaces)."""
    return HEAD + spec + "\n"


def attribute_yaml(attribute: str) -> str:
    """A slice on node-0 with one device, gpu-0, publishing `attribute` (`key: {int: 1}`)."""
    return slice_yaml(f"  nodeName: node-0\n  devices:\n  - name: gpu-0\n    attributes:\n      {attribute}")


def run_yaml(text: str, policy: Policy | None = None) -> list[Row]:
    """The findings of the one object in `text`, in the runner's order."""
    [manifest] = load_text(text).manifests
    outcome = run_rules(manifest.obj, policy or Policy.default())
    return [(f.rule, f.action.value if f.action else "", str(f.path), f.message) for f in outcome.findings]
