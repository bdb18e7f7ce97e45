"""Prometheus metrics with controller-runtime's webhook names, safe under several gunicorn workers.

Names and labels follow controller-runtime (`pkg/webhook/internal/metrics/metrics.go`,
`pkg/webhook/admission/metrics/metrics.go`), the de-facto reference dashboards and alerts are written for:
`controller_runtime_webhook_requests_total{webhook,code}`, `controller_runtime_webhook_latency_seconds{webhook}`,
`controller_runtime_webhook_requests_in_flight{webhook}` and `controller_runtime_webhook_panics_total`.
draguard's own: `draguard_rule_findings_total{webhook,rule,action}` (per-rule decisions),
`draguard_admission_decisions_total{webhook,decision}`, `draguard_certificate_expiry_timestamp_seconds`,
`draguard_policy_reloads_total{result}`, `draguard_policy_reload_errors_total`, `draguard_policy_info{hash}`
(1 for the policy in force, 0 for earlier ones) and `draguard_rule_errors_total{rule}` (a rule raised: the
object got a `rule-error` finding).

Several worker processes share nothing, so `draguard serve` sets `PROMETHEUS_MULTIPROC_DIR` before this
module is imported: prometheus_client then keeps every value in per-process files that `registry()` sums,
gauges use a `multiprocess_mode`, and `mark_dead(pid)` drops a finished worker's live gauges
(client_python's multiprocess documentation). Without the variable (tests, the Flask test client) the
same metrics live in the process's default registry.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING, Any

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, make_wsgi_app, multiprocess

if TYPE_CHECKING:
    from webhook.findings import Finding

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

REQUESTS = Counter(
    "controller_runtime_webhook_requests_total",
    "Total number of admission requests by HTTP status code.",
    ["webhook", "code"],
)
LATENCY = Histogram(
    "controller_runtime_webhook_latency_seconds",
    "Histogram of the latency of processing admission requests",
    ["webhook"],
)
IN_FLIGHT = Gauge(
    "controller_runtime_webhook_requests_in_flight",
    "Current number of admission requests being served.",
    ["webhook"],
    multiprocess_mode="livesum",
)
PANICS = Counter(
    "controller_runtime_webhook_panics_total",
    "Total number of webhook panics (unexpected exceptions answered with an error)",
)
FINDINGS = Counter(
    "draguard_rule_findings_total",
    "Findings reported to the API server, by rule and the action the policy gave them.",
    ["webhook", "rule", "action"],
)
DECISIONS = Counter(
    "draguard_admission_decisions_total",
    "Admission decisions: allowed, denied, rejected (malformed request), error.",
    ["webhook", "decision"],
)
CERT_EXPIRY = Gauge(
    "draguard_certificate_expiry_timestamp_seconds",
    "When the serving certificate in use expires (Unix time).",
    multiprocess_mode="livemax",
)
POLICY_RELOADS = Counter(
    "draguard_policy_reloads_total",
    "Policy file reloads: success, or error (the previous policy stays in force).",
    ["result"],
)

POLICY_RELOAD_ERRORS = Counter(
    "draguard_policy_reload_errors_total",
    "Policy files that did not load; the previous policy stays in force in every worker.",
)
POLICY_INFO = Gauge(
    "draguard_policy_info",
    "The policy in force, by the first 12 hex digits of its file's SHA-256 (1), earlier ones (0).",
    ["hash"],
    multiprocess_mode="max",
)
RULE_ERRORS = Counter(
    "draguard_rule_errors_total",
    "Rules that raised on an object under review (answered with a rule-error finding), by rule.",
    ["rule"],
)


# The labelled children a request touches, looked up once per label set: `labels()` validates and locks on
# every call, and a request makes five or more of them. A child survives a gunicorn fork: in multiprocess
# mode its value notices the new pid and moves to the worker's own file (client_python's MmapedValue).
@cache
def in_flight(webhook: str) -> Gauge:
    return IN_FLIGHT.labels(webhook)


@cache
def _requests(webhook: str, code: int) -> Counter:
    return REQUESTS.labels(webhook, str(code))


@cache
def _latency(webhook: str) -> Histogram:
    return LATENCY.labels(webhook)


@cache
def _decisions(webhook: str, decision: str) -> Counter:
    return DECISIONS.labels(webhook, decision)


@cache
def _findings(webhook: str, rule: str, action: str) -> Counter:
    return FINDINGS.labels(webhook, rule, action)


def record(webhook: str, code: int, decision: str, latency: float, findings: Iterable[Finding]) -> None:
    """Count one answered request: status code, latency, decision, and each finding by rule and action."""
    _requests(webhook, code).inc()
    _latency(webhook).observe(latency)
    _decisions(webhook, decision).inc()
    for finding in findings:
        _findings(webhook, finding.rule, finding.action.value if finding.action else "").inc()


_expiry: list[float] = []  # the value last set, so a request sets the gauge only when the certificate changed


def certificate_expiry(timestamp: float) -> None:
    if not _expiry or _expiry[0] != timestamp:
        CERT_EXPIRY.set(timestamp)
        _expiry[:] = [timestamp]


def multiprocess_mode() -> bool:
    return bool(os.environ.get(MULTIPROC_ENV))


def registry() -> CollectorRegistry:
    """What the metrics port exposes: all workers' values summed in multiprocess mode, else this process's."""
    if not multiprocess_mode():
        return REGISTRY
    collected = CollectorRegistry()
    multiprocess.MultiProcessCollector(collected)  # type: ignore[no-untyped-call]
    return collected


METRICS_PATH = "/metrics"
# The mTLS overlay points the kubelet's probes here (it cannot present a client certificate to the HTTPS port):
# answered while the process runs, as docs/deploy.md says; the HTTPS port's /readyz tells the whole truth.
PROBE_PATHS = frozenset({"/healthz", "/readyz"})
_TEXT = [("Content-Type", "text/plain; charset=utf-8")]
_OK = b"ok\n"
_NOT_FOUND = f"404 Not Found: this port serves GET {METRICS_PATH} (and the probes /healthz, /readyz)\n".encode()


def wsgi_app() -> Any:
    """The WSGI app every worker serves on the metrics port (`webhook.front`): `registry()` in text format at
    `/metrics`, `ok` at the probe paths, 404 on any other path (prometheus_client's app answers every path with
    the metrics)."""
    metrics_app = make_wsgi_app(registry())

    def app(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        path = environ.get("PATH_INFO")
        if path == METRICS_PATH:
            return metrics_app(environ, start_response)  # type: ignore[no-any-return]
        status, body = ("200 OK", _OK) if path in PROBE_PATHS else ("404 Not Found", _NOT_FOUND)
        start_response(status, [*_TEXT, ("Content-Length", str(len(body)))])
        return [body]

    return app


def rule_errors(rules: Iterable[str]) -> None:
    for rule in rules:
        RULE_ERRORS.labels(rule).inc()


def policy_reloaded(error: str | None) -> None:
    """Count one attempt to load a changed policy file (in the process that reads the file: the master)."""
    POLICY_RELOADS.labels("error" if error else "success").inc()
    if error:
        POLICY_RELOAD_ERRORS.inc()


_hashes: list[str] = []


def policy_active(policy_hash: str) -> None:
    """Mark `policy_hash` as the policy in force (1) and every earlier one as not (0)."""
    for earlier in _hashes:
        if earlier != policy_hash:
            POLICY_INFO.labels(earlier).set(0)
    POLICY_INFO.labels(policy_hash).set(1)
    if policy_hash not in _hashes:
        _hashes.append(policy_hash)


def mark_dead(pid: int) -> None:
    """Forget a finished worker's live gauges (gunicorn's child_exit hook)."""
    if multiprocess_mode():
        multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]
