"""Certificate material in a Kubernetes Secret of type `kubernetes.io/tls`, for an in-cluster Job.

The Secret holds the same names as a directory (`tls.crt`, `tls.key`, `ca.crt`, plus `ca.key` and, mid-rotation,
`ca-next.key`), so the webhook Pod mounts it as its certificate directory; mount only `tls.crt` and `tls.key`
(`items:` in the volume) to keep the CA key out of the serving Pod. Every save is one create or one
update carrying the resourceVersion that was read, so a save is all-or-nothing and a concurrent writer makes it
fail with a conflict instead of losing an update.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from certs.errors import CertsError
from certs.kube import ApiError, Kube
from certs.material import NAMES, Changes, Material

TLS_TYPE = "kubernetes.io/tls"
# Client 37 sends no Content-Type on create/replace; the API server would assume JSON (negotiation picks its first
# media type), but saying it keeps the request unambiguous.
JSON = "application/json"
MANAGED_BY = {"app.kubernetes.io/managed-by": "draguard"}


def parse_ref(ref: str) -> tuple[str, str]:
    """`namespace/name` -> (namespace, name)."""
    namespace, sep, name = ref.partition("/")
    if not sep or not namespace or not name or "/" in name:
        raise CertsError(f"invalid Secret reference {ref!r}: expected NAMESPACE/NAME")
    return namespace, name


class SecretStore:
    def __init__(self, kube: Kube, namespace: str, name: str) -> None:
        self.kube, self.namespace, self.name = kube, namespace, name
        self._resource_version: str | None = None
        self._labels: dict[str, str] = {}
        self._annotations: dict[str, str] = {}
        self._exists = False

    def __str__(self) -> str:
        return f"secret/{self.name} (namespace {self.namespace})"

    def _api(self) -> Any:
        from kubernetes import client

        return client.CoreV1Api(self.kube.api_client)

    def load(self) -> dict[str, bytes]:
        try:
            answer = self.kube.call(self._api().read_namespaced_secret, self.name, self.namespace, what=str(self))
        except ApiError as err:
            if err.status == 404:
                self._exists, self._resource_version = False, None
                return {}
            raise
        secret = answer.body or {}
        kind = secret.get("type")
        if kind != TLS_TYPE:
            raise CertsError(f"{self} has type {kind!r}, not {TLS_TYPE!r}; draguard keeps its material in a TLS Secret")
        self._exists = True
        metadata = secret.get("metadata") or {}
        self._resource_version = metadata.get("resourceVersion")
        self._labels = dict(metadata.get("labels") or {})
        self._annotations = dict(metadata.get("annotations") or {})  # an update must not drop Helm's
        found = {}
        for name, encoded in (secret.get("data") or {}).items():
            if name in NAMES:
                try:
                    found[name] = base64.b64decode(encoded, validate=True)
                except (binascii.Error, TypeError):
                    raise CertsError(f"{self}: data[{name}] is not base64") from None
        return found

    def save(self, changes: Changes, current: Material | None = None) -> None:
        """Write `current` with `changes` applied, as one create or one optimistic update."""
        from kubernetes import client

        merged = dict(current or {})
        for name, data in changes.items():
            if data is None:
                merged.pop(name, None)
            else:
                merged[name] = data
        body = client.V1Secret(
            api_version="v1",
            kind="Secret",
            type=TLS_TYPE,
            metadata=client.V1ObjectMeta(
                name=self.name, namespace=self.namespace, labels={**self._labels, **MANAGED_BY},
                annotations=self._annotations or None,
                resource_version=self._resource_version if self._exists else None,
            ),
            data={name: base64.b64encode(data).decode("ascii") for name, data in sorted(merged.items())},
        )
        api = self._api()
        try:
            if self._exists:
                answer = self.kube.call(api.replace_namespaced_secret, self.name, self.namespace, body,
                                        _headers={"Content-Type": JSON}, what=str(self))
            else:
                answer = self.kube.call(api.create_namespaced_secret, self.namespace, body,
                                        _headers={"Content-Type": JSON}, what=str(self))
        except ApiError as err:
            if err.status == 409:
                raise CertsError(f"{self} changed while draguard was updating it; run the command again") from None
            raise
        self._exists = True
        self._resource_version = ((answer.body or {}).get("metadata") or {}).get("resourceVersion")
