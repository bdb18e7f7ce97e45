"""One admission review over HTTP, framework-free: the request's body stream in, a status code and the answer's
bytes out, with its metrics and its one log line.

Two doors lead here and answer alike: `webhook.app.AdmissionRoute`, the WSGI route that takes `POST /validate/*`
before Flask does (the served path: Flask's request and response objects cost more than decoding a small review),
and the Flask views in `webhook.views`, reached only when that route is not in front.

The body is read at most 7 MiB, handed to `review.parse`, the request to its handler. A `BadReview` becomes its
4xx; any other exception is a bug: logged with the request uid and answered with HTTP 500 and a well-formed
review without a traceback, so the API server applies the webhook's `failurePolicy` (Ignore admits, Fail
rejects) instead of this process deciding to fail open or closed on its own.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import time
from datetime import datetime
from typing import Any, Protocol

import msgspec
from msgspec import Struct

from webhook import metrics
from webhook.admission import handlers, review
from webhook.admission.logs import REQUEST_LOGGER, log_fields
from webhook.admission.response import Response, errored
from webhook.admission.review import BadReview, Request
from webhook.admission.timeout import InvalidDuration, requested_timeout
from webhook.budget import UNLIMITED, Budget, CompileCacheBudget
from webhook.policy_store import PolicySource
from webhook.wire import get_str

log = logging.getLogger(REQUEST_LOGGER)

SLICES_PATH = "/validate/resourceslices"
SELECTORS_PATH = "/validate/selectors"
# The webhook paths, each with its handler, looked up by name at call time (tests replace handlers and rules).
PATHS = {SLICES_PATH: "resourceslices", SELECTORS_PATH: "selectors"}
LOGGED_CHARS = 256  # of a name the request carries, in the log line
# An oversized body up to this size is read and thrown away before the 413, so the client, still sending,
# reads the answer instead of a reset connection and the connection stays usable; beyond it, the 413 goes
# out at once and gunicorn closes the connection rather than drain an unbounded body.
DRAIN_LIMIT = 4 * review.MAX_BODY


class BodyDeadlineExceeded(Exception):
    """The request body did not arrive within the front's body deadline (answered 408)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"request body not received within {seconds:g} s")
        self.seconds = seconds


class BodyStream(Protocol):
    """Where the body is read from (a WSGI input stream, gunicorn's request body)."""

    def read(self, size: int) -> bytes: ...


class TLSStatus(Protocol):
    """What readiness needs from the certificate holder (`certs.reload.TLSReloader` fits)."""

    @property
    def loaded(self) -> bool: ...

    @property
    def not_after(self) -> datetime: ...


class State(Struct, frozen=True):
    """What an admission review is answered with: the policy in force, the certificate holder, the budget."""

    policy: PolicySource
    tls: TLSStatus | None = None
    budget: Budget = UNLIMITED
    compile_cache: CompileCacheBudget | None = None


def answer_review(path: str, state: State, *, length: int | None, content_type: str | None,
                  stream: BodyStream, release: list[object] | None = None, waited: float = 0.0,
                  query: str = "", content_encoding: str | None = None) -> tuple[int, bytes]:
    """The HTTP status and JSON body answering the review on `stream` (`length`: its Content-Length, None when
    chunked; `content_encoding`: its Content-Encoding) sent to the webhook `path` (one of PATHS) with the URL query
    `query`; counted and logged.

    With `release`, the decoded review is appended to it instead of being freed on return: the caller drops it
    once the answer is written (freeing a maximal slice's ~4,200 dicts, lists and strings takes 0.15 ms in
    process, more with cold caches, and the client need not wait for it). `waited`: seconds the review waited for
    this worker (webhook.connection.waited), spent from its wall budget. The query's `timeout` (the API server's)
    shortens the wall budget to what it leaves (`webhook.admission.timeout`)."""
    started = time.perf_counter()
    handler: handlers.Handler = getattr(handlers, PATHS[path])
    req: Request | None = None
    answer: Response | None = None
    uid = ""
    timeout: tuple[str, float] | None = None
    error = ""
    failure: BaseException | None = None
    in_flight = metrics.in_flight(path)
    in_flight.inc()
    try:
        req = review.parse(read_body(length, content_type, stream, content_encoding))
        uid = req.uid
        timeout = _timeout(query, req)
        budget = (state.budget.within(*timeout) if timeout is not None else state.budget).after(waited)
        clears = state.compile_cache.clears if state.compile_cache is not None else 0
        answer = handler(req, state.policy.current(), budget=budget, cache=state.compile_cache)
        if state.compile_cache is not None and state.compile_cache.clears != clears:
            CLEARED.owe()  # collected once the answer is written (collect_cleared), not on this review's time
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
    data = encode(payload)
    # From the review's arrival, as its wall budget counts it: the time it waited for this worker included, so
    # the histogram shows the queueing behind busy workers that the API server's timeout sees.
    latency = time.perf_counter() - started + waited
    if state.tls is not None:
        note_expiry(state.tls)
    _record(path, code, latency, uid=uid, req=req, answer=answer, error=error, failure=failure,
            timeout=timeout[0] if timeout is not None else "")
    if release is not None:
        release.append(req)
    return code, data


def _timeout(query: str, req: Request) -> tuple[str, float] | None:
    """The caller's `?timeout=` (text, seconds); one that is no duration is refused as the API server refuses its
    own (400), after the body is read, so the connection stays usable and the answer names the uid."""
    try:
        return requested_timeout(query)
    except InvalidDuration as err:
        raise BadReview(400, str(err), uid=req.uid, api_version=req.api_version) from None


COLLECT_INTERVAL = 30.0  # seconds: at most one such full collection per worker in this time


class DeferredCollection:
    """A full collection owed since celext's caches were cleared. The workers make collections rare
    (`serve.YOUNG_GC_THRESHOLD`), so the cleared selectors' reference cycles would otherwise wait in the oldest
    generation: over 8,000 distinct selectors a worker grew 89 -> 101 MiB without one, stayed at 88-90 with it.

    It runs after the answer is written, never inside a review: over a worker's heap grown by heavy claims a full
    collection took 0.5-1.4 s, which answered the review that cleared the caches (and every review queued behind
    it) past the webhook's 3 s timeout. At most one per `interval`, so a stream of claims that keep clearing the
    caches pauses the worker once per interval rather than after each of them; an owed collection waits for the
    next answer after the interval."""

    def __init__(self, interval: float = COLLECT_INTERVAL, clock: Any = time.monotonic) -> None:
        self.interval = interval
        self._clock = clock
        self._owed = False
        self._last = float("-inf")

    def owe(self) -> None:
        self._owed = True

    def settle(self) -> bool:
        """Collect if one is owed and the interval has passed since the last; whether it did."""
        if not self._owed:
            return False
        now = self._clock()
        if now - self._last < self.interval:
            return False
        self._owed, self._last = False, now
        gc.collect()
        return True


CLEARED = DeferredCollection()


def collect_cleared() -> None:
    """The owed collection, if due: called by each door once its answer is on the wire."""
    CLEARED.settle()


def read_body(length: int | None, content_type: str | None, stream: BodyStream,
              content_encoding: str | None = None) -> bytes:
    """The whole body, or the `BadReview` it deserves (413 over 7 MiB, 408 past the body deadline, 400, 415)."""
    if length is not None and length > review.MAX_BODY:
        if length <= DRAIN_LIMIT:
            _discard(stream)
        raise review.too_large()
    # With a Content-Length the server's input stream reads until that many bytes or the end of input, so a
    # whole body is one read; a chunked body (no length) is read until its end or one byte past the cap.
    wanted = review.MAX_BODY + 1 if length is None else length
    chunks: list[bytes] = []
    size = 0
    while size < wanted:
        chunk = _read(stream, wanted - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > review.MAX_BODY:
        _discard(stream)
        raise review.too_large()
    if length is not None and size < length:
        # The client went away mid-body: nobody reads this answer, but the log line must say what happened.
        raise BadReview(400, f"request body ended after {size} of {length} bytes (the client closed the connection)")
    body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    if not body:
        raise BadReview(400, "request body is empty")
    review.check_content_type(content_type)
    review.check_content_encoding(content_encoding)
    return body


def _read(stream: BodyStream, size: int) -> bytes:
    try:
        chunk: bytes = stream.read(size)
    except BodyDeadlineExceeded as err:
        raise BadReview(408, str(err)) from None
    except Exception as err:  # the server refused the body (bad chunk framing, a client gone): the client's doing
        raise BadReview(400, f"request body could not be read: {str(err) or type(err).__name__}") from None
    return chunk


def _discard(stream: BodyStream) -> None:
    read = 0
    while read <= DRAIN_LIMIT:
        chunk = _read(stream, 64 * 1024)
        if not chunk:
            return
        read += len(chunk)


def decision(code: int, answer: Response | None) -> str:
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
    timeout: str = "",
) -> None:
    decided = decision(code, answer)
    findings = answer.findings if answer is not None else ()
    metrics.record(webhook, code, decided, latency, findings)
    rule_errors = answer.rule_errors if answer is not None else ()
    if rule_errors:
        metrics.rule_errors(rule_errors)
    note = answer.note if answer is not None else ""
    level = logging.ERROR if code >= 500 else logging.WARNING if code >= 400 or note else logging.INFO
    if not log.isEnabledFor(level):  # the fields are not built for a line nobody keeps
        return
    fields: dict[str, Any] = {"webhook": webhook, "decision": decided, "code": code, "worker": os.getpid()}
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
    if timeout:
        fields["timeout"] = timeout[:LOGGED_CHARS]  # the caller's, which shortened the deadline if below it
    fields["rules"] = sorted({f.rule for f in findings})
    if rule_errors:
        fields["ruleErrors"] = sorted(set(rule_errors))
    if answer is not None:
        fields["warnings"] = len(answer.warnings)
    fields["latencyMs"] = round(latency * 1000, 3)
    if error:
        fields["error"] = error
    if note:
        fields["note"] = note
    # One line per request; for a bug it carries the traceback (as one JSON string) to find it by uid.
    log_fields(log, level, "admission review", fields, failure)


def note_expiry(tls: TLSStatus) -> None:
    metrics.certificate_expiry(tls.not_after.timestamp())


def encode(payload: object) -> bytes:
    """Compact JSON. msgspec writes it several times faster than `json.dumps`; text it cannot write as UTF-8 (a
    lone surrogate; the review's reader reads a request's as U+FFFD, `review.decode`) goes through `json.dumps`,
    which escapes it."""
    try:
        return msgspec.json.encode(payload)
    except (UnicodeEncodeError, TypeError, msgspec.EncodeError):
        return json.dumps(payload, separators=(",", ":")).encode()
