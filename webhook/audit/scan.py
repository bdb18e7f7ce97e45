"""The audit itself: list the four DRA kinds in pages and run the catalogue on every object.

ResourceSlices come first: each is checked and its devices go into the compact inventory, so that
DeviceClasses, ResourceClaims and ResourceClaimTemplates are checked against the devices the cluster
really publishes (as `draguard lint --cluster` does, but without holding the slices). Results are grouped by
report scope (the cluster for slices and classes, each namespace for claims and templates); each scope keeps
at most `max_results` findings, the counts stay complete.
"""

from __future__ import annotations

import gc
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping

from msgspec import Struct, field
from msgspec.structs import replace

from webhook.audit.client import Cluster
from webhook.audit.devices import DeviceInventory
from webhook.audit.kinds import DEVICE_CLASSES, RESOURCE_SLICES, Resource
from webhook.audit.pager import Listing, Pages, start
from webhook.findings import Action, Finding, Position
from webhook.policy import Policy
from webhook.run import run_rules
from webhook.wire import Obj, get_list, get_map, get_str, name_of

NO_DRIVER = "-"
_DRIVER_TEST = re.compile(r"""device\.driver\s*==\s*["']([^"']+)["']""")


class ObjectRef(Struct, frozen=True):
    api_version: str
    kind: str
    name: str
    namespace: str | None
    uid: str
    resource_version: str

    @property
    def label(self) -> str:
        """`ResourceClaim/team-a/train`, `ResourceSlice/node-1-gpu`: the object in lint's file column."""
        return "/".join(p for p in (self.kind, self.namespace, self.name) if p)

    @classmethod
    def of(cls, obj: Obj) -> ObjectRef:
        meta = get_map(obj, "metadata")
        return cls(get_str(obj, "apiVersion"), get_str(obj, "kind"), name_of(obj),
                   get_str(meta, "namespace") or None, get_str(meta, "uid"), get_str(meta, "resourceVersion"))


class Result(Struct, frozen=True):
    ref: ObjectRef
    driver: str
    finding: Finding


class Scope(Struct):
    """One report's worth: the cluster-scoped objects, or one namespace's."""

    checked: int = 0
    clean: int = 0  # objects without findings: the report's `pass` count
    results: list[Result] = field(default_factory=list)
    counts: Counter[Action] = field(default_factory=Counter)  # every finding, kept or not
    dropped: int = 0  # findings beyond max_results
    cut: int = 0  # findings kept but cut from the report to keep it under reports.MAX_REPORT_BYTES (set by build)


class Audit(Struct):
    max_results: int
    listings: dict[str, Listing] = field(default_factory=dict)  # plural -> how listing it went
    scopes: dict[str | None, Scope] = field(default_factory=dict)  # None: cluster-scoped objects
    by_rule: Counter[tuple[str, Action]] = field(default_factory=Counter)
    by_driver: Counter[str] = field(default_factory=Counter)
    suppressed: int = 0
    devices: int = 0

    @property
    def checked(self) -> int:
        return sum(s.checked for s in self.scopes.values())

    @property
    def findings(self) -> int:
        return sum(self.by_rule.values())

    def kept(self) -> list[Finding]:
        """The findings kept, positioned at their object's reference (lint's file column)."""
        return [replace(r.finding, position=Position(r.ref.label, 1, 1))
                for scope in self.scopes.values() for r in scope.results]

    def record(self, obj: Obj, driver: str, findings: Iterable[Finding], suppressed: int) -> None:
        scope = self.scopes.setdefault(get_str(obj, "metadata", "namespace") or None, Scope())  # as ObjectRef.of
        scope.checked += 1
        self.suppressed += suppressed
        ref: ObjectRef | None = None  # built for an object with findings kept only (most have none)
        found = False
        for finding in findings:
            found = True
            action = finding.action or Action.AUDIT
            scope.counts[action] += 1
            self.by_rule[(finding.rule, action)] += 1
            self.by_driver[driver] += 1
            if len(scope.results) < self.max_results:
                ref = ref or ObjectRef.of(obj)
                scope.results.append(Result(ref, driver, finding))
            else:
                scope.dropped += 1
        if not found:
            scope.clean += 1


Progress = Callable[[Audit, Resource], None]


def run(cluster: Cluster, policy: Policy, *, page_size: int = 500, max_results: int = 1000,
        progress: Progress | None = None, started: tuple[Pages, dict[str, Listing]] | None = None) -> Audit:
    """The audit of every page `pager.start(cluster, page_size)` lists (or `started`, a listing already under
    way: the caller may have started it before importing this module)."""
    audit = Audit(max_results)
    inventory = DeviceInventory()
    class_drivers: dict[str, str] = {}
    pages_of, audit.listings = started or start(cluster, page_size)
    collecting = gc.isenabled()
    gc.disable()  # decoded pages hold no cycles: collect once per page (below), not every N allocations
    try:
        with pages_of as listed:
            for resource, page in listed:
                for obj in page:
                    if resource is RESOURCE_SLICES:
                        outcome = run_rules(obj, policy)
                        audit.devices += inventory.add_slice(obj)
                        driver = get_str(obj, "spec", "driver") or NO_DRIVER
                    else:
                        if resource is DEVICE_CLASSES:
                            inventory.add_class(obj)
                            class_drivers[name_of(obj)] = driver = class_driver(obj)
                        else:
                            driver = claim_driver(obj, class_drivers)
                        outcome = run_rules(obj, policy, slices=inventory.rules_view())
                    audit.record(obj, driver, outcome.findings, len(outcome.suppressed))
                del page  # freed: what the page left alive is the inventory's growth (and the next page)
                gc.collect(0)  # any cycle the rules made on this page
                gc.freeze()  # what survives lives to the end: no collection walks it again
                if progress is not None:
                    progress(audit, resource)
    finally:
        if collecting:
            gc.enable()
    return audit


def class_driver(device_class: Obj) -> str:
    """The driver a DeviceClass selects with `device.driver == "..."`, when it names exactly one."""
    drivers = {m for raw in get_list(device_class, "spec", "selectors") if isinstance(raw, Mapping)
               for m in _DRIVER_TEST.findall(get_str(raw, "cel", "expression"))}
    return drivers.pop() if len(drivers) == 1 else NO_DRIVER


def claim_driver(obj: Obj, class_drivers: Mapping[str, str]) -> str:
    """The drivers of the DeviceClasses a claim's (or template's) requests name, comma-separated."""
    spec = get_map(obj, "spec", "spec") if obj.get("kind") == "ResourceClaimTemplate" else get_map(obj, "spec")
    classes: set[str] = set()
    for raw in get_list(spec, "devices", "requests"):
        if not isinstance(raw, Mapping):
            continue
        classes.add(get_str(raw, "exactly", "deviceClassName"))
        classes.update(get_str(sub, "deviceClassName") for sub in get_list(raw, "firstAvailable")
                       if isinstance(sub, Mapping))
    drivers = sorted({class_drivers.get(c, NO_DRIVER) for c in classes if c} - {NO_DRIVER})
    return ",".join(drivers) or NO_DRIVER
