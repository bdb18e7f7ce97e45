"""`Response`: what the webhook decided, and the helpers that make each common answer one call.

Warnings go back to the user as HTTP `Warning: 299` headers written by the API server
(`k8s.io/apiserver/pkg/endpoints/filters/warning.go`), which drops any text holding a control character
(`k8s.io/apimachinery/pkg/util/net.NewWarningHeader` rejects `unicode.IsControl` runes, a newline included),
de-duplicates, and once the texts pass 4096 runes in total truncates every item to 256 runes. The admission
types ask to "limit warnings to 120 characters if possible". So each warning here is made one line,
de-duplicated, cut to 256 runes, and the list kept within the 4096-rune budget with a last line saying how many
were left out (distinct warnings that the cut made identical included), so what the user sees is what we chose,
not what the API server cut.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from types import MappingProxyType

from msgspec import Struct, field
from msgspec.structs import replace

from webhook.findings import Finding

WARNING_ITEM_RUNES = 256  # truncateItemRunes in the API server's warning recorder
WARNING_TOTAL_RUNES = 4 * 1024  # truncateAtTotalRunes
ELLIPSIS = "…"
# An audit annotation key must be a qualified name's name part after the API server prefixes the webhook
# name (`<webhook>/<key>`): alphanumerics, '-', '_', '.', at most 63 characters.
_AUDIT_KEY = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?")
AUDIT_VALUE_CHARS = 4096  # draguard's own cap: an audit event is a log record, not a report
DENY_LISTED = 20  # draguard's own cap on findings spelled out in a denial message


class Response(Struct, frozen=True):
    """One admission decision. `code`/`reason`/`message` become `response.status` when not allowed.

    `findings`, `note` and `rule_errors` never go on the wire: the request log line and the metrics read them.
    """

    allowed: bool
    code: int = 200
    reason: str = ""
    message: str = ""
    warnings: tuple[str, ...] = ()
    audit: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    causes: tuple[tuple[str, str], ...] = ()  # (field path, message) for status.details.causes
    findings: tuple[Finding, ...] = ()
    note: str = ""
    rule_errors: tuple[str, ...] = ()  # ids of rules that raised (counted and logged, not sent)

    def with_warnings(self, *lines: str) -> Response:
        return replace(self, warnings=fit_warnings((*self.warnings, *lines)))

    def with_audit(self, annotations: Mapping[str, str]) -> Response:
        return replace(self, audit=MappingProxyType({**self.audit, **annotations}))

    def with_findings(self, findings: Iterable[Finding]) -> Response:
        return replace(self, findings=(*self.findings, *findings))

    def noted(self, note: str) -> Response:
        return replace(self, note=note)


def allowed() -> Response:
    return Response(True)


def denied(message: str, causes: Iterable[tuple[str, str]] = ()) -> Response:
    """Rejected by policy: 403 Forbidden, as controller-runtime's `Denied` answers."""
    return Response(False, 403, "Forbidden", one_line(message), causes=tuple(causes))


def errored(code: int, message: str, reason: str = "") -> Response:
    return Response(False, code, reason or _REASONS.get(code, "InternalError"), one_line(message))


_REASONS = {400: "BadRequest", 403: "Forbidden", 408: "Timeout", 413: "RequestEntityTooLarge",
            415: "UnsupportedMediaType", 500: "InternalError"}


def one_line(text: str) -> str:
    """Control characters (newlines, tabs, escapes) become spaces, runs of spaces one space."""
    cleaned = "".join(" " if unicodedata.category(c) == "Cc" else c for c in text)
    return " ".join(cleaned.split())


def clip(text: str, runes: int) -> str:
    return text if len(text) <= runes else text[: runes - 1] + ELLIPSIS


def fit_warnings(lines: Iterable[str]) -> tuple[str, ...]:
    """One line each, at most 256 runes, no duplicates, within the API server's 4096-rune budget."""
    out: list[str] = []
    seen: set[str] = set()
    shown: set[str] = set()
    merged = 0
    for raw in lines:
        whole = one_line(raw)
        if not whole or whole in seen:
            continue
        seen.add(whole)
        line = clip(whole, WARNING_ITEM_RUNES)
        if line in shown:
            # Distinct, but the same as one already listed once cut (the API server would merge the two):
            # counted in the last line rather than lost.
            merged += 1
            continue
        shown.add(line)
        out.append(line)
    if not merged and sum(map(len, out)) <= WARNING_TOTAL_RUNES:
        return tuple(out)
    kept: list[str] = []
    used = 0
    for i, line in enumerate(out):
        rest = len(out) - i - 1 + merged
        note = _more(rest) if rest else ""
        if used + len(line) + len(note) > WARNING_TOTAL_RUNES:
            break
        kept.append(line)
        used += len(line)
    kept.append(_more(len(out) - len(kept) + merged))
    return tuple(kept)


def _more(count: int) -> str:
    return f"[draguard] {count} more warning(s) not shown; run `draguard validate` on this object for all of them"


def audit_key(rule: str) -> str | None:
    """The rule id as an audit annotation key, or None when the API server would refuse it."""
    return rule if _AUDIT_KEY.fullmatch(rule) else None
