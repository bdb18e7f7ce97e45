"""Thin Flask views: the admission paths and the health probes. Decisions live in `webhook.admission`.

`POST /validate/*` is answered by `webhook.admission.endpoint`; `create_app` puts its WSGI route
(`webhook.app.AdmissionRoute`) in front of Flask, so the views below are reached for it only when that route is
not there. They stay registered so the URL map knows the paths (other methods get 405 with `Allow`).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, current_app, request
from flask import Response as HTTPResponse

from webhook.admission.endpoint import (
    SELECTORS_PATH,
    SLICES_PATH,
    BodyDeadlineExceeded,
    State,
    TLSStatus,
    answer_review,
    collect_cleared,
    note_expiry,
)
from webhook.admission.review import JSON_TYPE

admission_bp = Blueprint("admission", __name__)
health_bp = Blueprint("health", __name__)

__all__ = ["BodyDeadlineExceeded", "State", "TLSStatus", "admission_bp", "health_bp"]


def state() -> State:
    found: State = current_app.extensions["draguard"]
    return found


@admission_bp.post(SLICES_PATH)
def resourceslices() -> HTTPResponse:
    return _review(SLICES_PATH)


@admission_bp.post(SELECTORS_PATH)
def selectors() -> HTTPResponse:
    return _review(SELECTORS_PATH)


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
    source = policy.current().source  # first: it follows a newly published policy, and the error with it
    error = policy.last.error
    checks: dict[str, Any] = {
        "policy": {"ok": error is None, "source": source, "hash": policy.hash, "lastReloadError": error},
    }
    if current.tls is not None:
        # An expired certificate is still "loaded" (the holder keeps the last good one), but the API server
        # refuses the handshake: report not ready so the failure policy, not a TLS error, decides.
        usable = current.tls.loaded and current.tls.not_after > datetime.now(UTC)
        checks["certificate"] = {"ok": usable, "notAfter": current.tls.not_after.isoformat()}
        note_expiry(current.tls)
    ready = all(check["ok"] for check in checks.values())
    return _json({"ready": ready, "checks": checks}, 200 if ready else 503)


def _review(path: str) -> HTTPResponse:
    code, data = answer_review(path, state(), length=request.content_length,
                               content_type=request.headers.get("Content-Type"), stream=request.stream,
                               query=request.query_string.decode("latin-1"),
                               content_encoding=request.headers.get("Content-Encoding"))
    response = HTTPResponse(data, code, mimetype=JSON_TYPE)
    response.call_on_close(collect_cleared)  # once the answer is written
    return response


def _json(payload: object, code: int) -> HTTPResponse:
    return HTTPResponse(json.dumps(payload, separators=(",", ":")), code, mimetype=JSON_TYPE)
