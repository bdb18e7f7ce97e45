"""run_rules(): one object through the catalogue, with the policy's actions, suppressions and ratcheting.

    rules (pure) -> findings -> stamp rule id, action, position -> suppress -> ratchet (UPDATE) -> sort

Ratcheting, as the API server does for fields it newly validates: on UPDATE a deny finding that the old
object already had (same rule, path and message) is demoted to warn, so an unrelated edit to an object
that was admitted under older rules is not blocked. Suppression is per object, by annotation:

    metadata.annotations["draguard.io/ignore"]: "numa-node-order,numa-node-alias-mismatch: vendor quirk, see #12"

A suppression without a reason suppresses nothing (rule `suppression-reason-missing` says so).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from webhook.fieldpath import FieldPath
from webhook.findings import Action, Finding, Position
from webhook.policy import Policy
from webhook.rules import CATALOGUE
from webhook.rules.base import RESOURCE_SLICE, Rule, RuleContext
from webhook.rules.meta import IGNORE_ANNOTATION
from webhook.wire import Obj, kind_of

log = logging.getLogger(__name__)


RATCHET_NOTE = " (already present before this update)"
LIST_MEMBERS = ("ints", "bools", "strings", "versions")
LIST_TYPES_HINT = (
    "the cluster runs without the DRAListTypeAttributes feature gate, so the API server dropped the list "
    "value; publish a scalar (int, bool, string, version) or enable the gate"
)


class Locator(Protocol):
    """Where an object's fields are written: a `manifests.Manifest`, a `fastyaml.Doc`, or anything alike."""

    def position(self, path: FieldPath) -> Position | None: ...


@dataclass(slots=True)
class Outcome:
    findings: list[Finding] = field(default_factory=list)
    suppressed: list[Finding] = field(default_factory=list)

    @property
    def denied(self) -> list[Finding]:
        return [f for f in self.findings if f.action is Action.DENY]


def rules_for(kind: str) -> list[Rule]:
    return [rule for rule in CATALOGUE.values() if kind in rule.kinds]


def run_rules(
    obj: Obj,
    policy: Policy,
    *,
    old: Obj | None = None,
    manifest: Locator | None = None,
    slices: Sequence[Obj] = (),
) -> Outcome:
    """Every enabled rule for `obj`'s kind; findings stamped, suppressed and ratcheted, sorted by place."""
    kind = kind_of(obj)
    rules = [rule for rule in rules_for(kind) if policy.action(rule.id) is not Action.OFF]
    if not rules:
        return Outcome()
    dropped: set[str] = set()
    if kind == RESOURCE_SLICE and not policy.list_types and not (old is not None and uses_list_types(old)):
        obj, dropped = drop_list_types(obj)
    findings = _check(rules, obj, RuleContext(policy, slices, old), policy)
    if dropped:
        findings = [_explain_dropped(f, dropped) for f in findings]
    if old is not None:
        findings = _ratchet(findings, rules, old, policy, slices)
    suppressions = parse_suppressions(obj)
    outcome = Outcome()
    for finding in findings:
        if finding.rule in suppressions:
            outcome.suppressed.append(finding)
        else:
            outcome.findings.append(finding)
    if manifest is not None:
        outcome.findings = [_place(f, manifest, obj) for f in outcome.findings]
        outcome.suppressed = [_place(f, manifest, obj) for f in outcome.suppressed]
    outcome.findings.sort(key=sort_key)
    outcome.suppressed.sort(key=sort_key)
    return outcome


def sort_key(finding: Finding) -> tuple[str, int, int, str, str, str]:
    pos = finding.position
    if pos is None:
        return ("", 0, 0, str(finding.path), finding.rule, finding.message)
    return (pos.file, pos.line, pos.column, str(finding.path), finding.rule, finding.message)


def parse_suppressions(obj: Obj) -> frozenset[str]:
    """Rule ids the object's `draguard.io/ignore` annotation suppresses with a reason."""
    text = _annotation(obj)
    if text is None:
        return frozenset()
    rules, reason = split_suppression(text)
    return frozenset(rules) if reason else frozenset()


def split_suppression(text: str) -> tuple[list[str], str]:
    """`"a,b: reason"` -> (["a", "b"], "reason"); no colon means no reason."""
    head, _, reason = text.partition(":")
    return [r.strip() for r in head.split(",") if r.strip()], reason.strip()


def _annotation(obj: Obj) -> str | None:
    meta = obj.get("metadata")
    notes = meta.get("annotations") if isinstance(meta, Mapping) else None
    text = notes.get(IGNORE_ANNOTATION) if isinstance(notes, Mapping) else None
    return text if isinstance(text, str) else None


def _check(rules: Iterable[Rule], obj: Obj, ctx: RuleContext, policy: Policy) -> list[Finding]:
    findings: list[Finding] = []
    for rule in rules:
        action = policy.action(rule.id)
        try:
            findings += [f.stamped(rule.id, action) for f in rule.check(obj, ctx)]
        except Exception as err:  # a rule that raises is a bug; the others still run
            log.error("rule %s failed on %s %r and was skipped (a draguard bug): %s: %s",
                      rule.id, kind_of(obj) or "object", _name(obj), type(err).__name__, err)
            log.debug("rule %s traceback", rule.id, exc_info=True)
    return findings


def _ratchet(
    findings: list[Finding], rules: Iterable[Rule], old: Obj, policy: Policy, slices: Sequence[Obj]
) -> list[Finding]:
    if not any(f.action is Action.DENY for f in findings):
        return findings
    before = {(f.rule, str(f.path), f.message) for f in _check(rules, old, RuleContext(policy, slices), policy)}
    return [
        replace(f, action=Action.WARN, message=f.message + RATCHET_NOTE)
        if f.action is Action.DENY and (f.rule, str(f.path), f.message) in before
        else f
        for f in findings
    ]


def _place(finding: Finding, manifest: Locator, obj: Obj) -> Finding:
    if finding.position is not None:
        return finding
    return replace(finding, position=_position(manifest, source_path(obj, finding.path)))


def _position(locator: Locator, path: FieldPath) -> Position | None:
    """`locator.position(path)`; when the locator fails on a field (ruamel cannot place keys a YAML merge
    `<<` brought in), the nearest ancestor it can place: a finding keeps a line rather than crash the run."""
    steps = list(path.steps())
    for depth in range(len(steps), -1, -1):
        prefix = FieldPath()
        for segment, is_key in steps[:depth]:
            prefix = _append(prefix, segment, is_key)
        try:
            return locator.position(prefix)
        except Exception as err:  # a locator bug; the finding still counts
            log.debug("cannot place %s: %s: %s", prefix, type(err).__name__, err)
    return None


def source_path(obj: Obj, path: FieldPath) -> FieldPath:
    """Where `path` (flat, as the API server names it) sits in the object as written.

    v1beta1 nests device fields under `basic`: `spec.devices[0].attributes` is written at
    `spec.devices[0].basic.attributes`.
    """
    steps = list(path.steps())
    if len(steps) < 4 or steps[0][0] != "spec" or steps[1][0] != "devices" or steps[3][0] == "name":
        return path
    index = steps[2][0]
    spec = obj.get("spec")
    items = spec.get("devices") if isinstance(spec, Mapping) else None
    if not isinstance(index, int) or not isinstance(items, list) or not 0 <= index < len(items):
        return path
    device = items[index]
    if not isinstance(device, Mapping) or not isinstance(device.get("basic"), Mapping):
        return path
    out = FieldPath.root("spec", "devices").index(index).child("basic")
    for segment, is_key in steps[3:]:
        out = _append(out, segment, is_key)
    return out


def _append(path: FieldPath, segment: str | int, is_key: bool) -> FieldPath:
    if isinstance(segment, int):
        return path.index(segment)
    return path.key(segment) if is_key else path.child(segment)


def uses_list_types(slice_: Obj) -> bool:
    """Upstream's draListTypeAttributesFeatureInUse: any attribute of any device sets a list field."""
    return any(
        attribute.get(m) is not None
        for _path, attribute in _attributes(slice_)
        for m in LIST_MEMBERS
    )


def drop_list_types(slice_: Obj) -> tuple[Obj, set[str]]:
    """The slice as an API server without DRAListTypeAttributes stores it: list fields set to nil.

    Returns a copy (only the containers on the way to a changed attribute are copied; the input is left
    alone) and the paths of the attributes that lost a list field.
    """
    from webhook.rules.devices import DEVICES
    from webhook.rules.k8s_names import truncate_if_too_long

    spec = slice_.get("spec")
    items = spec.get("devices") if isinstance(spec, Mapping) else None
    if not isinstance(spec, Mapping) or not isinstance(items, list):
        return slice_, set()
    dropped: set[str] = set()
    devices: list[Any] = []
    for i, device in enumerate(items):
        nested = isinstance(device, Mapping) and isinstance(device.get("basic"), Mapping)  # v1beta1
        body = device["basic"] if nested else device
        attrs = body.get("attributes") if isinstance(body, Mapping) else None
        if not isinstance(attrs, Mapping):
            devices.append(device)
            continue
        kept: dict[str, Any] = {}
        for key, attribute in attrs.items():
            if isinstance(attribute, Mapping) and any(m in attribute for m in LIST_MEMBERS):
                kept[key] = {k: v for k, v in attribute.items() if k not in LIST_MEMBERS}
                dropped.add(str(DEVICES.index(i).child("attributes").key(truncate_if_too_long(str(key), 96))))
            else:
                kept[key] = attribute
        body = {**body, "attributes": kept}
        devices.append({**device, "basic": body} if nested else body)
    return {**slice_, "spec": {**spec, "devices": devices}}, dropped


def _attributes(slice_: Obj) -> Iterable[tuple[FieldPath, Any]]:
    from webhook.rules.devices import attributes, devices

    for path, device in devices(slice_):
        for key, attribute in attributes(device).items():
            if isinstance(attribute, dict):
                yield path.child("attributes").key(str(key)), attribute


def _explain_dropped(finding: Finding, dropped: set[str]) -> Finding:
    if finding.rule == "k8s-attribute-union" and str(finding.path) in dropped:
        return replace(finding, hint=LIST_TYPES_HINT)
    return finding


def _name(obj: Obj) -> str:
    meta = obj.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else None
    return name if isinstance(name, str) else ""
