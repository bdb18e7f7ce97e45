"""The API server's side of mutual TLS: issue its client certificate, and make a server context require one.

`issue_client` signs a client certificate (extended key usage clientAuth) with the webhook's own CA, so one
`ca.crt` serves both directions: the API server trusts it through `caBundle`, and `draguard serve --client-ca`
trusts the API server through it. The subject is what `--allowed-subject` matches: the Common Name and any DNS or
URI names given. `require_client_certs` turns a server context into one that refuses a handshake without a
certificate chaining to the bundle (the TLS alert is the refusal: no HTTP answer is ever written).
"""

from __future__ import annotations

import datetime as dt
import ssl
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from msgspec import Struct

from certs.errors import CertsError
from certs.files import write_atomic
from certs.issue import BACKDATE, Issued, check_dns_name, is_ca, new_key, signing_ca, utcnow
from certs.material import CA_CERT, CA_KEY, Material
from certs.pem import KeyType, cert_pem, key_pem, parse_certs

MAX_CLIENT_DAYS = 365  # the same ceiling as the serving certificate
CLIENT_CERT, CLIENT_KEY = "client.crt", "client.key"  # where `draguard certs client --dir` writes them


class ClientSubject(Struct, frozen=True):
    """Who the client certificate names: a Common Name, plus DNS and URI subject alternative names."""

    common_name: str
    dns: tuple[str, ...] = ()
    uris: tuple[str, ...] = ()


def client_subject(common_name: str, dns: Sequence[str] = (), uris: Sequence[str] = ()) -> ClientSubject:
    """Check the names a user gives (one-line `CertsError`); a Common Name is required and at most 64 characters."""
    if not common_name.strip() or common_name != common_name.strip():
        raise CertsError(f"invalid subject {common_name!r}: give a non-empty Common Name without surrounding spaces")
    if len(common_name) > 64:  # RFC 5280's ub-common-name
        raise CertsError(f"invalid subject {common_name!r}: a Common Name is at most 64 characters")
    if not common_name.isprintable():
        raise CertsError(f"invalid subject {common_name!r}: a Common Name has no control characters")
    for name in dns:
        check_dns_name(name)  # as `certs generate` checks its names
    for uri in uris:
        if "://" not in uri and not uri.startswith(("spiffe:", "urn:")):
            raise CertsError(f"invalid URI {uri!r}: give an absolute URI such as spiffe://cluster.local/ns/x/sa/y")
        try:
            parts = urlsplit(uri)
        except ValueError as err:
            raise CertsError(f"invalid URI {uri!r}: {err}") from None
        if not parts.scheme or not uri.isprintable() or any(c.isspace() for c in uri):
            raise CertsError(f"invalid URI {uri!r}: give an absolute URI such as spiffe://cluster.local/ns/x/sa/y")
    return ClientSubject(common_name, tuple(dns), tuple(uris))


def issue_client(
    ca: Issued, subject: ClientSubject, *, key_type: KeyType = "ecdsa", days: int = MAX_CLIENT_DAYS,
    now: dt.datetime | None = None,
) -> Issued:
    """A client certificate for `subject`, signed by `ca` and never outliving it."""
    if not 1 <= days <= MAX_CLIENT_DAYS:
        raise CertsError(f"the client certificate lifetime must be 1 to {MAX_CLIENT_DAYS} days, not {days}")
    now = now or utcnow()
    key = new_key(key_type)
    sans: list[x509.GeneralName] = [x509.DNSName(n) for n in subject.dns]
    sans += [x509.UniformResourceIdentifier(u) for u in subject.uris]
    ca_ski = ca.cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject.common_name)]))
        .issuer_name(ca.cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - BACKDATE)
        .not_valid_after(min(now + dt.timedelta(days=days), ca.cert.not_valid_after_utc))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True, content_commitment=False, key_encipherment=False, data_encipherment=False,
                key_agreement=False, key_cert_sign=False, crl_sign=False, encipher_only=False, decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ca_ski), critical=False)
    )
    if sans:
        builder = builder.add_extension(x509.SubjectAlternativeName(sans), critical=False)
    return Issued(builder.sign(ca.key, hashes.SHA256()), key)


def client_ca_bundle(data: bytes, source: str) -> bytes:
    """The CA certificates of a `--client-ca` file, re-encoded; a bundle holding no CA is an error."""
    certs = parse_certs(data, source)
    cas = [c for c in certs if is_ca(c)]
    if not cas:
        raise CertsError(f"{source}: holds no CA certificate (basicConstraints CA:TRUE) to verify clients with")
    return cert_pem(cas)


def require_client_certs(context: ssl.SSLContext, bundle_pem: bytes) -> None:
    """Make `context` refuse any handshake whose client certificate does not chain to `bundle_pem`."""
    context.load_verify_locations(cadata=bundle_pem.decode("ascii"))
    context.verify_mode = ssl.CERT_REQUIRED


class WrittenClient(Struct, frozen=True):
    cert_file: Path
    key_file: Path
    not_after: dt.datetime
    serial: int


def write_client(
    material: Material, where: str, out_dir: Path, subject: ClientSubject, *, key_type: KeyType = "ecdsa",
    days: int = MAX_CLIENT_DAYS, now: dt.datetime | None = None,
) -> WrittenClient:
    """Issue a client certificate from the CA in `material` and write `client.crt`/`client.key` (0600) to `out_dir`."""
    now = now or utcnow()
    ca = signing_ca(material, where, now)
    if ca is None:
        raise CertsError(f"{where}: no {CA_CERT} and {CA_KEY}; run `draguard certs generate` first")
    issued = issue_client(ca, subject, key_type=key_type, days=days, now=now)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise CertsError(f"{out_dir}: cannot create: {err.strerror or err}") from None
    cert_file, key_file = out_dir / CLIENT_CERT, out_dir / CLIENT_KEY
    write_atomic(key_file, key_pem(issued.key), private=True)
    write_atomic(cert_file, cert_pem(issued.cert), private=False)
    return WrittenClient(cert_file, key_file, issued.cert.not_valid_after_utc, issued.cert.serial_number)
