"""What `certs generate` puts in each certificate, extension by extension, and how unusable files are named.

The CA may only sign (keyCertSign, cRLSign, digitalSignature; pathLen 0) and the serving certificate may only
serve TLS (digitalSignature, plus keyEncipherment for an RSA key; serverAuth; not a CA), with basicConstraints
and keyUsage critical, as RFC 5280 asks of a CA and as kube-webhook-certgen issues them.
"""

from __future__ import annotations

import datetime as dt

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.x509.oid import ExtendedKeyUsageOID

from certs import CertsError
from certs.issue import is_ca, issue_ca, issue_leaf, new_key, plan_generate, service_names, signed_by
from certs.pem import KeyType

T0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
NAMES = service_names("svc", "ns")


def usage(**on: bool) -> x509.KeyUsage:
    bits = dict.fromkeys(("digital_signature", "content_commitment", "key_encipherment", "data_encipherment",
                          "key_agreement", "key_cert_sign", "crl_sign", "encipher_only", "decipher_only"), False)
    return x509.KeyUsage(**{**bits, **on})


def test_the_ca_may_only_sign() -> None:
    cert = issue_ca(now=T0).cert
    basic = cert.extensions.get_extension_for_class(x509.BasicConstraints)
    assert (basic.critical, basic.value) == (True, x509.BasicConstraints(ca=True, path_length=0))
    key_usage = cert.extensions.get_extension_for_class(x509.KeyUsage)
    assert (key_usage.critical, key_usage.value) == (
        True, usage(digital_signature=True, key_cert_sign=True, crl_sign=True))
    assert is_ca(cert)


@pytest.mark.parametrize(("key_type", "rsa"), [("ecdsa", False), ("rsa", True)])
def test_the_serving_certificate_may_only_serve_tls(key_type: KeyType, rsa: bool) -> None:
    ca = issue_ca(now=T0)
    cert = issue_leaf(ca, NAMES, key_type=key_type, now=T0).cert
    basic = cert.extensions.get_extension_for_class(x509.BasicConstraints)
    assert (basic.critical, basic.value) == (True, x509.BasicConstraints(ca=False, path_length=None))
    key_usage = cert.extensions.get_extension_for_class(x509.KeyUsage)
    assert (key_usage.critical, key_usage.value) == (True, usage(digital_signature=True, key_encipherment=rsa))
    eku = cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert list(eku) == [ExtendedKeyUsageOID.SERVER_AUTH]
    assert not is_ca(cert)
    assert signed_by(cert, ca.cert)
    assert not signed_by(ca.cert, cert)  # the issuer name does not match
    assert not signed_by(cert, issue_ca(now=T0).cert)  # same name, another key


def test_a_certificate_without_basic_constraints_is_not_a_ca() -> None:
    key = new_key("ecdsa")
    name = x509.Name([])
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(T0).not_valid_after(T0 + dt.timedelta(days=1))
            .sign(key, hashes.SHA256()))
    assert not is_ca(cert)


def test_a_wildcard_name_keeps_its_first_label() -> None:
    assert service_names("svc", "ns", ["*.a.example.com"]).dns[-1] == "*.a.example.com"


def test_an_unknown_key_type_names_the_known_ones() -> None:
    with pytest.raises(CertsError, match=r"^unknown key type 'dsa': use one of ecdsa, rsa$"):
        new_key("dsa")  # type: ignore[arg-type]


@pytest.mark.parametrize(("name", "reason"), [
    ("tls.crt", "the existing one is unusable (dir/tls.crt: no PEM certificate found)"),
    ("tls.key", "the existing one is unusable (dir/tls.key: not a valid PEM private key)"),
])
def test_an_unusable_serving_file_is_named_in_the_reason(name: str, reason: str) -> None:
    material = {k: v for k, v in plan_generate({}, "dir", NAMES, now=T0).changes.items() if v is not None}
    plan = plan_generate({**material, name: b"junk"}, "dir", NAMES, now=T0)
    assert (plan.reason, plan.leaf_issued) == (reason, True)


def test_an_unusable_ca_key_is_named_in_the_error() -> None:
    material = {k: v for k, v in plan_generate({}, "dir", NAMES, now=T0).changes.items() if v is not None}
    with pytest.raises(CertsError, match=r"^dir/ca.key: not a valid PEM private key$"):
        plan_generate({**material, "ca.key": b"junk"}, "dir", NAMES, now=T0)
