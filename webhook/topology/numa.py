"""The KEP-6072 `resource.kubernetes.io/numaNode` derivation, as a pure function of sysfs text.

Mirrors `k8s.io/dynamic-resource-allocation/deviceattribute` (`numa_linux.go`, kubernetes/kubernetes#139929,
v1.37): `GetNUMANodeAttributeByPCIBusID`, `GetNUMANodeAttribute` and `GetNUMANodeForCPU`.

    physical node   bus/pci/devices/<BDF>/numa_node; negative -> no NUMA affinity, publish nothing
    scalar form     {int: physical}; no SLIT read
    list form       devices/system/node/node<N>/distance: the nodes at the minimum non-self distance, minus
                    those whose socket (first CPU's topology/physical_package_id) is known and differs from
                    N's (no filter when N's socket is unknown), then [N, others ascending]; a missing,
                    unreadable or malformed row gives [N]; an unreadable or malformed cpulist or
                    physical_package_id makes the socket unknown (with a note)
    a device whose numa_node cannot be read gets no value (status "unreadable"): the helper fails for it

Where upstream has a quirk the algorithm keeps it (see `equidistant`), so that what draguard derives is
byte for byte what a driver using the helper publishes; the `notes` explain what a reader should know.
Nothing here touches the file system: everything reads through a `Reader` (see `webhook.topology.sysfs`).
"""

from __future__ import annotations

import enum
import fnmatch
import re
from typing import Literal, Protocol

from msgspec import Struct, field

from celext.gostrconv import parse_int
from webhook.topology.sysfs import SysfsAccessError, SysfsError

UNREACHABLE = 255  # ACPI SLIT: no path between the two nodes (10 is a node's distance to itself)
MAX_NUMA_NODES = 1024  # maxNUMANodes: Linux MAX_NUMNODES with CONFIG_NODES_SHIFT capped at 10
_BDF = re.compile(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-9a-f]")  # verifyPCIBDFFormat: lower-case only
# Go's unicode.IsSpace (strings.TrimSpace, strings.Fields): Python's str.isspace() also counts \x1c-\x1f.
_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
    "\u2028\u2029\u202f\u205f\u3000"
_GO_FIELDS = re.compile(f"[^{re.escape(_GO_SPACE)}]+")


Status = Literal["ok", "no-affinity", "absent", "unavailable", "invalid", "unreadable"]
"""ok: a value. no-affinity: numa_node < 0. absent: no such PCI device under the root. unavailable: no
numa_node file (a kernel without CONFIG_NUMA). invalid: a bad PCI address or a node id out of range.
unreadable: the device's numa_node (or its entry) is there but cannot be read as a node id: the helper fails
for that device alone."""
UNREADABLE = "the helper fails for this device, so its driver publishes no numaNode"


class Reader(Protocol):
    """Read access to a sysfs tree, paths relative to its root (`bus/pci/devices/0000:01:00.0/numa_node`)."""

    def read(self, rel: str, *, lenient: bool = False) -> str | None:
        """The file's text, or None when it does not exist. Raises when it exists but cannot be read (`lenient`:
        bytes that are not text are escaped instead, for a caller that refuses bad fields itself)."""

    def listdir(self, rel: str) -> list[str] | None:
        """Entry names of a directory (sorted), or None when it does not exist."""

    def describe(self, rel: str) -> str:
        """The full path of `rel`, for messages."""


class Form(enum.Enum):
    """AttributeForm: ScalarAttribute (`int`, valid everywhere) or ListAttribute (`ints`, needs the
    DRAListTypeAttributes gate in the apiserver and scheduler)."""

    SCALAR = "scalar"
    LIST = "list"


class NumaValue(Struct, frozen=True):
    """A numaNode attribute value: one node (scalar) or the physical node first, then the others."""

    form: Form
    nodes: tuple[int, ...]

    @property
    def physical(self) -> int:
        return self.nodes[0]

    def wire(self) -> dict[str, int | list[int]]:
        """The DeviceAttribute in ResourceSlice wire form: {"int": 6} or {"ints": [6, 4, 5, 7]}."""
        if self.form is Form.SCALAR:
            return {"int": self.nodes[0]}
        return {"ints": list(self.nodes)}

    def __str__(self) -> str:
        if self.form is Form.SCALAR:
            return str(self.nodes[0])
        return "[" + ", ".join(map(str, self.nodes)) + "]"


class Derivation(Struct, frozen=True):
    """What one device (or NUMA node) should publish, or why it should publish nothing.

    `value` is None when the helper returns an error (the driver then omits the attribute); `reason` says
    why. `notes` explain fallbacks that still produced a value (no SLIT row, unknown socket).
    """

    subject: str  # "PCI device 0000:c1:00.1", "NUMA node 4"
    physical: int | None
    value: NumaValue | None
    reason: str = ""
    notes: tuple[str, ...] = ()
    status: Status = "ok"


class Equidistant(Struct, frozen=True):
    """The list-form candidates of one node: None when upstream falls back to [node], with the reason."""

    nodes: tuple[int, ...] | None
    distances: tuple[int, ...] = ()
    notes: tuple[str, ...] = ()


class Topology(Struct):
    """Derivations over one sysfs tree; per-node answers are computed once (a PCI listing asks the same
    node many times)."""

    reader: Reader
    _equidistant: dict[int, Equidistant] = field(default_factory=dict)
    _sockets: dict[int, int | None] = field(default_factory=dict)
    socket_problems: dict[int, str] = field(default_factory=dict)  # node -> why its socket could not be read

    # ---- GetNUMANodeAttributeByPCIBusID ----
    def pci(self, bdf: str, form: Form) -> Derivation:
        subject = f"PCI device {bdf}"
        if bdf == "":
            return Derivation(subject, None, None, "PCI Bus ID cannot be empty", status="invalid")
        if not _BDF.fullmatch(bdf):
            return Derivation(subject, None, None, f"invalid PCI Bus ID format: {bdf}", status="invalid")
        rel = f"bus/pci/devices/{bdf}/numa_node"
        try:  # the helper fails for this device alone: its driver leaves the attribute out, the others go on
            text = self.reader.read(rel)
            if text is None:
                entry = f"bus/pci/devices/{bdf}"
                if self.reader.listdir(entry) is None:
                    if self.reader.read(entry) is not None:
                        # The entry is a file (sysfs has a link to the device's directory): a broken tree.
                        raise SysfsError(f"{self.reader.describe(entry)}: a file, not a PCI device directory")
                    reason = f"no PCI device {bdf} under {self.reader.describe('bus/pci/devices')}"
                    return Derivation(subject, None, None, reason, status="absent")
                # A kernel built without CONFIG_NUMA has no numa_node files; the helper fails, nothing is published.
                reason = "no numa_node file (a kernel without NUMA support): do not publish the numaNode attribute"
                return Derivation(subject, None, None, reason, status="unavailable")
            physical = atoi(text)
            if physical is None:
                raise SysfsError(f"{self.reader.describe(rel)}: malformed value {go_trim(text)!r}: "
                                 "want a NUMA node id")
        except SysfsAccessError:
            raise
        except SysfsError as err:
            return Derivation(subject, None, None, f"{err.message}: {UNREADABLE}", status="unreadable")
        if physical < 0:
            return Derivation(
                subject,
                physical,
                None,
                f"no NUMA affinity (numa_node={physical}); do not publish the numaNode attribute for it",
                status="no-affinity",
            )
        if physical >= MAX_NUMA_NODES:
            # Upstream checks the bound only in GetNUMANodeAttribute; no kernel reports such a node, so
            # draguard applies it to PCI devices as well rather than derive from a broken tree.
            return Derivation(subject, physical, None, _too_big(physical), status="invalid")
        return self._value(subject, physical, form)

    # ---- GetNUMANodeAttribute ----
    def node(self, node: int, form: Form) -> Derivation:
        subject = f"NUMA node {node}"
        if node < 0:
            reason = (
                f"invalid NUMA node {node}: do not publish the numaNode attribute for a device with no NUMA affinity"
            )
            return Derivation(subject, node, None, reason, status="no-affinity")
        if node >= MAX_NUMA_NODES:
            return Derivation(subject, node, None, _too_big(node), status="invalid")
        return self._value(subject, node, form)

    # ---- GetNUMANodeForCPU ----
    def cpu_node(self, cpu: int) -> int:
        """The node of CPU `cpu` from its `cpu<ID>/node<N>` link. Raises LookupError (upstream text)."""
        names = self.reader.listdir(f"devices/system/cpu/cpu{cpu}") or []
        links = [n for n in names if fnmatch.fnmatchcase(n, "node[0-9]*")]
        if not links:
            raise LookupError(f"CPU {cpu} not found in any NUMA node")
        found = atoi(links[0].removeprefix("node"))  # fs.Glob sorts: the lexically first link
        if found is None:
            raise LookupError(f"failed to parse NUMA node number from {links[0]}")
        return found

    def socket(self, node: int) -> int | None:
        """getSocketForNUMANode: physical_package_id of the node's first CPU, None when unknown.

        Upstream takes an arbitrary member of the cpuset (Go map order); draguard takes the lowest id so
        the answer is stable. The CPUs of one node share a package on every real machine.
        """
        if node not in self._sockets:
            self._sockets[node] = self._read_socket(node)
        return self._sockets[node]

    def equidistant(self, node: int) -> Equidistant:
        """getEquidistantNUMANodes: same-socket nodes at the minimum non-self distance, plus `node`.

        The row's i-th entry is taken as node i, as upstream does. The kernel prints one entry per
        *online* node, so on a machine with offline or sparse node ids that is wrong; a note says so.
        """
        if node not in self._equidistant:
            self._equidistant[node] = self._read_equidistant(node)
        return self._equidistant[node]

    def _value(self, subject: str, physical: int, form: Form) -> Derivation:
        if form is Form.SCALAR:
            return Derivation(subject, physical, NumaValue(Form.SCALAR, (physical,)))
        found = self.equidistant(physical)
        # makeNUMANodeListAttribute: physical first, then the others in ascending order.
        if found.nodes is None or len(found.nodes) <= 1:
            nodes: tuple[int, ...] = (physical,)
        else:
            nodes = (physical, *(n for n in found.nodes if n != physical))
        return Derivation(subject, physical, NumaValue(Form.LIST, nodes), notes=found.notes)

    def _read_equidistant(self, node: int) -> Equidistant:
        rel = f"devices/system/node/node{node}/distance"
        fallback = f"list falls back to [{node}]"
        try:
            text = self.reader.read(rel, lenient=True)  # a garbled row falls back as a row with a word in it does
        except SysfsAccessError:
            raise
        except SysfsError as err:  # upstream: the read fails, the list falls back
            return Equidistant(None, notes=(unreadable_distance(node, err),))
        if text is None:
            return Equidistant(None, notes=(f"node {node} has no SLIT distance row ({rel} is missing): {fallback}",))
        fields = go_fields(text)
        if not fields:
            return Equidistant(None, notes=(f"node {node}'s SLIT distance row is empty: {fallback}",))
        if node >= len(fields):
            return Equidistant(
                None,
                notes=(f"node {node} is out of range of its {len(fields)}-entry SLIT distance row: {fallback}",),
            )
        distances: list[int] = []
        for text_value in fields:
            value = atoi(text_value)
            if value is None:
                return Equidistant(None, notes=(malformed_distance(node, text_value),))
            distances.append(value)
        notes: list[str] = []
        online = self.nodes()
        if online and online != list(range(len(distances))):
            notes.append(
                f"node {node}'s distance row has {len(distances)} entries but the node ids are "
                f"{', '.join(map(str, online))}: like upstream, entry i is read as node i"
            )
        # Minimum non-self distance. Upstream uses -1 as "none yet", so a -1 entry (never written by a
        # kernel) is skipped over by the next entry; kept so the result matches the helper exactly.
        minimum = -1
        for i, d in enumerate(distances):
            if i != node and (minimum == -1 or d < minimum):
                minimum = d
        if minimum == -1:
            return Equidistant((node,), tuple(distances), tuple(notes))
        own = self.socket(node)
        if own is None:
            notes.append(unknown_socket(node, self.socket_problems.get(node)))
        chosen: list[int] = []
        for i, d in enumerate(distances):
            if i == node:
                chosen.append(i)
                continue
            if d != minimum:
                continue
            if own is not None:
                # Drop a candidate only when its socket is known and differs; an unknown socket (a
                # CPU-less memory node) is kept: a deliberate over-approximation upstream.
                other = self.socket(i)
                if other is not None and other != own:
                    continue
                if i in self.socket_problems:
                    notes.append(f"node {i} is kept with an unknown socket ({self.socket_problems[i]}, as upstream)")
            chosen.append(i)
        if minimum >= UNREACHABLE and len(chosen) > 1:
            notes.append(f"node {node}'s nearest other nodes are at SLIT distance {minimum} (unreachable): "
                         "like upstream, they are listed as equally local")
        return Equidistant(tuple(sorted(chosen)), tuple(distances), tuple(notes))

    def _read_socket(self, node: int) -> int | None:
        """None when the node has no CPUs or its first CPU no package file, and, as upstream's
        getSocketForNUMANode, when either cannot be read or parsed (then `socket_problems` says which, for a
        note: an unknown socket drops or skips the same-socket filter)."""
        rel = f"devices/system/node/node{node}/cpulist"
        try:
            text = self.reader.read(rel)
            if text is None:
                return None
            cpus = parse_cpulist(go_trim(text))
            if cpus is None:
                raise SysfsError(f"{self.reader.describe(rel)}: malformed value {go_trim(text)!r}: want a CPU list")
            if not cpus:
                return None
            rel = f"devices/system/cpu/cpu{min(cpus)}/topology/physical_package_id"
            package = self.reader.read(rel)
            if package is None:
                return None
            socket = atoi(package)
            if socket is None:
                raise SysfsError(f"{self.reader.describe(rel)}: malformed value {go_trim(package)!r}: "
                                 "want a socket id")
        except SysfsAccessError:
            raise
        except SysfsError as err:
            self.socket_problems[node] = err.message
            return None
        return socket

    def nodes(self) -> list[int]:
        """The NUMA node ids present under devices/system/node, ascending."""
        return node_ids(self.reader.listdir("devices/system/node") or [])

    def pci_devices(self) -> list[str]:
        return [n for n in self.reader.listdir("bus/pci/devices") or [] if not n.startswith(".")]

    def cpus(self) -> dict[int, int]:
        """CPU id -> NUMA node for every CPU with a node link, ascending by CPU id."""
        found: dict[int, int] = {}
        for name in self.reader.listdir("devices/system/cpu") or []:
            if not fnmatch.fnmatchcase(name, "cpu[0-9]*"):
                continue
            cpu = atoi(name.removeprefix("cpu"))
            if cpu is None:
                continue
            try:
                found[cpu] = self.cpu_node(cpu)
            except LookupError:
                continue
        return dict(sorted(found.items()))


def unreadable_distance(node: int, err: SysfsError) -> str:
    """The note for a SLIT distance row that is there but cannot be read (a directory, a link to nothing)."""
    return f"{err.message}: list falls back to [{node}]"


def unknown_socket(node: int, problem: str | None) -> str:
    """The note for a node whose socket is unknown (`problem`: the file that could not be read or parsed)."""
    return f"node {node}'s socket is unknown{f' ({problem}, as upstream)' if problem else ''}: no same-socket filter"


def malformed_distance(node: int, field: str) -> str:
    """The note for a SLIT distance row with a field that is not a number."""
    return f"node {node}'s SLIT distance row has {field!r}, not a number: list falls back to [{node}]"


def _too_big(node: int) -> str:
    return f"invalid NUMA node {node}: exceeds maximum supported ({MAX_NUMA_NODES - 1})"


def go_trim(text: str) -> str:
    return text.strip(_GO_SPACE)


def go_fields(text: str) -> list[str]:
    return _GO_FIELDS.findall(text)


def atoi(text: str) -> int | None:
    """strconv.Atoi after strings.TrimSpace (optional sign, ASCII digits, int64 range: celext.gostrconv, which
    also reads a numeral too long for Python's int() as the overflow it is); None otherwise."""
    try:
        return parse_int(go_trim(text), "Atoi")
    except ValueError:
        return None


def parse_cpulist(text: str) -> list[int] | None:
    """k8s.io/utils/cpuset.Parse: "0-3,8,10-11" -> ids; "" -> []; None when malformed."""
    if text == "":
        return []
    cpus: set[int] = set()
    for part in text.split(","):
        bounds = part.split("-", 1)
        if len(bounds) == 1:
            value = _atoi_strict(bounds[0])
            if value is None:
                return None
            cpus.add(value)
            continue
        start, end = _atoi_strict(bounds[0]), _atoi_strict(bounds[1])
        if start is None or end is None or start > end:
            return None
        if end - start > 1 << 20:  # a sysfs cpulist never spans a million CPUs; do not build one
            return None
        cpus.update(range(start, end + 1))
    return sorted(cpus)


def _atoi_strict(text: str) -> int | None:
    """strconv.Atoi without trimming (cpuset.Parse does not trim its parts)."""
    return atoi(text) if text == go_trim(text) else None


def node_ids(names: list[str]) -> list[int]:
    ids = []
    for name in names:
        if fnmatch.fnmatchcase(name, "node[0-9]*"):
            value = atoi(name.removeprefix("node"))
            if value is not None and name == f"node{value}":
                ids.append(value)
    return sorted(ids)


def is_bdf(text: str) -> bool:
    return _BDF.fullmatch(text) is not None

