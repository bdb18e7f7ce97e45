"""Issue the webhook's CA and serving certificate, and decide when an existing one can stay.

The serving certificate names the Service the way the API server dials it (`<svc>.<ns>.svc`, required since
Kubernetes 1.19 rejects Common-Name-only certificates) plus the shorter and longer forms in-cluster clients use.
Defaults follow kube-webhook-certgen (ECDSA P-256, notBefore five minutes back) and OPA cert-controller (a CA for
ten years, a leaf for one); the "renew with a third of the life left" rule is cert-manager's default of renewing at
two thirds of the duration.

`generate()` is idempotent: a valid CA is always reused, because a new CA means a new caBundle that every webhook
configuration must pick up first; the serving certificate is re-issued only when it must be.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from msgspec import Struct

from certs.errors import CertsError
from certs.files import DirectoryStore
from certs.material import CA_CERT, CA_KEY, TLS_CERT, TLS_KEY, Changes, Material
from certs.pem import (
    KEY_TYPES,
    KeyType,
    PrivateKey,
    cert_pem,
    describe,
    key_matches,
    key_pem,
    key_type_of,
    parse_certs,
    parse_key,
)

BACKDATE = dt.timedelta(minutes=5)  # tolerate an API server clock a little behind the issuer's (kube-webhook-certgen)
CA_YEARS = 10  # OPA cert-controller's CA lifetime
MAX_LEAF_DAYS = 365  # draguard's rule: a serving certificate lives at most a year
RENEW_FRACTION = 3  # re-issue with less than 1/3 of the lifetime left (cert-manager renews at 2/3)
CA_NAME = "draguard-webhook-ca"
RSA_BITS = 2048
CN_MAX = 64  # ub-common-name (RFC 5280)

# Upstream name rules (k8s.io/apimachinery validation): Service names are DNS-1035 labels, namespaces DNS-1123
# labels, extra names DNS-1123 subdomains (a leading "*." wildcard label is allowed for extra names).
_DNS1035_LABEL = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
_DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


class Issued(Struct, frozen=True):
    """A certificate and its private key."""

    cert: x509.Certificate
    key: PrivateKey


class Names(Struct, frozen=True):
    """What the serving certificate must cover: DNS names (service forms first) and IP addresses."""

    dns: tuple[str, ...]
    ips: tuple[ipaddress.IPv4Address | ipaddress.IPv6Address, ...] = ()

    @property
    def host(self) -> str:
        """The name the API server dials, `<svc>.<ns>.svc` (third of the service forms); the subject CN."""
        return self.dns[2] if len(self.dns) > 2 else self.dns[0]

    def describe(self) -> list[str]:
        return [*self.dns, *(str(ip) for ip in self.ips)]


@dataclass(frozen=True, slots=True)
class Plan:
    """What `generate` decided: the files to write (empty when nothing changes) and why."""

    changes: Changes = field(repr=False)  # holds private keys: never in a log line
    ca_created: bool
    leaf_issued: bool
    reason: str
    ca_not_after: dt.datetime
    not_after: dt.datetime
    names: Names

    @property
    def changed(self) -> bool:
        return self.ca_created or self.leaf_issued


@dataclass(frozen=True, slots=True)
class Generated(Plan):
    """The outcome of `generate()` on a directory: the plan it carried out, and the paths a server loads."""

    ca_file: Path
    cert_file: Path
    key_file: Path


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def check_dns_name(name: str) -> None:
    """A DNS SAN: a lower-case DNS-1123 subdomain, `*.` allowed in front (one-line CertsError otherwise)."""
    bare = name[2:] if name.startswith("*.") else name
    if len(name) > 253 or not _DNS1123_SUBDOMAIN.fullmatch(bare) or any(len(p) > 63 for p in bare.split(".")):
        raise CertsError(f"invalid DNS name {name!r}: must be a lower-case DNS-1123 subdomain (RFC 1123)")


def service_names(
    service: str, namespace: str, extra_dns: Iterable[str] = (), extra_ips: Iterable[str] = ()
) -> Names:
    """`svc`, `svc.ns`, `svc.ns.svc`, `svc.ns.svc.cluster.local`, then the extra names; all validated."""
    if not _DNS1035_LABEL.fullmatch(service) or len(service) > 63:
        raise CertsError(
            f"invalid service name {service!r}: a Service name must be a DNS-1035 label (lower case alphanumeric "
            "characters or '-', starting with a letter, ending with an alphanumeric character, at most 63 characters)"
        )
    if not _DNS1123_LABEL.fullmatch(namespace) or len(namespace) > 63:
        raise CertsError(
            f"invalid namespace {namespace!r}: a namespace must be a DNS-1123 label (lower case alphanumeric "
            "characters or '-', starting and ending with an alphanumeric character, at most 63 characters)"
        )
    dns = [service, f"{service}.{namespace}", f"{service}.{namespace}.svc", f"{service}.{namespace}.svc.cluster.local"]
    for name in extra_dns:
        check_dns_name(name)
        if name not in dns:
            dns.append(name)
    ips: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = []
    for text in extra_ips:
        try:
            ip = ipaddress.ip_address(text)
        except ValueError:
            raise CertsError(f"invalid IP address {text!r}") from None
        if isinstance(ip, ipaddress.IPv6Address) and ip.scope_id:  # a certificate's iPAddress holds the address
            raise CertsError(f"invalid IP address {text!r}: a zone (%{ip.scope_id}) cannot go in a certificate; "
                             "give the address without it")
        if ip not in ips:
            ips.append(ip)
    return Names(tuple(dns), tuple(ips))


def new_key(key_type: KeyType) -> PrivateKey:
    if key_type == "ecdsa":
        return ec.generate_private_key(ec.SECP256R1())
    if key_type == "rsa":
        return rsa.generate_private_key(public_exponent=65537, key_size=RSA_BITS)
    raise CertsError(f"unknown key type {key_type!r}: use one of {', '.join(KEY_TYPES)}")


def issue_ca(key_type: KeyType = "ecdsa", *, years: int = CA_YEARS, now: dt.datetime | None = None) -> Issued:
    """A self-signed CA that may sign end-entity certificates only (pathLen 0)."""
    if years < 1:
        raise CertsError(f"the CA lifetime must be at least 1 year, not {years}")
    now = now or utcnow()
    key = new_key(key_type)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, CA_NAME)])
    ski = x509.SubjectKeyIdentifier.from_public_key(key.public_key())
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - BACKDATE)
        .not_valid_after(now + dt.timedelta(days=365 * years))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True, content_commitment=False, key_encipherment=False, data_encipherment=False,
                key_agreement=False, key_cert_sign=True, crl_sign=True, encipher_only=False, decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(ski, critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ski), critical=False)
        .sign(key, hashes.SHA256())
    )
    return Issued(cert, key)


def _subject(host: str) -> x509.Name:
    """CN=host, or an empty subject when host is longer than X.509's 64-character CN bound (ub-common-name): a
    valid 63-character Service in a long namespace exceeds it, and clients only read the SANs anyway."""
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)] if len(host) <= CN_MAX else [])


def issue_leaf(
    ca: Issued, names: Names, *, key_type: KeyType = "ecdsa", days: int = MAX_LEAF_DAYS, now: dt.datetime | None = None
) -> Issued:
    """A serving certificate for `names`, signed by `ca`, never outliving it."""
    if not 1 <= days <= MAX_LEAF_DAYS:
        raise CertsError(f"the serving certificate lifetime must be 1 to {MAX_LEAF_DAYS} days, not {days}")
    now = now or utcnow()
    key = new_key(key_type)
    not_after = min(now + dt.timedelta(days=days), ca.cert.not_valid_after_utc)
    sans: list[x509.GeneralName] = [x509.DNSName(n) for n in names.dns]
    sans += [x509.IPAddress(ip) for ip in names.ips]
    ca_ski = ca.cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
    cert = (
        x509.CertificateBuilder()
        .subject_name(_subject(names.host))
        .issuer_name(ca.cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - BACKDATE)
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True, content_commitment=False,
                key_encipherment=key_type == "rsa",  # RSA key exchange in TLS 1.2 needs it; ECDSA has none
                data_encipherment=False, key_agreement=False, key_cert_sign=False, crl_sign=False,
                encipher_only=False, decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectAlternativeName(sans), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ca_ski), critical=False)
        .sign(ca.key, hashes.SHA256())
    )
    return Issued(cert, key)


def covered_names(cert: x509.Certificate) -> tuple[set[str], set[str]]:
    """The DNS names and IP addresses (as text) in a certificate's SAN extension."""
    try:
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return set(), set()
    return set(san.get_values_for_type(x509.DNSName)), {str(ip) for ip in san.get_values_for_type(x509.IPAddress)}


def is_ca(cert: x509.Certificate) -> bool:
    try:
        return cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    except x509.ExtensionNotFound:
        return False


def signed_by(cert: x509.Certificate, issuer: x509.Certificate) -> bool:
    if cert.issuer != issuer.subject:
        return False
    try:
        cert.verify_directly_issued_by(issuer)
    except (InvalidSignature, ValueError, TypeError):  # TypeError: a key type that cannot have signed it
        return False
    return True


def check_valid_now(cert: x509.Certificate, source: str, now: dt.datetime, *, expired_hint: str = "") -> None:
    if now < cert.not_valid_before_utc:
        raise CertsError(
            f"{source}: {describe(cert)} is not valid before {cert.not_valid_before_utc:%Y-%m-%d %H:%M:%S} UTC "
            f"(now {now:%Y-%m-%d %H:%M:%S} UTC): is this machine's clock behind?"
        )
    if now >= cert.not_valid_after_utc:
        hint = f"; {expired_hint}" if expired_hint else ""
        raise CertsError(
            f"{source}: {describe(cert)} expired on {cert.not_valid_after_utc:%Y-%m-%d %H:%M:%S} UTC{hint}"
        )


def signing_ca(material: Material, where: str, now: dt.datetime) -> Issued | None:
    """The CA in `ca.crt` whose key is `ca.key`, checked usable; None when neither file exists."""
    has_cert, has_key = CA_CERT in material, CA_KEY in material
    if not has_cert and not has_key:
        return None
    if not has_key:
        raise CertsError(
            f"{where}/{CA_CERT} exists but {CA_KEY} does not: draguard cannot reuse a CA without its key "
            f"(remove {CA_CERT} to start a new CA, then re-inject the caBundle)"
        )
    if not has_cert:
        raise CertsError(f"{where}/{CA_KEY} exists but {CA_CERT} does not (remove {CA_KEY} to start a new CA)")
    key = parse_key(material[CA_KEY], f"{where}/{CA_KEY}")
    bundle = parse_certs(material[CA_CERT], f"{where}/{CA_CERT}")
    for cert in bundle:
        if key_matches(cert, key):
            if not is_ca(cert):
                raise CertsError(f"{where}/{CA_CERT}: {describe(cert)} is not a CA certificate (basicConstraints)")
            # An expired CA already fails every call, so no overlap can help: start again and re-inject.
            check_valid_now(cert, f"{where}/{CA_CERT}", now, expired_hint=(
                f"nothing trusts it any more: remove {CA_CERT} and {CA_KEY} to start a new CA, then run "
                "`draguard certs inject`"))
            return Issued(cert, key)
    raise CertsError(f"{where}/{CA_KEY} does not match any certificate in {where}/{CA_CERT}")


def leaf_renewal_reason(
    material: Material, where: str, ca: Issued, names: Names, *, key_type: KeyType, now: dt.datetime
) -> str | None:
    """Why the serving certificate must be re-issued, or None when it can stay."""
    if TLS_CERT not in material or TLS_KEY not in material:
        return "no serving certificate yet"
    try:
        leaf = parse_certs(material[TLS_CERT], f"{where}/{TLS_CERT}")[0]
        key = parse_key(material[TLS_KEY], f"{where}/{TLS_KEY}")
    except CertsError as err:
        return f"the existing one is unusable ({err.message})"
    if not key_matches(leaf, key):
        return f"{TLS_KEY} does not match {TLS_CERT}"
    if not signed_by(leaf, ca.cert):
        return "it was not signed by the current CA"
    if key_type_of(leaf) != key_type:
        return f"the key type changes from {key_type_of(leaf)} to {key_type}"
    dns, ips = covered_names(leaf)
    want_dns, want_ips = set(names.dns), {str(ip) for ip in names.ips}
    if (dns, ips) != (want_dns, want_ips):
        added = sorted((want_dns - dns) | (want_ips - ips))
        removed = sorted((dns - want_dns) | (ips - want_ips))
        parts = ([f"adds {', '.join(added)}"] if added else []) + ([f"drops {', '.join(removed)}"] if removed else [])
        return f"the names change ({'; '.join(parts)})"
    lifetime = leaf.not_valid_after_utc - leaf.not_valid_before_utc
    left = leaf.not_valid_after_utc - now
    if left <= lifetime / RENEW_FRACTION:
        if left <= dt.timedelta(0):
            return f"it expired on {leaf.not_valid_after_utc:%Y-%m-%d}"
        return f"less than a third of its lifetime is left (expires {leaf.not_valid_after_utc:%Y-%m-%d})"
    if now < leaf.not_valid_before_utc:
        return f"it is not valid before {leaf.not_valid_before_utc:%Y-%m-%d %H:%M:%S} UTC"
    return None


def plan_generate(
    material: Material,
    where: str,
    names: Names,
    *,
    key_type: KeyType = "ecdsa",
    ca_years: int = CA_YEARS,
    leaf_days: int = MAX_LEAF_DAYS,
    now: dt.datetime | None = None,
) -> Plan:
    """Decide, from the current material, what `generate` writes. Raises before anything is written."""
    if key_type not in KEY_TYPES:
        raise CertsError(f"unknown key type {key_type!r}: use one of {', '.join(KEY_TYPES)}")
    now = now or utcnow()
    changes: dict[str, bytes | None] = {}
    ca = signing_ca(material, where, now)
    ca_created = ca is None
    if ca is None:
        ca = issue_ca(key_type, years=ca_years, now=now)
        changes[CA_CERT], changes[CA_KEY] = cert_pem(ca.cert), key_pem(ca.key)
    reason = leaf_renewal_reason(material, where, ca, names, key_type=key_type, now=now)
    if ca_created:
        reason = "a new CA was created"
    if reason is None:
        leaf_not_after = parse_certs(material[TLS_CERT], f"{where}/{TLS_CERT}")[0].not_valid_after_utc
        return Plan({}, False, False, "the serving certificate is valid and current", ca.cert.not_valid_after_utc,
                    leaf_not_after, names)
    leaf = issue_leaf(ca, names, key_type=key_type, days=leaf_days, now=now)
    changes[TLS_CERT], changes[TLS_KEY] = cert_pem(leaf.cert), key_pem(leaf.key)
    return Plan(changes, ca_created, True, reason, ca.cert.not_valid_after_utc, leaf.cert.not_valid_after_utc, names)


def generate(
    out_dir: Path | str,
    service: str,
    namespace: str,
    *,
    extra_dns: Sequence[str] = (),
    extra_ips: Sequence[str] = (),
    key_type: KeyType = "ecdsa",
    ca_years: int = CA_YEARS,
    leaf_days: int = MAX_LEAF_DAYS,
    now: dt.datetime | None = None,
) -> Generated:
    """Make `out_dir` hold a valid CA (reused when present) and a current serving certificate for the Service.

    Writes `ca.crt`, `ca.key`, `tls.crt`, `tls.key` (keys 0600, each file replaced atomically) only when
    something must change. Raises `CertsError` (nothing written) when the existing CA is unusable.
    """
    store = DirectoryStore(Path(out_dir))
    names = service_names(service, namespace, extra_dns, extra_ips)
    plan = plan_generate(
        store.load(), str(store), names, key_type=key_type, ca_years=ca_years, leaf_days=leaf_days, now=now
    )
    if plan.changes:
        store.save(plan.changes)
    directory = store.directory
    decided = {f.name: getattr(plan, f.name) for f in fields(Plan)}
    return Generated(
        **decided, ca_file=directory / CA_CERT, cert_file=directory / TLS_CERT, key_file=directory / TLS_KEY
    )
