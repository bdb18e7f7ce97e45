"""One API-server connection for the audit: raw JSON requests, every failure a one-line `DraguardError`.

Requests go through the kubernetes client's transport (kubeconfig or in-cluster credentials, TLS, proxies)
but bodies are plain JSON, decoded with msgspec rather than into the client's models, so the audit sees
objects exactly as the API server sent them and reads the `Status` of a failed call (a 410 carries a fresh
continue token there). The connection is the one `draguard certs` uses (`certs.kube.connect`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from webhook.errors import DraguardError

TIMEOUT = (10.0, 60.0)  # connect, read: a page of 500 slices is a few MB
APPLY = "application/apply-patch+yaml"


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
        from certs.errors import CertsError
        from certs.kube import connect

        try:
            return cls(connect(kubeconfig, context).api_client)
        except CertsError as err:
            raise DraguardError(err.message) from None

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
        try:
            response = self.api_client.call_api(*serialized, _request_timeout=TIMEOUT)
            data = response.read()
        except ApiException as err:  # pragma: no cover - the transport returns error statuses, it does not raise
            raise Failure(err.status or 0, err.reason or "", str(err.body or ""), {}) from None
        except urllib3.exceptions.HTTPError as err:
            from certs.kube import _network_reason

            raise DraguardError(f"cannot reach the Kubernetes API server at {self.host}: "
                                f"{_network_reason(err)}") from None
        try:  # msgspec: a page of 500 slices is a few MB, decoded in 3/4 of json.loads' time
            decoded = msgspec.json.decode(data) if data else None
        except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
            raise DraguardError(f"{method} {path}: the API server at {self.host} did not answer with JSON "
                                f"(HTTP {response.status})") from None
        if not 200 <= response.status < 300:
            status = decoded if isinstance(decoded, Mapping) else {}
            raise Failure(response.status, str(status.get("reason", "")), str(status.get("message", "")), status)
        return decoded


def describe(failure: Failure, what: str) -> str:
    """`what: the API server answered 403 Forbidden: <its message>` in one line."""
    reason = f" {failure.reason}" if failure.reason else ""
    message = f": {failure.message}" if failure.message else ""
    return f"{what}: the API server answered {failure.status}{reason}{message}"
