"""One API-server connection for the audit: raw JSON requests, every failure a one-line `DraguardError`.

Requests go through the kubernetes client's transport (kubeconfig or in-cluster credentials, TLS, proxies)
but bodies are plain JSON, decoded with msgspec rather than into the client's models, so the audit sees
objects exactly as the API server sent them and reads the `Status` of a failed call (a 410 carries a fresh
continue token there). Which cluster and which credentials: `webhook.audit.kubeconfig` (kubectl's rules).

Retries, as client-go's: an answer 429 or 5xx with a `Retry-After` of whole seconds is retried up to
`MAX_RETRIES` times, each wait capped at `MAX_WAIT`; a connection that fails before an answer is retried once
(a read that fails only for a GET: a PATCH or DELETE may have been applied). Nothing else is retried.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from certs.kube import never_sent
from webhook.errors import DraguardError
from webhook.wire import go_json

log = logging.getLogger(__name__)

TIMEOUT = (10.0, 60.0)  # connect, read: a page of 500 slices is a few MB
APPLY = "application/apply-patch+yaml"
MAX_RETRIES = 10  # answers with Retry-After retried, as client-go's default (rest.Request maxRetries)
MAX_WAIT = 60.0  # seconds: a longer Retry-After is waited this long (client-go has no cap; a Job should not sleep)
NETWORK_RETRIES = 1  # a connection that broke before an answer: once more, as urllib3 did before
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b.?|\x9b[0-?]*[ -/]*[@-~]")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")
sleep = time.sleep  # the tests record the waits instead


@dataclass(frozen=True, slots=True)
class Failure(Exception):
    """The API server answered with an error `Status` (callers handle 404 and 410 themselves)."""

    status: int
    reason: str
    message: str
    body: Mapping[str, Any]


class Cluster:
    """`Cluster.connect(kubeconfig, context)`; `request()` answers decoded JSON or raises `Failure`."""

    def __init__(self, api_client: Any) -> None:
        self.api_client = api_client
        self.host: str = api_client.configuration.host

    @classmethod
    def connect(cls, kubeconfig: str | None = None, context: str | None = None) -> Cluster:
        from kubernetes import client

        from webhook.audit.kubeconfig import configure

        return cls(client.ApiClient(configure(kubeconfig, context)))

    def close(self) -> None:
        self.api_client.close()

    def request(self, method: str, path: str, query: Sequence[tuple[str, str | int | bool]] = (),
                body: Any = None, content_type: str | None = None) -> Any:
        import msgspec
        import urllib3
        from kubernetes.client.exceptions import ApiException

        headers = {"Accept": "application/json"}
        if content_type is not None:
            headers["Content-Type"] = content_type
        serialized = self.api_client.param_serialize(method=method, resource_path=path, query_params=list(query),
                                                     header_params=headers, body=body, auth_settings=["BearerToken"])
        retried = failed = 0
        while True:
            try:
                response = self.api_client.call_api(*serialized, _request_timeout=TIMEOUT)
                data = response.read()
            except ApiException as err:  # pragma: no cover - the transport returns error statuses, it does not raise
                raise Failure(err.status or 0, err.reason or "", printable(str(err.body or "")), {}) from None
            except urllib3.exceptions.HTTPError as err:
                if failed < NETWORK_RETRIES and (method == "GET" or never_sent(err)):
                    failed += 1
                    continue
                raise DraguardError(self._network(err, method, path, tries=failed + 1)) from None
            wait = retry_after(response.status, response.getheader("Retry-After"))
            if wait is None or retried >= MAX_RETRIES:
                break
            retried += 1
            log.log(logging.WARNING if wait >= 10 else logging.INFO,
                    "%s %s: the API server answered %d; retrying in %gs (%d of %d)", method, path,
                    response.status, wait, retried, MAX_RETRIES)
            sleep(wait)
        ok = 200 <= response.status < 300
        try:  # msgspec: a page of 500 slices is a few MB, decoded in 3/4 of json.loads' time
            try:
                decoded = msgspec.json.decode(go_json(data)) if data else None
            except UnicodeDecodeError:  # a byte that is not UTF-8 inside a string: U+FFFD, as Go's clients read it
                from webhook.wire import go_utf8  # only for such an answer

                decoded = msgspec.json.decode(go_utf8(go_json(data)))
        except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
            if ok:
                raise DraguardError(f"{method} {path}: the API server at {self.host} did not answer with JSON "
                                    f"(HTTP {response.status})") from None
            decoded = None
        if not ok:
            if isinstance(decoded, Mapping) and decoded.get("kind") == "Status":
                raise Failure(response.status, printable(str(decoded.get("reason", ""))),
                              printable(str(decoded.get("message", ""))), decoded)
            reason, message = unstructured(response.status, method, data, response.getheader("Content-Type"))
            raise Failure(response.status, reason, message, {})
        return decoded

    def _network(self, err: Exception, method: str, path: str, tries: int = 1) -> str:
        """One line for a request that got no (whole) answer: unreachable, or reached and then silent or cut."""
        import urllib3

        reason = getattr(err, "reason", None) if isinstance(err, urllib3.exceptions.MaxRetryError) else err
        reason = reason or err
        if isinstance(reason, urllib3.exceptions.ReadTimeoutError):
            each = "" if tries == 1 else f" ({tries} tries)"
            # a read timeout: nothing came for that long, before the answer or in the middle of it
            return (f"{method} {path}: the API server at {self.host} sent nothing for {TIMEOUT[1]:g} s{each} "
                    "(no answer, or not the rest of one)")
        if isinstance(reason, urllib3.exceptions.ProtocolError):
            inner = reason.args[1] if len(reason.args) > 1 else None
            if type(inner).__name__ == "IncompleteRead":
                got, more = getattr(inner, "partial", b""), getattr(inner, "expected", 0)
                got = len(got) if isinstance(got, bytes | bytearray) else got
                return (f"{method} {path}: the API server at {self.host} broke the connection after {got} bytes "
                        f"of its answer ({more} more expected)")
            if type(inner).__name__ == "RemoteDisconnected" or isinstance(inner, ConnectionError):
                return f"{method} {path}: the API server at {self.host} closed the connection without an answer"
        from certs.kube import unreachable

        return printable(unreachable(self.api_client.configuration, reason))


def retry_after(status: int, header: str | None) -> float | None:
    """The wait a 429 or 5xx answer asks for, in seconds, capped at MAX_WAIT; None: not to be retried (client-go's
    checkWait: only those statuses, only a Retry-After of whole seconds)."""
    if not (status == 429 or status >= 500) or header is None:
        return None
    text = header.strip()
    if not re.fullmatch(r"[+-]?\d{1,18}", text):
        return None
    return min(max(float(int(text)), 0.0), MAX_WAIT)


# client-go's words for an error answer without a Status (apimachinery errors.NewGenericServerResponse): what a
# real API server sends for a path it does not serve (a group, version or CRD that is not installed) is Go's
# `http.NotFound`, the text `404 page not found`, not JSON.
_GENERIC: Mapping[int, tuple[str, str]] = {
    400: ("BadRequest", "the server rejected our request for an unknown reason"),
    401: ("Unauthorized", "the server has asked for the client to provide credentials"),
    404: ("NotFound", "the server could not find the requested resource"),
    405: ("MethodNotAllowed", "the server does not allow this method on the requested resource"),
    409: ("Conflict", "the server reported a conflict"),
    422: ("Invalid", "the server rejected our request due to an error in our request"),
    429: ("TooManyRequests", "the server has received too many requests and has asked us to try again later"),
    503: ("ServiceUnavailable", "the server is currently unable to handle the request"),
    504: ("Timeout", "the server was unable to return a response in the time allotted, but may still be processing "
                    "the request"),
}
MAX_TEXT = 2048  # bytes of an unstructured answer kept for the message (client-go's maxUnstructuredResponseTextBytes)


def unstructured(status: int, method: str, data: bytes, content_type: str | None) -> tuple[str, str]:
    """The reason and message of an error answer that is not a `Status`, as client-go words them
    (rest.Request.newUnstructuredResponseError): the body's text only where client-go keeps it (403, 406, 415,
    other 5xx), and only when it is text (no Content-Type, or text/*)."""
    media = (content_type or "").split(";")[0].strip().lower()
    text = printable(data[:MAX_TEXT].decode("utf-8", "replace")) if not media or media.startswith("text/") else ""
    text = text or "unknown"
    if status in _GENERIC:
        if status == 409 and method == "POST":
            return "AlreadyExists", _GENERIC[409][1]
        return _GENERIC[status]
    if status == 403:
        return "Forbidden", text
    if status == 406:
        return "NotAcceptable", text if text != "unknown" else ("the server was unable to respond with a content "
                                                                 "type that the client supports")
    if status == 415:
        return "UnsupportedMediaType", text
    if status >= 500:
        return "InternalError", f'an error on the server ("{text}") has prevented the request from succeeding'
    return "", f"the server responded with the status code {status} but did not return more information"


def printable(text: str) -> str:
    """A server's text for one terminal line: escape sequences and control characters removed."""
    return " ".join(_CONTROLS.sub(" ", _ESCAPES.sub("", text)).split())


def describe(failure: Failure, what: str) -> str:
    """`what: the API server answered 403 Forbidden: <its message>` in one line."""
    reason = f" {failure.reason}" if failure.reason else ""
    message = f": {failure.message}" if failure.message else ""
    return f"{what}: the API server answered {failure.status}{reason}{message}"
