"""`draguard topology`, run in-process as a user would: exact stdout, stderr and exit codes."""

from __future__ import annotations

import io
import json
import textwrap
from pathlib import Path

import pytest

from tests.webhook.topology.trees import EPYC_9825_NPS4, Node, Tree
from webhook import cli

Capsys = pytest.CaptureFixture[str]


@pytest.fixture
def sys_root(tmp_path: Path) -> Path:
    return EPYC_9825_NPS4.build(tmp_path / "sys")


def run(capsys: Capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(["topology", *argv])
    out, err = capsys.readouterr()
    return code, out, err


NPS4_TABLE = """\
PCI DEVICE    NUMA  SCALAR  LIST          NOTE
0000:00:00.0  -1    -       -             no NUMA affinity (numa_node=-1); do not publish the numaNode attribute for it
0000:01:00.0  0     0       [0, 1, 2, 3]
0000:41:00.0  5     5       [5, 4, 6, 7]
0000:c1:00.1  6     6       [6, 4, 5, 7]

NUMA NODE  SOCKET  CPUS   DISTANCE                 SCALAR  LIST
0          0       0-1    10 12 12 12 32 32 32 32  0       [0, 1, 2, 3]
1          0       2-3    12 10 12 12 32 32 32 32  1       [1, 0, 2, 3]
2          0       4-5    12 12 10 12 32 32 32 32  2       [2, 0, 1, 3]
3          0       6-7    12 12 12 10 32 32 32 32  3       [3, 0, 1, 2]
4          1       8-9    32 32 32 32 10 12 12 12  4       [4, 5, 6, 7]
5          1       10-11  32 32 32 32 12 10 12 12  5       [5, 4, 6, 7]
6          1       12-13  32 32 32 32 12 12 10 12  6       [6, 4, 5, 7]
7          1       14-15  32 32 32 32 12 12 12 10  7       [7, 4, 5, 6]
"""


def test_everything_as_a_table(capsys: Capsys, sys_root: Path) -> None:
    assert run(capsys, "--sysfs-root", str(sys_root)) == (0, NPS4_TABLE, "")


def test_one_device_one_form(capsys: Capsys, sys_root: Path) -> None:
    code, out, err = run(capsys, "--sysfs-root", str(sys_root), "--pci", "0000:c1:00.1", "--form", "list")
    assert (code, err) == (0, "")
    assert out == "PCI DEVICE    NUMA  NUMANODE\n0000:c1:00.1  6     [6, 4, 5, 7]\n"


def test_yaml_is_ready_to_paste(capsys: Capsys, sys_root: Path) -> None:
    argv = ["--sysfs-root", str(sys_root), "--pci", "0000:01:00.0", "0000:00:00.0", "--form", "list"]
    code, out, _ = run(capsys, *argv, "--format", "yaml")
    assert code == 0
    assert out == textwrap.dedent("""\
        form: list
        pciDevices:
        - pciBusID: "0000:01:00.0"
          names: []
          numaNode: 0
          attributes:
            resource.kubernetes.io/numaNode: {ints: [0, 1, 2, 3]}
          reason: null
        - pciBusID: "0000:00:00.0"
          names: []
          numaNode: -1
          attributes: {}
          reason: no NUMA affinity (numa_node=-1); do not publish the numaNode attribute for it
        numaNodes: []
        cpus: []
        notes: []
        """)


def test_json_for_a_node_and_a_cpu_defaults_to_the_scalar_form(capsys: Capsys, sys_root: Path) -> None:
    code, out, _ = run(capsys, "--sysfs-root", str(sys_root), "--numa-node", "6", "--cpu", "3", "--format", "json")
    assert code == 0
    assert json.loads(out) == {
        "form": "scalar",
        "pciDevices": [],
        "numaNodes": [
            {
                "node": 6,
                "socket": 1,
                "cpus": "12-13",
                "distance": [32, 32, 32, 32, 12, 12, 10, 12],
                "attributes": {"resource.kubernetes.io/numaNode": {"int": 6}},
                "reason": None,
            }
        ],
        "cpus": [{"cpu": 3, "numaNode": 1}],
        "notes": [],
    }
    assert list(json.loads(out)) == ["form", "pciDevices", "numaNodes", "cpus", "notes"]  # always, in this order


def test_cpu_table(capsys: Capsys, sys_root: Path) -> None:
    assert run(capsys, "--sysfs-root", str(sys_root), "--cpu", "13", "--cpu", "0") == (
        0,
        "CPU  NUMA NODE\n13   6\n0    0\n",
        "",
    )
    assert run(capsys, "--sysfs-root", str(sys_root), "--cpu", "13", "0") == (
        0,
        "CPU  NUMA NODE\n13   6\n0    0\n",
        "",
    )


def test_fallback_notes_follow_the_table(capsys: Capsys, tmp_path: Path) -> None:
    root = Tree({0: Node(cpus=(0,)), 1: Node(cpus=(1,))}, pci={"0000:02:00.0": "1"}).build(tmp_path)
    assert run(capsys, "--sysfs-root", str(root), "--form", "list") == (
        0,
        "PCI DEVICE    NUMA  NUMANODE\n"
        "0000:02:00.0  1     [1]\n"
        "\n"
        "NUMA NODE  SOCKET  CPUS  DISTANCE  NUMANODE\n"
        "0          -       0     -         [0]\n"
        "1          -       1     -         [1]\n"
        "\n"
        "note: node 1 has no SLIT distance row (devices/system/node/node1/distance is missing): "
        "list falls back to [1]\n"
        "note: node 0 has no SLIT distance row (devices/system/node/node0/distance is missing): "
        "list falls back to [0]\n",
        "",
    )


# ---- one-line errors, exit 2 ----
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--pci", "0000:e1:00.0"], "--pci 0000:e1:00.0: no PCI device 0000:e1:00.0 under {root}/bus/pci/devices"),
        (["--pci", "0000:E1:00.0"], "--pci 0000:E1:00.0: invalid PCI Bus ID format: 0000:E1:00.0"),
        (["--numa-node", "9"], "--numa-node 9: no node9 under {root}/devices/system/node"),
        (["--numa-node", "1024"], "--numa-node 1024: invalid NUMA node 1024: exceeds maximum supported (1023)"),
        (["--cpu", "99"], "--cpu 99: CPU 99 not found in any NUMA node"),
        (["--format", "xml"], "unknown format 'xml'; use one of table, json, yaml"),
        (["--sysfs-root", ""], "sysfs root is empty: pass --sysfs-root DIR, the directory where sysfs is mounted"),
        (["--class-device", "eth0"], "--class-device eth0: want CLASS/NAME as under /sys/class, e.g. net/eth1"),
        (["--class-device", "net/eth9"], "--class-device net/eth9: no {root}/class/net/eth9"),
        (["--node", "a"], "--node and --policy only apply with --check SLICES"),
        (["--node", ""], "--node and --policy only apply with --check SLICES"),
        (
            ["--check", "x.yaml", "--node", ""],
            "--node: empty node name; pass the Kubernetes node name, or leave --node out for this host's",
        ),
        (
            ["--check", "x.yaml", "--pci", "0000:01:00.0"],
            "--check compares published slices; it does not take --pci, --class-device, --numa-node or --cpu",
        ),
    ],
)
def test_usage_errors(capsys: Capsys, sys_root: Path, argv: list[str], message: str) -> None:
    assert run(capsys, "--sysfs-root", str(sys_root), *argv) == (
        2,
        "",
        f"draguard: error: {message.format(root=sys_root)}\n",
    )


def test_not_a_sysfs_root(capsys: Capsys, tmp_path: Path) -> None:
    code, out, err = run(capsys, "--sysfs-root", str(tmp_path))
    assert (code, out) == (2, "")
    assert err == (
        f"draguard: error: {tmp_path} is not a sysfs root: it has none of bus/pci/devices, devices/system/node, "
        "devices/system/cpu (pass --sysfs-root DIR, the directory where sysfs is mounted, usually /sys)\n"
    )


def test_malformed_numa_node(capsys: Capsys, tmp_path: Path) -> None:
    """That device is listed with the reason, the good one with its value; exit 2 with the reason on stderr."""
    root = Tree(pci={"0000:02:00.0": "node0", "0000:03:00.0": "-1"}).build(tmp_path)
    code, out, err = run(capsys, "--sysfs-root", str(root), "--form", "scalar")
    reason = (f"{root}/bus/pci/devices/0000:02:00.0/numa_node: malformed value 'node0': want a NUMA node id: "
              "the helper fails for this device, so its driver publishes no numaNode")
    assert (code, err) == (2, f"draguard: error: {reason}\n")
    assert reason in out and "0000:03:00.0" in out


def test_a_root_with_nothing_to_show(capsys: Capsys, tmp_path: Path) -> None:
    (tmp_path / "devices/system/cpu").mkdir(parents=True)
    assert run(capsys, "--sysfs-root", str(tmp_path)) == (0, f"no PCI devices and no NUMA nodes under {tmp_path}\n", "")
    code, out, _ = run(capsys, "--sysfs-root", str(tmp_path), "--format", "json")
    empty = {"form": "scalar", "pciDevices": [], "numaNodes": [], "cpus": [], "notes": []}
    assert (code, json.loads(out)) == (0, empty)


# A 2-socket NPS1 server laid out as the kernel does: a NIC VF and an NVMe drive behind PCIe switches, a GPU,
# a virtio NIC (its interface one level down, under virtio2), and the loopback interface on no PCI bus.
SERVER = Tree(
    nodes={0: Node((0, 1), 0, "10 32"), 1: Node((2, 3), 1, "32 10")},
    pci={
        "0000:00:03.0": "0",
        "0000:80:01.1": "1",
        "0000:81:00.0": "1",
        "0000:82:00.1": "1",
        "0000:83:00.0": "1",
        "0000:c1:00.0": "-1",
    },
    bridges={"0000:81:00.0": "0000:80:01.1", "0000:82:00.1": "0000:81:00.0", "0000:83:00.0": "0000:81:00.0"},
    classes={
        "net/eth0": "0000:00:03.0/virtio2/net/eth0",
        "net/ens5f1v0": "0000:82:00.1/net/ens5f1v0",
        "infiniband/mlx5_2": "0000:82:00.1/infiniband/mlx5_2",
        "nvme/nvme0": "0000:83:00.0/nvme/nvme0",
        "drm/card1": "0000:c1:00.0/drm/card1",
        "drm/renderD128": "0000:c1:00.0/drm/renderD128",
        "net/lo": "virtual/net/lo",
    },
)


def test_kernel_names_of_devices_behind_bridges(capsys: Capsys, tmp_path: Path) -> None:
    root = SERVER.build(tmp_path)
    code, out, err = run(capsys, "--sysfs-root", str(root))
    assert (code, err) == (0, "")
    assert out.split("\n\n")[0] == (
        "PCI DEVICE    NAME             NUMA  SCALAR  LIST  NOTE\n"
        "0000:00:03.0  eth0             0     0       [0]\n"
        "0000:80:01.1  -                1     1       [1]\n"
        "0000:81:00.0  -                1     1       [1]\n"
        "0000:82:00.1  ens5f1v0,mlx5_2  1     1       [1]\n"
        "0000:83:00.0  nvme0            1     1       [1]\n"
        "0000:c1:00.0  card1            -1    -       -     "
        "no NUMA affinity (numa_node=-1); do not publish the numaNode attribute for it"
    )


def test_a_device_by_its_class_name(capsys: Capsys, tmp_path: Path) -> None:
    root = SERVER.build(tmp_path)
    argv = ["--sysfs-root", str(root), "--class-device", "net/ens5f1v0", "--class-device", "nvme/nvme0"]
    code, out, _ = run(capsys, *argv, "--format", "json", "--form", "list")
    assert code == 0
    assert json.loads(out)["pciDevices"] == [
        {
            "pciBusID": "0000:82:00.1",
            "names": ["ens5f1v0", "mlx5_2"],
            "numaNode": 1,
            "attributes": {"resource.kubernetes.io/numaNode": {"ints": [1]}},
            "reason": None,
        },
        {
            "pciBusID": "0000:83:00.0",
            "names": ["nvme0"],
            "numaNode": 1,
            "attributes": {"resource.kubernetes.io/numaNode": {"ints": [1]}},
            "reason": None,
        },
    ]
    code, out, _ = run(capsys, "--sysfs-root", str(root), "--class-device", "net/eth0", "--form", "scalar")
    assert (code, out) == (0, "PCI DEVICE    NAME  NUMA  NUMANODE\n0000:00:03.0  eth0  0     0\n")


def test_a_class_device_on_no_pci_bus(capsys: Capsys, tmp_path: Path) -> None:
    root = SERVER.build(tmp_path)
    assert run(capsys, "--sysfs-root", str(root), "--class-device", "net/lo") == (
        2,
        "",
        f"draguard: error: --class-device net/lo: not on a PCI device ({root}/class/net/lo -> "
        f"{root}/devices/virtual/net/lo), so no numaNode\n",
    )
    code, _, err = run(capsys, "--sysfs-root", str(root), "--class-device", "net/eth7")
    assert (code, err) == (
        2,
        f"draguard: error: --class-device net/eth7: no {root}/class/net/eth7 (it has ens5f1v0, eth0, lo)\n",
    )

# ---- --check ----
SLICES = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: node-a-dra.net
spec:
  driver: dra.net
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 1}
  devices:
  - name: eth1
    attributes:
      dra.net/pciAddress: {string: "0000:c1:00.1"}
      dra.net/numaNode: {int: 6}
      resource.kubernetes.io/numaNode: {ints: [6]}
  - name: nvme0
    attributes:
      resource.kubernetes.io/pciBusID: {string: "0000:01:00.0"}
      resource.kubernetes.io/numaNode: {int: 0}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: node-b-dra.net
spec:
  driver: dra.net
  nodeName: node-b
  pool: {name: node-b, generation: 1, resourceSliceCount: 1}
  devices:
  - name: eth1
    attributes:
      dra.net/pciAddress: {string: "0000:c1:00.1"}
      resource.kubernetes.io/numaNode: {int: 2}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: nic
"""


@pytest.fixture
def slices(tmp_path: Path) -> Path:
    path = tmp_path / "slices.yaml"
    path.write_text(SLICES)
    return path


def test_check_reports_mismatches_with_positions(
    capsys: Capsys, sys_root: Path, slices: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(slices.parent)
    assert run(capsys, "--sysfs-root", str(sys_root), "--check", "slices.yaml", "--node", "node-a") == (
        1,
        "slices.yaml:14:47: deny topology-numa-mismatch: "
        "spec.devices[0].attributes[resource.kubernetes.io/numaNode].ints: "
        "resource.kubernetes.io/numaNode is [6] but sysfs gives [6, 4, 5, 7] for PCI device 0000:c1:00.1 "
        "(numa_node 6)\n"
        "  help: publish {ints: [6, 4, 5, 7]}\n"
        "1 object checked; 1 deny, 0 warnings, 0 audit; skipped 2 (DeviceClass 1, ResourceSlice of other nodes 1)\n",
        "",
    )


def test_check_clean_node_exits_0(capsys: Capsys, sys_root: Path, tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    good.write_text(SLICES.replace("{ints: [6]}", "{ints: [6, 4, 5, 7]}"))
    code, out, err = run(capsys, "--sysfs-root", str(sys_root), "--check", str(good), "--node", "node-a")
    assert (code, err) == (0, "")
    assert out == (
        "1 object checked; 0 deny, 0 warnings, 0 audit; "
        "skipped 2 (DeviceClass 1, ResourceSlice of other nodes 1)\n"
    )


def test_check_asks_for_a_form_in_json(capsys: Capsys, sys_root: Path, slices: Path) -> None:
    argv = ["--sysfs-root", str(sys_root), "--check", str(slices), "--node", "node-b", "--form", "list"]
    code, out, _ = run(capsys, *argv, "--format", "json")
    assert code == 1
    report = json.loads(out)
    assert [(f["rule"], f["path"], f["line"], f["column"]) for f in report["findings"]] == [
        ("topology-numa-form", "spec.devices[0].attributes[resource.kubernetes.io/numaNode]", 32, 40),
        ("topology-numa-mismatch", "spec.devices[0].attributes[resource.kubernetes.io/numaNode].int", 32, 46),
    ]
    assert report["findings"][1]["message"] == (
        "resource.kubernetes.io/numaNode is 2 but sysfs gives 6 for PCI device 0000:c1:00.1 (numa_node 6)"
    )
    assert report["summary"]["objects"] == 1


def test_check_reads_stdin(capsys: Capsys, sys_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(SLICES))
    code, out, _ = run(capsys, "--sysfs-root", str(sys_root), "--check", "-", "--node", "node-a")
    assert code == 1
    assert out.startswith("<stdin>:14:47: deny topology-numa-mismatch: ")


def test_check_without_a_slice_for_this_node(capsys: Capsys, sys_root: Path, slices: Path) -> None:
    code, out, err = run(capsys, "--sysfs-root", str(sys_root), "--check", str(slices), "--node", "node-z")
    assert code == 2
    assert (
        err == "draguard: no ResourceSlice has spec.nodeName 'node-z' (slices name node-a, node-b); pass --node NAME\n"
    )
    assert out.endswith("; 1 input problem\n")


def test_check_with_unreadable_input(capsys: Capsys, sys_root: Path, tmp_path: Path) -> None:
    code, _, err = run(capsys, "--sysfs-root", str(sys_root), "--check", str(tmp_path / "none.yaml"), "--node", "a")
    assert code == 2
    assert err == f"draguard: {tmp_path}/none.yaml: no such file or directory\n"


def test_check_takes_aliases_from_a_policy(capsys: Capsys, sys_root: Path, tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text("numaNode:\n  aliases: [example.com/node]\n")
    slice_ = tmp_path / "s.yaml"
    slice_.write_text(
        SLICES.split("---", maxsplit=1)[0]
        .replace("dra.net/numaNode: {int: 6}", "example.com/node: {int: 5}")
        .replace("{ints: [6]}", "{ints: [6, 4, 5, 7]}")
    )
    argv = ["--sysfs-root", str(sys_root), "--check", str(slice_), "--node", "node-a", "--format", "json"]
    assert run(capsys, *argv)[0] == 0  # example.com/node is not an alias by default
    code, out, _ = run(capsys, *argv, "--policy", str(policy))
    assert code == 1
    assert [f["message"] for f in json.loads(out)["findings"]] == [
        "example.com/node is 5 but sysfs gives 6 for PCI device 0000:c1:00.1 (numa_node 6)"
    ]


# ---- this machine ----
def test_this_machines_sysfs(capsys: Capsys) -> None:
    root = Path("/sys")
    if not (root / "devices/system/node").is_dir():
        pytest.skip("this machine's /sys has no devices/system/node (a kernel without NUMA, or no sysfs)")
    nodes = sorted(int(p.name[4:]) for p in (root / "devices/system/node").glob("node[0-9]*"))
    code, out, err = run(capsys, "--format", "json", "--form", "list")
    assert (code, err) == (0, "")
    shown = json.loads(out)
    assert [n["node"] for n in shown["numaNodes"]] == nodes
    for node in shown["numaNodes"]:
        assert node["attributes"]["resource.kubernetes.io/numaNode"]["ints"][0] == node["node"]
    for device in shown.get("pciDevices", []):
        physical = int((root / "bus/pci/devices" / device["pciBusID"] / "numa_node").read_text())
        assert device["numaNode"] == physical
        assert bool(device["attributes"]) == (physical >= 0)
    code, out, err = run(capsys)
    assert (code, err) == (0, "")
    assert "NUMA NODE  SOCKET  CPUS" in out


def test_check_rejects_a_listing_format(capsys: Capsys, sys_root: Path, slices: Path) -> None:
    code, out, err = run(capsys, "--sysfs-root", str(sys_root), "--check", str(slices), "--format", "yaml")
    assert (code, out) == (2, "")
    assert err.startswith("draguard: error: unknown format 'yaml' for --check; use table or one of ")
    assert "json" in err and "text" in err  # the report formats, whichever others are registered


def test_check_reads_kubectl_list_output(capsys: Capsys, sys_root: Path, tmp_path: Path) -> None:
    # `kubectl get resourceslices -o json`: a List whose items are the slices.
    from ruamel.yaml import YAML

    items = list(YAML(typ="safe").load_all(SLICES))
    listed = tmp_path / "slices.json"
    listed.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=2))
    code, out, err = run(capsys, "--sysfs-root", str(sys_root), "--check", str(listed), "--node", "node-a")
    assert (code, err) == (1, "")
    first, *_ = out.splitlines()
    assert first.startswith(f"{listed}:30:")
    assert first.endswith("is [6] but sysfs gives [6, 4, 5, 7] for PCI device 0000:c1:00.1 (numa_node 6)")


def test_check_takes_rule_actions_from_a_policy(
    capsys: Capsys, sys_root: Path, slices: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--policy` sets the topology rules' actions like any other rule's: warn exits 0, off reports nothing."""
    monkeypatch.chdir(slices.parent)
    argv = ("--sysfs-root", str(sys_root), "--check", "slices.yaml", "--node", "node-a", "--policy", "policy.yaml")
    (slices.parent / "policy.yaml").write_text("rules:\n  topology-numa-mismatch: warn\n")
    code, out, _ = run(capsys, *argv)
    assert (code, out.splitlines()[0][:47]) == (0, "slices.yaml:14:47: warn topology-numa-mismatch:")
    (slices.parent / "policy.yaml").write_text("rules:\n  topology-numa-mismatch: off\n")
    code, out, _ = run(capsys, *argv)
    assert (code, out.splitlines()[0]) == (0, "1 object checked; 0 deny, 0 warnings, 0 audit; skipped 2 "
                                              "(DeviceClass 1, ResourceSlice of other nodes 1)")


def test_check_reads_v1beta1_devices_under_basic(
    capsys: Capsys, sys_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v1beta1 nests a device's fields under `basic`: checked the same, the finding placed under it."""
    beta = tmp_path / "beta.yaml"
    beta.write_text(
        "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceSlice\nmetadata: {name: node-a-dra.net}\n"
        "spec:\n  driver: dra.net\n  nodeName: node-a\n  pool: {name: node-a, generation: 1, resourceSliceCount: 1}\n"
        "  devices:\n  - name: eth1\n    basic:\n      attributes:\n"
        '        dra.net/pciAddress: {string: "0000:c1:00.1"}\n'
        "        resource.kubernetes.io/numaNode: {ints: [6]}\n"
    )
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "--sysfs-root", str(sys_root), "--check", "beta.yaml", "--node", "node-a")
    assert (code, out.splitlines()[0]) == (
        1,
        "beta.yaml:13:49: deny topology-numa-mismatch: "
        "spec.devices[0].basic.attributes[resource.kubernetes.io/numaNode].ints: "
        "resource.kubernetes.io/numaNode is [6] but sysfs gives [6, 4, 5, 7] for PCI device 0000:c1:00.1 "
        "(numa_node 6)",
    )


PER_DEVICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: gpus}
spec:
  driver: gpu.example.com
  perDeviceNodeSelection: true
  pool: {name: rack-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-a
    nodeName: node-a
    attributes:
      resource.kubernetes.io/pciBusID: {string: "0000:41:00.0"}
      resource.kubernetes.io/numaNode: {ints: [5, 4]}
  - name: gpu-b
    nodeName: node-b
    attributes:
      resource.kubernetes.io/pciBusID: {string: "0000:41:00.0"}
      resource.kubernetes.io/numaNode: {int: 1}
  - name: gpu-any
    allNodes: true
    attributes:
      resource.kubernetes.io/pciBusID: {string: "0000:41:00.0"}
      resource.kubernetes.io/numaNode: {int: 2}
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata: {name: gpus-beta}
spec:
  driver: gpu.example.com
  perDeviceNodeSelection: true
  pool: {name: rack-2, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-c
    basic:
      nodeName: node-a
      attributes:
        resource.kubernetes.io/pciBusID: {string: "0000:01:00.0"}
        resource.kubernetes.io/numaNode: {int: 3}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: fabric}
spec:
  driver: gpu.example.com
  allNodes: true
  pool: {name: fabric, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-d
    attributes:
      resource.kubernetes.io/pciBusID: {string: "0000:41:00.0"}
      resource.kubernetes.io/numaNode: {int: 0}
"""


def test_check_reads_devices_of_this_node_under_per_device_node_selection(
    capsys: Capsys, sys_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A slice with `perDeviceNodeSelection: true` names no node itself: its devices do (`nodeName`, under
    `basic` in v1beta1). Such slices were skipped as "of other nodes" (and with no other slice: exit 2, 'no
    ResourceSlice'), so a wrong numaNode on this node's device passed. Only this node's devices are held against
    its sysfs; a device or slice for all nodes is not on one node."""
    (tmp_path / "slices.yaml").write_text(PER_DEVICE)
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "--sysfs-root", str(sys_root), "--check", "slices.yaml", "--node", "node-a")
    assert (code, err) == (1, "")
    assert out == (
        "slices.yaml:13:47: deny topology-numa-mismatch: spec.devices[0].attributes[resource.kubernetes.io/numaNode]"
        ".ints: resource.kubernetes.io/numaNode is [5, 4] but sysfs gives [5, 4, 6, 7] for PCI device 0000:41:00.0 "
        "(numa_node 5)\n"
        "  help: publish {ints: [5, 4, 6, 7]}\n"
        "slices.yaml:38:48: deny topology-numa-mismatch: "
        "spec.devices[0].basic.attributes[resource.kubernetes.io/numaNode].int: resource.kubernetes.io/numaNode is 3 "
        "but sysfs gives 0 for PCI device 0000:01:00.0 (numa_node 0)\n"
        "  help: publish {int: 0}\n"
        "2 objects checked; 2 deny, 0 warnings, 0 audit; skipped 1 (ResourceSlice of other nodes 1)\n"
    )
    code, out, err = run(capsys, "--sysfs-root", str(sys_root), "--check", "slices.yaml", "--node", "node-b")
    assert (code, err) == (1, "")
    assert out.splitlines() == [
        "slices.yaml:18:46: deny topology-numa-mismatch: spec.devices[1].attributes[resource.kubernetes.io/numaNode]"
        ".int: resource.kubernetes.io/numaNode is 1 but sysfs gives 5 for PCI device 0000:41:00.0 (numa_node 5)",
        "  help: publish {int: 5}",
        "1 object checked; 1 deny, 0 warnings, 0 audit; skipped 2 (ResourceSlice of other nodes 2)",
    ]
    assert run(capsys, "--sysfs-root", str(sys_root), "--check", "slices.yaml", "--node", "node-c") == (
        2,
        "0 objects checked; 0 deny, 0 warnings, 0 audit; skipped 3 (ResourceSlice of other nodes 3); 1 input problem\n",
        "draguard: no ResourceSlice has spec.nodeName 'node-c'; pass --node NAME\n",
    )
