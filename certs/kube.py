"""The `kubernetes` client, configured once, with every failure turned into one `CertsError` line.

Reads go through `_preload_content=False` and plain JSON, so draguard sees exactly what the API server sent
(client 37's models drop unknown fields and re-type `caBundle`). Which cluster and which credentials, and every
check of the kubeconfig before the first request: `certs.kubeconfig` (kubectl's rules). A connection that fails
before the request is sent is tried once more, quietly; nothing else is retried.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from msgspec import Struct

from certs.errors import CertsError

TIMEOUT = (10.0, 30.0)  # connect, read: a Job should fail fast and clearly, not hang
NETWORK_RETRIES = 1  # a connection that failed before the request was sent: once more


class Answer(Struct, frozen=True):
    status: int
    body: Any  # the decoded JSON
    headers: Mapping[str, str]


class ApiError(CertsError):
    """The API server answered with an error status (kept for callers that handle 404 or 409)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class Kube:
    """One API server connection: `api_client` for the generated API classes, `host` for messages."""

    def __init__(self, api_client: Any) -> None:
        self.api_client = api_client
        self.host: str = api_client.configuration.host

    def call(self, method: Callable[..., Any], *args: Any, what: str, **kwargs: Any) -> Answer:
        """Call a generated API method; `what` names the object in error messages."""
        import urllib3
        from kubernetes.client.exceptions import ApiException

        for attempt in range(1 + NETWORK_RETRIES):
            try:
                response = method(*args, _preload_content=False, _request_timeout=TIMEOUT, **kwargs)
                raw = response.data
                break
            except ApiException as err:
                raise ApiError(_api_error(err, what), err.status) from None
            except urllib3.exceptions.HTTPError as err:
                if attempt < NETWORK_RETRIES and never_sent(err):
                    continue
                raise CertsError(unreachable(self.api_client.configuration, err)) from None
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            raise CertsError(f"{what}: the API server at {self.host} did not answer with JSON") from None
        return Answer(response.status, body, dict(response.headers))


def connect(kubeconfig: str | None = None, context: str | None = None) -> Kube:
    """A client for the cluster `certs.kubeconfig.configure` chooses (kubectl's rules), checked before any request."""
    from kubernetes import client

    from certs.kubeconfig import configure

    return Kube(client.ApiClient(configure(kubeconfig, context)))


def never_sent(err: Exception) -> bool:
    """Whether the request surely never reached the server (connecting failed): safe to send again."""
    import urllib3

    reason = getattr(err, "reason", None) if isinstance(err, urllib3.exceptions.MaxRetryError) else err
    return isinstance(reason, urllib3.exceptions.NewConnectionError | urllib3.exceptions.ConnectTimeoutError)


def _api_error(err: Any, what: str) -> str:
    message = ""
    try:
        status = json.loads(err.body or "")
        if isinstance(status, dict):
            message = str(status.get("message", ""))
    except ValueError:
        message = (err.body or "").strip()
    if err.status == 404:
        return f"{what} not found"
    detail = f": {message}" if message else ""
    return f"{what}: the API server answered {err.status} {err.reason or ''}".rstrip() + detail


def _verify_error(err: BaseException, depth: int = 0) -> Any:
    """The `ssl.SSLCertVerificationError` inside urllib3's wrappers (in `reason`, `args`, the cause), if any."""
    import ssl

    if isinstance(err, ssl.SSLCertVerificationError):
        return err
    if depth > 6:
        return None
    inner = [getattr(err, "reason", None), err.__cause__, err.__context__,
             *(a for a in getattr(err, "args", ()) if isinstance(a, BaseException))]
    for candidate in inner:
        if isinstance(candidate, BaseException) and candidate is not err:
            found = _verify_error(candidate, depth + 1)
            if found is not None:
                return found
    return None


def unreachable(configuration: Any, err: Exception) -> str:
    """`cannot reach the Kubernetes API server at <host>[ through the proxy <proxy>]: <why>` (the proxy without its
    credentials: a refused connection may be the proxy's, not the server's)."""
    from certs.kubeconfig import redact

    via = f" through the proxy {redact(configuration.proxy)}" if configuration.proxy else ""
    return f"cannot reach the Kubernetes API server at {configuration.host}{via}: {_network_reason(err)}"


def _network_reason(err: Exception) -> str:
    verify = _verify_error(err)
    if verify is not None and getattr(verify, "verify_message", None):
        # OpenSSL's own words, whole: `Hostname mismatch, certificate is not valid for 'api.example.com'.` (the
        # pattern below stopped at the quote and dropped the name)
        return f"TLS: certificate verify failed: {str(verify.verify_message).rstrip('.')}"
    reason = getattr(err, "reason", None) or err
    text = " ".join(str(reason).split())
    errno = re.search(r"\[Errno -?\d+\] ([^'\")]+)", text)
    if errno:
        return errno.group(1).strip()
    if "CERTIFICATE_VERIFY_FAILED" in text:
        verify = re.search(r"certificate verify failed: ([^(')]+)", text)
        return "TLS: certificate verify failed" + (f": {verify.group(1).strip()}" if verify else "")
    return text
