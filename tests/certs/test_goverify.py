"""certs.goverify against Go's crypto/x509 and crypto/tls: each case is a certificate the API server's Go client
accepts or refuses, with the exact text it logs after "failed to call webhook: Post ...: ".

The expected texts are Go's (src/crypto/x509/verify.go, x509.go, parser.go; src/crypto/tls/handshake_client.go);
they were cross-checked by running crypto/x509's Certificate.Verify on the same certificates.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import warnings
from collections.abc import Sequence

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.utils import CryptographyDeprecationWarning
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from certs import goverify
from certs.pem import cert_pem
from tests.certs.odd import MD5_RSA, SHA1_ECDSA, SHA1_RSA, resign

NOW = dt.datetime(2026, 1, 10, 12, 0, tzinfo=dt.UTC)
HOST = "draguard.ns.svc"
SECOND = dt.timedelta(seconds=1)
UNKNOWN = "tls: failed to verify certificate: x509: certificate signed by unknown authority"
CANNOT_SIGN = (UNKNOWN + ' (possibly because of "x509: invalid signature: parent certificate cannot sign this kind of '
               'certificate" while trying to verify candidate authority certificate "ca")')
Key = ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey | ed25519.Ed25519PrivateKey


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)] if cn else [])


def _usage(*, cert_sign: bool) -> x509.KeyUsage:
    return x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                         data_encipherment=False, key_agreement=False, key_cert_sign=cert_sign, crl_sign=cert_sign,
                         encipher_only=False, decipher_only=False)


def _cert(subject: str, issuer: str, key: Key, signer: Key, *, ca: bool, path_len: int | None = 0,
          basic: bool = True, usage: x509.KeyUsage | str | None = "default", eku: Sequence[x509.ObjectIdentifier] |
          None = None, sans: Sequence[x509.GeneralName] | None = None, not_before: dt.datetime = NOW - SECOND * 86400,
          not_after: dt.datetime = NOW + SECOND * 86400 * 100, extra: Sequence[tuple[x509.ExtensionType, bool]] = (),
          digest: hashes.HashAlgorithm | None = None) -> x509.Certificate:
    builder = (x509.CertificateBuilder().subject_name(_name(subject)).issuer_name(_name(issuer))
               .public_key(key.public_key()).serial_number(4660).not_valid_before(not_before)
               .not_valid_after(not_after))
    if basic:
        builder = builder.add_extension(x509.BasicConstraints(ca=ca, path_length=path_len if ca else None), True)
    if usage == "default":
        builder = builder.add_extension(_usage(cert_sign=ca), critical=True)
    elif isinstance(usage, x509.KeyUsage):
        builder = builder.add_extension(usage, critical=True)
    if eku is not None:
        builder = builder.add_extension(x509.ExtendedKeyUsage(list(eku)), critical=False)
    if sans is not None:
        builder = builder.add_extension(x509.SubjectAlternativeName(list(sans)), critical=False)
    builder = builder.add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
    if issuer != subject or not ca:
        builder = builder.add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(signer.public_key()),
                                        critical=False)
    for extension, critical in extra:
        builder = builder.add_extension(extension, critical)
    if isinstance(signer, ed25519.Ed25519PrivateKey):
        return builder.sign(signer, None)
    return builder.sign(signer, digest or hashes.SHA256())


def _ec() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _ca(cn: str = "ca", key: Key | None = None, **kw: object) -> tuple[x509.Certificate, Key]:
    key = key or _ec()
    return _cert(cn, cn, key, key, ca=True, **kw), key  # type: ignore[arg-type]


def _leaf(ca: tuple[x509.Certificate, Key], key: Key | None = None, *, cn: str = HOST,
          sans: Sequence[x509.GeneralName] | None = (x509.DNSName(HOST),),
          eku: Sequence[x509.ObjectIdentifier] | None = (ExtendedKeyUsageOID.SERVER_AUTH,), **kw: object,
          ) -> x509.Certificate:
    issuer = ca[0].subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value
    return _cert(cn, str(issuer), key or _ec(), ca[1], ca=False, sans=sans, eku=eku, **kw)  # type: ignore[arg-type]


def _verdict(served: Sequence[x509.Certificate], bundle: Sequence[x509.Certificate] | bytes, host: str | None = HOST,
             now: dt.datetime = NOW) -> str:
    pool = goverify.pool_from_pem(bundle if isinstance(bundle, bytes) else cert_pem(bundle))
    return goverify.verify(served, pool, host, now).error or "ok"


CA = _ca()


def test_what_draguard_issues_verifies() -> None:
    assert _verdict([_leaf(CA)], [CA[0]]) == "ok"


# --- which CA may sign: CheckSignatureFrom -------------------------------------------------------------------------


@pytest.mark.parametrize(("ca_kw", "expected"), [
    ({"basic": False}, CANNOT_SIGN),  # v3 without basicConstraints
    ({"usage": _usage(cert_sign=False)}, CANNOT_SIGN),  # keyUsage without keyCertSign
    ({"usage": None}, "ok"),  # no keyUsage at all: Go does not require one
])
def test_a_root_must_be_allowed_to_sign(ca_kw: dict[str, object], expected: str) -> None:
    ca = _ca(**ca_kw)
    assert _verdict([_leaf(ca)], [ca[0]]) == expected


def test_the_leaf_needs_neither_ca_false_nor_an_authority_key_id() -> None:
    key = _ec()
    as_ca = _cert(HOST, "ca", key, CA[1], ca=True, sans=[x509.DNSName(HOST)], eku=[ExtendedKeyUsageOID.SERVER_AUTH])
    assert _verdict([as_ca], [CA[0]]) == "ok"
    self_signed = _cert(HOST, HOST, key, key, ca=False, sans=[x509.DNSName(HOST)])
    assert _verdict([self_signed], [self_signed]) == "ok"  # a bundle that holds the leaf itself


# --- extended key usage, nested down the chain ---------------------------------------------------------------------


@pytest.mark.parametrize(("leaf_eku", "ca_eku", "expected"), [
    (None, None, "ok"),
    ((ExtendedKeyUsageOID.CLIENT_AUTH,), None, "tls: failed to verify certificate: x509: certificate specifies an "
                                                "incompatible key usage"),
    ((ExtendedKeyUsageOID.ANY_EXTENDED_KEY_USAGE,), None, "ok"),
    ((ExtendedKeyUsageOID.SERVER_AUTH,), (ExtendedKeyUsageOID.CLIENT_AUTH,),
     "tls: failed to verify certificate: x509: certificate specifies an incompatible key usage"),
    ((ExtendedKeyUsageOID.SERVER_AUTH,), (ExtendedKeyUsageOID.SERVER_AUTH,), "ok"),
])
def test_extended_key_usage(leaf_eku: tuple[x509.ObjectIdentifier, ...] | None,
                            ca_eku: tuple[x509.ObjectIdentifier, ...] | None, expected: str) -> None:
    ca = _ca(eku=ca_eku)
    assert _verdict([_leaf(ca, eku=leaf_eku)], [ca[0]]) == expected


# --- intermediates: sent by the server, not in the bundle ----------------------------------------------------------


@pytest.mark.parametrize(("root_path_len", "expected"), [
    (1, "ok"),
    (0, "tls: failed to verify certificate: x509: too many intermediates for path length constraint"),
    (None, "ok"),
])
def test_an_intermediate_the_server_sends(root_path_len: int | None, expected: str) -> None:
    root = _ca("root", path_len=root_path_len)
    key = _ec()
    inter = _cert("inter", "root", key, root[1], ca=True, path_len=0)
    leaf = _leaf((inter, key))
    assert _verdict([leaf, inter], [root[0]]) == expected
    if expected == "ok":
        assert _verdict([leaf], [root[0]]) == UNKNOWN  # not sent: the API server cannot find it
        assert _verdict([leaf], [inter]) == "ok"  # an intermediate in the bundle is an anchor like any other


def test_an_intermediate_that_is_not_a_ca() -> None:
    root, key = _ca("root", path_len=None), _ec()
    inter = _cert("inter", "root", key, root[1], ca=False, usage=None)
    assert _verdict([_leaf((inter, key)), inter], [root[0]]) == (
        UNKNOWN + ' (possibly because of "x509: invalid signature: parent certificate cannot sign this kind of '
                  'certificate" while trying to verify candidate authority certificate "inter")')


# --- signature algorithms and keys ---------------------------------------------------------------------------------


def test_insecure_signature_algorithms() -> None:
    rsa_key = rsa.generate_private_key(65537, 2048)
    rsa_ca = _ca("rsa", key=rsa_key)
    leaf = _leaf(rsa_ca)
    for algorithm, digest, name in ((SHA1_RSA, hashes.SHA1(), "SHA1-RSA"), (MD5_RSA, hashes.MD5(), "MD5-RSA")):
        weak = resign(leaf, rsa_key, algorithm=algorithm, digest=digest)
        assert _verdict([weak], [rsa_ca[0]]) == (
            UNKNOWN + f' (possibly because of "x509: cannot verify signature: insecure algorithm {name}" while trying '
                      'to verify candidate authority certificate "rsa")')
    weak = resign(_leaf(CA), CA[1], algorithm=SHA1_ECDSA, digest=hashes.SHA1())  # type: ignore[arg-type]
    assert "insecure algorithm ECDSA-SHA1" in _verdict([weak], [CA[0]])


def test_ed25519_and_every_nist_curve_go_supports() -> None:
    ed = ed25519.Ed25519PrivateKey.generate()
    ed_ca = _ca("ed", key=ed)
    assert _verdict([_leaf(ed_ca, ed25519.Ed25519PrivateKey.generate())], [ed_ca[0]]) == "ok"
    for curve in (ec.SECP384R1(), ec.SECP521R1()):
        ca = _ca("c", key=ec.generate_private_key(curve), digest=hashes.SHA384())
        assert _verdict([_leaf(ca, ec.generate_private_key(curve), digest=hashes.SHA384())], [ca[0]]) == "ok"


def test_a_curve_go_cannot_parse() -> None:
    k1 = ec.generate_private_key(ec.SECP256K1())
    served = _leaf(CA, k1)
    assert _verdict([served], [CA[0]]) == (
        "tls: failed to parse certificate from server: x509: unsupported elliptic curve")
    odd_ca = _ca("k1", key=k1)
    assert _verdict([_leaf(odd_ca)], [odd_ca[0]]) == UNKNOWN  # skipped in the bundle, silently


def _rsa_public(bits: int) -> rsa.RSAPublicKey:
    return rsa.RSAPublicNumbers(65537, (1 << (bits - 1)) | 1).public_key()


@pytest.mark.parametrize(("bits", "hint"), [
    (1023, "crypto/rsa: 1023-bit keys are insecure (see https://go.dev/pkg/crypto/rsa#hdr-Minimum_key_size)"),
    (1024, "crypto/rsa: verification error"),  # big enough: the signature is then checked (and is not this key's)
    (1025, "crypto/rsa: verification error"),
])
def test_rsa_keys_below_1024_bits_are_refused_before_the_signature(bits: int, hint: str) -> None:
    # Go >= 1.24 (GODEBUG rsa1024min): the size is checked first. The CA's public key is all that matters.
    signer = rsa.generate_private_key(65537, 2048)
    weak_ca = (x509.CertificateBuilder().subject_name(_name("weak")).issuer_name(_name("weak"))
               .public_key(_rsa_public(bits)).serial_number(1).not_valid_before(NOW - SECOND)
               .not_valid_after(NOW + SECOND * 86400).add_extension(x509.BasicConstraints(True, None), True)
               .sign(signer, hashes.SHA256()))
    leaf = _cert(HOST, "weak", _ec(), signer, ca=False, sans=[x509.DNSName(HOST)])
    assert _verdict([leaf], [weak_ca]) == (
        UNKNOWN + f' (possibly because of "{hint}" while trying to verify candidate authority certificate "weak")')


@pytest.mark.parametrize(("bits", "refused"), [(8192, False), (8193, True)])
def test_a_served_rsa_key_over_8192_bits(bits: int, refused: bool) -> None:
    signer = CA[1]
    big = (x509.CertificateBuilder().subject_name(_name(HOST)).issuer_name(_name("ca")).public_key(_rsa_public(bits))
           .serial_number(1).not_valid_before(NOW - SECOND).not_valid_after(NOW + SECOND * 86400)
           .add_extension(x509.SubjectAlternativeName([x509.DNSName(HOST)]), False).sign(signer, hashes.SHA256()))
    verdict = _verdict([big], [CA[0]])
    assert (verdict == "tls: server sent certificate containing RSA key larger than 8192 bits") is refused
    assert refused or verdict == "ok"


# --- serial numbers ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("serial", "expected"), [
    (-1, "tls: failed to parse certificate from server: x509: negative serial number"),  # Go >= 1.23
    (0, "ok"),
    (2**159 - 1, "ok"),  # 20 octets
    (2**159, "ok"),  # 21 octets: beyond RFC 5280, but Go's parser does not count
])
def test_serial_numbers(serial: int, expected: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CryptographyDeprecationWarning)
        odd = resign(_leaf(CA), CA[1], serial=serial)  # type: ignore[arg-type]
        assert _verdict([odd], [CA[0]]) == expected


# --- extensions ----------------------------------------------------------------------------------------------------

UNKNOWN_CRITICAL = (x509.UnrecognizedExtension(x509.ObjectIdentifier("1.2.3.4.5"), b"\x05\x00"), True)


def test_an_unknown_critical_extension() -> None:
    assert _verdict([_leaf(CA, extra=[UNKNOWN_CRITICAL])], [CA[0]]) == (
        "tls: failed to verify certificate: x509: unhandled critical extension")
    ca = _ca("ca", extra=[UNKNOWN_CRITICAL])
    assert _verdict([_leaf(ca)], [ca[0]]) == "tls: failed to verify certificate: x509: unhandled critical extension"
    not_critical = _leaf(CA, extra=[(UNKNOWN_CRITICAL[0], False)])
    assert _verdict([not_critical], [CA[0]]) == "ok"


# --- validity: Go is strict only outside [notBefore, notAfter] -----------------------------------------------------


@pytest.mark.parametrize(("offset", "expected"), [
    (-1, "ok"),
    (0, "ok"),  # notAfter itself is still valid (now.After(NotAfter))
    (1, "tls: failed to verify certificate: x509: certificate has expired or is not yet valid: current time "
        "2026-01-10T12:00:01Z is after 2026-01-10T12:00:00Z"),
])
def test_the_leaf_and_the_ca_at_not_after(offset: int, expected: str) -> None:
    now = NOW + offset * SECOND
    assert _verdict([_leaf(CA, not_after=NOW)], [CA[0]], now=now) == expected
    ca = _ca("old", not_after=NOW)
    assert _verdict([_leaf(ca, not_after=NOW)], [ca[0]], now=now) == expected


@pytest.mark.parametrize(("offset", "expected"), [
    (-1, "tls: failed to verify certificate: x509: certificate has expired or is not yet valid: current time "
         "2026-01-10T11:59:59Z is before 2026-01-10T12:00:00Z"),
    (0, "ok"),
    (1, "ok"),
])
def test_a_ca_not_yet_valid(offset: int, expected: str) -> None:
    ca = _ca("new", not_before=NOW)
    assert _verdict([_leaf(ca)], [ca[0]], now=NOW + offset * SECOND) == expected


def test_dates_past_2050_are_read_as_generalized_time() -> None:
    ca = _ca("long", not_after=dt.datetime(2126, 1, 1, tzinfo=dt.UTC))
    leaf = _leaf(ca, not_after=dt.datetime(2051, 1, 1, tzinfo=dt.UTC))
    assert _verdict([leaf], [ca[0]], now=dt.datetime(2050, 6, 1, tzinfo=dt.UTC)) == "ok"
    assert _verdict([leaf], [ca[0]], now=dt.datetime(2051, 1, 1, 0, 0, 1, tzinfo=dt.UTC)).endswith(
        "current time 2051-01-01T00:00:01Z is after 2051-01-01T00:00:00Z")


# --- host names: SANs only ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("sans", "cn", "host", "expected"), [
    ([x509.DNSName("Draguard.NS.svc")], HOST, HOST, "ok"),  # case-insensitive
    ([x509.DNSName("*.ns.svc")], HOST, HOST, "ok"),
    ([x509.DNSName("*.svc")], HOST, HOST, "x509: certificate is valid for *.svc, not draguard.ns.svc"),
    ([x509.DNSName("d*.ns.svc")], HOST, HOST, "x509: certificate is valid for d*.ns.svc, not draguard.ns.svc"),
    (None, HOST, HOST, "x509: certificate relies on legacy Common Name field, use SANs instead"),
    (None, "other", HOST, "x509: certificate is not valid for any names, but wanted to match draguard.ns.svc"),
    ([x509.UniformResourceIdentifier("spiffe://c/ns/x")], HOST, HOST,
     "x509: certificate is not valid for any names, but wanted to match draguard.ns.svc"),
    ([x509.DNSName(HOST)], HOST, "10.0.0.1",
     "x509: cannot validate certificate for 10.0.0.1 because it doesn't contain any IP SANs"),
    ([x509.IPAddress(ipaddress.ip_address("::ffff:10.0.0.1"))], HOST, "10.0.0.1", "ok"),
    ([x509.IPAddress(ipaddress.ip_address("fd00::1"))], HOST, "fd00::2",
     "x509: certificate is valid for fd00::1, not fd00::2"),
])
def test_host_names(sans: list[x509.GeneralName] | None, cn: str, host: str, expected: str) -> None:
    verdict = _verdict([_leaf(CA, cn=cn, sans=sans)], [CA[0]], host=host)
    assert verdict == (expected if expected == "ok" else "tls: failed to verify certificate: " + expected)


# --- name constraints apply to every SAN, not only the dialled name -----------------------------------------------


def test_name_constraints() -> None:
    constraints = x509.NameConstraints(
        permitted_subtrees=[x509.DNSName(".svc"), x509.IPAddress(ipaddress.ip_network("10.0.0.0/8"))],
        excluded_subtrees=[x509.DNSName("bad.ns.svc")])
    ca = _ca("nc", extra=[(constraints, True)])
    prefix = ("tls: failed to verify certificate: x509: a root or intermediate certificate is not authorized to sign "
              "for this name: ")
    assert _verdict([_leaf(ca, sans=[x509.DNSName(HOST), x509.IPAddress(ipaddress.ip_address("10.1.1.1"))])],
                    [ca[0]]) == "ok"
    assert _verdict([_leaf(ca, sans=[x509.DNSName(HOST), x509.DNSName("draguard")])], [ca[0]]) == (
        prefix + 'DNS name "draguard" is not permitted by any constraint')
    assert _verdict([_leaf(ca, sans=[x509.DNSName(HOST), x509.DNSName("x.bad.ns.svc")])], [ca[0]]) == (
        prefix + 'DNS name "x.bad.ns.svc" is excluded by constraint "bad.ns.svc"')
    assert _verdict([_leaf(ca, sans=[x509.DNSName(HOST), x509.IPAddress(ipaddress.ip_address("192.168.1.1"))])],
                    [ca[0]]) == prefix + 'IP address "192.168.1.1" is not permitted by any constraint'


# --- the bundle, as AppendCertsFromPEM reads it --------------------------------------------------------------------


def test_the_bundle_is_read_like_append_certs_from_pem() -> None:
    other = _ca()
    good, stale = cert_pem(CA[0]), cert_pem(other[0])
    leaf = _leaf(CA)
    broken = stale.replace(b"MII", b"MIX", 1)  # DER that does not parse
    bad_base64 = stale[:80] + b"!!!!\n" + stale[80:]
    for bundle in (b"hello\n" + stale + b"junk\n" + good + b"\n \n",  # text between and after blocks
                   broken + good, bad_base64 + good,  # a bad block is skipped, the next one used
                   good.replace(b"\n", b"\r\n"),
                   b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n" + good):
        assert _verdict([leaf], bundle) == "ok", bundle
    pool = goverify.pool_from_pem(broken + good + good)
    assert (len(pool.certs), pool.skipped) == (1, ["x509: malformed certificate"])  # duplicates count once
    assert _verdict([leaf], broken) == UNKNOWN
    # A skipped block is said, whatever broke it: `certs check` warns with it, and fails a bundle of nothing else.
    skipped = goverify.pool_from_pem(bad_base64 + good).skipped
    assert skipped == ["a CERTIFICATE block with PEM headers or broken base64"]


def test_overlap_bundles_in_either_order() -> None:
    """Every draguard CA is CN=draguard-webhook-ca: Go tries each candidate of that name until one signed."""
    old, new = _ca("draguard-webhook-ca"), _ca("draguard-webhook-ca")
    for leaf in (_leaf(old), _leaf(new)):
        assert _verdict([leaf], [old[0], new[0]]) == "ok"
        assert _verdict([leaf], [new[0], old[0]]) == "ok"
    assert _verdict([_leaf(new)], [old[0]]) == (
        UNKNOWN + ' (possibly because of "x509: ECDSA verification failure" while trying to verify candidate '
                  'authority certificate "draguard-webhook-ca")')
