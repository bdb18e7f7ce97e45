"""`create_app`: the Flask application behind `draguard serve`, built from explicit settings.

There is no module-level app: the server builds one per worker with the worker's policy store and
certificate holder, and tests build their own. Errors Flask raises itself (404, 405) are answered as JSON
too, so nothing on this port ever answers with an HTML page or a traceback.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from flask import Flask
from flask import Response as HTTPResponse
from werkzeug.exceptions import HTTPException

from webhook.budget import DEFAULT_BUDGET, Budget, CompileCacheBudget
from webhook.policy_store import PolicySource, PolicyStore
from webhook.views import State, TLSStatus, admission_bp, health_bp


@dataclass(frozen=True, slots=True)
class Settings:
    """What the app needs from the command line; built by `draguard serve`, never read from the environment."""

    policy_path: Path | None = None
    policy_check_interval: float = 1.0
    budget: Budget = DEFAULT_BUDGET  # what one object may cost; over it, a `budget-exceeded` finding
    compile_cache_bytes: int = 64 * 1024 * 1024  # estimated bytes of compiled selectors before celext's caches clear


def create_app(settings: Settings, policy: PolicySource | None = None, tls: TLSStatus | None = None) -> Flask:
    """The WSGI app; `policy` defaults to a store loading `settings.policy_path` (default policy when None).

    The app is plain WSGI (`app.wsgi_app` may be wrapped by a middleware, e.g. for client authentication).
    """
    app = Flask("draguard")
    store = policy or PolicyStore(settings.policy_path, check_interval=settings.policy_check_interval)
    app.extensions["draguard"] = State(store, tls, settings.budget, CompileCacheBudget(settings.compile_cache_bytes))
    app.register_blueprint(admission_bp)  # POST /validate/resourceslices, /validate/selectors
    app.register_blueprint(health_bp)  # GET /healthz, /readyz
    app.register_error_handler(HTTPException, _http_error)
    return app


def _http_error(err: HTTPException) -> HTTPResponse:
    code = err.code or 500
    body = {"code": code, "error": err.name, "message": err.description or ""}
    response = HTTPResponse(json.dumps(body), code, mimetype="application/json")
    response.headers.extend([(k, v) for k, v in err.get_headers() if k.lower() == "allow"])  # 405's Allow
    return response
