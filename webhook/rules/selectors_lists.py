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

import functools
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from webhook.findings import Action, Edit, Finding
from webhook.inventory import Device, Inventory, Layout, inventory_of
from webhook.rules.base import Rule, RuleContext
from webhook.rules.selectors_cel import GO_FIELDS, WIRE_KEYS, analysed
from webhook.rules.selectors_sites import SELECTOR_KINDS, is_numa
from webhook.wire import Obj
from webhook.words import with_article

if TYPE_CHECKING:  # celext's engines are imported when the first selector is analysed (cel-python, lark: ~0.1 s)
    from celext import Selector
    from celext.analysis import AttributeRef, Facts, Span, Use

_CONSEQUENCE = {
    "==": "is silently false",
    "!=": "is silently true",
    "in": "is silently false",
}
_CLAIM_KINDS = frozenset({"ResourceClaim", "ResourceClaimTemplate"})
STANDARD_NUMA_NAME = "resource.kubernetes.io/numaNode"
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
        told: set[tuple[tuple[int, int] | None, str]] = set()
        for use in facts.uses:
            # A malformed read is selector-attribute-reference's finding; a list is not its problem.
            if use.ref.kind != "attributes" or "/" in use.ref.domain or use.ref.name in MALFORMED_IDS:
                continue
            if use.how == "size" and not _may_be_string(use.ref, inventory, ctx):
                continue
            if use.how == "!=" and use.literal == -1 and is_numa(use.ref.qualified, ctx.policy):
                continue  # `!= -1`, "has a known NUMA node": true on a list too, as meant (selector-numa-pinned too)
            finding = _fragile_finding(site.path, facts, use, inventory, site.device_class)
            if (finding.span, finding.message) not in told:  # `x == x`: both sides are one finding at the `==`
                told.add((finding.span, finding.message))
                yield finding


# Member calls that are not list-only reads: includes() works on both forms, the optional unwrapping hands the
# value on, and methods of a scalar type are list-fragile-compare's (`"method"` uses).
_BOTH_FORMS = frozenset({"includes", "include", "orValue", "value", "hasValue", "or"})
_IN_WORD = re.compile(r"(?<![\w.])in(?!\w)")  # the `in` operator may be there: parse the expression
_CONCAT_AFTER = re.compile(r"\s*\+\s*\[")
_CONCAT_BEFORE = re.compile(r"\]\s*\+\s*$")
_EXISTS_EQ = re.compile(r"^\s*([A-Za-z_]\w*)\s*,\s*(?:\1\s*==\s*(-?\d+)|(-?\d+)\s*==\s*\1)\s*$")


def _list_only(obj: Obj, ctx: RuleContext) -> Iterator[Finding]:
    """Reads of a NUMA attribute that work only on the KEP-6072 list form: a driver may publish the scalar
    (`int: N`), where each of them is a runtime error ("no such overload") that aborts allocation."""
    inventory = _inventory(ctx)
    for site, facts in analysed(obj, ctx):
        expression = facts.expression
        for what, ref, span, hint in _list_only_reads(facts, ctx):
            name = ref.qualified
            scalars, first = _list_devices(ref, inventory, site.device_class, scalar=True)
            if scalars:
                where = "candidate device(s)" if site.device_class and inventory is not None and \
                    site.device_class in inventory.classes else "device(s) in the inventory"
                message = (f"{what} on {name} reads it as a list, but {name} is a scalar int on {scalars} {where} "
                           f"(e.g. {first}), where this is a runtime error (no such overload) that aborts allocation")
            else:
                message = (f"{what} on {name} reads it as a list; KEP-6072 lets a driver publish the scalar form "
                           f"(`int: N`), where this is a runtime error (no such overload) that aborts allocation")
            read = ref.span.text(expression)
            yield Finding(site.path, message,
                          hint=hint or f"no rewrite keeps this meaning on both forms: write the selector for both "
                                       f"(KEP-6072), e.g. with {read}.includes(<node>), which is equality on a scalar "
                                       f"and membership in a list",
                          span=(span.start, span.end))


def _list_only_reads(facts: Facts, ctx: RuleContext) -> Iterator[tuple[str, AttributeRef, Span, str]]:
    """(what the selector does, the read, where, a hint with the includes() form or "") for each list-only read
    of a NUMA attribute: `x[i]`, `N in x`, `size(x)`/`x.size()`, list methods and macros (`x.exists(...)`)."""
    from celext.analysis import Span

    expression = facts.expression
    methods = {(u.ref.span, u.method) for u in facts.uses if u.how == "method"}
    sized = {u.ref.span for u in facts.uses if u.how == "size"}
    numa_reads = {ref.span: ref for ref in facts.refs if not ref.in_guard and _numa_value(ref, ctx)}
    containers = _in_containers(expression) if numa_reads and _IN_WORD.search(expression) else None
    for ref in numa_reads.values():
        read = ref.span.text(expression)
        after = expression[ref.span.end:]
        if after.lstrip().startswith("["):
            yield "an index `[...]`", ref, ref.span, ""
            continue
        before = expression[:ref.span.start]
        member = containers.get(ref.span) if containers is not None else None
        if member is not None:
            start, node = member
            hint = f"{read}.includes({node})   (membership in a list, equality with a scalar)" \
                if node is not None else ""
            yield "`in`", ref, Span(start, ref.span.end), hint
            continue
        if ref.span in sized and ref.span not in {u.ref.span for u in facts.uses if u.how == "size" and
                                                  _may_be_string(u.ref, _inventory(ctx), ctx)}:
            yield "`size()`", ref, ref.span, ""
            continue
        if _CONCAT_AFTER.match(after) or _after_list_literal(before):  # `x + [..]`: only lists concatenate
            yield "`+` with a list", ref, ref.span, ""
    for call in facts.calls:  # sets.contains(x, [..]), ...: the sets library takes lists only
        if call.receiver is not None and call.receiver.text(expression) == "sets":
            for arg in call.args:
                if arg in numa_reads:
                    yield f"`sets.{call.name}()`", numa_reads[arg], arg, ""
    for call in facts.calls:
        called = call.ref
        if (called is None or not _numa_value(called, ctx) or call.name in _BOTH_FORMS or call.name == "size"
                or (called.span, call.name) in methods):
            continue
        hint = ""
        if call.name == "exists" and call.args:
            body = expression[call.args[0].start:call.args[-1].end]
            match = _EXISTS_EQ.match(body)
            if match:
                hint = (f"{called.span.text(expression)}.includes({match.group(2) or match.group(3)})   "
                        f"(membership in a list, equality with a scalar)")
        yield f"`.{call.name}()`", called, call.name_span, hint


@functools.lru_cache(maxsize=1024)
def _in_containers(expression: str) -> Mapping[Span, tuple[int, int | None]]:
    """The right operand of each `a in b`, seen through parentheses and `dyn()` (which hand a value on
    unchanged), by its span -> where the finding starts (`a` when it is an int literal, else `in`) and that int.
    From the parse tree, so comments and line breaks between `in` and the read change nothing: the lean tree the
    facts were read from (parsed once, cached), with their spans; once per expression text (shared: never mutate)."""
    from celext.analysis import literal_value, unwrap
    from celext.analysis.spans import LazySpans
    from celext.syntax.grammar import parse_lean
    from celext.syntax.nodes import Tree

    tree = parse_lean(expression).tree
    spans = LazySpans(expression, tree)
    found: dict[Span, tuple[int, int | None]] = {}
    for node in tree.iter_subtrees():
        if node.data != "relation" or len(node.children) != 2:
            continue
        op, right = node.children
        if not isinstance(op, Tree) or op.data != "relation_in":
            continue
        inner = unwrap(right)
        while isinstance(inner, Tree) and inner.data == "ident_arg" and str(inner.children[0]) == "dyn":
            args = inner.children[1] if len(inner.children) == 2 else None
            if not isinstance(args, Tree) or len(args.children) != 1:
                break
            inner = unwrap(args.children[0])  # dyn(x): x itself
        value = literal_value(op.children[0])
        node_id = value if isinstance(value, int) and not isinstance(value, bool) else None
        start = spans(op.children[0]).start if node_id is not None else spans(op).end - len("in")
        found[spans(inner)] = (start, node_id)
    return found


def _numa_value(ref: AttributeRef, ctx: RuleContext) -> bool:
    """A well-formed, non-optional read of a NUMA attribute's value (what list-only-read judges)."""
    return (ref.kind == "attributes" and not ref.optional and "/" not in ref.domain
            and ref.name not in MALFORMED_IDS and is_numa(ref.qualified, ctx.policy))


def _after_list_literal(before: str) -> bool:
    """Whether `before` ends with `[..] +`: a list literal, not an index (`x[0] +`), as the left operand."""
    match = _CONCAT_BEFORE.search(before)
    if match is None:
        return False
    depth = 0
    for i in range(match.start(), -1, -1):  # from the `]` back to its `[`
        depth += {"]": 1, "[": -1}.get(before[i], 0)
        if depth == 0:
            left = before[:i].rstrip()
            return not left or left[-1] in "([{,:?!&|+-*/%<>="  # an operand starts here: a literal
    return False


def _distinct_numa(obj: Obj, ctx: RuleContext) -> Iterator[Finding]:
    """Without an inventory: `distinctAttribute: resource.kubernetes.io/numaNode`, which stops fitting devices of
    one socket once their drivers publish the KEP-6072 list (constraint-distinct-list judges it with one)."""
    from webhook.rules.selectors_sites import STANDARD_NUMA, constraints

    if not ctx.policy.list_types or _inventory(ctx) is not None:
        return
    for constraint in constraints(obj, ctx):
        if constraint.field == "distinctAttribute" and constraint.name == STANDARD_NUMA:
            yield Finding(
                constraint.path,
                f"distinctAttribute {constraint.name}: once drivers publish the KEP-6072 list form, devices on "
                f"the same socket publish intersecting lists, and distinctAttribute on lists needs them pairwise "
                f"disjoint (KEP-5491), so two devices of one socket can never be allocated together",
                hint="check with --slices (constraint-distinct-list); to spread devices over sockets, distinguish "
                     "them by a per-socket attribute your drivers publish",
            )


def _distinct_lists(obj: Obj, ctx: RuleContext) -> Iterator[Finding]:
    """`distinctAttribute` over an attribute published as a list: KEP-5491 makes it "pairwise disjoint", and the
    KEP-6072 numaNode lists of devices on one socket always intersect, so such devices never fit together."""
    from webhook.rules.selectors_sites import constraints

    inventory = _inventory(ctx)
    if not ctx.policy.list_types or inventory is None:
        return
    for constraint in constraints(obj, ctx):
        if constraint.field != "distinctAttribute" or "/" not in constraint.name:
            continue
        pair = _intersecting(inventory, constraint.name, _constraint_classes(obj, constraint.path))
        if pair is not None:
            (a, va), (b, vb), shared = pair
            yield Finding(
                constraint.path,
                f"distinctAttribute {constraint.name} is a list on devices in the inventory whose lists intersect "
                f"(e.g. {a} {_show(va)} and {b} {_show(vb)} share {{{', '.join(map(str, shared))}}}); on lists it "
                f"needs pairwise disjoint values (KEP-5491), so these devices can never be allocated together",
                hint="distinctAttribute cannot separate devices whose lists intersect; use an attribute that differs "
                     "between them, or drop the constraint",
            )


def _show(values: list[Any]) -> str:
    return "[" + ", ".join(map(str, values)) + "]"


def _constraint_classes(obj: Obj, path: object) -> set[str] | None:
    """The DeviceClass names of the requests a constraint names (all requests when it names none); None when one
    of them is unknown (its candidates are then every device)."""
    from webhook.rules.selectors_sites import devices_root

    root = devices_root(obj)
    if root is None:
        return None
    devices = root[1]
    constraint: Any = None
    position = _constraint_index(str(path))
    raw_list = devices.get("constraints") or []
    if position is not None and isinstance(raw_list, list) and position < len(raw_list):
        constraint = raw_list[position]
    wanted = constraint.get("requests") if isinstance(constraint, dict) else None
    names = {n for n in wanted if isinstance(n, str)} if isinstance(wanted, list) and wanted else None
    classes: set[str] = set()
    for request in devices.get("requests") or []:
        name = request.get("name") if isinstance(request, dict) else None
        if not isinstance(request, dict) or (names is not None and (not isinstance(name, str) or name not in names)):
            continue
        for holder in (request, request.get("exactly"), *(request.get("firstAvailable") or [])):
            if isinstance(holder, dict) and isinstance(holder.get("deviceClassName"), str):
                classes.add(holder["deviceClassName"])
    return classes or None


def _constraint_index(path: str) -> int | None:
    match = re.search(r"constraints\[(\d+)\]", path)
    return int(match.group(1)) if match else None


def _intersecting(inventory: Inventory, qualified: str, classes: set[str] | None
                  ) -> tuple[tuple[str, list[Any]], tuple[str, list[Any]], list[Any]] | None:
    """Two candidate devices of one pool whose lists of `qualified` intersect, and what they share."""
    from webhook.rules.selectors_outcomes import candidates

    if classes and all(c in inventory.classes for c in classes):
        seen: dict[int, Device] = {}
        for c in sorted(classes):
            for device in candidates(inventory, c):
                seen.setdefault(id(device), device)
        listed = list(seen.values())
    else:
        listed = list(inventory.devices)
    pools: dict[tuple[str, str], list[tuple[str, list[Any]]]] = {}
    for device in listed:
        if qualified not in device.lists and qualified.rpartition("/")[2] not in device.lists:
            continue
        values = _list_value(device, qualified)
        if values:
            pools.setdefault((device.driver, device.pool), []).append((device.label, values))
    for members_ in pools.values():
        for i, (a, va) in enumerate(members_):
            for b, vb in members_[i + 1:]:
                shared = [v for v in va if v in vb]
                if shared:
                    return (a, va), (b, vb), sorted(set(shared), key=str)
    return None


def _list_value(device: Device, qualified: str) -> list[Any] | None:
    attributes = device.raw.get("attributes")
    if not isinstance(attributes, dict):
        return None
    domain, _, ident = qualified.rpartition("/")
    value = attributes.get(qualified)
    if value is None and domain == device.driver:
        value = attributes.get(ident)
    if isinstance(value, dict):
        for key in ("ints", "strings", "bools", "versions"):
            if isinstance(value.get(key), list):
                found: list[Any] = value[key]
                return found
    return None


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


def _list_devices(ref: AttributeRef, inventory: Inventory | None, device_class: str = "",
                  scalar: bool = False) -> tuple[int, str]:
    """How many of the request's candidate devices (those its DeviceClass selects; all when the class is unknown)
    publish the attribute `ref` reads as a list (for `device.driver`: each its own domain's), and the first one's
    label. With `scalar`: those that publish it, but not as a list."""
    from webhook.rules.selectors_outcomes import candidates, projections

    if inventory is None:
        return 0, ""
    key = ("list-devices", _ref_key(ref), device_class, scalar)
    if key not in inventory.memo:
        listed = candidates(inventory, device_class)
        found = [ix for shape, ix in projections(inventory).shapes(listed)
                 if (ref.qualified_on(shape.driver) in shape.names and ref.qualified_on(shape.driver) not in shape.lists
                     if scalar else ref.qualified_on(shape.driver) in shape.lists)]
        first = min(ix[0] for ix in found) if found else -1
        inventory.memo[key] = (sum(map(len, found)), listed[first].label if found else "")
    counted: tuple[int, str] = inventory.memo[key]
    return counted


def _fragile_finding(path: object, facts: Facts, use: Use, inventory: Inventory | None,
                     device_class: str = "") -> Finding:
    from webhook.fieldpath import FieldPath

    assert isinstance(path, FieldPath)
    name = use.ref.qualified
    if use.how == "method":
        what = f"`.{use.method}()` on {name}"
        # Kubernetes' lists library has these too: on a list they look for the whole argument as an element
        consequence = ("silently looks for an element instead of a substring (-1 unless one equals the argument)"
                       if use.method in ("indexOf", "lastIndexOf") else _ERROR)
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
    if use.unwrap is not None and use.unwrap.method == "ternary":
        what += " (through a ternary)"
    elif use.unwrap is not None:  # `.orValue(d)`/`.value()` hand on the attribute value, list or not
        what += f" (read with `.{use.unwrap.method}()`)"
    lists, first = _list_devices(use.ref, inventory, device_class)
    if lists:
        where = "candidate device(s)" if device_class and inventory and device_class in inventory.classes \
            else "device(s) in the inventory"
        when = f"{name} is a list on {lists} {where} (e.g. {first}), where this"
        message = f"{what}: {when} {consequence}"
    else:
        message = f"{what} {consequence} once the driver publishes it as a list"
    replacement = _rewrite(facts, use)
    point = use.operator or use.operand
    if replacement is not None and inventory is not None and \
            _version_equality_fails(use, facts.expression, _published_types(inventory, use.ref, device_class)):
        # `<version> == <other type>` is a runtime error (Semver.Equal), but includes() is then false: a fix
        # would turn an error into a silent mismatch
        return Finding(path, message, hint=f"{_manual_hint(facts, use)}   (no safe fix: on a version `==` with "
                                           f"another type is a runtime error where includes() is false; compare "
                                           f"a version with semver(\"...\") and a string with a string)",
                       span=(point.start, point.end))
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
    if use.how in ("==", "!=") and (use.literal is not None or other.startswith("semver(")
                                    or (_is_variable(other) and use.literals is not None)):
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
    if use.unwrap.method == "ternary":
        return False  # the rewrite would have to go into the branch: a hint, not a fix
    fallback = use.unwrap.fallback_literal
    return isinstance(fallback, bool) if use.how == "bool" else fallback is not None


def _optional(read: str) -> str:
    """`d.x` -> `d.?x`, `d["x"]` -> `d[?"x"]`: the optional spelling of a read's last step."""
    if read.endswith("]") and "[" in read:
        head, _sep, key = read.rpartition("[")
        return f"{head}[?{key}"
    head, _sep, name = read.rpartition(".")
    return f"{head}.?{name}" if head else read


def _is_variable(text: str) -> bool:
    return _VARIABLE.fullmatch(text) is not None and text != "device"


def _manual_hint(facts: Facts, use: Use) -> str:
    ref = use.operand.text(facts.expression)
    scalar_note = "keep a scalar-only form only if the driver documents a scalar"
    if use.unwrap is not None and use.unwrap.method == "ternary":
        read = use.ref.span.text(facts.expression)
        if use.how in ("<", "<=", ">", ">="):
            return f"compare in the branch, where the value is read: ... ? {read}.exists(v, v {use.how} ...) : ..."
        return (f"compare in the branch, where the value is read: ... ? {read}.includes(<value>) : ..., or use an "
                f"optional read: {_optional(read)}.orValue(<default>).includes(<value>)")
    if not _fallback_keeps_meaning(use) and use.how in ("==", "!=", "in", "bool"):
        read = use.ref.span.text(facts.expression)
        wanted = "a bool literal" if use.how == "bool" else "a scalar literal"
        if use.unwrap is not None and use.unwrap.span == use.ref.span:  # a cel.bind variable, unwrapped where bound
            return (f"give {read} {wanted} as the fallback where it is bound, .orValue(<value>), and compare with "
                    f"includes(): {read}.includes(...) (where the attribute is absent, includes() tests the "
                    f"fallback: membership if it is a list)")
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
        for ref, how, values, point, left in _literal_comparisons(facts):
            published = _published_types(inventory, ref, site.device_class)
            wanted = {_literal_type(v) for v in values}
            if not published or wanted & published.keys():
                continue
            kind, count = published.most_common(1)[0]
            shown = ", ".join(sorted(wanted))
            if how == "==" and (kind if left else "version" if "version" in wanted else "") == "version":
                outcome = "a runtime error (no such overload) that aborts allocation"  # Semver.Equal upstream
            else:
                outcome = "always true" if how == "!=" else "always false"
            yield Finding(
                site.path,
                f"{ref.qualified} is {with_article(kind)} on every candidate device that publishes it ({count}); "
                f"`{how}` with {with_article(shown)} value never matches it, so this is {outcome}",
                hint=_type_hint(kind, values),
                span=(point.start, point.end),
            )


def _published_types(inventory: Inventory, ref: AttributeRef, device_class: str) -> Counter[str]:
    """How many of the class's candidates publish the attribute `ref` reads as each type (int, string, ...)."""
    key = ("published-types", device_class, _ref_key(ref))
    if key not in inventory.memo:
        counted: Counter[str] = Counter()  # in order of the first device of each type (most_common ties)
        for driver, types, devices in _type_groups(inventory, device_class):
            if (qualified := ref.qualified_on(driver)) in types:
                counted[types[qualified]] += devices
        inventory.memo[key] = counted
    published: Counter[str] = inventory.memo[key]
    return published


def _version_equality_fails(use: Use, expression: str, published: Counter[str]) -> bool:
    """Whether `==` of this use is a runtime error on some candidate: cel-go's Semver.Equal fails on any other
    type, so `<version> == "1.2.3"` and `semver("1.2.3") == <string>` do (`!=`, `in` and the reversed orders
    are false or true, never an error)."""
    if use.how != "==":
        return False
    semver = use.other is not None and use.other.text(expression).strip().startswith("semver(")
    if use.attribute_left:
        return "version" in published and not semver
    return semver and any(kind != "version" for kind in published)


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


def _literal_comparisons(facts: Facts) -> Iterator[tuple[AttributeRef, str, tuple[object, ...], Span, bool]]:
    """(attribute, operator or method, the literal values it is compared with, where, whether the attribute is
    the left operand) for typed comparisons."""
    for use in facts.uses:
        if use.ref.kind != "attributes" or use.how not in ("==", "!=", "in") or use.operator is None:
            continue
        values = use.literals if use.how == "in" else _values(use.literal, use.other, facts.expression)
        if values:
            yield use.ref, use.how, values, use.operator, use.attribute_left
    for call in facts.calls:
        if call.name == "includes" and call.ref is not None and call.ref.kind == "attributes" and call.args:
            values = _values(call.literal_args[0], call.args[0], facts.expression)
            if values:
                yield call.ref, "includes()", values, call.name_span, True


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


def _type_hint(kind: str, values: tuple[object, ...]) -> str:
    if kind == "version" and any(isinstance(v, str) for v in values):
        text = next(v for v in values if isinstance(v, str))
        return f'a version attribute equals only a version: compare with semver("{text}")'
    return f"compare with {with_article(kind)} value, or check the attribute name"


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
    """A read that fails where the attribute is absent: not a has()/hasValue() guard, not an optional read
    (`.?id` is optional.none() there) unless its `.value()` is taken, and not a `cel.bind` variable bound to a
    plain read (the read fails where it is bound)."""
    return not ref.in_guard and (ref.dereferenced if ref.optional else not ref.alias)


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

    # A selector requiring a driver (`device.driver == "d" && ...`) is false on the other drivers' devices that
    # convert: those layouts are not read, nor evaluated (celext.check.guards); a device that does not convert fails
    # before the selector runs, so its driver's layouts stay in.
    required = selector.required_driver
    kept = None if required is None else {required} | _unclean_drivers(inventory, listed)
    for group in projections(inventory).groups(
            listed, keyed(selector), where=lambda s: (kept is None or s.driver in kept) and bool(lacking_of(s))):
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


def _unclean_drivers(inventory: Inventory, listed: Sequence[Device]) -> frozenset[str]:
    """The drivers of the devices in `listed` not known to convert cleanly (remembered per candidate list)."""
    key = ("unclean-drivers", id(listed))
    found = inventory.memo.get(key)
    if found is None or found[0] is not listed:
        found = inventory.memo[key] = (listed, frozenset(d.driver for d in listed if not d.clean))
    drivers: frozenset[str] = found[1]
    return drivers


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
    Rule("list-only-read", SELECTOR_KINDS, Action.WARN,
         "selectors read NUMA attributes in a form that also works while a driver publishes the scalar "
         "(KEP-6072): no `x[i]`, `N in x`, `size(x)`, list methods or macros on numaNode",
         "x.includes(N) for `N in x` and `x.exists(n, n == N)`; includes() is equality on a scalar and "
         "membership on a list", _list_only),
    Rule("constraint-distinct-list", _CLAIM_KINDS, Action.WARN,
         "with an inventory: distinctAttribute does not name an attribute that devices of one pool publish as "
         "intersecting lists (KEP-5491: lists must be pairwise disjoint)",
         "distinguish devices by an attribute whose values differ between them", _distinct_lists),
    Rule("constraint-distinct-numa", _CLAIM_KINDS, Action.AUDIT,
         f"without an inventory: distinctAttribute on {STANDARD_NUMA_NAME} (KEP-6072 lists of one socket's "
         "devices intersect, so they can never be told apart)",
         "check with --slices; distinguish devices by a per-socket attribute", _distinct_numa),
    Rule("selector-type-mismatch", SELECTOR_KINDS, Action.WARN,
         "with an inventory: selectors compare attributes with values of the type the devices publish",
         "compare with a value of the attribute's type (semver(\"...\") for a version); a mismatch never matches",
         _type_mismatch),
    Rule("selector-attribute-missing", SELECTOR_KINDS, Action.WARN,
         "with an inventory: attributes a selector reads exist on every candidate device, or are guarded by has()",
         "guard optional attributes with has(device.attributes[\"<domain>\"].<id>) && ...", _missing),
)
