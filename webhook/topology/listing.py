"""What `draguard topology` prints: PCI devices, NUMA nodes and CPUs with the numaNode each should publish.

Three renderings of one `Listing`: an aligned table for people, and JSON or YAML whose `attributes` maps
are ResourceSlice attribute values ready to paste (`resource.kubernetes.io/numaNode: {ints: [6, 4, 5, 7]}`).
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Any

from msgspec import Struct

from celext.vocabulary import NUMA_NODE
from webhook.topology.devices import names
from webhook.topology.numa import (
    Derivation,
    Form,
    Topology,
    atoi,
    go_fields,
    go_trim,
    malformed_distance,
    unknown_socket,
    unreadable_distance,
)
from webhook.topology.sysfs import SysfsAccessError, SysfsError


class PciRow(Struct, frozen=True):
    bdf: str
    names: tuple[str, ...]  # kernel names on the device (eth1, nvme0, card1); see webhook.topology.devices
    derived: tuple[Derivation, ...]  # one per form asked for, in `Listing.forms` order


class NodeRow(Struct, frozen=True):
    node: int
    socket: int | None
    cpus: str  # the node's cpulist as the kernel prints it ("" for a CPU-less node)
    distance: tuple[str, ...] | None  # the SLIT row's fields, None when there is no distance file
    derived: tuple[Derivation, ...]
    notes: tuple[str, ...] = ()  # about the row itself, whatever the forms shown (a malformed distance row,
    # an unknown socket)

    @property
    def distances(self) -> list[int] | None:
        """The SLIT row as numbers; None without a row or with a field that is not a number (`notes` says so)."""
        if self.distance is None:
            return None
        numbers = [atoi(field) for field in self.distance]
        return None if None in numbers else [n for n in numbers if n is not None]


class CpuRow(Struct, frozen=True):
    cpu: int
    node: int


class Listing(Struct, frozen=True):
    forms: tuple[Form, ...]
    pci: tuple[PciRow, ...] = ()
    nodes: tuple[NodeRow, ...] = ()
    cpus: tuple[CpuRow, ...] = ()

    @property
    def notes(self) -> list[str]:
        """Fallback notes of every derivation shown, each once, in order."""
        seen: dict[str, None] = {}
        rows: list[PciRow | NodeRow] = [*self.pci, *self.nodes]
        for row in rows:
            if isinstance(row, NodeRow):
                seen.update(dict.fromkeys(row.notes))
            for derivation in row.derived:
                seen.update(dict.fromkeys(derivation.notes))
        return list(seen)


def collect(
    topology: Topology,
    forms: Sequence[Form],
    *,
    pci: Sequence[str] = (),
    nodes: Sequence[int] = (),
    cpus: Sequence[int] = (),
) -> Listing:
    """Derive for the given devices, nodes and CPUs (callers pass every PCI device and node for `all`)."""
    reader = topology.reader
    node_rows = []
    for node in nodes:
        notes: list[str] = []
        try:  # a row that is there but cannot be read is the list form's fallback: a note, whatever the form
            row = reader.read(f"devices/system/node/node{node}/distance", lenient=True)
        except SysfsAccessError:
            raise
        except SysfsError as err:
            row = None
            notes.append(unreadable_distance(node, err))
        fields = tuple(go_fields(row)) if row is not None else None
        malformed = next((f for f in fields or () if atoi(f) is None), None)
        if malformed is not None:
            notes.append(malformed_distance(node, malformed))
        socket = topology.socket(node)
        if node in topology.socket_problems:  # its cpulist or package id: shown as unknown whatever the form
            notes.append(unknown_socket(node, topology.socket_problems[node]))
        try:
            cpulist = reader.read(f"devices/system/node/node{node}/cpulist")
        except SysfsAccessError:
            raise
        except SysfsError:
            cpulist = None  # the socket note says why
        node_rows.append(
            NodeRow(
                node,
                socket,
                go_trim(cpulist) if cpulist is not None else "",
                fields,
                tuple(topology.node(node, form) for form in forms),
                tuple(notes),
            )
        )
    return Listing(
        tuple(forms),
        tuple(PciRow(bdf, names(reader, bdf), tuple(topology.pci(bdf, form) for form in forms)) for bdf in pci),
        tuple(node_rows),
        tuple(CpuRow(cpu, topology.cpu_node(cpu)) for cpu in cpus),
    )


# ---- table ----
def table(listing: Listing) -> str:
    value_heads = [f.value.upper() for f in listing.forms] if len(listing.forms) > 1 else ["NUMANODE"]
    blocks: list[list[list[str]]] = []
    if listing.pci:
        named = any(pci.names for pci in listing.pci)
        rows = [["PCI DEVICE", *(["NAME"] if named else []), "NUMA", *value_heads, "NOTE"]]
        for pci in listing.pci:
            first = pci.derived[0]
            name = [",".join(pci.names) or "-"] if named else []
            rows.append([pci.bdf, *name, _int(first.physical), *(_value(d) for d in pci.derived), first.reason])
        blocks.append(rows)
    if listing.nodes:
        rows = [["NUMA NODE", "SOCKET", "CPUS", "DISTANCE", *value_heads, "NOTE"]]
        for node in listing.nodes:
            rows.append([
                str(node.node),
                _int(node.socket),
                node.cpus or "-",
                " ".join(node.distance) if node.distance else "-",
                *(_value(d) for d in node.derived),
                node.derived[0].reason,
            ])
        blocks.append(rows)
    if listing.cpus:
        blocks.append([["CPU", "NUMA NODE"], *([str(c.cpu), str(c.node)] for c in listing.cpus)])
    out = ["\n".join(_align(rows)) for rows in blocks]
    text = "\n\n".join(out)
    notes = listing.notes
    if notes:
        text += "\n\n" + "\n".join(f"note: {note}" for note in notes)
    return text + "\n"


def _align(rows: list[list[str]]) -> list[str]:
    if not any(row[-1] for row in rows[1:]):
        rows = [row[:-1] for row in rows] if rows[0][-1] == "NOTE" else rows
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows]


def _int(value: int | None) -> str:
    return "-" if value is None else str(value)


def _value(derivation: Derivation) -> str:
    return "-" if derivation.value is None else str(derivation.value)


# ---- json / yaml ----
def document(listing: Listing) -> dict[str, Any]:
    """Plain data with the same keys whatever was found (scripts can rely on them): `attributes` holds only
    what to publish (`{}` for a device without NUMA affinity, `reason` then says why; null otherwise)."""
    return {
        "form": listing.forms[0].value,
        "pciDevices": [
            _entry({"pciBusID": row.bdf, "names": list(row.names), "numaNode": row.derived[0].physical}, row.derived[0])
            for row in listing.pci
        ],
        "numaNodes": [
            _entry(
                {
                    "node": row.node,
                    "socket": row.socket,
                    "cpus": row.cpus,
                    "distance": row.distances,
                },
                row.derived[0],
            )
            for row in listing.nodes
        ],
        "cpus": [{"cpu": row.cpu, "numaNode": row.node} for row in listing.cpus],
        "notes": listing.notes,
    }


def _entry(head: dict[str, Any], derivation: Derivation) -> dict[str, Any]:
    value = derivation.value
    attributes = {NUMA_NODE: value.wire()} if value is not None else {}
    return {**head, "attributes": attributes, "reason": derivation.reason or None}


def to_json(listing: Listing) -> str:
    return json.dumps(document(listing), indent=2) + "\n"


def to_yaml(listing: Listing) -> str:
    """YAML with the attribute values in flow style, so each line pastes into a ResourceSlice device."""
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString

    from webhook.manifests import goyaml

    def convert(value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            mapping = CommentedMap((k, convert(v, k)) for k, v in value.items())
            if key == NUMA_NODE:
                mapping.fa.set_flow_style()
            return mapping
        if isinstance(value, list):
            seq = CommentedSeq(convert(v) for v in value)
            if key == "names" or all(isinstance(v, int) for v in value):
                seq.fa.set_flow_style()
            return seq
        if isinstance(value, str) and key in ("pciBusID", "cpus"):
            # 0000:01:00.0 is a base-60 float to YAML 1.1 readers (kubectl's); "4" would be an int.
            return DoubleQuotedScalarString(value)
        return value

    yaml = YAML(typ="rt")
    yaml.representer.add_representer(
        type(None), lambda rep, _: rep.represent_scalar("tag:yaml.org,2002:null", "null")
    )  # `reason: null`, not a bare `reason:`
    yaml.representer.add_representer(str, goyaml.represent_str)  # `"on"`, `"010"`: as kubectl must read them
    yaml.version = None
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=2, offset=0)
    buffer = io.StringIO()
    yaml.dump(convert(document(listing)), buffer)
    return buffer.getvalue()
