"""certs.issue: what the CA and serving certificate hold, idempotence, renewal, and refusing bad input."""

from __future__ import annotations

import datetime as dt
import ipaddress
import ssl
import tempfile
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import Encoding
from cryptography.x509.oid import ExtendedKeyUsageOID
from cryptography.x509.verification import PolicyBuilder, Store, VerificationError
from hypothesis import given, settings
from hypothesis import strategies as st

from certs import CertsError
from certs.issue import BACKDATE, generate, service_names
from certs.pem import load_certs
from certs.reload import TLSReloader
from tests.certs.conftest import handshake

SERVICE, NAMESPACE = "draguard", "draguard-system"
SERVICE_NAMES = [
    "draguard",
    "draguard.draguard-system",
    "draguard.draguard-system.svc",
    "draguard.draguard-system.svc.cluster.local",
]
NOW = dt.datetime(2026, 11, 23, 12, 0, tzinfo=dt.UTC)


def _files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def _verify(ca_file: Path, leaf_file: Path, subject: x509.GeneralName, when: dt.datetime | None = None) -> int:
    builder = PolicyBuilder().store(Store(load_certs(ca_file)))
    if when is not None:
        builder = builder.time(when)
    verifier = builder.build_server_verifier(subject)  # type: ignore[arg-type]
    return len(verifier.verify(load_certs(leaf_file)[0], []))


@pytest.mark.parametrize("key_type", ["ecdsa", "rsa"])
def test_the_chain_verifies_for_every_name_with_x509_path_validation(tmp_path: Path, key_type: str) -> None:
    out = generate(tmp_path, SERVICE, NAMESPACE, extra_dns=["webhook.example.com"], extra_ips=["127.0.0.1", "::1"],
                   key_type=key_type)  # type: ignore[arg-type]
    for name in [*SERVICE_NAMES, "webhook.example.com"]:
        assert _verify(out.ca_file, out.cert_file, x509.DNSName(name)) == 2
    for ip in ["127.0.0.1", "::1"]:
        assert _verify(out.ca_file, out.cert_file, x509.IPAddress(ipaddress.ip_address(ip))) == 2
    with pytest.raises(VerificationError, match="no matching subjectAltName"):
        _verify(out.ca_file, out.cert_file, x509.DNSName("other.draguard-system.svc"))


def test_a_real_tls_handshake_succeeds_with_sni_for_each_name(tmp_path: Path, tls_server: type) -> None:
    out = generate(tmp_path, SERVICE, NAMESPACE, extra_ips=["127.0.0.1"])
    server = tls_server(TLSReloader(out.cert_file, out.key_file).server_context())
    served = load_certs(out.cert_file)[0].public_bytes(Encoding.DER)
    for name in [*SERVICE_NAMES, "127.0.0.1"]:
        assert handshake(server.port, out.ca_file, server_name=name) == served
    with pytest.raises(ssl.SSLCertVerificationError, match="Hostname mismatch"):
        handshake(server.port, out.ca_file, server_name="other.draguard-system.svc")


def test_the_ca_is_a_pathlen_zero_ecdsa_p256_ca_valid_for_years_and_backdated(tmp_path: Path) -> None:
    out = generate(tmp_path, SERVICE, NAMESPACE, now=NOW)
    (ca,) = load_certs(out.ca_file)
    assert isinstance(ca.public_key(), ec.EllipticCurvePublicKey)
    assert ca.public_key().curve.name == "secp256r1"  # type: ignore[union-attr]
    assert ca.not_valid_before_utc == NOW - BACKDATE
    assert ca.not_valid_after_utc == NOW + dt.timedelta(days=3650)
    constraints = ca.extensions.get_extension_for_class(x509.BasicConstraints)
    assert (constraints.critical, constraints.value.ca, constraints.value.path_length) == (True, True, 0)
    usage = ca.extensions.get_extension_for_class(x509.KeyUsage)
    assert usage.critical and usage.value.key_cert_sign and usage.value.crl_sign
    ski = ca.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
    aki = ca.extensions.get_extension_for_class(x509.AuthorityKeyIdentifier).value
    assert aki.key_identifier == ski.digest


def test_the_serving_certificate_has_sans_server_auth_and_lives_one_year(tmp_path: Path) -> None:
    out = generate(tmp_path, SERVICE, NAMESPACE, extra_dns=["a.example"], extra_ips=["10.0.0.7"], now=NOW)
    (ca,), (leaf,) = load_certs(out.ca_file), load_certs(out.cert_file)
    san = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert san.get_values_for_type(x509.DNSName) == [*SERVICE_NAMES, "a.example"]
    assert san.get_values_for_type(x509.IPAddress) == [ipaddress.ip_address("10.0.0.7")]
    assert leaf.subject.rfc4514_string() == "CN=draguard.draguard-system.svc"
    assert leaf.not_valid_before_utc == NOW - BACKDATE
    assert leaf.not_valid_after_utc == NOW + dt.timedelta(days=365)
    assert leaf.extensions.get_extension_for_class(x509.BasicConstraints).value.ca is False
    assert leaf.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value == x509.ExtendedKeyUsage(
        [ExtendedKeyUsageOID.SERVER_AUTH])
    usage = leaf.extensions.get_extension_for_class(x509.KeyUsage).value
    assert (usage.digital_signature, usage.key_encipherment, usage.key_cert_sign) == (True, False, False)
    aki = leaf.extensions.get_extension_for_class(x509.AuthorityKeyIdentifier).value
    assert aki.key_identifier == ca.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value.digest


def test_rsa_on_request_is_2048_bits_with_key_encipherment(tmp_path: Path) -> None:
    out = generate(tmp_path, SERVICE, NAMESPACE, key_type="rsa")
    for cert in [*load_certs(out.ca_file), *load_certs(out.cert_file)]:
        public = cert.public_key()
        assert isinstance(public, rsa.RSAPublicKey) and public.key_size == 2048
    usage = load_certs(out.cert_file)[0].extensions.get_extension_for_class(x509.KeyUsage).value
    assert usage.key_encipherment


def test_keys_are_0600_and_certificates_0644(tmp_path: Path) -> None:
    generate(tmp_path, SERVICE, NAMESPACE)
    modes = {p.name: p.stat().st_mode & 0o777 for p in tmp_path.iterdir()}
    assert modes == {"ca.crt": 0o644, "ca.key": 0o600, "tls.crt": 0o644, "tls.key": 0o600}


def test_a_second_run_changes_nothing(tmp_path: Path) -> None:
    first = generate(tmp_path, SERVICE, NAMESPACE, extra_ips=["127.0.0.1"])
    before = _files(tmp_path)
    again = generate(tmp_path, SERVICE, NAMESPACE, extra_ips=["127.0.0.1"])
    assert (first.ca_created, first.leaf_issued) == (True, True)
    assert (again.ca_created, again.leaf_issued, again.reason) == (
        False, False, "the serving certificate is valid and current")
    assert _files(tmp_path) == before
    assert (first.changed, again.changed, again.changes) == (True, False, {})


def test_what_generate_and_rotate_return_never_shows_a_private_key(tmp_path: Path) -> None:
    from certs.rotate import rotate

    first = generate(tmp_path, SERVICE, NAMESPACE)
    assert sorted(first.changes) == ["ca.crt", "ca.key", "tls.crt", "tls.key"]
    overlap = rotate(tmp_path, "overlap")
    assert b"PRIVATE KEY" in (overlap.changes["ca-next.key"] or b"")
    for result in (first, overlap):
        assert "PRIVATE KEY" not in repr(result) and "changes" not in repr(result)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"extra_dns": ["new.example"]}, "the names change (adds new.example)"),
        ({"extra_ips": []}, "the names change (drops 127.0.0.1)"),
        ({"key_type": "rsa"}, "the key type changes from ecdsa to rsa"),
        ({"now": NOW + dt.timedelta(days=244)}, "less than a third of its lifetime is left (expires 2027-11-23)"),
        ({"now": NOW + dt.timedelta(days=400)}, "it expired on 2027-11-23"),
    ],
)
def test_the_leaf_is_reissued_under_the_same_ca_when_it_must_be(tmp_path: Path, change: dict, reason: str) -> None:
    generate(tmp_path, SERVICE, NAMESPACE, extra_ips=["127.0.0.1"], now=NOW)
    ca_before = _files(tmp_path)["ca.crt"], _files(tmp_path)["ca.key"]
    out = generate(tmp_path, SERVICE, NAMESPACE, **{"extra_ips": ["127.0.0.1"], "now": NOW, **change})
    assert (out.ca_created, out.leaf_issued, out.reason) == (False, True, reason)
    assert (_files(tmp_path)["ca.crt"], _files(tmp_path)["ca.key"]) == ca_before
    when = change.get("now", NOW)
    assert _verify(out.ca_file, out.cert_file, x509.DNSName("draguard.draguard-system.svc"), when) == 2


def test_with_more_than_a_third_left_the_leaf_stays(tmp_path: Path) -> None:
    generate(tmp_path, SERVICE, NAMESPACE, now=NOW)
    out = generate(tmp_path, SERVICE, NAMESPACE, now=NOW + dt.timedelta(days=240))
    assert out.leaf_issued is False


def test_a_leaf_from_another_ca_or_with_a_foreign_key_is_reissued(tmp_path: Path) -> None:
    generate(tmp_path / "a", SERVICE, NAMESPACE)
    generate(tmp_path / "b", SERVICE, NAMESPACE)
    (tmp_path / "a" / "tls.crt").write_bytes((tmp_path / "b" / "tls.crt").read_bytes())
    (tmp_path / "a" / "tls.key").write_bytes((tmp_path / "b" / "tls.key").read_bytes())
    assert generate(tmp_path / "a", SERVICE, NAMESPACE).reason == "it was not signed by the current CA"
    (tmp_path / "a" / "tls.key").write_bytes((tmp_path / "b" / "tls.key").read_bytes())
    assert generate(tmp_path / "a", SERVICE, NAMESPACE).reason == "tls.key does not match tls.crt"


def test_a_ca_key_that_does_not_match_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    generate(tmp_path / "a", SERVICE, NAMESPACE)
    generate(tmp_path / "b", SERVICE, NAMESPACE)
    (tmp_path / "a" / "ca.key").write_bytes((tmp_path / "b" / "ca.key").read_bytes())
    (tmp_path / "a" / "tls.crt").unlink()
    before = _files(tmp_path / "a")
    with pytest.raises(CertsError) as err:
        generate(tmp_path / "a", SERVICE, NAMESPACE)
    assert err.value.message == f"{tmp_path / 'a'}/ca.key does not match any certificate in {tmp_path / 'a'}/ca.crt"
    assert _files(tmp_path / "a") == before


def test_an_expired_ca_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    generate(tmp_path, SERVICE, NAMESPACE, ca_years=1, now=NOW)
    before = _files(tmp_path)
    with pytest.raises(CertsError) as err:
        generate(tmp_path, SERVICE, NAMESPACE, now=NOW + dt.timedelta(days=366))
    assert err.value.message == (
        f"{tmp_path}/ca.crt: 'draguard-webhook-ca' (serial {load_certs(tmp_path / 'ca.crt')[0].serial_number:x}) "
        "expired on 2027-11-23 12:00:00 UTC; nothing trusts it any more: remove ca.crt and ca.key to start a new CA, "
        "then run `draguard certs inject`"
    )
    assert _files(tmp_path) == before


def test_a_ca_certificate_without_its_key_is_refused(tmp_path: Path) -> None:
    generate(tmp_path, SERVICE, NAMESPACE)
    (tmp_path / "ca.key").unlink()
    with pytest.raises(CertsError, match=r"ca.crt exists but ca.key does not: draguard cannot reuse a CA"):
        generate(tmp_path, SERVICE, NAMESPACE)


def test_unparsable_ca_material_is_one_line(tmp_path: Path) -> None:
    generate(tmp_path, SERVICE, NAMESPACE)
    (tmp_path / "ca.crt").write_text("-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n")
    with pytest.raises(CertsError) as err:
        generate(tmp_path, SERVICE, NAMESPACE)
    assert err.value.message == (
        f"{tmp_path}/ca.crt: not a valid PEM certificate (the PEM armour or base64 does not parse)")
    (tmp_path / "ca.crt").write_text("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
    with pytest.raises(CertsError) as err:
        generate(tmp_path, SERVICE, NAMESPACE)
    assert err.value.message == f"{tmp_path}/ca.crt: not a valid PEM certificate (the DER inside does not parse)"


def test_the_leaf_never_outlives_its_ca(tmp_path: Path) -> None:
    generate(tmp_path, SERVICE, NAMESPACE, ca_years=1, now=NOW)
    out = generate(tmp_path, SERVICE, NAMESPACE, extra_dns=["x.example"], now=NOW + dt.timedelta(days=100))
    assert out.not_after == out.ca_not_after == NOW + dt.timedelta(days=365)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("Draguard", "ns", (), ()), "invalid service name 'Draguard': a Service name must be a DNS-1035 label"),
        (("1abc", "ns", (), ()), "invalid service name '1abc'"),
        (("svc", "ns_1", (), ()), "invalid namespace 'ns_1': a namespace must be a DNS-1123 label"),
        (("svc", "ns", ("bad..name",), ()), "invalid DNS name 'bad..name': must be a lower-case DNS-1123 subdomain"),
        (("svc", "ns", (), ("10.0.0.300",)), "invalid IP address '10.0.0.300'"),
        # a zone would be dropped in the certificate, and every later run would see the names change and re-issue
        (("svc", "ns", (), ("fe80::1%eth0",)), "invalid IP address 'fe80::1%eth0': a zone (%eth0) cannot go in a "
                                               "certificate; give the address without it"),
    ],
)
def test_bad_names_are_refused(args: tuple, message: str) -> None:
    with pytest.raises(CertsError) as err:
        service_names(*args)
    assert err.value.message.startswith(message)


def test_wildcards_and_duplicates_in_extra_names() -> None:
    names = service_names("svc", "ns", ["*.svc.ns.svc", "svc.ns.svc"], ["127.0.0.1", "127.0.0.1"])
    assert names.describe() == ["svc", "svc.ns", "svc.ns.svc", "svc.ns.svc.cluster.local", "*.svc.ns.svc", "127.0.0.1"]


def test_lifetimes_out_of_range_are_refused(tmp_path: Path) -> None:
    with pytest.raises(CertsError, match="the serving certificate lifetime must be 1 to 365 days, not 400"):
        generate(tmp_path, SERVICE, NAMESPACE, leaf_days=400)
    assert list(tmp_path.iterdir()) == []  # the CA planned alongside was not written either
    with pytest.raises(CertsError, match="the CA lifetime must be at least 1 year, not 0"):
        generate(tmp_path / "x", SERVICE, NAMESPACE, ca_years=0)


_LABEL_1035 = st.from_regex(r"[a-z]([-a-z0-9]{0,14}[a-z0-9])?", fullmatch=True)
_LABEL_1123 = st.from_regex(r"[a-z0-9]([-a-z0-9]{0,14}[a-z0-9])?", fullmatch=True)
_SUBDOMAIN = st.lists(_LABEL_1123, min_size=1, max_size=4).map(".".join)


@settings(max_examples=25, deadline=None)
@given(
    service=_LABEL_1035,
    namespace=_LABEL_1123,
    extra_dns=st.lists(_SUBDOMAIN, max_size=3),
    extra_ips=st.lists(st.ip_addresses(), max_size=2),
)
def test_any_valid_service_gets_a_certificate_that_verifies_for_every_name(
    service: str, namespace: str, extra_dns: list[str], extra_ips: list[ipaddress.IPv4Address | ipaddress.IPv6Address]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = generate(Path(tmp), service, namespace, extra_dns=extra_dns, extra_ips=[str(ip) for ip in extra_ips])
        assert out.names.dns[:3] == (service, f"{service}.{namespace}", f"{service}.{namespace}.svc")
        for name in out.names.dns:
            assert _verify(out.ca_file, out.cert_file, x509.DNSName(name)) == 2
        for ip in out.names.ips:
            assert _verify(out.ca_file, out.cert_file, x509.IPAddress(ip)) == 2
        again = generate(Path(tmp), service, namespace, extra_dns=extra_dns, extra_ips=[str(ip) for ip in extra_ips])
        assert not again.changed
