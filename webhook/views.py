"""Thin Flask views: the admission paths and the health probes. Decisions live in `webhook.admission`.

An admission view reads at most 7 MiB, hands the bytes to `review.parse`, the request to its handler, and
writes one JSON log line and the metrics for every request, whatever happened. A `BadReview` becomes its 4xx;
any other exception is a bug: it is logged with the request uid and answered with HTTP 500 and a well-formed
review without a traceback, so the API server applies the webhook's `failurePolicy` (Ignore admits, Fail
rejects) instead of this process deciding to fail open or closed on its own.
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from flask import Blueprint, current_app, request
from flask import Response as HTTPResponse

from webhook import metrics
from webhook.admission import handlers, review
from webhook.admission.handlers import Handler
from webhook.admission.logs import REQUEST_LOGGER
from webhook.admission.response import Response, errored
from webhook.admission.review import JSON_TYPE, BadReview, Request
from webhook.budget import UNLIMITED, Budget, CompileCacheBudget
from webhook.policy_store import PolicySource
from webhook.wire import get_str

log = logging.getLogger(REQUEST_LOGGER)

admission_bp = Blueprint("admission", __name__)
health_bp = Blueprint("health", __name__)

SLICES_PATH = "/validate/resourceslices"
SELECTORS_PATH = "/validate/selectors"
LOGGED_CHARS = 256  # of a name the request carries, in the log line


class BodyDeadlineExceeded(Exception):
    """The request body did not arrive within the front's body deadline (answered 408)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"request body not received within {seconds:g} s")
        self.seconds = seconds


class TLSStatus(Protocol):
    """What readiness needs from the certificate holder (`certs.reload.TLSReloader` fits)."""

    @property
    def loaded(self) -> bool: ...

    @property
    def not_after(self) -> datetime: ...


@dataclass(frozen=True, slots=True)
class State:
    """What the views share, kept in `app.extensions["draguard"]`."""

    policy: PolicySource
    tls: TLSStatus | None = None
    budget: Budget = UNLIMITED
    compile_cache: CompileCacheBudget | None = None


def state() -> State:
    found: State = current_app.extensions["draguard"]
    return found


@admission_bp.post(SLICES_PATH)
def resourceslices() -> HTTPResponse:
    return _review(SLICES_PATH, handlers.resourceslices)


@admission_bp.post(SELECTORS_PATH)
def selectors() -> HTTPResponse:
    return _review(SELECTORS_PATH, handlers.selectors)


@health_bp.get("/healthz")
def healthz() -> HTTPResponse:
    """The process answers: liveness. Nothing else is checked, so a slow dependency never restarts us."""
    return HTTPResponse("ok\n", 200, mimetype="text/plain")


@health_bp.get("/readyz")
def readyz() -> HTTPResponse:
    """Ready when an unexpired certificate is loaded and the policy file last read loaded.

    A policy file that does not load keeps the previous policy in force (in every worker), but fails this
    check with the error, so a broken ConfigMap is visible where rollouts and alerts look.
    """
    current = state()
    policy = current.policy
    error = policy.last.error
    checks: dict[str, Any] = {
        "policy": {"ok": error is None, "source": policy.current().source, "hash": policy.hash,
                   "lastReloadError": error},
    }
    if current.tls is not None:
        # An expired certificate is still "loaded" (the holder keeps the last good one), but the API server
        # refuses the handshake: report not ready so the failure policy, not a TLS error, decides.
        usable = current.tls.loaded and current.tls.not_after > datetime.now(UTC)
        checks["certificate"] = {"ok": usable, "notAfter": current.tls.not_after.isoformat()}
        _note_expiry(current.tls)
    ready = all(check["ok"] for check in checks.values())
    return _json({"ready": ready, "checks": checks}, 200 if ready else 503)


def _review(webhook: str, handler: Handler) -> HTTPResponse:
    started = time.perf_counter()
    current = state()
    req: Request | None = None
    answer: Response | None = None
    uid = ""
    error = ""
    failure: BaseException | None = None
    in_flight = metrics.in_flight(webhook)
    in_flight.inc()
    try:
        req = review.parse(_body())
        uid = req.uid
        answer = handler(req, current.policy.current(), budget=current.budget, cache=current.compile_cache)
        payload, code = review.answer(uid, answer, req.api_version), 200
    except BadReview as err:
        payload, code, error, uid = review.refusal(err), err.code, err.message, err.uid
    except Exception as err:  # a bug: answered without a traceback, logged with the uid
        metrics.PANICS.inc()
        failure = err
        message = f"internal error in the draguard webhook ({type(err).__name__}); see its log for uid {uid}"
        payload = review.answer(uid, errored(500, message), req.api_version if req else review.API_VERSIONS[0])
        code, error = 500, message
    finally:
        in_flight.dec()
    data = _encode(payload)
    latency = time.perf_counter() - started
    if current.tls is not None:
        _note_expiry(current.tls)
    _record(webhook, code, latency, uid=uid, req=req, answer=answer, error=error, failure=failure)
    return HTTPResponse(data, code, mimetype=JSON_TYPE)


# An oversized body up to this size is read and thrown away before the 413, so the client, still sending,
# reads the answer instead of a reset connection and the connection stays usable; beyond it, the 413 goes
# out at once and gunicorn closes the connection rather than drain an unbounded body.
DRAIN_LIMIT = 4 * review.MAX_BODY


def _body() -> bytes:
    length = request.content_length
    if length is not None and length > review.MAX_BODY:
        if length <= DRAIN_LIMIT:
            _discard()
        raise review.too_large()
    # With a Content-Length the server's input stream reads until that many bytes or the end of input, so a
    # whole body is one read; a chunked body (no length) is read until its end or one byte past the cap.
    wanted = review.MAX_BODY + 1 if length is None else length
    chunks: list[bytes] = []
    size = 0
    while size < wanted:
        chunk = _read(wanted - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > review.MAX_BODY:
        _discard()
        raise review.too_large()
    if length is not None and size < length:
        # The client went away mid-body: nobody reads this answer, but the log line must say what happened.
        raise BadReview(400, f"request body ended after {size} of {length} bytes (the client closed the connection)")
    body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    if not body:
        raise BadReview(400, "request body is empty")
    review.check_content_type(request.headers.get("Content-Type"))
    return body


def _read(size: int) -> bytes:
    try:
        chunk: bytes = request.stream.read(size)
    except BodyDeadlineExceeded as err:
        raise BadReview(408, str(err)) from None
    except Exception as err:  # the server refused the body (bad chunk framing, a client gone): the client's doing
        raise BadReview(400, f"request body could not be read: {str(err) or type(err).__name__}") from None
    return chunk


def _discard() -> None:
    read = 0
    while read <= DRAIN_LIMIT:
        chunk = _read(64 * 1024)
        if not chunk:
            return
        read += len(chunk)


def _decision(code: int, answer: Response | None) -> str:
    if code >= 500:
        return "error"
    if code >= 400 or answer is None:
        return "rejected"
    return "allowed" if answer.allowed else "denied"


def _record(
    webhook: str,
    code: int,
    latency: float,
    *,
    uid: str,
    req: Request | None,
    answer: Response | None,
    error: str,
    failure: BaseException | None,
) -> None:
    decision = _decision(code, answer)
    findings = answer.findings if answer is not None else ()
    metrics.record(webhook, code, decision, latency, findings)
    rule_errors = answer.rule_errors if answer is not None else ()
    if rule_errors:
        metrics.rule_errors(rule_errors)
    fields: dict[str, Any] = {"webhook": webhook, "decision": decision, "code": code, "worker": os.getpid()}
    if uid:
        fields["uid"] = uid  # a refused review still names its uid when it could be read
    if req is not None:
        obj = req.object or req.old_object or {}
        fields.update(
            kind=req.kind.kind,
            resource=str(req.resource),
            namespace=req.namespace,
            name=(req.name or get_str(obj, "metadata", "name")
                  or get_str(obj, "metadata", "generateName"))[:LOGGED_CHARS],
            operation=req.operation,
            dryRun=req.dry_run,
            user=req.user,
        )
    fields["rules"] = sorted({f.rule for f in findings})
    if rule_errors:
        fields["ruleErrors"] = sorted(set(rule_errors))
    if answer is not None:
        fields["warnings"] = len(answer.warnings)
    fields["latencyMs"] = round(latency * 1000, 3)
    if error:
        fields["error"] = error
    note = answer.note if answer is not None else ""
    if note:
        fields["note"] = note
    level = logging.ERROR if code >= 500 else logging.WARNING if code >= 400 or note else logging.INFO
    # One line per request; for a bug it carries the traceback (as one JSON string) to find it by uid.
    log.log(level, "admission review", extra={"fields": fields}, exc_info=failure)


def _note_expiry(tls: TLSStatus) -> None:
    metrics.certificate_expiry(tls.not_after.timestamp())


def _encode(payload: object) -> bytes:
    return json.dumps(payload, separators=(",", ":")).encode()


def _json(payload: object, code: int) -> HTTPResponse:
    return HTTPResponse(_encode(payload), code, mimetype=JSON_TYPE)
