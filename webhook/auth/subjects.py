"""Which client certificates may call: `--allowed-subject` patterns against the peer certificate's names.

A pattern matches the subject Common Name or any DNS or URI subject alternative name, exactly or as a shell
glob (`fnmatch`, case-sensitive; `*` also crosses `.` and `/`, so `spiffe://cluster.local/ns/kube-system/*`
admits every service account of a namespace). No pattern: any certificate the client CA signed is allowed.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from functools import lru_cache

from cryptography import x509
from cryptography.x509.oid import NameOID
from msgspec import Struct

from webhook.errors import DraguardError


class PeerNames(Struct, frozen=True):
    """The names of a client certificate an `--allowed-subject` pattern can match."""

    common_names: tuple[str, ...]
    dns: tuple[str, ...] = ()
    uris: tuple[str, ...] = ()

    def all(self) -> tuple[str, ...]:
        return (*self.common_names, *self.dns, *self.uris)

    def describe(self) -> str:
        parts = [f"CN={n}" for n in self.common_names] + [f"DNS:{n}" for n in self.dns]
        parts += [f"URI:{n}" for n in self.uris]
        return ", ".join(parts) or "(no names)"


@lru_cache(maxsize=256)  # the API server keeps few connections and one certificate; parse it once
def peer_names(der: bytes) -> PeerNames:
    cert = x509.load_der_x509_certificate(der)
    cns = tuple(str(a.value) for a in cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME))
    try:
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return PeerNames(cns)
    return PeerNames(cns, tuple(san.get_values_for_type(x509.DNSName)),
                     tuple(san.get_values_for_type(x509.UniformResourceIdentifier)))


def check_patterns(patterns: Sequence[str]) -> tuple[str, ...]:
    """`--allowed-subject` values, checked: an empty or blank pattern would match nothing and is an error."""
    for pattern in patterns:
        if not pattern.strip():
            raise DraguardError("--allowed-subject: an empty pattern matches no certificate; give a name or glob")
    return tuple(patterns)


def allowed(names: PeerNames, patterns: Sequence[str]) -> bool:
    """True when no pattern is set, or one matches a name of the certificate."""
    if not patterns:
        return True
    return any(fnmatch.fnmatchcase(name, pattern) for name in names.all() for pattern in patterns)
