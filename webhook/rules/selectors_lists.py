"""Selector rules about attributes that are, or may become, lists (KEP-5491). draguard's own.

    fails:  device.attributes["dra.net"].numaNode == 4          (list-fragile-compare; `list == 4` is false)
    passes: device.attributes["dra.net"].numaNode.includes(4)   (true for 4 and for [4, 5])
    fails, with --slices: device.attributes["dra.net"].numaNode.includes(4) on a device without numaNode
          (selector-attribute-missing: "no such key" aborts allocation) unless guarded by has()
    fails, with --slices: device.attributes["gpu.example.com"].model == 4 where devices publish a string
          (selector-type-mismatch: never true)

Why: a driver may publish any attribute as a list once DRAListTypeAttributes is on (KEP-6072 makes
numaNode a list of equidistant nodes). `list == v` is false, `list != v` true, `<`, arithmetic, string
and semver methods and use as a condition are runtime errors, and no error message tells the user why a
pod stays Pending. `x.includes(v)` is `x == v` on a scalar and membership on a list.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from webhook.findings import Action, Edit, Finding
from webhook.inventory import Device, Inventory, Layout, inventory_of
from webhook.rules.base import Rule, RuleContext
from webhook.rules.selectors_cel import GO_FIELDS, WIRE_KEYS, analysed
from webhook.rules.selectors_sites import SELECTOR_KINDS, is_numa
from webhook.wire import Obj

if TYPE_CHECKING:  # celext's engines are imported when the first selector is analysed (cel-python, lark: ~0.1 s)
    from celext import Selector
    from celext.analysis import AttributeRef, Facts, Span, Use

_CONSEQUENCE = {
    "==": "is silently false",
    "!=": "is silently true",
    "in": "is silently false",
}
_ERROR = "is a runtime error (no matching overload) that aborts allocation"
MALFORMED_IDS = WIRE_KEYS | GO_FIELDS
INCLUDES_NOTE = "includes() needs Kubernetes with the DRAListTypeAttributes feature gate"
# A bare identifier other than `device` is a comprehension (or cel.bind) variable: one value, like a literal.
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _inventory(ctx: RuleContext) -> Inventory | None:
    """The devices --slices/--cluster described, when there are any."""
    inventory = inventory_of(ctx.slices) if ctx.slices else None
    return inventory if inventory else None


def _fragile(obj: Obj, ctx: RuleContext) -> Iterator[Finding]:
    if not ctx.policy.list_types:
        return  # lists cannot exist on this cluster (and includes() does not compile there)
    inventory = _inventory(ctx)
    for site, facts in analysed(obj, ctx):
        for use in facts.uses:
            # A malformed read is selector-attribute-reference's finding; a list is not its problem.
            if use.ref.kind != "attributes" or "/" in use.ref.domain or use.ref.name in MALFORMED_IDS:
                continue
            if use.how == "size" and not _may_be_string(use.ref, inventory, ctx):
                continue
            yield _fragile_finding(site.path, facts, use, inventory)


def _may_be_string(ref: AttributeRef, inventory: Inventory | None, ctx: RuleContext) -> bool:
    """Whether `size()` on the attribute may count a string's characters today (and elements once it is a list).

    On an int, bool or version size() is a runtime error already, and on a list everywhere it counts elements
    already: neither changes meaning. The inventory's published types decide; without them, NUMA node ids are
    ints and anything else may be a string (like `==` on an attribute of unknown type)."""
    if inventory is None:
        return not is_numa(ref.qualified, ctx.policy)
    key = ("may-be-string", _ref_key(ref))
    if key not in inventory.memo:  # claims repeat attribute reads; look at each layout once per attribute
        published = [shape for shape, _ in _layouts(inventory) if ref.qualified_on(shape.driver) in shape.names]
        inventory.memo[key] = None if not published else any(
            ref.qualified_on(s.driver) not in s.lists and s.types.get(ref.qualified_on(s.driver), "string")
            == "string" for s in published)
    answer: bool | None = inventory.memo[key]
    return not is_numa(ref.qualified, ctx.policy) if answer is None else answer


def _ref_key(ref: AttributeRef) -> tuple[bool, str]:
    """What `ref.qualified_on(driver)` depends on: two reads with equal keys look up the same attributes."""
    return (ref.by_driver, ref.name if ref.by_driver else ref.qualified)


def _layouts(inventory: Inventory) -> list[tuple[Layout, list[int]]]:
    """The inventory's layouts with the positions of their devices (selectors_outcomes groups them once)."""
    from webhook.rules.selectors_outcomes import projections

    return projections(inventory).shapes(inventory.devices)


def _list_devices(ref: AttributeRef, inventory: Inventory | None) -> tuple[int, str]:
    """How many devices publish the attribute `ref` reads as a list (for `device.driver`: each its own domain's),
    and the first one's label."""
    if inventory is None:
        return 0, ""
    key = ("list-devices", _ref_key(ref))
    if key not in inventory.memo:
        found = [ix for shape, ix in _layouts(inventory) if ref.qualified_on(shape.driver) in shape.lists]
        first = min(ix[0] for ix in found) if found else -1
        inventory.memo[key] = (sum(map(len, found)), inventory.devices[first].label if found else "")
    counted: tuple[int, str] = inventory.memo[key]
    return counted


def _fragile_finding(path: object, facts: Facts, use: Use, inventory: Inventory | None) -> Finding:
    from webhook.fieldpath import FieldPath

    assert isinstance(path, FieldPath)
    name = use.ref.qualified
    if use.how == "method":
        what = f"`.{use.method}()` on {name}"
        consequence = _ERROR
    elif use.how == "argument":
        what = f"{name} passed to `{use.method}()`"
        consequence = "is silently false" if use.method in ("includes", "include") else _ERROR
    elif use.how == "arithmetic":
        what = f"`{use.method}` on {name}"
        consequence = _ERROR
    elif use.how == "size":
        what = f"`size()` on {name}"
        consequence = "silently counts elements instead of characters"
    elif use.how == "bool":
        what = f"{name} used as a condition"
        consequence = "is a runtime error (a list is not a bool)"
    else:
        what = f"`{use.how}` on {name}"
        consequence = _CONSEQUENCE.get(use.how, _ERROR)
    if use.unwrap is not None:  # `.orValue(d)`/`.value()` hand on the attribute value, list or not
        what += f" (read with `.{use.unwrap.method}()`)"
    lists, first = _list_devices(use.ref, inventory)
    if lists:
        when = f"{name} is a list on {lists} device(s) in the inventory (e.g. {first}), where this"
        message = f"{what}: {when} {consequence}"
    else:
        message = f"{what} {consequence} once the driver publishes it as a list"
    replacement = _rewrite(facts, use)
    point = use.operator or use.operand
    if replacement is None:
        return Finding(path, message, hint=_manual_hint(facts, use), span=(point.start, point.end))
    start, end, text = replacement
    shown = use.operand.text(facts.expression) + text if use.how == "bool" else text
    return Finding(path, message, hint=f"{_short(shown)}   (safe fix: draguard lint --fix; {INCLUDES_NOTE})",
                   fix=Edit(start, end, text), span=(point.start, point.end))


def _operand(facts: Facts, use: Use) -> str:
    """The attribute-side operand text of a comparison (parentheses kept)."""
    assert use.operator is not None
    if use.attribute_left:
        return facts.expression[use.span.start:use.operator.start].strip()
    return facts.expression[use.operator.end:use.span.end].strip()


def _rewrite(facts: Facts, use: Use) -> tuple[int, int, str] | None:
    """The includes() form that means the same on a scalar and the intended thing on a list."""
    from celext.analysis import has_comment

    expression = facts.expression
    if not _fallback_keeps_meaning(use):
        return None
    if use.how == "bool":
        return use.operand.end, use.operand.end, ".includes(true)"
    if use.operator is None or use.other is None:
        return None
    text = use.span.text(expression)
    if "//" in text and has_comment(text):  # no `//`, no comment: skips the character-by-character scan
        return None  # a rewrite would move code behind the comment
    attribute = _operand(facts, use)
    other = use.other.text(expression).strip()
    if use.how in ("==", "!=") and (use.literal is not None or other.startswith("semver(") or _is_variable(other)):
        call = f"{attribute}.includes({other})"
        return use.span.start, use.span.end, call if use.how == "==" else f"!{call}"
    if use.how == "in" and use.attribute_left and use.literals is not None:
        var = facts.variable_free("v")
        return use.span.start, use.span.end, f"{other}.exists({var}, {attribute}.includes({var}))"
    return None


def _fallback_keeps_meaning(use: Use) -> bool:
    """`x.?id.orValue(d)`: where the attribute is absent the rewrite applies includes() to `d`, which is `==`
    only for a scalar `d` (and a condition only for a bool); draguard knows that for a literal only."""
    if use.unwrap is None or use.unwrap.method == "value":
        return True
    fallback = use.unwrap.fallback_literal
    return isinstance(fallback, bool) if use.how == "bool" else fallback is not None


def _is_variable(text: str) -> bool:
    return _VARIABLE.fullmatch(text) is not None and text != "device"


def _manual_hint(facts: Facts, use: Use) -> str:
    ref = use.operand.text(facts.expression)
    scalar_note = "keep a scalar-only form only if the driver documents a scalar"
    if not _fallback_keeps_meaning(use) and use.how in ("==", "!=", "in", "bool"):
        read = use.ref.span.text(facts.expression)
        wanted = "a bool literal" if use.how == "bool" else "a scalar literal"
        return (f"compare with includes() and {wanted} as the fallback: {read}.orValue(<value>).includes(...) "
                f"(where the attribute is absent, includes() tests the fallback: membership if it is a list)")
    if use.how == "size":
        return (f"for a list: {ref}.exists(v, size(v) ...) tests each string's length; keep size() on the value only "
                f"if the driver documents a string")
    if use.how == "method":
        return f"for a list: {ref}.exists(v, v.{use.method}(...)); {scalar_note}"
    if use.how == "argument":
        if use.method in ("includes", "include"):
            return f"for a list: {ref}.exists(v, <list>.includes(v)); {scalar_note}"
        return f"for a list: {ref}.exists(v, ...{use.method}(v)...); {scalar_note}"
    if use.how == "arithmetic":
        return f"for a list: {ref}.exists(v, ... v {use.method} ...); {scalar_note}"
    if use.how in ("<", "<=", ">", ">="):
        return f"for a list: {ref}.exists(v, v {use.how} ...); or compare with includes() on exact values"
    return f"compare with includes(): {ref}.includes(<value>)"


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _type_mismatch(obj: Obj, ctx: RuleContext) -> Iterator[Finding]:
    """With an inventory: `==`, `!=`, `in` and includes() with a literal of a type the attribute never has."""
    inventory = _inventory(ctx)
    if inventory is None:
        return
    for site, facts in analysed(obj, ctx):
        for ref, how, values, point in _literal_comparisons(facts):
            key = ("published-types", site.device_class, _ref_key(ref))
            if key not in inventory.memo:
                counted: Counter[str] = Counter()  # in order of the first device of each type (most_common ties)
                for driver, types, devices in _type_groups(inventory, site.device_class):
                    if (qualified := ref.qualified_on(driver)) in types:
                        counted[types[qualified]] += devices
                inventory.memo[key] = counted
            published: Counter[str] = inventory.memo[key]
            wanted = {_literal_type(v) for v in values}
            if not published or wanted & published.keys():
                continue
            kind, count = published.most_common(1)[0]
            shown = ", ".join(sorted(wanted))
            if how in ("==", "!=") and "version" in (kind, *wanted):
                outcome = "a runtime error (no such overload) that aborts allocation"  # Semver.Equal upstream
            else:
                outcome = "always true" if how == "!=" else "always false"
            yield Finding(
                site.path,
                f"{ref.qualified} is {_a(kind)} {kind} on every candidate device that publishes it ({count}); "
                f"`{how}` with {_a(shown)} {shown} value never matches it, so this is {outcome}",
                hint=_type_hint(kind, values),
                span=(point.start, point.end),
            )


def _type_groups(inventory: Inventory, device_class: str) -> list[tuple[str, Mapping[str, str], int]]:
    """The class's candidates as (driver, published types, how many devices), in order of the first device:
    devices of one model share their types mapping (webhook.inventory.layout), so a fleet has a handful."""
    from webhook.rules.selectors_outcomes import candidates, projections

    key = ("type-groups", device_class)
    if key not in inventory.memo:
        groups: dict[tuple[str, int], list[Any]] = {}
        for shape, indexes in projections(inventory).shapes(candidates(inventory, device_class)):
            group = groups.setdefault((shape.driver, id(shape.types)), [shape.driver, shape.types, 0])
            group[2] += len(indexes)
        inventory.memo[key] = [(driver, types, devices) for driver, types, devices in groups.values()]
    found: list[tuple[str, Mapping[str, str], int]] = inventory.memo[key]
    return found


def _literal_comparisons(facts: Facts) -> Iterator[tuple[AttributeRef, str, tuple[object, ...], Span]]:
    """(attribute, operator or method, the literal values it is compared with, where) for typed comparisons."""
    for use in facts.uses:
        if use.ref.kind != "attributes" or use.how not in ("==", "!=", "in") or use.operator is None:
            continue
        values = use.literals if use.how == "in" else _values(use.literal, use.other, facts.expression)
        if values:
            yield use.ref, use.how, values, use.operator
    for call in facts.calls:
        if call.name == "includes" and call.ref is not None and call.ref.kind == "attributes" and call.args:
            values = _values(call.literal_args[0], call.args[0], facts.expression)
            if values:
                yield call.ref, "includes()", values, call.name_span


def _values(literal: object, other: Span | None, expression: str) -> tuple[object, ...]:
    if literal is not None:
        return (literal,)
    if other is not None and other.text(expression).strip().startswith("semver("):
        return (_SEMVER,)
    return ()


class _Semver:
    """Stands for a `semver(...)` operand: a version value."""


_SEMVER = _Semver()


def _literal_type(value: object) -> str:
    if isinstance(value, _Semver):
        return "version"
    if isinstance(value, bool):
        return "bool"
    return "int" if isinstance(value, int) else "string"


def _a(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def _type_hint(kind: str, values: tuple[object, ...]) -> str:
    if kind == "version" and any(isinstance(v, str) for v in values):
        text = next(v for v in values if isinstance(v, str))
        return f'a version attribute equals only a version: compare with semver("{text}")'
    return f"compare with {_a(kind)} {kind} value, or check the attribute name"


def _missing(obj: Obj, ctx: RuleContext) -> Iterator[Finding]:
    """With an inventory: evaluate each selector on its candidate devices; report failing lookups."""
    inventory = _inventory(ctx)
    if inventory is None:
        return
    for site, facts in analysed(obj, ctx):
        if not facts.refs:
            continue
        key = (facts.expression, site.device_class)
        if key not in inventory.memo:  # repositories repeat selectors; evaluate each pair once
            inventory.memo[key] = _absent(facts, inventory, site.device_class)
        absent, candidates = inventory.memo[key]
        for qualified, (count, first) in absent.items():
            ref = next(r for r in facts.refs if r.qualified == qualified and _can_fail(r))
            text = ref.span.text(facts.expression)
            if ref.dereferenced:
                failure = f"`{text}.value()` fails there with optional.none() dereference"
                hint = f"guard the read: {text}.hasValue() && ..., or give a default: {text}.orValue(<default>)"
            else:
                failure = f"`{text}` fails there with no such key"
                hint = f"guard the read: has({text}) && ..."
            yield Finding(
                site.path,
                f"{qualified} is absent on {count} of {candidates} candidate device(s) (e.g. {first}): "
                f"{failure}, which aborts allocation for the claim",
                hint=hint,
                span=(ref.span.start, ref.span.end),
            )


def _can_fail(ref: AttributeRef) -> bool:
    """A read that fails where the attribute is absent: not a has()/hasValue() guard, and not an optional read
    (`.?id` is optional.none() there) unless its `.value()` is taken."""
    return not ref.in_guard and (not ref.optional or ref.dereferenced)


def _absent(facts: Facts, inventory: Inventory, device_class: str) -> tuple[dict[str, tuple[int, str]], int]:
    """Attribute -> (how many candidate devices reading it fails on, the first one's label), in order of that
    first device; and the candidate count.

    The selector is evaluated on each candidate that lacks an attribute it reads, so a has() guard counts
    only where it really protects the read (`has(x) && x...`, not `has(x) || x...`). Candidates that publish
    the same names and have the same projection on what the selector reads fail the same way: each such
    group is evaluated once, and groups that lack the same reads with equal projections share that
    evaluation (selectors_outcomes)."""
    import celext
    from webhook.rules.selectors_outcomes import candidates, keyed, projections

    try:
        selector = celext.compile(facts.expression)
    except celext.CELError:
        return {}, 0  # selector-compile reports it
    refs = [r for r in facts.refs if _can_fail(r)]
    names = [None if r.by_driver else r.qualified for r in refs]  # what each looks up (per driver: None)
    capacity = [r.kind == "capacity" for r in refs]
    listed = candidates(inventory, device_class)
    failing: dict[object, str | None] = {}
    hits: dict[str, list[tuple[int, ...]]] = {}

    lacks: dict[int, tuple[int, ...]] = {}  # id(layout) -> lacking_of(it): asked of a layout and of its groups

    def lacking_of(shape: Layout) -> tuple[int, ...]:  # a layout decides it: its driver and published names
        found = lacks.get(id(shape))
        if found is None:
            found = lacks[id(shape)] = tuple(i for i, name in enumerate(names)
                                             if (name or refs[i].qualified_on(shape.driver))
                                             not in (shape.capacities if capacity[i] else shape.names))
        return found

    for group in projections(inventory).groups(listed, keyed(selector), where=lambda s: bool(lacking_of(s))):
        device = group.first
        lacking = lacking_of(device.layout)
        if group.key is None:
            qualified = _failing_read(selector, [refs[i] for i in lacking], device)
        else:
            key = (lacking, group.key)
            if key in failing:
                qualified = failing[key]
            else:
                qualified = failing[key] = _failing_read(selector, [refs[i] for i in lacking], device)
        if qualified is not None:
            hits.setdefault(qualified, []).append(group.indexes)
    # Groups come in order of their first device, so each attribute's first group holds its first device.
    absent = {q: (sum(map(len, found)), listed[found[0][0]].label) for q, found in hits.items()}
    return absent, len(listed)


def _failing_read(selector: Selector, unguarded: list[AttributeRef], device: Device) -> str | None:
    """Which of the unguarded reads the device lacks makes the selector fail there, if one does."""
    from webhook.rules.selectors_outcomes import outcome

    answer = outcome(selector, device)
    if answer is True or answer is False:
        return None
    for ref in unguarded:
        if ref.name in answer or (ref.dereferenced and "optional.none()" in answer):
            return ref.qualified
    return None


RULES = (
    Rule("list-fragile-compare", SELECTOR_KINDS, Action.WARN,
         "selectors compare attributes in a form that also works once the attribute is a list",
         "use x.includes(v) instead of x == v (!x.includes(v) for !=); for <, string and semver methods use "
         "x.exists(...) once the driver publishes a list", _fragile),
    Rule("selector-type-mismatch", SELECTOR_KINDS, Action.WARN,
         "with an inventory: selectors compare attributes with values of the type the devices publish",
         "compare with a value of the attribute's type (semver(\"...\") for a version); a mismatch never matches",
         _type_mismatch),
    Rule("selector-attribute-missing", SELECTOR_KINDS, Action.WARN,
         "with an inventory: attributes a selector reads exist on every candidate device, or are guarded by has()",
         "guard optional attributes with has(device.attributes[\"<domain>\"].<id>) && ...", _missing),
)
