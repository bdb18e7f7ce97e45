"""`draguard topology --check`: the numaNode values drivers published, against what this node's sysfs gives.

draguard's own check (Kubernetes cannot see a node's sysfs). For each device of a ResourceSlice of this
node that carries a numaNode value (`resource.kubernetes.io/numaNode` or a vendor alias), the expected value
is derived the KEP-6072 way from

- its PCI address: `resource.kubernetes.io/pciBusID`, else a vendor address attribute (`<domain>/pciAddress`,
  `<domain>/pciAddr`: DraNet, SR-IOV, AMD GPU), like `GetNUMANodeAttributeByPCIBusID`;
- else the NUMA node it publishes (CPU and memory devices), like `GetNUMANodeAttribute`.

Each published value is compared in its own form (a scalar with the physical node, a list with the SLIT
list: physical node first, the same set of nodes), unless `form` is given: then the standard attribute in
the other form is a finding too. Vendor aliases are compared in whatever form they use (most are scalars).
A CPU or memory device may publish `[N]` as well as the SLIT list: KEP-6072 leaves that to the driver (its
example table shows `[4]` for a CPU on node 4 of an NPS4 machine where the helper gives `[4, 5, 6, 7]`).

A value that cannot be compared (not exactly one of `int`/`ints`, a bool, float or string where an integer
belongs, an empty list, null) fails closed: a `topology-numa-mismatch` finding at the attribute saying why,
never a silent pass. `decode` judges it with the ResourceSlice rules' own attribute validation, so the reason
is worded as `draguard validate` words it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import partial

from msgspec import Struct

from celext.vocabulary import NUMA_NODE, PCI_BUS_ID, qualify
from webhook.fieldpath import FieldPath
from webhook.findings import Action, Finding
from webhook.policy import DEFAULT_ALIASES, Policy
from webhook.rules.devices import members
from webhook.rules.k8s.attribute import validate_device_attribute
from webhook.rules.k8s.decode import as_int64
from webhook.rules.k8s.errors import render_value
from webhook.rules.k8s.ids import UNKNOWN_FIELD, Errors
from webhook.rules.topology import BAD_ADDRESS, FORM, MISMATCH, NO_AFFINITY, UNKNOWN_DEVICE, UNKNOWN_NODE
from webhook.topology.numa import MAX_NUMA_NODES, Derivation, Form, NumaValue, Topology, is_bdf
from webhook.wire import Obj, as_map, get_list, get_map, get_str
from webhook.words import with_article

VENDOR_ADDRESS_NAMES = ("pciAddress", "pciAddr")  # dra.net/, sriovnetwork.../, gpu.amd.com/ (`pciAddr`)
_OMIT = "omit the numaNode attribute while the device has no NUMA affinity (the KEP-6072 helper returns an error)"
__all__ = ["BAD_ADDRESS", "DEFAULT_ALIASES", "FORM", "MISMATCH", "NO_AFFINITY", "UNKNOWN_DEVICE", "UNKNOWN_NODE",
           "Published", "check_slice", "decode", "on_node"]


class Published(Struct, frozen=True):
    """One numaNode attribute of a device as written in the slice."""

    name: str  # fully qualified: resource.kubernetes.io/numaNode, dra.net/numaNode, gpu.amd.com/numaNode
    key: str  # as written in `attributes` (a driver may leave its own domain out: `numaNode`)
    value: NumaValue | None  # None when it cannot be compared with sysfs: `problem` says why (see `decode`)
    problem: str = ""
    raw: object = None  # the attribute as written

    @classmethod
    def of(cls, name: str, key: str, raw: object) -> Published:
        decoded = decode(raw)
        if isinstance(decoded, str):
            return cls(name, key, None, decoded, raw)
        return cls(name, key, decoded, "", raw)


def decode(attribute: object) -> NumaValue | str:
    """A published numaNode attribute as a NumaValue, or why `topology --check` cannot compare it. Pure.

    What the API server refuses (a wrong type, a bool or float for an int, null, an empty list, no member or
    more than one: k8s-attribute-union) is found by the ResourceSlice rules' attribute validation and worded
    as `draguard validate` reports it (`<rule>: <member>: <upstream error>`); a member other than `int` or
    `ints` (numa-node-type) is named. An unknown field beside a good member is dropped, as the API server does.
    """
    errs: Errors = []
    validate_device_attribute(attribute, FieldPath(), errs)
    if any(rule != UNKNOWN_FIELD for rule, _ in errs):
        return "; ".join(
            f"{rule}: {finding.path}: {finding.message}" if finding.path.segments else f"{rule}: {finding.message}"
            for rule, finding in errs
        )
    value = as_map(attribute)
    assert value is not None  # validate_device_attribute refuses anything else
    present = members(value)
    # as the decoder reads them: an integral float (`1.0` in YAML) is the int kubectl sends
    if present == ["int"]:
        return NumaValue(Form.SCALAR, (as_int64(value["int"]),))
    if present == ["ints"]:
        return NumaValue(Form.LIST, tuple(as_int64(v) for v in value["ints"]))
    return f"{' and '.join(map(with_article, present))} value, not int or ints"


def check_slice(
    slice_: Obj,
    topology: Topology,
    *,
    form: Form | None = None,
    aliases: Sequence[str] | None = None,
    policy: Policy | None = None,
    node: str | None = None,
) -> list[Finding]:
    """Findings (stamped with their rule id and action) for every device of one ResourceSlice (with `node` and
    per-device node selection: every device whose `nodeName` is `node`; see `on_node`).

    The actions are `policy`'s for these catalogue rules (`webhook.rules.topology`), their defaults without one;
    a rule the policy turns off reports nothing (no policy: the default one). `aliases` defaults to the policy's
    `numaNode.aliases`.
    """
    policy = policy if policy is not None else Policy.default()
    aliases = policy.aliases if aliases is None else aliases
    driver = get_str(slice_, "spec", "driver")
    names = _numa_names(driver, aliases)
    per_device = node is not None and get_map(slice_, "spec").get("perDeviceNodeSelection") is True
    found: list[Finding] = []
    for device_map, path in _devices(slice_):
        if per_device and device_map.get("nodeName") != node:
            continue  # on another node, or on several (nodeSelector, allNodes): not this sysfs's device
        found += _check_device(device_map, driver, names, path, topology, form=form)
    stamped = [f.stamped(f.rule, policy.action(f.rule)) for f in found]
    return [f for f in stamped if f.action is not Action.OFF]


def on_node(slice_: Obj, node: str) -> bool:
    """Whether `slice_` has devices on `node`: its `spec.nodeName`, or with per-device node selection (KEP-4815,
    `spec.perDeviceNodeSelection: true`) a device's `nodeName`. A slice or device for several nodes (`allNodes`,
    `nodeSelector`) is on none in particular: its numaNode cannot be held against one node's sysfs."""
    spec = get_map(slice_, "spec")
    if get_str(spec, "nodeName") == node:
        return True
    return spec.get("perDeviceNodeSelection") is True and any(d.get("nodeName") == node for d, _ in _devices(slice_))


def _devices(slice_: Obj) -> Iterator[tuple[Obj, FieldPath]]:
    """Each device of the slice with its path; v1beta1's fields under `basic` are taken from there."""
    for index, device in enumerate(get_list(slice_, "spec", "devices")):
        device_map = as_map(device)
        if device_map is None:
            continue
        path = FieldPath.root("spec", "devices").index(index)
        basic = as_map(device_map.get("basic"))
        if basic is not None:  # v1beta1 nests the device's fields under `basic`
            device_map, path = basic, path.child("basic")
        yield device_map, path


def _check_device(
    device: Obj, driver: str, names: Sequence[str], path: FieldPath, topology: Topology, *, form: Form | None
) -> list[Finding]:
    attributes = {qualify(key, driver): (key, value) for key, value in get_map(device, "attributes").items()}
    published = [Published.of(name, *attributes[name]) for name in names if name in attributes]
    if not published:
        return []
    attrs_path = path.child("attributes")

    def unreadable(derive: Callable[[Form], Derivation] | None) -> list[Finding]:
        return [_unreadable(p, attrs_path.key(p.key), derive, form) for p in published if p.value is None]

    address = _address(attributes)
    if address is not None:
        key, bdf = address
        if bdf is None or not is_bdf(bdf):
            # Not checked by the node it publishes instead: that would compare the value with itself.
            shown = f"{bdf!r} is not a PCI address in the form the KEP-6072 helper takes (dddd:bb:dd.f, lower-case hex)"
            if bdf is None:
                shown = f"is {render_value(attributes[qualify(key, driver)][1])}, not a PCI address string"
            return [
                _finding(
                    BAD_ADDRESS,
                    attrs_path.key(key),
                    f"{qualify(key, driver)} {shown}, so its numaNode cannot be checked",
                    "publish the PCI address as sysfs names it, e.g. 0000:c1:00.1",
                ),
                *unreadable(None),
            ]
        derive: Callable[[Form], Derivation] = partial(topology.pci, bdf)
        subject = f"PCI device {bdf}"
        if topology.pci(bdf, Form.SCALAR).status == "absent":
            return [
                _finding(
                    UNKNOWN_DEVICE,
                    attrs_path.key(key),
                    f"{subject} is not on this machine (no {topology.reader.describe('bus/pci/devices/' + bdf)}); "
                    "its numaNode cannot be checked",
                    "check --sysfs-root and --node, or whether the driver publishes a device that is gone",
                ),
                *unreadable(None),
            ]
    else:
        physical = next((p.value.physical for p in published if p.value is not None), None)
        if physical is None:
            return unreadable(None)  # no value names the node: nothing to derive, each says why
        derive = partial(topology.node, physical)
        subject = f"NUMA node {physical}"
        known = topology.nodes()
        if known and 0 <= physical < MAX_NUMA_NODES and physical not in known:
            first = next(p for p in published if p.value is not None)
            return [
                _finding(
                    UNKNOWN_NODE,
                    attrs_path.key(first.key),
                    f"{first.name} names NUMA node {physical}, which this machine does not have "
                    f"(nodes: {', '.join(map(str, known))})",
                    "publish the node id the kernel reports for the device",
                ),
                *unreadable(None),
            ]
    found: list[Finding] = []
    for attribute in published:
        attr_path = attrs_path.key(attribute.key)
        value = attribute.value
        if value is None:
            found.append(_unreadable(attribute, attr_path, derive, form))
            continue
        if form is not None and attribute.name == NUMA_NODE and value.form is not form:
            wanted = derive(form)
            if wanted.value is not None:
                found.append(
                    _finding(
                        FORM,
                        attr_path,
                        f"{attribute.name} is published as {_form_name(value.form)} but the "
                        f"{form.value} form was asked for: {subject} should publish {_wire(wanted.value)}",
                        f"configure the driver for the {form.value} form (KEP-6072 AttributeForm)",
                    )
                )
        derived = derive(value.form)
        found += _compare(attribute.name, value, derived, attr_path, by_node=address is None)
    return found


def _unreadable(
    attribute: Published, path: FieldPath, derive: Callable[[Form], Derivation] | None, form: Form | None
) -> Finding:
    """A value `decode` cannot read: the mismatch rule's finding (fail closed), at the attribute, saying why.

    The help names what sysfs gives in the form asked for (`--form`, for the standard attribute), else in the
    form the value seems meant to take (`ints` alone: the list; anything else: the scalar)."""
    message = f"{attribute.name} cannot be checked against the node ({attribute.problem})"
    hint = "publish the NUMA node as {int: N}, or the KEP-6072 list as {ints: [N, ...]}"
    if derive is not None:
        raw = as_map(attribute.raw) or {}
        meant = Form.LIST if raw.get("ints") is not None and raw.get("int") is None else Form.SCALAR
        derived = derive(form if form is not None and attribute.name == NUMA_NODE else meant)
        if derived.value is not None:
            message += f"; sysfs gives {derived.value} for {derived.subject}"
            hint = f"publish {_wire(derived.value)}"
        elif derived.status in ("no-affinity", "unavailable"):
            message += f"; {derived.subject}: {derived.reason}"
            hint = _OMIT
    return _finding(MISMATCH, path, message, hint)


def _compare(
    name: str, published: NumaValue, derived: Derivation, path: FieldPath, *, by_node: bool
) -> Iterator[Finding]:
    """`by_node`: a CPU or memory device (no PCI address), which KEP-6072 lets publish `[N]` in the list form
    as well as the helper's SLIT list ("what each driver publishes is up to the driver authors")."""
    member = path.child("int" if published.form is Form.SCALAR else "ints")
    if derived.value is None:
        if derived.status == "unavailable":
            message = f"{name} is {published} but {derived.subject} has no numa_node file"
            yield _finding(NO_AFFINITY, member, message + " (a kernel without NUMA support)", _OMIT)
        elif derived.status == "no-affinity" and derived.subject.startswith("PCI"):
            message = f"{name} is {published} but {derived.subject} has no NUMA affinity"
            yield _finding(NO_AFFINITY, member, f"{message} (numa_node={derived.physical})", _OMIT)
        elif derived.status == "no-affinity":
            yield _finding(NO_AFFINITY, member, f"{name} is {published}: a negative node means none", _OMIT)
        else:
            yield _finding(MISMATCH, member, f"{name} is {published}: {derived.reason}")
        return
    single = NumaValue(Form.LIST, (derived.value.physical,))
    if _same(published, derived.value) or (by_node and _same(published, single)):
        return
    if by_node and published.form is Form.LIST and derived.value != single:
        yield _finding(
            MISMATCH,
            member,
            f"{name} is {published} but sysfs gives {derived.value} for {derived.subject} "
            f"(a CPU or memory device may also publish {single})",
            f"publish {_wire(derived.value)} or {_wire(single)}",
        )
        return
    why = f" (numa_node {derived.physical})" if derived.subject.startswith("PCI") else ""
    if derived.notes:  # a fallback made the derived list short: say so, the sysfs may be a partial copy
        why += "; " + "; ".join(derived.notes)
    yield _finding(
        MISMATCH,
        member,
        f"{name} is {published} but sysfs gives {derived.value} for {derived.subject}{why}",
        f"publish {_wire(derived.value)}",
    )


def _same(published: NumaValue, derived: NumaValue) -> bool:
    """Equal as KEP-6072 reads them: the physical node first, the rest an unordered set, each node once (a
    repeated node is no set: validate denies it, numa-node-duplicates)."""
    if published.form is not derived.form:
        return False
    if published.form is Form.SCALAR:
        return published.nodes == derived.nodes
    return (published.nodes[0] == derived.nodes[0] and len(published.nodes) == len(derived.nodes)
            and set(published.nodes) == set(derived.nodes))


def _numa_names(driver: str, aliases: Sequence[str]) -> list[str]:
    names = [NUMA_NODE, *aliases]
    if driver:
        names += [f"{driver}/numaNode", f"{driver}/numa"]
    return list(dict.fromkeys(names))


def _address(attributes: Mapping[str, tuple[str, object]]) -> tuple[str, str | None] | None:
    """(key as written, address) of the device's PCI address, the standard attribute first; the address is None
    when no candidate is a string (`{int: 5}`, null): the device still has one, it just cannot be read."""
    vendor = sorted(name for name in attributes if name.rpartition("/")[2] in VENDOR_ADDRESS_NAMES)
    present = [name for name in [PCI_BUS_ID, *vendor] if name in attributes]
    for name in present:
        key, attribute = attributes[name]
        value = as_map(attribute)
        text = value.get("string") if value is not None else None
        if isinstance(text, str):
            return key, text
    return (attributes[present[0]][0], None) if present else None


def _wire(value: NumaValue) -> str:
    if value.form is Form.SCALAR:
        return f"{{int: {value.physical}}}"
    return f"{{ints: {value}}}"


def _form_name(form: Form) -> str:
    return "a scalar (int)" if form is Form.SCALAR else "a list (ints)"


def _finding(rule: str, path: FieldPath, message: str, hint: str = "") -> Finding:
    """A finding of catalogue rule `rule`; `check_slice` stamps its action."""
    return Finding(path, message, hint=hint, rule=rule)
