"""`draguard topology`: the KEP-6072 numaNode each device of this node should publish, from sysfs.

    draguard topology                          every PCI device and NUMA node, both forms, as a table
    draguard topology --pci 0000:c1:00.1 --form list --format yaml
    draguard topology --class-device net/eth1  the PCI device under /sys/class/net/eth1
    draguard topology --check slices.yaml      compare what drivers published on this node (exit 0/1/2)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from webhook.topology import Form, Topology

HELP = "derive KEP-6072 numaNode values from a node's sysfs, or check published ones against it"
FORMATS = ("table", "json", "yaml")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sysfs-root", default="/sys", metavar="DIR", help="where sysfs is mounted (default: /sys)"
    )
    parser.add_argument(
        "--form",
        choices=("scalar", "list"),
        help="numaNode form: scalar {int: N} or list {ints: [N, ...]} (KEP-5491 DRAListTypeAttributes); "
        "the table shows both unless given, json/yaml default to scalar, --check compares each value "
        "in its own form unless given",
    )
    parser.add_argument(
        "--pci", action="extend", nargs="+", default=[], metavar="BDF", help="only these PCI devices (repeatable)"
    )
    parser.add_argument(
        "--class-device",
        action="extend",
        nargs="+",
        default=[],
        metavar="CLASS/NAME",
        help="only the PCI device under this /sys/class entry: net/eth1, nvme/nvme0, drm/card1 (repeatable)",
    )
    parser.add_argument(
        "--numa-node",
        action="extend",
        nargs="+",
        type=int,
        default=[],
        metavar="N",
        help="only these NUMA nodes (repeatable)",
    )
    parser.add_argument(
        "--cpu",
        action="extend",
        nargs="+",
        type=int,
        default=[],
        metavar="ID",
        help="the NUMA node of these CPUs (repeatable)",
    )
    parser.add_argument(
        "--format",
        help="table (default), json or yaml; with --check: table/text (default), json or another report format",
    )
    parser.add_argument(
        "--check",
        nargs="+",
        metavar="SLICES",
        help="ResourceSlice files or directories ('-' for stdin): compare their numaNode values on this node",
    )
    parser.add_argument(
        "--node", metavar="NAME", help="with --check: the Kubernetes node name (default: this host's name)"
    )
    parser.add_argument(
        "--policy", metavar="FILE",
        help="with --check: the rules' actions, numaNode.aliases and ignore globs from this draguard policy file",
    )


def run(args: argparse.Namespace) -> int:
    from webhook.errors import DraguardError
    from webhook.topology import Form, Sysfs, Topology

    form = Form(args.form) if args.form else None
    sysfs = Sysfs.open(args.sysfs_root)
    topology = Topology(sysfs)
    if args.check:
        if args.pci or args.class_device or args.numa_node or args.cpu:
            raise DraguardError(
                "--check compares published slices; it does not take --pci, --class-device, --numa-node or --cpu"
            )
        return _check(topology, args, form)
    if args.node is not None or args.policy is not None:
        raise DraguardError("--node and --policy only apply with --check SLICES")
    fmt = args.format or "table"
    if fmt not in FORMATS:
        raise DraguardError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    from webhook.commands.common import tell
    from webhook.topology import listing

    forms = (form,) if form else ((Form.SCALAR, Form.LIST) if fmt == "table" else (Form.SCALAR,))
    pci = list(args.pci)
    if args.class_device:
        from webhook.topology.devices import pci_of

        pci += [pci_of(sysfs, spec) for spec in args.class_device]
    chosen = _select(topology, pci, args.numa_node, args.cpu)
    shown = listing.collect(topology, forms, pci=chosen[0], nodes=chosen[1], cpus=chosen[2])
    if fmt == "table" and not (shown.pci or shown.nodes or shown.cpus):
        print(f"no PCI devices and no NUMA nodes under {sysfs.root}")
        return 0
    render = {"table": listing.table, "json": listing.to_json, "yaml": listing.to_yaml}[fmt]
    print(render(shown), end="")
    # A device whose numa_node cannot be read is listed with the reason (the helper fails for it alone);
    # the run still fails: the tree is broken where a driver reads it.
    unreadable = dict.fromkeys(d.reason for row in shown.pci for d in row.derived if d.status == "unreadable")
    for reason in unreadable:
        tell(f"error: {reason}")  # a sysfs path: the tree's words
    return 2 if unreadable else 0


def _check(topology: Topology, args: argparse.Namespace, form: Form | None) -> int:
    """--check: this node's slices against sysfs, reported like `draguard validate` (exit 0/1/2 likewise)."""
    from webhook.commands.common import tell, use_color
    from webhook.errors import DraguardError
    from webhook.exits import exit_code
    from webhook.findings import Action
    from webhook.report import FORMATS, Summary, render
    from webhook.topology.checking import against, check_node, host_node_name

    fmt = "text" if (args.format or "text") == "table" else (args.format or "text")
    if fmt not in FORMATS:
        raise DraguardError(f"unknown format {args.format!r} for --check; use table or one of "
                            f"{', '.join(sorted(FORMATS))}")
    policy = None
    ignore: Sequence[str] = ()
    if args.policy is not None:
        from webhook.policy import Policy
        from webhook.rules import BOOK

        policy = Policy.load(args.policy, rules=BOOK)
        ignore = policy.ignore
    if args.node == "":
        raise DraguardError("--node: empty node name; pass the Kubernetes node name, or leave --node out for this "
                            "host's")
    node = args.node if args.node is not None else host_node_name()
    result = check_node(args.check, node, against(topology, form=form, policy=policy), ignore=ignore)
    summary = Summary(objects=result.checked, skipped=dict(result.skipped), problems=result.problems)
    sys.stdout.write(render(fmt, result.findings, summary, color=use_color("auto", sys.stdout)))
    sys.stdout.flush()
    for problem in result.problems:  # after the report, one line each, prefixed, as `draguard validate` does
        tell(problem)
    return exit_code(problems=bool(result.problems), failing=any(f.action is Action.DENY for f in result.findings))


def _select(
    topology: Topology, pci: list[str], nodes: list[int], cpus: list[int]
) -> tuple[list[str], list[int], list[int]]:
    """The devices, nodes and CPUs to show: those asked for (checked), else every PCI device and node."""
    from webhook.errors import DraguardError
    from webhook.topology import MAX_NUMA_NODES, Form

    if not (pci or nodes or cpus):
        return topology.pci_devices(), topology.nodes(), []
    for bdf in pci:
        derived = topology.pci(bdf, Form.SCALAR)
        if derived.status in ("invalid", "absent"):
            raise DraguardError(f"--pci {bdf}: {derived.reason}")
    known = topology.nodes()
    for node in nodes:
        if node < 0 or node >= MAX_NUMA_NODES:
            raise DraguardError(f"--numa-node {node}: {topology.node(node, Form.SCALAR).reason}")
        if node not in known:
            where = topology.reader.describe("devices/system/node")
            raise DraguardError(f"--numa-node {node}: no node{node} under {where}")
    for cpu in cpus:
        try:
            topology.cpu_node(cpu)
        except LookupError as err:
            raise DraguardError(f"--cpu {cpu}: {err}") from None
    return list(dict.fromkeys(pci)), list(dict.fromkeys(nodes)), list(dict.fromkeys(cpus))
