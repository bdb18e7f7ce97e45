"""`create_app`: the Flask application behind `draguard serve`, built from explicit settings.

There is no module-level app: the server builds one per worker with the worker's policy store and
certificate holder, and tests build their own. Errors Flask raises itself (404, 405) are answered as JSON
too, so nothing on this port ever answers with an HTML page or a traceback.

`POST /validate/*` does not go through Flask's routing, request and response objects: `AdmissionRoute`, the
app's innermost WSGI layer, reads the body once from `wsgi.input` and returns the answer's bytes (Flask's
machinery cost more than decoding a small review). Everything else, and any other method on those paths, is
Flask's: probes, 404/405, error pages.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from flask import Flask
from flask import Response as HTTPResponse
from msgspec import Struct
from werkzeug.exceptions import HTTPException, InternalServerError
from werkzeug.http import HTTP_STATUS_CODES
from werkzeug.wsgi import ClosingIterator, get_content_length, get_input_stream

from webhook.admission.endpoint import PATHS, BodyStream, State, TLSStatus, answer_review, collect_cleared
from webhook.admission.review import JSON_TYPE
from webhook.budget import DEFAULT_BUDGET, Budget, CompileCacheBudget
from webhook.policy_store import PolicySource, PolicyStore
from webhook.views import admission_bp, health_bp

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class Settings(Struct, frozen=True):
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
    state = State(store, tls, settings.budget, CompileCacheBudget(settings.compile_cache_bytes))
    app.extensions["draguard"] = state
    app.register_blueprint(admission_bp)  # POST /validate/resourceslices, /validate/selectors
    app.register_blueprint(health_bp)  # GET /healthz, /readyz
    app.register_error_handler(HTTPException, _http_error)
    app.wsgi_app = AdmissionRoute(app.wsgi_app, state, app.logger)  # type: ignore[method-assign]
    return app


class AdmissionRoute:
    """WSGI: `POST /validate/resourceslices` and `/validate/selectors` answered by `endpoint.answer_review`, the
    rest passed to `app`. Status line and headers are those Flask wrote for the same answer. `webhook.front`
    calls `respond` straight from gunicorn's parsed request, without building a WSGI environ."""

    def __init__(self, app: WSGIApp, state: State, logger: logging.Logger) -> None:
        self.app = app
        self.state = state
        self.logger = logger

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path not in PATHS or environ.get("REQUEST_METHOD") != "POST":
            return self.app(environ, start_response)
        # werkzeug's own readers, as Flask's `request.content_length` and `request.stream` use them
        status, headers, data = self.respond(path, length=get_content_length(environ),
                                             content_type=environ.get("CONTENT_TYPE"),
                                             stream=get_input_stream(environ),
                                             query=environ.get("QUERY_STRING", ""),
                                             content_encoding=environ.get("HTTP_CONTENT_ENCODING"))
        start_response(status, headers)
        return ClosingIterator([data], collect_cleared)  # the server closes it once the answer is written

    def respond(self, path: str, *, length: int | None, content_type: str | None, stream: BodyStream,
                release: list[object] | None = None, waited: float = 0.0,
                query: str = "", content_encoding: str | None = None) -> tuple[str, list[tuple[str, str]], bytes]:
        """Status line, headers and body answering the review on `stream` sent to `path` (one of PATHS); `release`,
        `waited`, `query` (the URL's, which carries the API server's `timeout`) and `content_encoding` as
        `answer_review` takes them."""
        try:
            code, data = answer_review(path, self.state, length=length, content_type=content_type, stream=stream,
                                       release=release, waited=waited, query=query,
                                       content_encoding=content_encoding)
        except Exception:  # answer_review answers its own failures; this is a bug around it, as Flask reports one
            self.logger.exception("Exception on %s [POST]", path)
            error = _http_error(InternalServerError())
            return error.status, error.headers.to_wsgi_list(), error.get_data()
        return _STATUS[code], [("Content-Type", JSON_TYPE), ("Content-Length", str(len(data)))], data


class _StatusLines(dict[int, str]):
    """`200 OK`, `400 BAD REQUEST`: the status line werkzeug writes for a code."""

    def __missing__(self, code: int) -> str:
        line = self[code] = f"{code} {HTTP_STATUS_CODES.get(code, 'UNKNOWN').upper()}"
        return line


_STATUS = _StatusLines()


def error_body(code: int, message: str) -> str:
    """The JSON every error on this port that is not a review is answered with: `{"code", "error", "message"}`
    (Flask's 404 and 405, the requests gunicorn's parser refuses: `webhook.front.write_error`)."""
    return json.dumps({"code": code, "error": HTTP_STATUS_CODES.get(code, "Unknown Error"), "message": message})


def _http_error(err: HTTPException) -> HTTPResponse:
    code = err.code or 500
    response = HTTPResponse(error_body(code, err.description or ""), code, mimetype="application/json")
    response.headers.extend([(k, v) for k, v in err.get_headers() if k.lower() == "allow"])  # 405's Allow
    return response
