"""The API server's verdict on a serving certificate: Go's crypto/x509 and crypto/tls rules, in Go's words.

The API server calls a webhook with client-go: `RootCAs` is a pool built by `CertPool.AppendCertsFromPEM(caBundle)`
(the bundle is the only root), `ServerName` is `<service>.<namespace>.svc`, and crypto/tls verifies what the server
sends with `certs[0].Verify(VerifyOptions{Roots, DNSName, Intermediates: certs[1:]})`. This module follows those
functions (Go 1.24, src/crypto/x509/verify.go, x509.go, parser.go, cert_pool.go, src/encoding/pem/pem.go,
src/crypto/tls/handshake_client.go) closely enough to give the same verdict and the same error text:

- parsing: a certificate Go cannot parse (negative serial, duplicate extensions, an unsupported curve) fails the
  handshake when the server sends it and is skipped, silently, in the bundle;
- the leaf: unhandled critical extensions, the validity window (`now` before notBefore or after notAfter; notAfter
  itself is still valid), then the host name against the DNS and IP SANs only (never the Common Name);
- chain building: parents are found by the exact bytes of the issuer name, tried roots first, in bundle order;
  each must be allowed to sign (v3 without basicConstraints, CA:FALSE, or a keyUsage without keyCertSign is a
  "parent certificate cannot sign" hint), use a signature Go accepts (no MD5 or SHA-1, RSA keys of 1024 bits or
  more) and pass its own checks (validity, name constraints on every SAN below it, path length, an intermediate
  must be a CA);
- extended key usage: every certificate in the chain that lists EKUs must allow serverAuth (or any).

Left out, because draguard's material never needs them and Go's own defaults make them moot here: certificate
policies (Go checks them only when a chain asks for policies), email and URI name constraints, and the limits that
guard against pathological chains (100 signature checks, 250000 constraint comparisons).
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import ipaddress
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cryptography import x509
from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed25519, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, ExtensionOID, SignatureAlgorithmOID

from certs.pem import serial_of

IP = ipaddress.IPv4Address | ipaddress.IPv6Address

# Go's names for signature algorithms (x509.go signatureAlgorithmDetails), used in its error texts.
_SIGNATURE_NAMES = {
    SignatureAlgorithmOID.RSA_WITH_MD5: "MD5-RSA",
    SignatureAlgorithmOID.RSA_WITH_SHA1: "SHA1-RSA",
    SignatureAlgorithmOID._RSA_WITH_SHA1: "SHA1-RSA",
    SignatureAlgorithmOID.RSA_WITH_SHA256: "SHA256-RSA",
    SignatureAlgorithmOID.RSA_WITH_SHA384: "SHA384-RSA",
    SignatureAlgorithmOID.RSA_WITH_SHA512: "SHA512-RSA",
    SignatureAlgorithmOID.RSASSA_PSS: "RSAPSS",
    SignatureAlgorithmOID.DSA_WITH_SHA1: "DSA-SHA1",
    SignatureAlgorithmOID.DSA_WITH_SHA256: "DSA-SHA256",
    SignatureAlgorithmOID.ECDSA_WITH_SHA1: "ECDSA-SHA1",
    SignatureAlgorithmOID.ECDSA_WITH_SHA256: "ECDSA-SHA256",
    SignatureAlgorithmOID.ECDSA_WITH_SHA384: "ECDSA-SHA384",
    SignatureAlgorithmOID.ECDSA_WITH_SHA512: "ECDSA-SHA512",
    SignatureAlgorithmOID.ED25519: "Ed25519",
}
_INSECURE = {"MD5-RSA", "SHA1-RSA", "ECDSA-SHA1", "DSA-SHA1"}  # refused for certificates since Go 1.24 (SHA-1)
_KEY_ALGORITHM = {"RSA": "RSA", "ECDSA": "ECDSA", "Ed25519": "Ed25519", "DSA": "DSA"}  # by name prefix
_GO_CURVES = {"secp224r1", "secp256r1", "secp384r1", "secp521r1"}  # namedCurveFromOID
MIN_RSA_BITS = 1024  # crypto/rsa refuses smaller keys since Go 1.24 (GODEBUG rsa1024min)
MAX_TLS_RSA_BITS = 8192  # crypto/tls refuses a server certificate with a larger RSA key (tlsmaxrsasize)

# Extensions Go's parser handles; any other one marked critical is an "unhandled critical extension".
_HANDLED = {
    ExtensionOID.KEY_USAGE, ExtensionOID.BASIC_CONSTRAINTS, ExtensionOID.SUBJECT_ALTERNATIVE_NAME,
    ExtensionOID.NAME_CONSTRAINTS, ExtensionOID.CRL_DISTRIBUTION_POINTS, ExtensionOID.AUTHORITY_KEY_IDENTIFIER,
    ExtensionOID.EXTENDED_KEY_USAGE, ExtensionOID.SUBJECT_KEY_IDENTIFIER, ExtensionOID.CERTIFICATE_POLICIES,
    ExtensionOID.POLICY_MAPPINGS, ExtensionOID.POLICY_CONSTRAINTS, ExtensionOID.INHIBIT_ANY_POLICY,
    ExtensionOID.AUTHORITY_INFORMATION_ACCESS,
}


class GoParseError(Exception):
    """A certificate Go's x509.ParseCertificate refuses; the message is Go's."""


@dataclass(frozen=True)
class GoCert:
    """The fields of Go's x509.Certificate that verification reads."""

    cert: x509.Certificate
    der: bytes
    raw_subject: bytes
    raw_issuer: bytes
    serial: int
    version: int  # 1 or 3, as Go counts
    bc_valid: bool
    is_ca: bool
    max_path_len: int  # -1: no limit
    key_usage_cert_sign: bool | None  # None: no keyUsage bits at all (Go's KeyUsage == 0)
    ext_key_usage: tuple[x509.ObjectIdentifier, ...]
    has_san_ext: bool
    dns_names: tuple[str, ...]
    ip_addresses: tuple[IP, ...]
    unhandled_critical: bool
    ski: bytes | None
    aki: bytes | None
    spki: bytes
    permitted_dns: tuple[str, ...] = ()
    excluded_dns: tuple[str, ...] = ()
    permitted_ip: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()
    excluded_ip: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()
    has_name_constraints: bool = False

    @property
    def common_name(self) -> str:
        cns = self.cert.subject.get_attributes_for_oid(x509.NameOID.COMMON_NAME)
        return str(cns[-1].value) if cns else ""  # pkix.Name keeps the last CN

    @property
    def hint_name(self) -> str:
        """What UnknownAuthorityError calls a candidate: its CN, else its first O, else serial:N."""
        if self.common_name:
            return self.common_name
        orgs = self.cert.subject.get_attributes_for_oid(x509.NameOID.ORGANIZATION_NAME)
        return str(orgs[0].value) if orgs else f"serial:{self.serial}"


def parse(cert: x509.Certificate) -> GoCert:
    """What Go's parser makes of `cert`; `GoParseError` (Go's text) where it refuses it."""
    der = cert.public_bytes(serialization.Encoding.DER)
    serial = serial_of(cert)  # without cryptography's warning for one that is not positive: Go decides below
    if serial < 0:
        raise GoParseError("x509: negative serial number")  # Go >= 1.23 (GODEBUG x509negativeserial)
    try:
        extensions = cert.extensions
    except x509.DuplicateExtension:
        raise GoParseError("x509: certificate contains duplicate extensions") from None
    except ValueError as err:  # a malformed extension Go's parser refuses as well
        raise GoParseError(f"x509: {err}") from None
    public = cert.public_key()
    if isinstance(public, ec.EllipticCurvePublicKey) and public.curve.name not in _GO_CURVES:
        raise GoParseError("x509: unsupported elliptic curve")
    values = {e.oid: e for e in extensions}
    bc = values.get(ExtensionOID.BASIC_CONSTRAINTS)
    bc_value = bc.value if bc is not None else None
    is_ca = bool(bc_value is not None and bc_value.ca)
    path_len = bc_value.path_length if bc_value is not None else None
    ku = values.get(ExtensionOID.KEY_USAGE)
    cert_sign: bool | None = None
    if ku is not None:
        usage = ku.value
        bits = [usage.digital_signature, usage.content_commitment, usage.key_encipherment,
                usage.data_encipherment, usage.key_agreement, usage.key_cert_sign, usage.crl_sign]
        if usage.key_agreement:
            bits += [usage.encipher_only, usage.decipher_only]
        cert_sign = usage.key_cert_sign if any(bits) else None
    eku = values.get(ExtensionOID.EXTENDED_KEY_USAGE)
    san = values.get(ExtensionOID.SUBJECT_ALTERNATIVE_NAME)
    dns: tuple[str, ...] = ()
    ips: tuple[IP, ...] = ()
    unhandled = False
    if san is not None:
        names = san.value
        dns = tuple(names.get_values_for_type(x509.DNSName))
        ips = tuple(ip for ip in names.get_values_for_type(x509.IPAddress)
                    if isinstance(ip, IP))
        emails = names.get_values_for_type(x509.RFC822Name)
        uris = names.get_values_for_type(x509.UniformResourceIdentifier)
        unhandled = san.critical and not (dns or ips or emails or uris)
    nc_fields: dict[str, Any] = {}
    nc = values.get(ExtensionOID.NAME_CONSTRAINTS)
    if nc is not None:
        constraints = nc.value
        permitted = constraints.permitted_subtrees or []
        excluded = constraints.excluded_subtrees or []
        known = (x509.DNSName, x509.IPAddress, x509.RFC822Name, x509.UniformResourceIdentifier)
        if nc.critical and any(not isinstance(g, known) for g in [*permitted, *excluded]):
            unhandled = True  # e.g. directoryName constraints, which Go does not support
        nc_fields = {
            "has_name_constraints": True,
            "permitted_dns": tuple(g.value for g in permitted if isinstance(g, x509.DNSName)),
            "excluded_dns": tuple(g.value for g in excluded if isinstance(g, x509.DNSName)),
            "permitted_ip": tuple(g.value for g in permitted if isinstance(g, x509.IPAddress)),
            "excluded_ip": tuple(g.value for g in excluded if isinstance(g, x509.IPAddress)),
        }
    unhandled = unhandled or any(e.critical and e.oid not in _HANDLED for e in extensions)
    ski = values.get(ExtensionOID.SUBJECT_KEY_IDENTIFIER)
    aki = values.get(ExtensionOID.AUTHORITY_KEY_IDENTIFIER)
    return GoCert(
        cert=cert, der=der,
        raw_subject=cert.subject.public_bytes(), raw_issuer=cert.issuer.public_bytes(), serial=serial,
        version=1 if cert.version == x509.Version.v1 else 3,
        bc_valid=bc is not None, is_ca=is_ca, max_path_len=-1 if path_len is None else path_len,
        key_usage_cert_sign=cert_sign,
        ext_key_usage=tuple(eku.value) if eku is not None else (),
        has_san_ext=san is not None, dns_names=dns, ip_addresses=ips, unhandled_critical=unhandled,
        ski=ski.value.digest if ski is not None else None,
        aki=aki.value.key_identifier if aki is not None else None,
        spki=public.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo),
        **nc_fields,
    )


# --- the bundle, as AppendCertsFromPEM reads it --------------------------------------------------------------------

_BEGIN = re.compile(rb"-----BEGIN ([^\r\n]*?)-----[ \t]*\r?\n")


def pem_blocks(data: bytes) -> list[tuple[str, bytes | None]]:
    """(type, DER) for every PEM block with a BEGIN and END line, in order; DER is None for a block with headers
    or broken base64, which AppendCertsFromPEM skips (Go's Decode rejects a broken block and carries on with the
    next BEGIN line)."""
    blocks: list[tuple[str, bytes | None]] = []
    pos = 0
    while True:
        begin = _BEGIN.search(data, pos)
        if begin is None:
            return blocks
        kind = begin.group(1).decode("ascii", "replace")
        end_line = f"-----END {kind}-----".encode()
        end = data.find(end_line, begin.end())
        if end < 0:
            pos = begin.end()
            continue
        body = data[begin.end():end]
        pos = end + len(end_line)
        if b":" in body.split(b"\n", 1)[0]:  # headers (Proc-Type, DEK-Info): not a plain certificate
            blocks.append((kind, None))
            continue
        try:
            blocks.append((kind, base64.b64decode(b"".join(body.split()), validate=True)))
        except (binascii.Error, ValueError):
            blocks.append((kind, None))


@dataclass
class Pool:
    """A CertPool: the certificates Go could parse, deduplicated, and how many blocks it skipped."""

    certs: list[GoCert] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # why each CERTIFICATE block was left out

    def add(self, cert: GoCert) -> None:
        if all(c.der != cert.der for c in self.certs):
            self.certs.append(cert)

    def parents_of(self, child: GoCert) -> list[GoCert]:
        """findPotentialParents: same subject bytes, key-identifier matches first, then one side missing."""
        matching, one, mismatch = [], [], []
        for cand in self.certs:
            if cand.raw_subject != child.raw_issuer:
                continue
            if cand.ski is None or child.aki is None:
                one.append(cand)
            elif cand.ski == child.aki:
                matching.append(cand)
            else:
                mismatch.append(cand)
        return [*matching, *one, *mismatch]


def pool_from_pem(data: bytes) -> Pool:
    """`AppendCertsFromPEM`: every CERTIFICATE block without headers that Go can parse; the rest skipped."""
    pool = Pool()
    for kind, der in pem_blocks(data):
        if kind != "CERTIFICATE":
            continue
        if der is None:
            pool.skipped.append("a CERTIFICATE block with PEM headers or broken base64")
            continue
        try:
            pool.add(parse(x509.load_der_x509_certificate(der)))
        except GoParseError as err:
            pool.skipped.append(str(err))
        except ValueError:
            pool.skipped.append("x509: malformed certificate")
    return pool


def pool_of(certs: Sequence[x509.Certificate]) -> Pool:
    pool = Pool()
    for cert in certs:
        try:
            pool.add(parse(cert))
        except GoParseError as err:
            pool.skipped.append(str(err))
    return pool


# --- host names ----------------------------------------------------------------------------------------------------


def _lower(text: str) -> str:
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in text)


def _valid_hostname(host: str, *, pattern: bool) -> bool:
    if not pattern:
        host = host.removesuffix(".")
    if not host or host == "*":
        return False
    for i, part in enumerate(host.split(".")):
        if not part:
            return False
        if pattern and i == 0 and part == "*":
            continue
        for j, c in enumerate(part):
            if c.isascii() and (c.isalnum() or c == "_" or (c == "-" and j != 0)):
                continue
            return False
    return True


def _match_hostnames(pattern: str, host: str) -> bool:
    pattern, host = _lower(pattern), _lower(host.removesuffix("."))
    if not pattern or not host:
        return False
    pattern_parts, host_parts = pattern.split("."), host.split(".")
    if len(pattern_parts) != len(host_parts):
        return False
    return all((i == 0 and p == "*") or p == h for i, (p, h) in enumerate(zip(pattern_parts, host_parts, strict=True)))


def _parse_ip(text: str) -> IP | None:
    """net.ParseIP: dotted IPv4 or IPv6 (no zone); None for anything else."""
    if "%" in text:
        return None
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _ip_equal(a: IP, b: IP) -> bool:
    """net.IP.Equal: an IPv4 address equals its IPv4-mapped IPv6 form."""
    def norm(ip: IP) -> IP:
        return ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped else ip
    return norm(a) == norm(b)


def ip_text(ip: IP) -> str:
    """net.IP.String: an IPv4-mapped address prints as dotted IPv4."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        return str(ip.ipv4_mapped)
    return str(ip)


def hostname_error(cert: GoCert, host: str) -> str:
    """HostnameError.Error()."""
    if not cert.has_san_ext and _match_hostnames(cert.common_name, host):
        return "x509: certificate relies on legacy Common Name field, use SANs instead"
    if _parse_ip(host) is not None:
        if not cert.ip_addresses:
            return f"x509: cannot validate certificate for {host} because it doesn't contain any IP SANs"
        valid = ", ".join(ip_text(ip) for ip in cert.ip_addresses)
    else:
        valid = ", ".join(cert.dns_names)
    if not valid:
        return f"x509: certificate is not valid for any names, but wanted to match {host}"
    return f"x509: certificate is valid for {valid}, not {host}"


def verify_hostname(cert: GoCert, host: str) -> str | None:
    """Certificate.VerifyHostname: None when `host` is covered, else Go's error text."""
    candidate = host[1:-1] if len(host) >= 3 and host[0] == "[" and host[-1] == "]" else host
    ip = _parse_ip(candidate)
    if ip is not None:
        if any(_ip_equal(ip, c) for c in cert.ip_addresses):
            return None
        return hostname_error(cert, candidate)
    name = _lower(host)
    valid_name = _valid_hostname(name, pattern=False)
    for match in cert.dns_names:
        if valid_name and _valid_hostname(match, pattern=True):
            if _match_hostnames(match, name):
                return None
        elif match not in ("", ".") and name not in ("", ".") and _lower(match) == name:
            return None
    return hostname_error(cert, host)


# --- name constraints ----------------------------------------------------------------------------------------------


def _go_quote(text: str) -> str:
    """Go's %q for the plain ASCII names certificates hold."""
    out = []
    for c in text:
        if c in '"\\':
            out.append("\\" + c)
        elif " " <= c <= "~":
            out.append(c)
        else:
            out.append(f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")
    return '"' + "".join(out) + '"'


def _reverse_labels(domain: str) -> list[str] | None:
    labels = domain.split(".")[::-1] if domain else []
    if labels and not labels[0]:
        return None
    if any(not label or any(not 33 <= ord(c) <= 126 for c in label) for label in labels):
        return None
    return labels


def _match_domain(domain: str, constraint: str) -> bool:
    if not constraint:
        return True
    labels = _reverse_labels(domain)
    if labels is None:
        raise ValueError(f"x509: internal error: cannot parse domain {_go_quote(domain)}")
    must_have_subdomain = constraint.startswith(".")
    wanted = _reverse_labels(constraint[1:] if must_have_subdomain else constraint)
    if wanted is None:
        raise ValueError(f"x509: internal error: cannot parse domain {_go_quote(constraint)}")
    if len(labels) < len(wanted) or (must_have_subdomain and len(labels) == len(wanted)):
        return False
    return all(_lower(a) == _lower(b) for a, b in zip(wanted, labels, strict=False))


def _match_ip(ip: IP, net: ipaddress.IPv4Network | ipaddress.IPv6Network) -> bool:
    return ip.version == net.version and ip in net


def _name_constraints(ca: GoCert, chain: Sequence[GoCert]) -> str | None:
    prefix = "x509: a root or intermediate certificate is not authorized to sign for this name: "
    for below in chain:
        if not below.has_san_ext:
            continue
        for name in below.dns_names:
            if _reverse_labels(name) is None:
                return f"x509: cannot parse dnsName {_go_quote(name)}"
            try:
                for constraint in ca.excluded_dns:
                    if _match_domain(name, constraint):
                        return (f"{prefix}DNS name {_go_quote(name)} is excluded by constraint "
                                f"{_go_quote(constraint)}")
                if ca.permitted_dns and not any(_match_domain(name, c) for c in ca.permitted_dns):
                    return f"{prefix}DNS name {_go_quote(name)} is not permitted by any constraint"
            except ValueError as err:
                return prefix + str(err)
        for ip in below.ip_addresses:
            for net in ca.excluded_ip:
                if _match_ip(ip, net):
                    return (f"{prefix}IP address {_go_quote(ip_text(ip))} is excluded by constraint "
                            f"{_go_quote(str(net))}")
            if ca.permitted_ip and not any(_match_ip(ip, n) for n in ca.permitted_ip):
                return f"{prefix}IP address {_go_quote(ip_text(ip))} is not permitted by any constraint"
    return None


# --- signatures ----------------------------------------------------------------------------------------------------


def _go_key_type(key: object) -> str:
    for kind, name in ((rsa.RSAPublicKey, "*rsa.PublicKey"), (ec.EllipticCurvePublicKey, "*ecdsa.PublicKey"),
                       (ed25519.Ed25519PublicKey, "ed25519.PublicKey"), (dsa.DSAPublicKey, "*dsa.PublicKey")):
        if isinstance(key, kind):
            return name
    return type(key).__name__


def check_signature_from(child: GoCert, parent: GoCert) -> str | None:
    """Certificate.CheckSignatureFrom: None when `parent` signed `child` and may sign certificates."""
    if (parent.version == 3 and not parent.bc_valid) or (parent.bc_valid and not parent.is_ca):
        return "x509: invalid signature: parent certificate cannot sign this kind of certificate"
    if parent.key_usage_cert_sign is False:
        return "x509: invalid signature: parent certificate cannot sign this kind of certificate"
    name = _SIGNATURE_NAMES.get(child.cert.signature_algorithm_oid)
    if name is None:
        return "x509: cannot verify signature: algorithm unimplemented"
    if name in _INSECURE:
        return f"x509: cannot verify signature: insecure algorithm {name}"
    key = parent.cert.public_key()
    wanted = next(v for k, v in _KEY_ALGORITHM.items() if name.startswith(k) or name.endswith(k))
    have = {rsa.RSAPublicKey: "RSA", ec.EllipticCurvePublicKey: "ECDSA", ed25519.Ed25519PublicKey: "Ed25519",
            dsa.DSAPublicKey: "DSA"}
    actual = next((v for k, v in have.items() if isinstance(key, k)), None)
    if actual is None:
        return "x509: cannot verify signature: algorithm unimplemented"
    if actual != wanted:
        return f"x509: signature algorithm specifies an {wanted} public key, but have public key of type " \
               f"{_go_key_type(key)}"
    if isinstance(key, rsa.RSAPublicKey) and key.key_size < MIN_RSA_BITS:
        return (f"crypto/rsa: {key.key_size}-bit keys are insecure "
                "(see https://go.dev/pkg/crypto/rsa#hdr-Minimum_key_size)")
    try:
        child.cert.verify_directly_issued_by(parent.cert)
    except InvalidSignature:
        return {"RSA": "crypto/rsa: verification error", "ECDSA": "x509: ECDSA verification failure",
                "Ed25519": "x509: Ed25519 verification failure", "DSA": "x509: DSA verification failure"}[wanted]
    except (ValueError, TypeError, UnsupportedAlgorithm):
        return "x509: cannot verify signature: algorithm unimplemented"
    return None


# --- Verify --------------------------------------------------------------------------------------------------------


def _rfc3339(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def validity_error(cert: x509.Certificate, now: dt.datetime) -> str | None:
    """isValid's time check: invalid strictly before notBefore or strictly after notAfter."""
    if now < cert.not_valid_before_utc:
        return (f"x509: certificate has expired or is not yet valid: current time {_rfc3339(now)} is before "
                f"{_rfc3339(cert.not_valid_before_utc)}")
    if now > cert.not_valid_after_utc:
        return (f"x509: certificate has expired or is not yet valid: current time {_rfc3339(now)} is after "
                f"{_rfc3339(cert.not_valid_after_utc)}")
    return None


_LEAF, _INTERMEDIATE, _ROOT = 0, 1, 2


def _is_valid(cert: GoCert, kind: int, chain: Sequence[GoCert], now: dt.datetime) -> str | None:
    if cert.unhandled_critical:
        return "x509: unhandled critical extension"
    if chain and chain[-1].raw_issuer != cert.raw_subject:
        return "x509: issuer name does not match subject from issuing certificate"
    expired = validity_error(cert.cert, now)
    if expired:
        return expired
    if kind != _LEAF and cert.has_name_constraints:
        problem = _name_constraints(cert, chain)
        if problem:
            return problem
    if kind == _INTERMEDIATE and not (cert.bc_valid and cert.is_ca):
        return "x509: certificate is not authorized to sign other certificates"
    if cert.bc_valid and cert.max_path_len >= 0 and len(chain) - 1 > cert.max_path_len:
        return "x509: too many intermediates for path length constraint"
    return None


def _already_in_chain(cand: GoCert, chain: Sequence[GoCert]) -> bool:
    return any(c.raw_subject == cand.raw_subject and c.spki == cand.spki for c in chain)


class _Build:
    def __init__(self, roots: Pool, intermediates: Pool, now: dt.datetime) -> None:
        self.roots, self.intermediates, self.now = roots, intermediates, now

    def chains(self, chain: list[GoCert]) -> tuple[list[list[GoCert]], str | None]:
        """buildChains: the chains found from chain[-1] up, or the error Go returns."""
        child = chain[-1]
        found: list[list[GoCert]] = []
        err: str | None = None
        hint: tuple[str, GoCert] | None = None
        for kind, pool in ((_ROOT, self.roots), (_INTERMEDIATE, self.intermediates)):
            for cand in pool.parents_of(child):
                if _already_in_chain(cand, chain):
                    continue
                problem = check_signature_from(child, cand)
                if problem:
                    hint = hint or (problem, cand)
                    continue
                err = _is_valid(cand, kind, chain, self.now)
                if err:
                    hint = hint or (err, cand)
                    continue
                if kind == _ROOT:
                    found.append([*chain, cand])
                else:
                    deeper, err = self.chains([*chain, cand])
                    found += deeper
        if found:
            return found, None
        if err is None:
            err = "x509: certificate signed by unknown authority"
            if hint is not None:
                err += (f" (possibly because of {_go_quote(hint[0])} while trying to verify candidate authority "
                        f"certificate {_go_quote(hint[1].hint_name)})")
        return [], err


def _chain_allows_server_auth(chain: Sequence[GoCert]) -> bool:
    for cert in reversed(chain):
        if not cert.ext_key_usage:
            continue
        if ExtendedKeyUsageOID.ANY_EXTENDED_KEY_USAGE in cert.ext_key_usage:
            continue
        if ExtendedKeyUsageOID.SERVER_AUTH not in cert.ext_key_usage:
            return False
    return True


@dataclass(frozen=True)
class Verdict:
    """What the API server's TLS client concludes: `error` is the text it logs (None: the handshake verifies),
    `chain` the verified path (leaf first, the bundle's CA last)."""

    error: str | None
    chain: tuple[GoCert, ...] = ()


def verify(served: Sequence[x509.Certificate], roots: Pool, host: str | None, now: dt.datetime) -> Verdict:
    """crypto/tls verifyServerCertificate, then x509 Verify, on the certificates the server sends (leaf first)."""
    parsed: list[GoCert] = []
    for cert in served:
        try:
            parsed.append(parse(cert))
        except GoParseError as err:
            return Verdict(f"tls: failed to parse certificate from server: {err}")
        key = cert.public_key()
        if isinstance(key, rsa.RSAPublicKey) and key.key_size > MAX_TLS_RSA_BITS:
            return Verdict(f"tls: server sent certificate containing RSA key larger than {MAX_TLS_RSA_BITS} bits")
    leaf = parsed[0]
    intermediates = Pool()
    for sent in parsed[1:]:
        intermediates.add(sent)
    prefix = "tls: failed to verify certificate: "
    problem = _is_valid(leaf, _LEAF, [], now)
    if problem is None and host:
        problem = verify_hostname(leaf, host)
    if problem:
        return Verdict(prefix + problem)
    if any(c.der == leaf.der for c in roots.certs):
        candidates = [[leaf]]
    else:
        candidates, problem = _Build(roots, intermediates, now).chains([leaf])
        if problem:
            return Verdict(prefix + problem)
    good = [c for c in candidates if _chain_allows_server_auth(c)]
    if not good:
        return Verdict(prefix + "x509: certificate specifies an incompatible key usage")
    return Verdict(None, tuple(good[0]))
