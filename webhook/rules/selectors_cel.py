"""Selector rules about the CEL text itself: it must exist, compile, fit, and mean what it says.

    passes: device.attributes["resource.kubernetes.io"].numaNode.includes(0)
    fails:  device.attributes["resource.kubernetes.io"].numaNode.include(0)      (selector-includes-spelling)
    fails:  device.attributes["dra.net/numaNode"].int == 0                      (selector-attribute-reference)

Where Kubernetes rejects a selector (missing expression, over 10 KiB, does not compile) the rule says so
with the API server's wording; the rest are draguard's own and warn. The structural checks are deny by default.
Compiling is warn by default, `include()` included: celext runs on cel-python, not cel-go, so a selector it cannot
compile may still be valid upstream, and the API server compiles every selector itself anyway. A warning costs
nothing when draguard is right and blocks nobody when it is wrong; a policy may set deny.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from celext.check.regex import PROGRAM_FAILED
from celext.errors import CompileError, CostLimitError, UnsupportedError
from webhook.findings import Action, Edit, Finding
from webhook.rules.base import Check, Origin, Rule, RuleContext
from webhook.rules.k8s.decode import go_len
from webhook.rules.k8s.ids import WIRE_TYPE
from webhook.rules.resourceslice import decoded
from webhook.rules.selectors_sites import SELECTOR_KINDS, Site, sites, written_request_path
from webhook.suppress import suppressed
from webhook.wire import Obj

if TYPE_CHECKING:  # celext's engines are imported when the first selector is analysed (cel-python, lark: ~0.1 s)
    from celext.analysis import Call, Facts

MAX_EXPRESSION_BYTES = 10 * 1024  # resource.CELSelectorExpressionMaxLength
MAX_COST = 1_000_000  # resource.CELSelectorExpressionMaxCost
RESULT_TYPE = "must evaluate to bool or the unknown type"  # cel/compile.go, without "compilation failed: "
WIRE_KEYS = frozenset({"int", "bool", "string", "version", "ints", "bools", "strings", "versions"})
GO_FIELDS = frozenset({"IntValue", "BoolValue", "StringValue", "VersionValue"})


def facts_of(site: Site) -> Facts | None:
    """The analysis of a site's expression, or None when it has none or does not parse."""
    from celext.analysis import analyze

    if site.expression is None or go_len(site.expression) > MAX_EXPRESSION_BYTES:
        return None
    try:
        return analyze(site.expression)
    except CompileError:
        return None


def analysed(obj: Obj, ctx: RuleContext) -> list[tuple[Site, Facts]]:
    """Every selector of `obj` whose expression parses, with its analysis (what most selector rules read);
    computed once per `run_rules` call, as `sites()` is (six rules read it)."""
    def compute() -> list[tuple[Site, Facts]]:
        return [(site, facts) for site in sites(obj, ctx) if (facts := facts_of(site)) is not None]

    return ctx.once("selector-analysed", compute)


def compile_error(expression: str) -> CompileError | None:
    """What the DRA CEL environment says about `expression` (None when it compiles)."""
    import celext

    try:
        celext.compile(expression)
    except CompileError as err:
        return err
    return None


def offset_of(expression: str, line: int | None, column: int | None) -> int:
    """Character offset of a 1-based line/column inside the expression (0 when unknown)."""
    if line is None:
        return 0
    lines = expression.split("\n")
    before = sum(len(text) + 1 for text in lines[: line - 1])
    return min(len(expression), before + max((column or 1) - 1, 0))


# -- selector-required, selector-too-long, selector-compile ------------------------------------------


def _required(obj: Obj, ctx: RuleContext) -> Iterator[Finding]:
    refused: frozenset[str] | None = None
    for site in sites(obj, ctx):
        if site.expression is None:
            path = site.problem_path or site.path
            if refused is None:
                refused = _refused_by_decoder(obj, ctx)
            if str(written_request_path(obj, path) or path) in refused:
                continue  # a field of the wrong JSON type: k8s-wire-type reports it as the API server does
            yield Finding(path, site.problem, hint="a selector is `- cel: {expression: <CEL>}`")


def _refused_by_decoder(obj: Obj, ctx: RuleContext) -> frozenset[str]:
    """The paths `k8s-wire-type` reports on this object: none while a policy turns that rule off or the object's
    annotation suppresses it, so a wrong-typed selector is still reported here. The API server refuses such a
    request when it decodes it, and that one error is what it answers, not "Required value" as well. A selector
    where the decoder reads none (a v1beta1-shaped request under v1, whose fields it drops) stays this rule's."""
    if ctx.policy.action(WIRE_TYPE) is Action.OFF or WIRE_TYPE in suppressed(obj):
        return frozenset()
    return frozenset(str(finding.path) for tagged, finding in decoded(obj, ctx) if tagged == WIRE_TYPE)


def _too_long(obj: Obj, ctx: RuleContext) -> Iterator[Finding]:
    for site in sites(obj, ctx):
        if site.expression is not None and go_len(site.expression) > MAX_EXPRESSION_BYTES:
            yield Finding(site.path, f"Too long: may not be more than {MAX_EXPRESSION_BYTES} bytes",
                          hint="split the condition over several selectors (all of them must match)")


def _compile(obj: Obj, ctx: RuleContext) -> Iterator[Finding]:
    for site in sites(obj, ctx):
        expression = site.expression
        if expression is None or go_len(expression) > MAX_EXPRESSION_BYTES:
            continue
        err = compile_error(expression)
        if err is None:
            yield from _not_in_release(site, ctx)
            continue
        if isinstance(err, CostLimitError):
            continue  # an estimate over the limit is selector-cost's finding
        facts = facts_of(site)
        if facts is not None and _only_include(facts, err):
            continue  # selector-includes-spelling says it better, with a fix
        start = offset_of(expression, err.line, err.column)
        message = _first_line(err.message)
        span = (start, min(start + 1, len(expression)))
        if isinstance(err, UnsupportedError):  # draguard's own refusal: not the API server's
            yield Finding(site.path, f"draguard cannot check this selector: {message}", span=span,
                          hint="Kubernetes provides this and celext does not, so the selector is not checked "
                               "(the API server may accept it); docs/celext.md lists what celext leaves out")
            continue
        # The DRA compiler's two errors that are not a compilation's keep their own words (cel/compile.go)
        if not message.startswith((PROGRAM_FAILED, RESULT_TYPE)):
            message = f"compilation failed: {message}"
        yield Finding(site.path, message, span=span, hint="the API server rejects a selector that does not compile")


LIST_GATE, CAPACITY_GATE = "DRAListTypeAttributes", "DRAConsumableCapacity"
_ALLOW_MULTIPLE = re.compile(r"\ballowMultipleAllocations\b")


def _not_in_release(site: Site, ctx: RuleContext) -> Iterator[Finding]:
    """What the API server of the policy's release refuses in a selector celext compiles. celext is the newest
    environment for stored expressions; a new selector compiles in the release's environment for new ones
    (k8s.io/dynamic-resource-allocation cel/compile.go, docs/rules.md): `includes()` only with
    DRAListTypeAttributes (1.36+), `device.allowMultipleAllocations` only with DRAConsumableCapacity. An UPDATE
    that keeps the expression compiles it as stored, which the ratchet of unchanged findings mirrors."""
    profile = ctx.policy.profile
    if ctx.policy.list_types and profile.enabled(CAPACITY_GATE):
        return  # the release declares both: nothing to look for (the common case, every selector)
    facts = facts_of(site)
    if facts is None:
        return
    if not ctx.policy.list_types:
        for call in facts.calls:
            if call.name == "includes" and call.receiver is not None:
                yield Finding(site.path, "compilation failed: undeclared reference to 'includes' (in container '')",
                              span=(call.name_span.start, call.name_span.end),
                              hint=f"includes() needs {profile.describe(LIST_GATE)}; compare a scalar attribute "
                                   "with `==` on this cluster")
                break
    if not profile.enabled(CAPACITY_GATE) and "allowMultipleAllocations" in facts.expression:
        import celext

        paths = celext.compile(facts.expression).paths
        found = _ALLOW_MULTIPLE.search(facts.expression)
        if found is not None and (paths is None or ("allowMultipleAllocations",) in paths):
            yield Finding(site.path, "compilation failed: undefined field 'allowMultipleAllocations'",
                          span=(found.start(), found.end()),
                          hint=f"device.allowMultipleAllocations needs {profile.describe(CAPACITY_GATE)}")


def _first_line(message: str) -> str:
    """Parser messages may carry a caret diagram on later lines; the position says it better."""
    return message.strip().splitlines()[0] if message.strip() else message


def _only_include(facts: Facts, err: CompileError) -> bool:
    return any(c.name == "include" for c in facts.calls) and "include" in err.message


# -- selector-includes-spelling ----------------------------------------------------------------------

DRAFT_INCLUDE = ("`include()` is the KEP-5491 draft spelling; Kubernetes only declares `includes()`, so the API "
                 "server rejects this selector (undeclared reference to 'include')")


def _include(obj: Obj, ctx: RuleContext) -> Iterator[Finding]:
    for site, facts in analysed(obj, ctx):
        for call in facts.draft_includes:
            span = call.name_span
            yield Finding(
                site.path,
                DRAFT_INCLUDE,
                hint=f"{_receiver_text(facts, call)}.includes(...)   (safe fix: draguard lint --fix)",
                fix=Edit(span.start, span.end, "includes"),
                span=(span.start, span.end),
            )


def _receiver_text(facts: Facts, call: Call) -> str:
    return call.receiver.text(facts.expression) if call.receiver is not None else ""


# -- selector-cost -----------------------------------------------------------------------------------


def _cost(obj: Obj, ctx: RuleContext) -> Iterator[Finding]:
    for site in sites(obj, ctx):
        expression = site.expression
        if expression is None or go_len(expression) > MAX_EXPRESSION_BYTES:
            continue
        err = compile_error(expression)
        if not isinstance(err, CostLimitError):
            continue
        # The API server's Forbidden detail, then the estimate celext computed as Kubernetes does.
        yield Finding(
            site.path,
            f"too complex, exceeds cost limit (Kubernetes' static estimate: {err.cost[1]:,} cost units, limit "
            f"{MAX_COST:,}); the API server rejects this selector",
            hint="avoid nesting all()/exists() over lists and comparing values of unbounded length; "
                 "test one attribute with includes() instead",
            span=(0, len(expression)),
        )


# -- selector-attribute-reference --------------------------------------------------------------------


def _reference(obj: Obj, ctx: RuleContext) -> Iterator[Finding]:
    for site, facts in analysed(obj, ctx):
        reported: set[int] = set()
        for read in facts.domains:
            if "/" in read.domain and read.span.start not in reported:
                domain, _, ident = read.domain.partition("/")
                reported.add(read.span.start)
                yield Finding(
                    site.path,
                    f'device.{read.kind}[{read.span.text(facts.expression)}] indexes with the qualified name '
                    f'"{read.domain}"; the index is a domain, so this map is always empty and every lookup in it '
                    f"fails",
                    hint=f'device.{read.kind}["{domain}"].{ident}',
                    span=(read.span.start, read.span.end),
                )
        for ref in facts.refs:
            text = ref.span.text(facts.expression)
            if not ref.alias and "/" not in ref.domain and (ref.name in WIRE_KEYS or ref.name in GO_FIELDS):
                # An optional read of the key does not fail: it is silently empty everywhere.
                outcome = ("is optional.none() on every device" if ref.optional and not ref.dereferenced
                           else "fails with no such key")
                form = ".?<attribute>" if ref.optional else ".<attribute>"
                yield Finding(
                    site.path,
                    f"`.{ref.name}` is {_field_kind(ref.name)}, not an attribute: CEL exposes an attribute's value "
                    f"directly, so `{text}` {outcome}",
                    hint=f'device.{ref.kind}["<driver domain>"]{form} (the value itself, no .{ref.name})',
                    span=(ref.name_span.start, ref.name_span.end),
                )
        for select in facts.selects:
            yield Finding(
                site.path,
                f"`.{select.name}` reads {_field_kind(select.name)} of the value of {select.ref.qualified}; "
                f"attribute values (int, bool, string, version) have no fields, so this fails on every device",
                hint=f"{select.ref.span.text(facts.expression)} is the value itself (no .{select.name})",
                span=(select.span.start, select.span.end),
            )
        for read in facts.domains:
            malformed = "." not in read.domain and "/" not in read.domain and not read.by_driver
            if malformed and read.span.start not in reported:
                reported.add(read.span.start)
                yield Finding(
                    site.path,
                    f'domain "{read.domain}" is not a driver domain (no dot); an unknown domain is an empty map, '
                    f"so every attribute read from it fails",
                    hint=f'attributes a driver publishes without a domain live under its name: device.{read.kind}'
                         f'["<driver>"].{read.domain}',
                    span=(read.span.start, read.span.end),
                )


def _field_kind(name: str) -> str:
    return "a wire-format type key" if name in WIRE_KEYS else "a Go struct field" if name in GO_FIELDS else "a field"


# -- selector-literal-invalid ------------------------------------------------------------------------


def _literals(obj: Obj, ctx: RuleContext) -> Iterator[Finding]:
    from celext.quantity import parse_quantity
    from celext.semver import parse_semver

    for site, facts in analysed(obj, ctx):
        for call in facts.calls:
            if call.receiver is not None or call.name not in ("quantity", "semver") or len(call.args) != 1:
                continue
            value = call.literal_args[0]
            if not isinstance(value, str):
                continue
            parser = parse_quantity if call.name == "quantity" else parse_semver
            try:
                parser(value)
            except ValueError as err:
                arg = call.args[0]
                yield Finding(site.path, f"{call.name}({value!r}) fails on every device: {err}",
                              hint=f"write a valid {call.name} literal (templates must be rendered before use)",
                              span=(arg.start, arg.end))


def _rule(rule_id: str, default: Action, summary: str, remediation: str, check: Check,  # noqa: PLR0917
          origin: Origin = "draguard") -> Rule:
    return Rule(rule_id, SELECTOR_KINDS, default, summary, remediation, check, origin)


RULES = (
    _rule("selector-required", Action.DENY, "every selector has a `cel.expression`",
          "write `- cel: {expression: <CEL>}`; `expression` belongs under `cel`", _required, "kubernetes"),
    _rule("selector-too-long", Action.DENY, "a selector expression is at most 10 KiB",
          "split it into several selectors", _too_long, "kubernetes"),
    _rule("selector-compile", Action.WARN, "a selector compiles in the Kubernetes DRA CEL environment (and uses "
          "nothing celext leaves out, such as the format library: reported as not checked)",
          "fix the CEL at the reported line and column", _compile, "kubernetes"),
    _rule("selector-includes-spelling", Action.WARN, "list membership is spelled `includes()`, not `include()`",
          "rename the call to includes() (draguard lint --fix does it)", _include, "kubernetes"),
    _rule("selector-cost", Action.WARN, "a selector does not nest comprehensions past the cost limit",
          "test attributes directly or with includes() instead of nested all()/exists()", _cost),
    _rule("selector-attribute-reference", Action.WARN,
          'attribute reads have the form device.attributes["<domain>"].<id>',
          'index with the domain only and read the id as a field; no .int/.string/.BoolValue suffix', _reference),
    _rule("selector-literal-invalid", Action.WARN, "quantity() and semver() literals parse",
          "write a valid literal; render templates before linting", _literals),
)
