"""The KEP-6072 derivation on the machines it must get right, built as sysfs trees in tmp_path."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.webhook.topology.trees import EPYC_9825_NPS4, Node, Tree, slit, sockets
from webhook.topology import Form, NumaValue, Sysfs, Topology
from webhook.topology.numa import UNREADABLE, atoi, parse_cpulist
from webhook.topology.sysfs import SysfsAccessError

Build = Callable[[Tree], Topology]


@pytest.fixture
def build(tmp_path: Path) -> Build:
    def make(tree: Tree) -> Topology:
        return Topology(Sysfs.open(tree.build(tmp_path / "sys")))

    return make


def pci_list(topology: Topology, bdf: str) -> tuple[int, ...] | None:
    value = topology.pci(bdf, Form.LIST).value
    return value.nodes if value is not None else None


def node_list(topology: Topology, node: int) -> tuple[int, ...] | None:
    value = topology.node(node, Form.LIST).value
    return value.nodes if value is not None else None


# ---- the KEP's AMD EPYC 9825 NPS4 table ----
def test_nps4_nvme_on_node_0_gets_its_socket_quadrants(build: Build) -> None:
    topology = build(EPYC_9825_NPS4)
    assert topology.pci("0000:01:00.0", Form.LIST).value == NumaValue(Form.LIST, (0, 1, 2, 3))
    assert topology.pci("0000:01:00.0", Form.SCALAR).value == NumaValue(Form.SCALAR, (0,))


def test_nps4_nic_vf_on_node_6_is_physical_first_then_ascending(build: Build) -> None:
    topology = build(EPYC_9825_NPS4)
    derived = topology.pci("0000:c1:00.1", Form.LIST)
    assert derived.value is not None
    assert derived.value.wire() == {"ints": [6, 4, 5, 7]}
    assert topology.pci("0000:c1:00.1", Form.SCALAR).value == NumaValue(Form.SCALAR, (6,))
    assert derived.notes == ()


def test_nps4_gpu_and_nic_on_different_quadrants_intersect(build: Build) -> None:
    topology = build(EPYC_9825_NPS4)  # KEP story 3: GPU [5, 4, 6, 7], NIC [6, 4, 5, 7]
    assert pci_list(topology, "0000:41:00.0") == (5, 4, 6, 7)
    assert set(pci_list(topology, "0000:41:00.0") or ()) & set(pci_list(topology, "0000:c1:00.1") or ())


def test_nps4_cpu_and_memory_devices_expand_like_upstream_not_like_the_kep_table(build: Build) -> None:
    # The KEP's table says CPU on NUMA 4 -> [4]; the merged helper runs the same SLIT algorithm for it.
    topology = build(EPYC_9825_NPS4)
    assert node_list(topology, 4) == (4, 5, 6, 7)
    assert topology.node(4, Form.SCALAR).value == NumaValue(Form.SCALAR, (4,))


def test_nps4_cpu_ids_map_to_their_nodes(build: Build) -> None:
    topology = build(EPYC_9825_NPS4)
    assert topology.cpu_node(13) == 6
    assert topology.cpus() == {cpu: cpu // 2 for cpu in range(16)}
    assert [topology.socket(n) for n in range(8)] == [0, 0, 0, 0, 1, 1, 1, 1]


# ---- other machines ----
def test_two_socket_nps1_keeps_the_physical_node_only(build: Build) -> None:
    # The minimum non-self distance is the cross-socket one; the socket filter removes it.
    topology = build(Tree(sockets(2, per_socket=1), pci={"0000:81:00.0": "1"}))
    assert pci_list(topology, "0000:81:00.0") == (1,)
    assert node_list(topology, 0) == (0,)


def test_two_socket_nps1_without_package_ids_keeps_the_other_socket(build: Build) -> None:
    # Node 0's socket unknown -> no filter at all (upstream's documented edge case).
    nodes = {i: Node(cpus=(i,), socket=None, distance=row) for i, row in slit(2).items()}
    topology = build(Tree(nodes, pci={"0000:01:00.0": "0"}))
    derived = topology.pci("0000:01:00.0", Form.LIST)
    assert derived.value is not None
    assert derived.value.nodes == (0, 1)
    assert derived.notes == ("node 0's socket is unknown: no same-socket filter",)


@pytest.mark.parametrize(("far", "note"), [(254, False), (255, True), (256, True)])
def test_nodes_only_reachable_at_255_are_listed_like_upstream_with_a_note(build: Build, far: int, note: bool) -> None:
    """ACPI SLIT 255 means no path: the helper still takes the minimum non-self distance, so a node whose only
    other nodes are unreachable lists them (no socket to filter them by). The value is the helper's; a note says
    it is no locality."""
    nodes = {0: Node(cpus=(0,), distance=f"10 {far} {far}"), 1: Node(cpus=(1,), distance=f"{far} 10 20"),
             2: Node(cpus=(), distance=f"{far} 20 10")}
    topology = build(Tree(nodes, pci={"0000:01:00.0": "0"}))
    derived = topology.pci("0000:01:00.0", Form.LIST)
    assert derived.value == NumaValue(Form.LIST, (0, 1, 2))
    unreachable = (f"node 0's nearest other nodes are at SLIT distance {far} (unreachable): like upstream, they are "
                   "listed as equally local")
    assert derived.notes == ("node 0's socket is unknown: no same-socket filter", *([unreachable] if note else []))
    assert topology.node(1, Form.LIST).notes == ("node 1's socket is unknown: no same-socket filter",)


def test_intel_snc2_two_sockets(build: Build) -> None:
    # Xeon with SNC2: 10 self, 12 to the other sub-NUMA cluster, 21 across the UPI link.
    rows = slit(4, {(i, j): 21 for i in range(4) for j in range(4) if i // 2 != j // 2}, per_socket=2)
    topology = build(Tree(sockets(4, per_socket=2, rows=rows), pci={"0000:17:00.0": "1", "0000:97:00.0": "2"}))
    assert pci_list(topology, "0000:17:00.0") == (1, 0)
    assert pci_list(topology, "0000:97:00.0") == (2, 3)


def test_intel_snc_with_two_dies_per_socket_narrows_to_the_nearest_die(build: Build) -> None:
    # SNC4 over two dies: 12 on the same die, 14 to the other die, 21 across sockets.
    def distance(i: int, j: int) -> int:
        if i == j:
            return 10
        if i // 4 != j // 4:
            return 21
        return 12 if i // 2 == j // 2 else 14

    rows = {i: " ".join(str(distance(i, j)) for j in range(8)) for i in range(8)}
    topology = build(Tree(sockets(8, per_socket=4, rows=rows), pci={"0000:38:00.0": "3"}))
    assert pci_list(topology, "0000:38:00.0") == (3, 2)


def test_single_node(build: Build) -> None:
    topology = build(Tree({0: Node(cpus=(0, 1), socket=0, distance="10")}, pci={"0000:00:1f.0": "0"}))
    assert pci_list(topology, "0000:00:1f.0") == (0,)
    assert topology.pci("0000:00:1f.0", Form.LIST).notes == ()


def test_cpu_less_memory_nodes_are_kept_by_the_socket_filter(build: Build) -> None:
    # Nodes 2 and 3 are CXL/HBM memory without CPUs (empty cpulist): socket unknown -> kept.
    nodes = {
        0: Node(cpus=(0, 1), socket=0, distance="10 21 14 24"),
        1: Node(cpus=(2, 3), socket=1, distance="21 10 24 14"),
        2: Node(cpus=(), distance="14 24 10 26"),
        3: Node(cpus=(), distance="24 14 26 10"),
    }
    topology = build(Tree(nodes, pci={"0000:01:00.0": "0"}))
    assert pci_list(topology, "0000:01:00.0") == (0, 2)
    assert node_list(topology, 2) == (2, 0)  # node 2's own socket is unknown: no filter
    assert topology.socket(2) is None
    assert topology.cpus() == {0: 0, 1: 0, 2: 1, 3: 1}


def test_memory_node_at_the_minimum_is_kept_while_a_known_other_socket_is_dropped(build: Build) -> None:
    nodes = {
        0: Node(cpus=(0,), socket=0, distance="10 20 20"),
        1: Node(cpus=(1,), socket=1, distance="20 10 20"),
        2: Node(cpus=(), distance="20 20 10"),
    }
    topology = build(Tree(nodes))
    assert node_list(topology, 0) == (0, 2)


def test_missing_slit_falls_back_to_the_physical_node(build: Build) -> None:
    nodes = {i: Node(cpus=(i,), socket=0) for i in range(4)}  # no distance files
    topology = build(Tree(nodes, pci={"0000:02:00.0": "3"}))
    derived = topology.pci("0000:02:00.0", Form.LIST)
    assert derived.value == NumaValue(Form.LIST, (3,))
    assert derived.notes == (
        "node 3 has no SLIT distance row (devices/system/node/node3/distance is missing): list falls back to [3]",
    )


def test_numa_node_minus_one_publishes_nothing(build: Build) -> None:
    topology = build(Tree(sockets(2, per_socket=1), pci={"0000:00:00.0": "-1"}))
    for form in Form:
        derived = topology.pci("0000:00:00.0", form)
        assert derived.value is None
        assert derived.status == "no-affinity"
        assert derived.physical == -1
        assert derived.reason == "no NUMA affinity (numa_node=-1); do not publish the numaNode attribute for it"


def test_asymmetric_distances_use_the_physical_nodes_own_row(build: Build) -> None:
    nodes = {
        0: Node(cpus=(0,), socket=0, distance="10 12 16"),
        1: Node(cpus=(1,), socket=0, distance="16 10 12"),
        2: Node(cpus=(2,), socket=0, distance="12 16 10"),
    }
    topology = build(Tree(nodes))
    assert [node_list(topology, n) for n in range(3)] == [(0, 1), (1, 2), (2, 0)]


def test_missing_physical_package_id_of_a_candidate_keeps_it(build: Build) -> None:
    nodes = {
        0: Node(cpus=(0,), socket=0, distance="10 12 12 12"),
        1: Node(cpus=(1,), socket=0, distance="12 10 12 12"),
        2: Node(cpus=(2,), socket=None, distance="12 12 10 12"),  # no topology/physical_package_id
        3: Node(cpus=(3,), socket=1, distance="12 12 12 10"),
    }
    topology = build(Tree(nodes))
    assert node_list(topology, 0) == (0, 1, 2)
    assert node_list(topology, 2) == (2, 0, 1, 3)  # its own socket unknown: no filter


# ---- upstream's own unit-test scenarios (numa_linux_test.go) ----
def test_upstream_equidistant_without_cpulists(build: Build) -> None:
    topology = build(Tree({1: Node(distance="12 10 12")}, pci={"0000:02:00.0": "1"}))
    assert pci_list(topology, "0000:02:00.0") == (1, 0, 2)


def test_upstream_same_socket_filter(build: Build) -> None:
    nodes = {
        0: Node(cpus=(0,), socket=0, distance="10 12 12 20"),
        1: Node(cpus=(1,), socket=0),
        2: Node(cpus=(2,), socket=1),
    }
    topology = build(Tree(nodes, pci={"0000:02:00.0": "0"}))
    assert pci_list(topology, "0000:02:00.0") == (0, 1)


# ---- malformed rows fall back to [physical], as upstream does ----
@pytest.mark.parametrize(
    ("row", "note"),
    [
        ("", "node 1's SLIT distance row is empty: list falls back to [1]"),
        ("10 x 12", "node 1's SLIT distance row has 'x', not a number: list falls back to [1]"),
        ("10", "node 1 is out of range of its 1-entry SLIT distance row: list falls back to [1]"),
    ],
)
def test_malformed_distance_row_falls_back(build: Build, row: str, note: str) -> None:
    topology = build(Tree({1: Node(cpus=(0,), socket=0, distance=row)}, pci={"0000:02:00.0": "1"}))
    derived = topology.pci("0000:02:00.0", Form.LIST)
    assert derived.value == NumaValue(Form.LIST, (1,))
    assert derived.notes == (note,)
    assert topology.pci("0000:02:00.0", Form.SCALAR).notes == ()  # the scalar form reads no SLIT


def test_sparse_node_ids_are_read_like_upstream_with_a_note(build: Build) -> None:
    # The kernel prints one entry per online node: nodes 0 and 2 give a 2-entry row; entry 1 is node 2.
    nodes = {0: Node(cpus=(0,), socket=0, distance="10 12"), 2: Node(cpus=(1,), socket=0, distance="12 10")}
    derived = build(Tree(nodes)).node(0, Form.LIST)
    assert derived.value == NumaValue(Form.LIST, (0, 1))
    assert derived.notes == (
        "node 0's distance row has 2 entries but the node ids are 0, 2: like upstream, entry i is read as node i",
    )


def test_a_minus_one_distance_is_skipped_like_upstreams_sentinel(build: Build) -> None:
    # Upstream starts its minimum at -1 meaning "none yet"; a -1 entry is therefore overwritten by the next.
    nodes = {0: Node(distance="10 -1 12 12")}
    assert build(Tree(nodes)).node(0, Form.LIST).value == NumaValue(Form.LIST, (0, 2, 3))


# ---- errors and limits ----
def test_node_ids_at_or_above_1024_are_rejected(build: Build) -> None:
    topology = build(Tree({0: Node(distance="10")}, pci={"0000:02:00.0": "1024"}))
    assert topology.node(1024, Form.SCALAR).reason == "invalid NUMA node 1024: exceeds maximum supported (1023)"
    assert topology.node(1023, Form.SCALAR).value == NumaValue(Form.SCALAR, (1023,))
    derived = topology.pci("0000:02:00.0", Form.LIST)
    assert (derived.value, derived.status) == (None, "invalid")


def test_negative_node_is_no_affinity(build: Build) -> None:
    derived = build(Tree({0: Node(distance="10")})).node(-1, Form.LIST)
    assert derived.value is None
    assert derived.reason == (
        "invalid NUMA node -1: do not publish the numaNode attribute for a device with no NUMA affinity"
    )


@pytest.mark.parametrize(
    ("bdf", "reason"),
    [
        ("", "PCI Bus ID cannot be empty"),
        ("0000:C1:00.1", "invalid PCI Bus ID format: 0000:C1:00.1"),
        ("c1:00.1", "invalid PCI Bus ID format: c1:00.1"),
        ("0000:c1:00.1/../..", "invalid PCI Bus ID format: 0000:c1:00.1/../.."),
    ],
)
def test_bad_pci_addresses(build: Build, bdf: str, reason: str) -> None:
    derived = build(Tree({0: Node(distance="10")})).pci(bdf, Form.LIST)
    assert (derived.value, derived.status, derived.reason) == (None, "invalid", reason)


def test_absent_device_and_missing_numa_node_file(tmp_path: Path) -> None:
    root = Tree({0: Node(distance="10")}, pci={"0000:02:00.0": "0"}).build(tmp_path)
    (tmp_path / "devices/pci0000:00/0000:02:00.0/numa_node").unlink()
    topology = Topology(Sysfs.open(root))
    absent = topology.pci("0000:03:00.0", Form.SCALAR)
    assert (absent.status, absent.reason) == ("absent", f"no PCI device 0000:03:00.0 under {root}/bus/pci/devices")
    missing = topology.pci("0000:02:00.0", Form.SCALAR)
    assert missing.status == "unavailable"
    assert missing.reason == "no numa_node file (a kernel without NUMA support): do not publish the numaNode attribute"


@pytest.mark.parametrize("value", ["zero", "9" * 5000, "", "1_0"])
def test_a_malformed_numa_node_fails_that_device_alone(tmp_path: Path, value: str) -> None:
    """readNUMANode fails for the device (its driver publishes no numaNode); the other devices are derived."""
    root = Tree({0: Node(distance="10")}, pci={"0000:02:00.0": value, "0000:03:00.0": "0"}).build(tmp_path)
    topology = Topology(Sysfs.open(root))
    bad = topology.pci("0000:02:00.0", Form.SCALAR)
    assert (bad.status, bad.value) == ("unreadable", None)
    assert bad.reason.startswith(f"{root}/bus/pci/devices/0000:02:00.0/numa_node: malformed value '")
    assert bad.reason.endswith(f"': want a NUMA node id: {UNREADABLE}")
    assert topology.pci("0000:03:00.0", Form.LIST).value == NumaValue(Form.LIST, (0,))


def test_a_numa_node_with_a_no_break_space_is_read_as_go_trims_it(tmp_path: Path) -> None:
    root = Tree({0: Node(distance="10")}, pci={"0000:02:00.0": "0\u00a0"}).build(tmp_path)
    assert Topology(Sysfs.open(root)).pci("0000:02:00.0", Form.SCALAR).value == NumaValue(Form.SCALAR, (0,))


def test_cpu_not_in_any_node(build: Build) -> None:
    topology = build(EPYC_9825_NPS4)
    with pytest.raises(LookupError, match=r"^CPU 99 not found in any NUMA node$"):
        topology.cpu_node(99)


def test_a_malformed_cpulist_makes_the_socket_unknown_as_upstream_with_a_note(build: Build) -> None:
    """getSocketForNUMANode answers "unknown" when cpuset.Parse fails: a candidate on another socket is kept
    (and a node whose own socket is unknown gets no filter); the note says why the list is longer."""
    nodes = {0: Node(cpus=(0,), socket=0, distance="10 12"), 1: Node(cpus=(1,), socket=1, distance="12 10")}
    topology = build(Tree(nodes))
    assert node_list(topology, 0) == (0,)  # well formed: node 1 is on the other socket
    path = topology.reader.describe("devices/system/node/node1/cpulist")
    Path(path).write_text("1-0\n")
    topology = Topology(topology.reader)  # (a Topology remembers sockets)
    assert node_list(topology, 0) == (0, 1)
    problem = f"{path}: malformed value '1-0': want a CPU list"
    assert topology.equidistant(0).notes == (f"node 1 is kept with an unknown socket ({problem}, as upstream)",)
    assert node_list(topology, 1) == (1, 0)
    assert topology.equidistant(1).notes == (f"node 1's socket is unknown ({problem}, as upstream): "
                                             "no same-socket filter",)


def test_a_distance_row_that_is_a_directory_falls_back_to_the_node(build: Build) -> None:
    topology = build(Tree({0: Node(cpus=(0,), socket=0, distance="10 12"), 1: Node(cpus=(1,), socket=0,
                                                                                    distance="12 10")}))
    path = Path(topology.reader.describe("devices/system/node/node0/distance"))
    path.unlink()
    path.mkdir()
    assert node_list(topology, 0) == (0,)
    assert topology.equidistant(0).notes == (
        f"{path}: is a directory, expected a sysfs attribute file: list falls back to [0]",)


# ---- the Go parsing rules the helper relies on ----
@pytest.mark.parametrize(
    ("text", "value"),
    [("6\n", 6), (" -1 ", -1), ("+3", 3), ("1_0", None), ("0x1", None), ("", None), ("٣", None), ("9" * 20, None),
     ("9223372036854775807", 2**63 - 1), ("9223372036854775808", None), ("-9223372036854775808", -(2**63)),
     ("9" * 5000, None)],  # more digits than Python's int() converts: Atoi's overflow, not a crash
)
def test_atoi_follows_strconv(text: str, value: int | None) -> None:
    assert atoi(text) == value


@pytest.mark.parametrize(
    ("text", "cpus"),
    [("", []), ("0-3,8", [0, 1, 2, 3, 8]), ("5", [5]), ("3-1", None), ("0-", None), ("0,,1", None), ("0 -1", None)],
)
def test_cpulist_follows_k8s_cpuset_parse(text: str, cpus: list[int] | None) -> None:
    assert parse_cpulist(text) == cpus


# ---- properties over random machines (a dict-backed reader: no files) ----
class DictReader:
    def __init__(self, files: dict[str, str]) -> None:
        self.files = files

    def read(self, rel: str, *, lenient: bool = False) -> str | None:
        return self.files.get(rel)

    def listdir(self, rel: str) -> list[str] | None:
        prefix = rel + "/"
        names = {path[len(prefix) :].split("/")[0] for path in self.files if path.startswith(prefix)}
        return sorted(names) or None

    def describe(self, rel: str) -> str:
        return f"/sys/{rel}"


@st.composite
def machines(draw: st.DrawFn) -> tuple[DictReader, dict[int, int | None], list[list[int]]]:
    n = draw(st.integers(1, 8))
    sockets_ = {i: draw(st.one_of(st.none(), st.integers(0, 2))) for i in range(n)}
    rows = [[10 if i == j else draw(st.sampled_from([11, 12, 16, 21, 32])) for j in range(n)] for i in range(n)]
    files = {}
    for i in range(n):
        files[f"devices/system/node/node{i}/distance"] = " ".join(map(str, rows[i])) + "\n"
        files[f"devices/system/node/node{i}/cpulist"] = f"{i}\n"
        if sockets_[i] is not None:
            files[f"devices/system/cpu/cpu{i}/topology/physical_package_id"] = f"{sockets_[i]}\n"
    return DictReader(files), sockets_, rows


@settings(deadline=None, max_examples=150)
@given(machine=machines(), data=st.data())
def test_list_invariants(
    machine: tuple[DictReader, dict[int, int | None], list[list[int]]], data: st.DataObject
) -> None:
    reader, sockets_, rows = machine
    node = data.draw(st.integers(0, len(rows) - 1))
    topology = Topology(reader)
    value = topology.node(node, Form.LIST).value
    assert value is not None
    first, *rest = value.nodes
    assert first == node  # the physical node first
    assert rest == sorted(set(rest)) and node not in rest  # then the others, ascending, once each
    others = [d for j, d in enumerate(rows[node]) if j != node]
    for j in rest:
        assert rows[node][j] == min(others)  # only nodes at the minimum non-self distance
        if sockets_[node] is not None and sockets_[j] is not None:
            assert sockets_[j] == sockets_[node]  # never a known other socket
    if sockets_[node] is None:  # no filter: every node at the minimum
        assert len(rest) == sum(1 for d in others if d == min(others))
    assert topology.node(node, Form.SCALAR).value == NumaValue(Form.SCALAR, (node,))


class _Refusing:
    """A reader over a real tree that the operating system refuses one path of (as EACCES would)."""

    def __init__(self, inner: Sysfs, refused: str) -> None:
        self.inner, self.refused = inner, refused

    def read(self, rel: str, *, lenient: bool = False) -> str | None:
        if rel == self.refused:
            raise SysfsAccessError(f"{self.inner.describe(rel)}: cannot read: Permission denied")
        return self.inner.read(rel, lenient=lenient)

    def listdir(self, rel: str) -> list[str] | None:
        return self.inner.listdir(rel)

    def describe(self, rel: str) -> str:
        return self.inner.describe(rel)


@pytest.mark.parametrize("refused", ["bus/pci/devices/0000:02:00.0/numa_node", "devices/system/node/node1/cpulist",
                                     "devices/system/node/node0/distance"])
def test_a_refused_read_stops_the_derivation_unlike_a_malformed_value(tmp_path: Path, refused: str) -> None:
    """Permissions are this run's problem, not the tree's: a driver running as root reads the file, so draguard
    does not guess (no unknown socket, no [N] fallback, no per-device failure): the error goes to the caller."""
    nodes = {0: Node(cpus=(0,), socket=0, distance="10 12"), 1: Node(cpus=(1,), socket=1, distance="12 10")}
    root = Tree(nodes, pci={"0000:02:00.0": "0"}).build(tmp_path)
    topology = Topology(_Refusing(Sysfs.open(root), refused))
    with pytest.raises(SysfsAccessError, match=r"cannot read: Permission denied$"):
        topology.pci("0000:02:00.0", Form.LIST)
