"""run_rules(): one object through the catalogue, with the policy's actions, suppressions and ratcheting.

    rules (pure) -> findings -> stamp rule id, action, position -> suppress -> ratchet (UPDATE) -> sort

Ratcheting, as the API server does for fields it newly validates: on UPDATE a deny finding that the old
object already had (same rule, path and message) is demoted to warn, so an unrelated edit to an object
that was admitted under older rules is not blocked. Suppression is per object, by annotation:

    metadata.annotations["draguard.io/ignore"]: "numa-node-order,numa-node-alias-mismatch: vendor quirk, see #12"

A suppression without a reason suppresses nothing (rule `suppression-reason-missing` says so).

Fail closed: a rule that raises becomes a `rule-error` finding (deny by default), and an object that costs
more than its `Budget` a `budget-exceeded` finding; neither is suppressed or ratcheted (`webhook.rules.runner`).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterable, Mapping, Sequence

from msgspec import Struct, field
from msgspec.structs import replace

from webhook.budget import UNLIMITED, Budget, BudgetExceeded, CompileCacheBudget, Meter, metered
from webhook.fieldpath import FieldPath
from webhook.findings import Action, Finding, Position
from webhook.manifests.objects import Locator
from webhook.policy import Policy
from webhook.rules import CATALOGUE
from webhook.rules.base import RESOURCE_SLICE, Rule, RuleContext
from webhook.rules.k8s.gates import drop_list_attributes
from webhook.rules.k8s.ids import Errors
from webhook.rules.runner import BUDGET_EXCEEDED, RULE_ERROR
from webhook.rules.selectors_sites import written_request_path
from webhook.suppress import suppressed
from webhook.wire import Obj, kind_of, plain

log = logging.getLogger(__name__)


RATCHET_NOTE = " (already present before this update)"
RUNNER_RULES = frozenset({RULE_ERROR, BUDGET_EXCEEDED})  # reported by the runner: never suppressed or ratcheted
ERROR_TEXT_CHARS = 200  # an exception's text can quote the object: only this much of it reaches a message


class Outcome(Struct):
    findings: list[Finding] = field(default_factory=list)
    suppressed: list[Finding] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # ids of the rules that raised on the object

    @property
    def denied(self) -> list[Finding]:
        return [f for f in self.findings if f.action is Action.DENY]


def rules_for(kind: str) -> list[Rule]:
    return list(_rules_for(kind))


@functools.cache
def _rules_for(kind: str) -> tuple[Rule, ...]:
    """The catalogue's rules for `kind` (the catalogue is fixed at import: asked once per kind)."""
    return tuple(rule for rule in CATALOGUE.values() if kind in rule.kinds)


def enabled_rules(kind: str, policy: Policy) -> tuple[Rule, ...]:
    """The rules `policy` runs on `kind` (not off, not the runner's own), worked out once per policy and kind
    rather than per object: the webhook asks for the same few on every request. Keyed by `rules_for` as
    looked up now, since tests replace it."""
    source = rules_for
    key = ("enabled-rules", kind, source)
    rules: tuple[Rule, ...] | None = policy.memo.get(key)
    if rules is None:
        rules = policy.memo[key] = tuple(
            rule for rule in source(kind) if rule.id not in RUNNER_RULES and policy.action(rule.id) is not Action.OFF)
    return rules


def run_rules(
    obj: Obj,
    policy: Policy,
    *,
    old: Obj | None = None,
    manifest: Locator | None = None,
    slices: Sequence[Obj] = (),
    budget: Budget = UNLIMITED,
    compile_cache: CompileCacheBudget | None = None,
) -> Outcome:
    """Every enabled rule for `obj`'s kind; findings stamped, suppressed and ratcheted, sorted by place.

    `budget` bounds the work (the webhook passes one; the CLI runs unlimited); `compile_cache` is told which
    selector expressions the object makes celext compile.
    """
    rules = enabled_rules(kind_of(obj), policy)
    if not rules:
        return Outcome()
    outcome = Outcome()
    try:
        with metered(budget) as meter:
            if budget.selectors or compile_cache is not None:
                expressions = selector_expressions(obj, policy) | (
                    selector_expressions(plain(old), policy) if old else set())
                budget.check_selectors(len(expressions))
                if compile_cache is not None:
                    compile_cache.note(expressions)
            findings = _evaluate(rules, obj, policy, old=old, slices=slices, meter=meter, errors=outcome.errors)
    except BudgetExceeded as err:
        finding = Finding(FieldPath(), err.message).stamped(BUDGET_EXCEEDED, policy.action(BUDGET_EXCEEDED))
        findings = [finding] if finding.action is not Action.OFF else []
    suppressions = suppressed(obj) - RUNNER_RULES
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


def _evaluate(
    rules: Sequence[Rule], obj: Obj, policy: Policy, *, old: Obj | None, slices: Sequence[Obj], meter: Meter,
    errors: list[str],
) -> list[Finding]:
    dropped: Errors = []
    if kind_of(obj) == RESOURCE_SLICE:  # every rule judges the list attributes the API server stores
        obj, dropped = drop_list_attributes(obj, old, policy.profile)
    ctx = RuleContext(policy, slices, old, dropped=tuple(dropped))
    findings = _check(rules, obj, ctx, policy, meter=meter, errors=errors)
    if old is not None:
        findings = _ratchet(findings, rules, old, policy, slices=slices, meter=meter)
    return findings


def selector_expressions(obj: Obj, policy: Policy) -> set[str]:
    """The distinct selector expressions in a claim, claim template or device class (empty for other kinds)."""
    from webhook.rules.selectors_sites import SELECTOR_KINDS, sites

    if kind_of(obj) not in SELECTOR_KINDS:
        return set()
    return {site.expression for site in sites(obj, RuleContext(policy)) if site.expression is not None}


def sort_key(finding: Finding) -> tuple[str, int, int, str, str, str]:
    pos = finding.position
    if pos is None:
        return ("", 0, 0, str(finding.path), finding.rule, finding.message)
    return (pos.file, pos.line, pos.column, str(finding.path), finding.rule, finding.message)


def _check(
    rules: Iterable[Rule], obj: Obj, ctx: RuleContext, policy: Policy, *, meter: Meter, errors: list[str] | None
) -> list[Finding]:
    """Each rule's findings, stamped. A rule that raises is a draguard bug: it is logged, its id goes to
    `errors`, and (when `errors` is given, i.e. for the object under review) it becomes a `rule-error` finding."""
    findings: list[Finding] = []
    check = meter.check if meter.checking else None  # one call per rule saved where there is nothing to check
    for rule in rules:
        if check is not None:
            check()
        try:
            found = list(rule.check(obj, ctx))
            if found:  # most rules find nothing: the action is looked up for those that do
                action = policy.action(rule.id)
                findings += [f.stamped(rule.id, action) for f in found]
        except Exception as err:  # fail closed: the object was not checked by this rule
            log.error("rule %s failed on %s %r (a draguard bug): %s: %s",
                      rule.id, kind_of(obj) or "object", _name(obj)[:ERROR_TEXT_CHARS], type(err).__name__,
                      _clip(str(err)))
            log.debug("rule %s traceback", rule.id, exc_info=True)
            if errors is not None:
                errors.append(rule.id)
                findings.append(rule_error(rule.id, err, policy))
    return [f for f in findings if f.action is not Action.OFF]


def rule_error(rule_id: str, err: Exception, policy: Policy) -> Finding:
    """The `rule-error` finding for rule `rule_id` raising `err` (its text cut to ERROR_TEXT_CHARS)."""
    text = _clip(str(err))
    message = f"rule {rule_id} could not check this object: {type(err).__name__}" + (f": {text}" if text else "")
    return Finding(FieldPath(), message, hint="a draguard bug: please report it with this message").stamped(
        RULE_ERROR, policy.action(RULE_ERROR))


def _clip(text: str) -> str:
    return text if len(text) <= ERROR_TEXT_CHARS else text[: ERROR_TEXT_CHARS - 1] + "…"


def _ratchet(
    findings: list[Finding], rules: Iterable[Rule], old: Obj, policy: Policy, *, slices: Sequence[Obj], meter: Meter
) -> list[Finding]:
    if not any(f.action is Action.DENY and f.rule not in RUNNER_RULES for f in findings):
        return findings
    old = plain(old)  # every rule reads the old object now: decoded whole, as the object under review is
    checked = _check(rules, old, RuleContext(policy, slices), policy, meter=meter, errors=None)
    before = {(f.rule, str(f.path), f.message) for f in checked}
    return [
        replace(f, action=Action.WARN, message=f.message + RATCHET_NOTE)
        if f.action is Action.DENY and f.rule not in RUNNER_RULES and (f.rule, str(f.path), f.message) in before
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
    """Where `path` (as the API server names it) sits in the object as written.

    v1beta1 nests a slice's device fields under `basic`: `spec.devices[0].attributes` is written at
    `spec.devices[0].basic.attributes`. And the other way round for claims: the server validates a v1beta1
    request converted, its own fields under `exactly` (`spec.devices.requests[0].exactly.selectors[0]...`), where
    the file has them on the request itself (`spec.devices.requests[0].selectors[0]...`).
    """
    claim_side = written_request_path(obj, path)
    if claim_side is not None:
        return claim_side
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


def _name(obj: Obj) -> str:
    meta = obj.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else None
    return name if isinstance(name, str) else ""
