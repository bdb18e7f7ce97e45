"""Where selectors and constraints live in DRA objects, and the NUMA names the selector rules know.

    DeviceClass             spec.selectors[j].cel.expression
    ResourceClaim           spec.devices.requests[i].exactly.selectors[j].cel.expression        (v1, v1beta2)
                            spec.devices.requests[i].firstAvailable[k].selectors[j].cel.expression
                            spec.devices.requests[i].selectors[j].cel.expression                (v1beta1)
                            spec.devices.constraints[c].matchAttribute, else distinctAttribute
    ResourceClaimTemplate   the same under spec.spec

A request's fields are read in the layout of the object's apiVersion, as the API server decodes it: in v1 and
v1beta2 a request's own `deviceClassName` / `selectors` (the v1beta1 layout) are unknown fields the decoder drops,
and in v1beta1 so is `exactly`. A request left with neither `exactly` nor `firstAvailable` (or with both) is the
API server's validateDeviceRequest error, reported as a site without an expression at the request's path.

Every rule of the selector family walks the object through `sites(obj, ctx)` / `constraints(obj, ctx)`,
computed once per `run_rules` call. From 1.35 a list over its limit (requests, a request's firstAvailable or
selectors, a DeviceClass's selectors, constraints, config) is one `Too many` and the server validates none of its
items (validateSlice / validateSet short-circuit), so none of them is a site either; 1.34 validates them all.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from celext.gostrconv import go_quote
from webhook.fieldpath import FieldPath
from webhook.policy import Policy
from webhook.profiles import Profile
from webhook.rules.base import DEVICE_CLASS, RESOURCE_CLAIM, RESOURCE_CLAIM_TEMPLATE, RuleContext
from webhook.rules.k8s.claim import (
    CONFIG_MAX,
    CONSTRAINTS_MAX,
    FIRST_AVAILABLE_MAX,
    REQUESTS_MAX,
    SELECTORS_MAX,
    v1beta1_exact,
)
from webhook.rules.k8s.slice import served_version
from webhook.wire import Obj, as_map, get_list, get_map, kind_of

SELECTOR_KINDS = frozenset({DEVICE_CLASS, RESOURCE_CLAIM, RESOURCE_CLAIM_TEMPLATE})
STANDARD_NUMA = "resource.kubernetes.io/numaNode"
STANDARD_DOMAIN = "resource.kubernetes.io"
VENDOR_NUMA_IDS = ("numaNode", "numa")  # <driver>/numaNode and <driver>/numa are always vendor NUMA names


class Site(NamedTuple):
    """One selector: where its expression is (or should be), and the expression when there is one.

    `expression` is None when the selector has no usable `cel.expression` (`problem` says why).
    `device_class` is the request's deviceClassName (empty for a DeviceClass's own selectors).
    """

    path: FieldPath
    expression: str | None
    device_class: str = ""
    problem: str = ""
    problem_path: FieldPath | None = None


class ConstraintName(NamedTuple):
    """A matchAttribute/distinctAttribute value and its path."""

    path: FieldPath
    field: str  # "matchAttribute" or "distinctAttribute"
    name: str


def sites(obj: Obj, ctx: RuleContext) -> list[Site]:
    alternatives = _kept(ctx, "request.firstAvailable")
    return ctx.once("selector-sites", lambda: list(_sites(obj, ctx.policy.profile, alternatives)))


def constraints(obj: Obj, ctx: RuleContext) -> list[ConstraintName]:
    """Each constraint's attribute as the API server stores the object (a distinctAttribute its gate drops is
    not there); constraints that name none are `unnamed_constraints`."""
    return ctx.once("selector-constraints", lambda: list(
        _constraints(obj, _kept(ctx, "constraint.distinctAttribute"), _short(ctx.policy.profile))))


def unnamed_constraints(obj: Obj, ctx: RuleContext) -> list[tuple[FieldPath, Obj]]:
    """The constraints (path, entry) that name no attribute once the server dropped what its gates drop
    (validation then requires one)."""
    distinct = _kept(ctx, "constraint.distinctAttribute")
    limit = CONSTRAINTS_MAX if _short(ctx.policy.profile) else -1
    return [(path, entry) for path, entry in _device_entries(obj, "constraints", limit)
            if entry.get("matchAttribute") is None and (entry.get("distinctAttribute") is None or (
                not distinct and isinstance(entry.get("distinctAttribute"), str)))]  # else named, or not decoded


def _short(profile: Profile | None) -> bool:
    """Does the server validate no item of a list over its limit (1.35+)?"""
    return profile is not None and profile.short_circuit_max_items


def _capped(items: Sequence[Any], limit: int, short: bool) -> Sequence[Any]:
    """The items the server validates: none of a list over `limit` when it short-circuits (`short`)."""
    return () if short and len(items) > limit else items


def _kept(ctx: RuleContext, key: str) -> bool:
    """Does the API server keep this gated claim field (a profile key), or drop it before validating? (The old
    object's features are read once per object, and only when a gate is off.)"""
    from webhook.rules.k8s.claim_gates import in_use, keeps

    profile = ctx.policy.profile
    if profile.disabled_gate(key) is None:
        return True
    return keeps(key, profile, ctx.once("claim features in use", lambda: in_use(ctx.old, profile)))


def devices_root(obj: Obj) -> tuple[FieldPath, Obj] | None:
    kind = kind_of(obj)
    if kind == RESOURCE_CLAIM:
        return FieldPath.root("spec", "devices"), get_map(obj, "spec", "devices")
    if kind == RESOURCE_CLAIM_TEMPLATE:
        return FieldPath.root("spec", "spec", "devices"), get_map(obj, "spec", "spec", "devices")
    return None


def _device_entries(obj: Obj, field: str, limit: int = -1) -> Iterator[tuple[FieldPath, Obj]]:
    """The objects in a claim's (or template's) `devices.<field>` list, with their paths; none when the list is
    longer than `limit` (>= 0)."""
    root = devices_root(obj)
    if root is None:
        return
    base, devices = root
    for i, raw in enumerate(_capped(get_list(devices, field), limit, limit >= 0)):
        entry = {} if raw is None else as_map(raw)  # null is the zero struct, which validation then judges
        if entry is not None:
            yield base.child(field).index(i), entry


def request_names(obj: Obj) -> frozenset[str]:
    """The names a constraint or config entry may refer to: each request's, and `<request>/<subrequest>` for its
    firstAvailable alternatives (validation.go's requestNames)."""
    names: set[str] = set()
    for _path, request in _device_entries(obj, "requests"):
        name = request.get("name")
        if not isinstance(name, str):
            continue
        names.add(name)
        for raw in get_list(request, "firstAvailable"):
            sub = as_map(raw)
            if sub is not None and isinstance(sub.get("name"), str):
                names.add(f"{name}/{sub['name']}")
    return frozenset(names)


def request_refs(obj: Obj, short: bool = False) -> Iterator[tuple[FieldPath, str]]:
    """Each request name a constraint's or a config entry's `requests` lists, with its path (a non-string entry is
    the decoder's finding). With `short` (1.35+), a list over its limit (the constraints, the config, an entry's
    names) is left out: the server reports it as too long and checks none of its items (k8s-device-constraint,
    k8s-device-config)."""
    limit = REQUESTS_MAX if short else -1
    for field, most in (("constraints", CONSTRAINTS_MAX), ("config", CONFIG_MAX)):
        for path, entry in _device_entries(obj, field, most if short else -1):
            names = get_list(entry, "requests")
            if 0 <= limit < len(names):
                continue
            for i, name in enumerate(names):
                if isinstance(name, str):
                    yield path.child("requests").index(i), name


def _sites(obj: Obj, profile: Profile | None = None, alternatives: bool = True) -> Iterator[Site]:
    """Every selector site; `alternatives`: the server keeps `firstAvailable` (DRAPrioritizedList), else the
    requests are read without it, as it validates them."""
    short = _short(profile)
    if kind_of(obj) == DEVICE_CLASS:
        yield from _selectors(FieldPath.root("spec", "selectors"), get_list(obj, "spec", "selectors"), "", short)
        return
    version = served_version(obj, profile)
    for path, request in _device_entries(obj, "requests", REQUESTS_MAX if short else -1):
        if version in ("v1", "v1beta2"):
            yield from _request_v1(path, request, alternatives, short)
        elif version == "v1beta1":
            yield from _request_v1beta1(path, request, alternatives, short)
        else:  # an apiVersion the server does not serve: no layout to follow, every selector is read
            yield from _exactly(path, request)
            yield from _first_available(path, request)
            yield from _selectors(path.child("selectors"), get_list(request, "selectors"), _class_name(request))


# The server's validateDeviceRequest (pkg/apis/resource/validation), on the request after decoding and conversion.
ONE_OF_REQUIRED = "Required value: exactly one of `exactly` or `firstAvailable` is required"
ONE_OF_MULTIPLE = ("Invalid value: null: exactly one of `exactly` or `firstAvailable` is required, but multiple "
                   "fields are set")
V1BETA1_FIELDS = ("deviceClassName", "selectors", "allocationMode", "count", "adminAccess", "tolerations", "capacity")


# What ONE_OF_REQUIRED adds when DRAPrioritizedList dropped the request's alternatives.
DROPPED_ALTERNATIVES = (" (the API server dropped `firstAvailable`: DRAPrioritizedList is off in this cluster; see "
                        "the k8s-feature-gate finding)")


def _request_v1(path: FieldPath, request: Obj, alternatives: bool = True, short: bool = False) -> Iterator[Site]:
    """A v1/v1beta2 request: `exactly` (any non-null value) or a non-empty `firstAvailable`, not both."""
    has_exactly = request.get("exactly") is not None
    has_first = alternatives and bool(get_list(request, "firstAvailable"))
    if has_exactly and has_first:
        yield Site(path, None, problem=ONE_OF_MULTIPLE, problem_path=path)
    elif has_exactly:
        yield from _exactly(path, request, short)
    elif has_first:
        yield from _first_available(path, request, short)
    else:
        flat = [name for name in V1BETA1_FIELDS if name in request]
        extra = DROPPED_ALTERNATIVES if get_list(request, "firstAvailable") else ""
        if flat and not extra:
            verb = "sits" if len(flat) == 1 else "sit"
            extra = (f" ({', '.join(flat)} {verb} on the request itself, the resource.k8s.io/v1beta1 layout: "
                     f"in v1 they belong under `exactly:`, and the API server drops them as unknown fields)")
        yield Site(path, None, problem=ONE_OF_REQUIRED + extra, problem_path=path)


def _request_v1beta1(path: FieldPath, request: Obj, alternatives: bool = True, short: bool = False
                     ) -> Iterator[Site]:
    """A v1beta1 request: its own device fields become `exactly` on conversion when any is set (after the
    v1beta1 defaults, which set allocationMode only with a deviceClassName); `exactly` itself is dropped."""
    main = v1beta1_exact(request)
    has_first = alternatives and bool(get_list(request, "firstAvailable"))
    if main and has_first:
        yield Site(path, None, problem=ONE_OF_MULTIPLE, problem_path=path)
    elif main:  # reported where the server's errors say (under `exactly`); run.source_path finds it in the file
        yield from _selectors(path.child("exactly").child("selectors"), get_list(request, "selectors"),
                              _class_name(request), short)
    elif has_first:
        yield from _first_available(path, request, short)
    else:
        extra = DROPPED_ALTERNATIVES if get_list(request, "firstAvailable") else ""
        if "exactly" in request and not extra:
            extra = (" (`exactly` is a resource.k8s.io/v1 field: v1beta1 keeps deviceClassName and selectors on "
                     "the request itself, and the API server drops `exactly` as an unknown field)")
        yield Site(path, None, problem=ONE_OF_REQUIRED + extra, problem_path=path)


def written_request_path(obj: Obj, path: FieldPath) -> FieldPath | None:
    """`...devices.requests[i].exactly.<rest>` as written in a v1beta1 claim or template whose request has no
    `exactly` (its fields are on the request itself); None when the path is not such a one."""
    if obj.get("apiVersion") != "resource.k8s.io/v1beta1":
        return None
    steps = list(path.steps())
    node: Any = obj
    for at, (segment, _is_key) in enumerate(steps):
        if segment == "exactly" and at >= 3 and steps[at - 2][0] == "requests" and isinstance(node, Mapping):
            if isinstance(node.get("exactly"), Mapping):
                return None  # written under `exactly` (a field v1beta1 drops): the path is the file's
            out = FieldPath()
            for kept, is_key in steps[:at] + steps[at + 1:]:
                out = out.index(kept) if isinstance(kept, int) else out.key(kept) if is_key else out.child(kept)
            return out
        if isinstance(segment, int):
            node = node[segment] if isinstance(node, list) and 0 <= segment < len(node) else None
        else:
            node = node.get(segment) if isinstance(node, Mapping) else None
    return None


def _exactly(path: FieldPath, request: Obj, short: bool = False) -> Iterator[Site]:
    exactly = as_map(request.get("exactly"))
    if exactly is not None:
        yield from _selectors(path.child("exactly").child("selectors"), get_list(exactly, "selectors"),
                              _class_name(exactly), short)


def _first_available(path: FieldPath, request: Obj, short: bool = False) -> Iterator[Site]:
    for k, raw_sub in enumerate(_capped(get_list(request, "firstAvailable"), FIRST_AVAILABLE_MAX, short)):
        sub = as_map(raw_sub)
        if sub is not None:
            yield from _selectors(path.child("firstAvailable").index(k).child("selectors"),
                                  get_list(sub, "selectors"), _class_name(sub), short)


def _class_name(request: Obj) -> str:
    name = request.get("deviceClassName")
    return name if isinstance(name, str) else ""


def _selectors(path: FieldPath, items: Sequence[Any], device_class: str, short: bool = False) -> Iterator[Site]:
    for j, raw in enumerate(_capped(items, SELECTORS_MAX, short)):
        here = path.index(j)
        selector = as_map(raw)
        cel = as_map(selector.get("cel")) if selector is not None else None
        expression = cel.get("expression") if cel is not None else None
        expr_path = here.child("cel").child("expression")
        if selector is None:
            yield Site(expr_path, None, device_class, "a selector must be an object with a `cel` field", here)
        elif cel is None:
            extra = ""
            if "expression" in selector:
                extra = " (`expression` sits beside `cel` instead of under it: indent it below `cel:`)"
            yield Site(expr_path, None, device_class, f"Required value{extra}", here.child("cel"))
        elif not isinstance(expression, str):
            yield Site(expr_path, None, device_class, "Required value", expr_path)
        elif not expression.strip(CEL_WHITESPACE):
            yield Site(expr_path, None, device_class, empty_expression(expression), expr_path)
        else:
            yield Site(expr_path, expression, device_class)


def _constraints(obj: Obj, distinct: bool, short: bool = False) -> Iterator[ConstraintName]:
    """The attribute each constraint is about: validateDeviceConstraint (1.34-1.37) reads `matchAttribute` when
    it is set and `distinctAttribute` only otherwise (and only when `distinct`: kept by the server), so a
    distinctAttribute beside a matchAttribute is neither validated nor used by the scheduler."""
    for path, constraint in _device_entries(obj, "constraints", CONSTRAINTS_MAX if short else -1):
        named = _named(constraint, distinct)
        if named is not None:
            field, name = named
            yield ConstraintName(path.child(field), field, name)


def _named(constraint: Obj, distinct: bool) -> tuple[str, str] | None:
    """(field, attribute) of the attribute a constraint names, None when it names none (JSON null is unset)."""
    for field in ("matchAttribute", "distinctAttribute") if distinct else ("matchAttribute",):
        name = constraint.get(field)
        if isinstance(name, str):
            return field, name
    return None


# CEL's lexer skips these (WHITESPACE: [ \t\r\n\u000C]+); an expression of nothing else has no token at all.
CEL_WHITESPACE = " \t\r\n\f"
# What cel-go's parser says at the end of input where an expression must start (cel-go parser_test.go).
EXPECTING_EXPRESSION = ("mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', "
                        "NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}")


def empty_expression(expression: str) -> str:
    """The API server's error for an empty or blank expression: nothing requires it to be set, so it is compiled,
    and cel-go's syntax error at the end of input comes back as `Invalid value` (convertCELErrorToValidationError),
    first line only, as selector-compile shows cel errors."""
    line = expression.count("\n") + 1
    column = len(expression) - (expression.rfind("\n") + 1) + 1
    return (f"Invalid value: {go_quote(expression)}: compilation failed: ERROR: <input>:{line}:{column}: "
            f"Syntax error: {EXPECTING_EXPRESSION}")


def is_vendor_numa(qualified: str, policy: Policy) -> bool:
    """A NUMA attribute name other than the KEP-6072 standard one (policy aliases, <driver>/numaNode, /numa)."""
    if qualified == STANDARD_NUMA:
        return False
    if qualified in policy.aliases:
        return True
    domain, _, ident = qualified.rpartition("/")
    return bool(domain) and ident in VENDOR_NUMA_IDS


def is_numa(qualified: str, policy: Policy) -> bool:
    return qualified == STANDARD_NUMA or is_vendor_numa(qualified, policy)
