"""Put the CA bundle into every webhook of a ValidatingWebhookConfiguration, then read it back.

One PATCH of type `application/json-patch+json` carries, per webhook entry, a `test` of the entry's name (so a
concurrent reorder fails the whole patch instead of writing the wrong entry) and an `add` of
`clientConfig/caBundle` (RFC 6902 `add` replaces an existing member). Only entries whose bundle differs are
touched; the patch is atomic, so the configuration never holds a mix of bundles draguard wrote half of. Every
write uses one field manager, `draguard-certs`. A configuration annotated for cert-manager's cainjector is
left alone unless forced: two writers of `caBundle` undo each other (volcano-sh/kthena#717).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from msgspec import Struct

from certs.errors import CertsError
from certs.goverify import GoParseError, parse, pem_blocks
from certs.issue import is_ca
from certs.kube import ApiError, Kube
from certs.pem import describe, parse_certs

FIELD_MANAGER = "draguard-certs"
CAINJECTOR_ANNOTATIONS = (
    "cert-manager.io/inject-ca-from",
    "cert-manager.io/inject-ca-from-secret",
    "cert-manager.io/inject-apiserver-ca",
)
ATTEMPTS = 3  # a failed `test` (the list changed under us) is retried against a fresh read


class Injected(Struct, frozen=True):
    name: str
    webhooks: tuple[str, ...]  # every entry, in order
    patched: tuple[str, ...]  # the entries whose caBundle this run changed


class WebhookEntry(Struct, frozen=True):
    """One webhook of a live configuration, as `check` needs it."""

    name: str
    ca_bundle: bytes | None  # decoded PEM, None when unset
    service: tuple[str, str] | None  # (namespace, name) of clientConfig.service


def what(name: str) -> str:
    return f"validatingwebhookconfiguration/{name}"


def _api(kube: Kube) -> Any:
    from kubernetes import client

    return client.AdmissionregistrationV1Api(kube.api_client)


def check_bundle(bundle: bytes, source: str) -> None:
    """draguard's rules for what it writes into `caBundle`, stricter than the API server, which skips (silently)
    any block that is not a certificate it can parse: no private key (a webhook configuration is readable
    cluster-wide), only CA certificates, and only certificates Go can parse."""
    for kind, _ in pem_blocks(bundle):
        if kind.endswith("PRIVATE KEY"):
            raise CertsError(f"{source} holds a private key ({kind} block); a caBundle is readable by anyone who can "
                             "read the webhook configuration: give only the CA certificate(s)")
    for cert in parse_certs(bundle, source):
        if not is_ca(cert):
            raise CertsError(f"{source}: {describe(cert)} is not a CA certificate; a caBundle holds CA certificates")
        try:
            parse(cert)
        except GoParseError as err:
            raise CertsError(f"{source}: {describe(cert)}: the API server cannot parse it ({err}) and would skip "
                             "it") from None


def read(kube: Kube, name: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The configuration as the API server sent it, and the response headers (their Date serves the skew check)."""
    answer = kube.call(_api(kube).read_validating_webhook_configuration, name, what=what(name))
    if not isinstance(answer.body, dict):
        raise CertsError(f"{what(name)}: the API server sent no object")
    return answer.body, dict(answer.headers)


def entries(config: dict[str, Any], name: str) -> list[WebhookEntry]:
    found = []
    hooks = config.get("webhooks") or []
    if not isinstance(hooks, list):
        raise CertsError(f"{what(name)}: webhooks is not a list")
    for index, hook in enumerate(hooks):
        if not isinstance(hook, dict):
            raise CertsError(f"{what(name)}: webhooks[{index}] is not an object")
        client_config = hook.get("clientConfig") or {}
        if not isinstance(client_config, dict):
            raise CertsError(f"{what(name)}: webhooks[{index}].clientConfig is not an object")
        raw = client_config.get("caBundle")
        bundle = None
        if raw:
            try:
                bundle = base64.b64decode(raw, validate=True)
            except (binascii.Error, TypeError):
                raise CertsError(f"{what(name)}: webhooks[{index}].clientConfig.caBundle is not base64") from None
        service = client_config.get("service")
        ref = (str(service.get("namespace", "")), str(service.get("name", ""))) if isinstance(service, dict) else None
        found.append(WebhookEntry(str(hook.get("name", f"webhooks[{index}]")), bundle, ref))
    return found


def inject(
    kube: Kube, name: str, bundle: bytes, *, field_manager: str = FIELD_MANAGER, force: bool = False
) -> Injected:
    """Write `bundle` (PEM) into every webhook of `name` and verify by reading it back."""
    check_bundle(bundle, "the CA bundle")
    encoded = base64.b64encode(bundle).decode("ascii")
    api = _api(kube)
    for attempt in range(ATTEMPTS):
        config, _ = read(kube, name)
        annotations = (config.get("metadata") or {}).get("annotations") or {}
        owner = next((a for a in CAINJECTOR_ANNOTATIONS if a in annotations), None)
        if owner and not force:
            raise CertsError(
                f"{what(name)} is annotated {owner}: cert-manager's cainjector owns its caBundle; "
                "drop the annotation or pass --force"
            )
        entries(config, name)  # a webhooks list of the wrong shape fails here, in one line
        hooks = config.get("webhooks") or []
        if not hooks:
            raise CertsError(f"{what(name)} has no webhooks to inject the CA bundle into")
        ops: list[dict[str, Any]] = []
        patched: list[str] = []
        for index, hook in enumerate(hooks):
            if (hook.get("clientConfig") or {}).get("caBundle") == encoded:
                continue
            ops.append({"op": "test", "path": f"/webhooks/{index}/name", "value": hook.get("name")})
            ops.append({"op": "add", "path": f"/webhooks/{index}/clientConfig/caBundle", "value": encoded})
            patched.append(str(hook.get("name")))
        if not ops:
            break
        try:
            kube.call(api.patch_validating_webhook_configuration, name, ops, field_manager=field_manager,
                      what=what(name))
            break
        except ApiError as err:
            # 422: a `test` failed because the webhook list changed between our read and our patch.
            if err.status != 422 or attempt == ATTEMPTS - 1:
                raise
    _verify(kube, name, bundle)
    return Injected(name, tuple(str(h.get("name")) for h in hooks), tuple(patched))


def _verify(kube: Kube, name: str, bundle: bytes) -> None:
    config, _ = read(kube, name)
    wrong = [e.name for e in entries(config, name) if e.ca_bundle != bundle]
    if wrong:
        raise CertsError(
            f"{what(name)}: read back after the patch, webhook(s) {', '.join(wrong)} still hold a different "
            "caBundle; another controller may be writing it"
        )
