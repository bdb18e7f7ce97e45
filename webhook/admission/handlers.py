"""Admission decisions: a parsed `Request` and a `Policy` in, a `Response` out. No Flask, no JSON.

Each webhook path has one handler. `routing.route` answers the reviews its rules do not see (DELETE and
CONNECT, subresource writes, kinds the path does not handle, and, denied, reviews whose kind, resource and
objects disagree). Everything else runs the rule catalogue; on UPDATE `run_rules` ratchets against the old
object, so a violation the object already had is not denied. Every message quotes at most `QUOTED_CHARS` of a
finding's text and `PATH_CHARS` of its field path.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from types import MappingProxyType
from typing import Any, Protocol

from msgspec.structs import replace

from webhook.admission.response import (
    AUDIT_VALUE_CHARS,
    DENY_LISTED,
    ELLIPSIS,
    Response,
    allowed,
    audit_key,
    clip,
    denied,
    fit_warnings,
    one_line,
)
from webhook.admission.review import Request
from webhook.admission.routing import SELECTOR_KINDS, SLICE_KINDS, route
from webhook.budget import UNLIMITED, Budget, CompileCacheBudget
from webhook.findings import Action, Finding
from webhook.policy import Policy
from webhook.wire import Obj

QUOTED_CHARS = 512  # of one finding's message in a denial
PATH_CHARS = 256  # of one field path (keys are user input)


class Handler(Protocol):
    def __call__(self, req: Request, policy: Policy, *, budget: Budget = ...,
                 cache: CompileCacheBudget | None = ...) -> Response: ...


ALLOWED = allowed()


def resourceslices(req: Request, policy: Policy, *, budget: Budget = UNLIMITED,
                   cache: CompileCacheBudget | None = None) -> Response:
    """POST /validate/resourceslices: the ResourceSlice rules (Kubernetes parity and numaNode)."""
    return _validate(req, policy, SLICE_KINDS, budget, cache)


def selectors(req: Request, policy: Policy, *, budget: Budget = UNLIMITED,
              cache: CompileCacheBudget | None = None) -> Response:
    """POST /validate/selectors: CEL selectors and constraints in claims, claim templates and device classes."""
    return _validate(req, policy, SELECTOR_KINDS, budget, cache)


def _validate(
    req: Request, policy: Policy, kinds: frozenset[str], budget: Budget, cache: CompileCacheBudget | None
) -> Response:
    routed = route(req, kinds)
    if routed is not None:
        return routed
    from webhook.run import run_rules  # the catalogue imports celext; keep `import webhook.admission` light

    assert req.object is not None  # review.parse guarantees an object on CREATE and UPDATE
    old = _typed(req.old_object, req) if req.operation == "UPDATE" and req.old_object is not None else None
    outcome = run_rules(_typed(req.object, req), policy, old=old, budget=budget, compile_cache=cache)
    answer = decide(outcome.findings)
    return replace(answer, rule_errors=tuple(outcome.errors)) if outcome.errors else answer


def decide(findings: Sequence[Finding]) -> Response:
    """Deny findings reject (all listed), warn findings become warnings, audit findings audit annotations."""
    if not findings:
        return ALLOWED
    deny = [f for f in findings if f.action is Action.DENY]
    warn = [f for f in findings if f.action is Action.WARN]
    audit = [f for f in findings if f.action is Action.AUDIT]
    # The causes list what the message lists: a slice with thousands of problems is not answered with megabytes.
    causes = [(clip(str(f.path), PATH_CHARS), quoted(f.message)) for f in deny[:DENY_LISTED]]
    answer = denied(deny_message(deny), causes) if deny else ALLOWED
    return replace(
        answer,
        warnings=fit_warnings(warning_line(f) for f in warn),
        audit=MappingProxyType(audit_annotations(audit)),
        findings=tuple(findings),
    )


def deny_message(findings: Sequence[Finding]) -> str:
    """`2 problems: <path>: <message> [rule]; ...`; the API server prefixes the webhook name."""
    shown = [f"{clip(str(f.path), PATH_CHARS)}: {quoted(f.message)} [{f.rule}]" for f in findings[:DENY_LISTED]]
    more = len(findings) - len(shown)
    tail = f"; and {more} more (run `draguard validate` on this object for all of them)" if more else ""
    noun = "problem" if len(findings) == 1 else "problems"
    return f"{len(findings)} {noun}: " + "; ".join(shown) + tail


def quoted(message: str) -> str:
    """One line, at most QUOTED_CHARS: a message may quote a megabyte-long value from the object."""
    head = message[: QUOTED_CHARS * 4]  # one_line on a 6 MiB text would cost more than the rules
    text = one_line(head)
    if len(head) < len(message) and len(text) <= QUOTED_CHARS:
        return text[: QUOTED_CHARS - 1] + ELLIPSIS
    return clip(text, QUOTED_CHARS)


def warning_line(finding: Finding) -> str:
    """`[rule] path: message`, short enough to survive the API server's warning limits in most cases."""
    return f"[{finding.rule}] {clip(str(finding.path), PATH_CHARS)}: {clip(finding.message, 1024)}"


def audit_annotations(findings: Iterable[Finding]) -> dict[str, str]:
    """One annotation per rule (the API server prefixes `<webhook name>/`), its findings joined by `; `."""
    grouped: dict[str, list[str]] = {}
    for f in findings:
        key = audit_key(f.rule)
        if key is not None:
            grouped.setdefault(key, []).append(f"{clip(str(f.path), PATH_CHARS)}: {quoted(f.message)}")
    return {key: clip("; ".join(items), AUDIT_VALUE_CHARS) for key, items in grouped.items()}


def _typed(obj: Obj, req: Request) -> Obj:
    """The object with `kind`/`apiVersion` filled from the request when a client left them out."""
    if obj.get("kind") and obj.get("apiVersion"):
        return obj
    version = f"{req.kind.group}/{req.kind.version}" if req.kind.group else req.kind.version
    filled: dict[str, Any] = dict(obj)
    filled["apiVersion"] = obj.get("apiVersion") or version
    filled["kind"] = obj.get("kind") or req.kind.kind
    return filled
