"""The node checks of `draguard topology --check`, as catalogue rules. draguard's own.

They compare the numaNode values a ResourceSlice publishes with what the node's sysfs gives (the KEP-6072
derivation), so only `webhook.topology.check`, which reads sysfs, can find them; here they are declared so
that `draguard rules` lists them and a policy's `rules:` sets their actions like any other rule's.

    passes: a NIC at 0000:c1:00.1 whose sysfs numa_node is 1 publishes resource.kubernetes.io/numaNode {int: 1}
    fails:  the same NIC publishes {int: 0}        (topology-numa-mismatch)
"""

from __future__ import annotations

from collections.abc import Iterator

from webhook.findings import Action, Finding
from webhook.rules.base import SLICE_ON_NODE, Rule, RuleContext
from webhook.wire import Obj

MISMATCH = "topology-numa-mismatch"
FORM = "topology-numa-form"
NO_AFFINITY = "topology-no-affinity"
UNKNOWN_DEVICE = "topology-unknown-device"
UNKNOWN_NODE = "topology-unknown-node"
BAD_ADDRESS = "topology-bad-pci-address"


def _needs_sysfs(obj: Obj, ctx: RuleContext) -> Iterator[Finding]:
    """An object alone cannot show these findings: `webhook.topology.check` reports them from sysfs."""
    return iter(())


def _rule(rule_id: str, default: Action, summary: str, remediation: str) -> Rule:
    return Rule(rule_id, kinds=frozenset({SLICE_ON_NODE}), default=default, summary=summary,
                remediation=remediation, check=_needs_sysfs)


RULES = (
    _rule(MISMATCH, Action.DENY, "`topology --check`: the published numaNode equals the value derived from the "
          "node's sysfs (physical node first; list = same-socket nodes at minimum SLIT distance)",
          "publish the value in the finding's `help:` line"),
    _rule(FORM, Action.DENY, "`topology --check --form`: the standard numaNode attribute uses that form",
          "configure the driver's attribute form to match the cluster's `DRAListTypeAttributes` state"),
    _rule(NO_AFFINITY, Action.DENY, "`topology --check`: no numaNode is published for a device with "
          "`numa_node=-1` (or without a numa_node file), and no negative node",
          "omit the attribute while the node is unknown"),
    _rule(UNKNOWN_DEVICE, Action.WARN, "`topology --check`: the device's PCI address exists under the sysfs root",
          "check `--sysfs-root`/`--node`; a slice listing a device that is gone is stale"),
    _rule(UNKNOWN_NODE, Action.WARN, "`topology --check`: a CPU or memory device names a NUMA node the machine has",
          "publish the node id the kernel reports"),
    _rule(BAD_ADDRESS, Action.WARN, "`topology --check`: the device's PCI address is `dddd:bb:dd.f` in lower-case "
          "hex, so its numaNode can be derived", "publish the address as sysfs names it, e.g. `0000:c1:00.1`"),
)
