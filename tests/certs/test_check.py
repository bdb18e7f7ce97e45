"""certs.check.doctor: each check's verdict in the words the API server would use."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes

from certs.check import Result, Subject, doctor, server_date
from certs.inject import WebhookEntry
from certs.issue import generate, issue_ca, issue_leaf, service_names
from certs.pem import describe, load_certs, load_key

HOST = "draguard.draguard-system.svc"
NOW = dt.datetime(2026, 11, 23, 12, 0, tzinfo=dt.UTC)
SERVICE = ("draguard-system", "draguard")


def _subject(directory: Path, **kw: object) -> Subject:
    fields: dict[str, object] = {
        "leaf": load_certs(directory / "tls.crt")[0], "leaf_source": "tls.crt",
        "key": load_key(directory / "tls.key"), "key_source": "tls.key",
        "bundle": tuple(load_certs(directory / "ca.crt")), "bundle_source": "ca.crt", "host": HOST,
    }
    fields.update(kw)
    return Subject(**fields)  # type: ignore[arg-type]


def _by_check(results: list[Result]) -> dict[str, list[tuple[str, str]]]:
    found: dict[str, list[tuple[str, str]]] = {}
    for r in results:
        found.setdefault(r.check, []).append((r.level, r.message))
    return found


@pytest.fixture
def good(tmp_path: Path) -> Path:
    generate(tmp_path / "good", "draguard", "draguard-system", now=NOW)
    return tmp_path / "good"


@pytest.fixture
def other(tmp_path: Path) -> Path:
    generate(tmp_path / "other", "draguard", "draguard-system", now=NOW)
    return tmp_path / "other"


def test_healthy_material_passes_every_check(good: Path) -> None:
    ca = load_certs(good / "ca.crt")[0]
    assert doctor(_subject(good), now=NOW) == [
        Result("key", "ok", "tls.key matches tls.crt"),
        Result("name", "ok", f"tls.crt covers {HOST}"),
        Result("chain", "ok", f"tls.crt verifies against ca.crt (issued by 'draguard-webhook-ca' (serial "
                              f"{ca.serial_number:x}))"),
        Result("expiry", "ok", "the serving certificate expires in 365 days, on 2027-11-23"),
        Result("expiry", "ok", "the CA expires in 3650 days, on 2036-11-20"),
    ]


def test_without_a_name_to_check_the_name_check_says_so(good: Path) -> None:
    assert _by_check(doctor(_subject(good, host=None), now=NOW))["name"] == [
        ("warn", "not checked: give --service and --namespace (or --host) to check that tls.crt covers the name the "
                 "API server dials")]


def test_a_key_of_another_certificate_fails(good: Path, other: Path) -> None:
    results = _by_check(doctor(_subject(good, key=load_key(other / "tls.key")), now=NOW))
    assert results["key"] == [("fail", "tls.key does not belong to tls.crt: the server cannot complete a handshake "
                                       "(tls: private key does not match public key); re-issue with `draguard certs "
                                       "generate`")]


def test_a_bundle_without_the_issuer_is_an_unknown_authority(good: Path, other: Path) -> None:
    # Every draguard CA is CN=draguard-webhook-ca, so Go finds a candidate by name and says why it refused it.
    results = _by_check(doctor(_subject(good, bundle=tuple(load_certs(other / "ca.crt"))), now=NOW))
    assert results["chain"] == [("fail", "tls.crt does not verify against ca.crt: tls: failed to verify certificate: "
                                         "x509: certificate signed by unknown authority (possibly because of \"x509: "
                                         "ECDSA verification failure\" while trying to verify candidate authority "
                                         "certificate \"draguard-webhook-ca\")")]


def test_a_name_the_certificate_lacks_fails_like_go_does(good: Path) -> None:
    results = _by_check(doctor(_subject(good, host="draguard-v2.draguard-system.svc"), now=NOW))
    assert results["name"] == [("fail", "x509: certificate is valid for draguard, draguard.draguard-system, "
                                        "draguard.draguard-system.svc, draguard.draguard-system.svc.cluster.local, not "
                                        "draguard-v2.draguard-system.svc; re-issue for the Service's name")]
    assert results["chain"][0][0] == "ok"  # the chain itself is fine


def test_a_common_name_only_certificate_is_refused_as_legacy(good: Path) -> None:
    ca_cert, ca_key = load_certs(good / "ca.crt")[0], load_key(good / "ca.key")
    key = load_key(good / "tls.key")
    cn_only = (
        x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(x509.NameOID.COMMON_NAME, HOST)]))
        .issuer_name(ca_cert.subject).public_key(key.public_key()).serial_number(7)
        .not_valid_before(NOW - dt.timedelta(days=1)).not_valid_after(NOW + dt.timedelta(days=30))
        .sign(ca_key, hashes.SHA256())
    )
    results = _by_check(doctor(_subject(good, leaf=cn_only), now=NOW))
    assert results["name"] == [("fail", "x509: certificate relies on legacy Common Name field, use SANs instead; "
                                        "re-issue for the Service's name")]
    # The chain itself is sound: Go checks the name separately, so the chain line says so.
    assert results["chain"] == [("ok", f"tls.crt verifies against ca.crt (issued by {describe(ca_cert)})")]
    # A Common Name that is not even the host: Go does not mention the Common Name at all.
    other_host = _by_check(doctor(_subject(good, leaf=cn_only, host="x.draguard-system.svc"), now=NOW))
    assert other_host["name"] == [("fail", "x509: certificate is not valid for any names, but wanted to match "
                                           "x.draguard-system.svc; re-issue for the Service's name")]
    no_host = _by_check(doctor(_subject(good, leaf=cn_only, host=None), now=NOW))
    assert no_host["name"] == [("fail", "tls.crt has no subjectAltName: the API server matches only SANs (x509: "
                                        "certificate relies on legacy Common Name field, use SANs instead)")]


def test_expired_and_expiring_certificates(good: Path) -> None:
    soon = _by_check(doctor(_subject(good), now=NOW + dt.timedelta(days=350)))
    assert soon["expiry"][0] == ("warn", "the serving certificate expires in 15 day(s), on 2027-11-23")
    gone = _by_check(doctor(_subject(good), now=NOW + dt.timedelta(days=366)))
    assert gone["expiry"][0] == ("fail", "the serving certificate expired on 2027-11-23 12:00:00 UTC: x509: "
                                         "certificate has expired or is not yet valid: current time "
                                         "2027-11-24T12:00:00Z is after 2027-11-23T12:00:00Z")
    assert gone["chain"] == [("fail", "tls.crt does not verify against ca.crt: tls: failed to verify certificate: "
                                      "x509: certificate has expired or is not yet valid: current time "
                                      "2027-11-24T12:00:00Z is after 2027-11-23T12:00:00Z")]


def test_an_expired_ca_fails_the_chain() -> None:
    ca = issue_ca(years=1, now=NOW)
    leaf = issue_leaf(ca, service_names("draguard", "draguard-system"), days=30, now=NOW + dt.timedelta(days=300))
    subject = Subject(leaf=leaf.cert, leaf_source="tls.crt", bundle=(ca.cert,), bundle_source="ca.crt", host=HOST)
    results = _by_check(doctor(subject, now=NOW + dt.timedelta(days=366)))
    # A leaf never outlives its CA, so Go reports the leaf's expiry first (it checks the leaf before the chain).
    assert results["chain"] == [("fail", "tls.crt does not verify against ca.crt: tls: failed to verify certificate: "
                                         "x509: certificate has expired or is not yet valid: current time "
                                         "2027-11-24T12:00:00Z is after 2027-10-19T12:00:00Z")]
    assert [level for level, _ in results["expiry"]] == ["fail", "fail"]
    assert results["expiry"][1][1].startswith("the CA expired on 2027-11-23 12:00:00 UTC: x509: certificate has "
                                              "expired or is not yet valid: current time 2027-11-24T12:00:00Z is after "
                                              "2027-11-23T12:00:00Z")


def test_live_webhooks_must_hold_the_issuing_ca_and_name_a_covered_service(good: Path, other: Path) -> None:
    right, wrong = (good / "ca.crt").read_bytes(), (other / "ca.crt").read_bytes()
    hooks = (
        WebhookEntry("a.draguard.io", right, SERVICE),
        WebhookEntry("b.draguard.io", None, SERVICE),
        WebhookEntry("c.draguard.io", wrong + right, SERVICE),  # an overlap bundle still trusts the issuer
        WebhookEntry("d.draguard.io", wrong, ("draguard-system", "renamed")),
    )
    results = _by_check(doctor(_subject(good, webhooks=hooks, webhook_source="vwc/draguard"), now=NOW))
    assert results["bundle"] == [
        ("fail", "vwc/draguard: webhook(s) b.draguard.io have no caBundle; run `draguard certs inject`"),
        ("fail", "vwc/draguard: with the caBundle of webhook(s) d.draguard.io, tls.crt does not verify (tls: failed "
                 "to verify certificate: x509: certificate signed by unknown authority (possibly because of \"x509: "
                 "ECDSA verification failure\" while trying to verify candidate authority certificate "
                 "\"draguard-webhook-ca\")); run `draguard certs inject`"),
    ]
    assert results["name"][1] == ("fail", "webhook d.draguard.io calls Service renamed.draguard-system.svc, but x509: "
                                          "certificate is valid for draguard, draguard.draguard-system, "
                                          "draguard.draguard-system.svc, draguard.draguard-system.svc.cluster.local, "
                                          "not renamed.draguard-system.svc")
    fine = _by_check(doctor(_subject(good, webhooks=hooks[:1], webhook_source="vwc/draguard"), now=NOW))
    assert fine["bundle"] == [("ok", "vwc/draguard: all 1 webhook(s) trust the issuing CA")]


@pytest.mark.parametrize(
    ("server", "expected"),
    [
        (NOW + dt.timedelta(seconds=2), ("ok", "the API server's clock is within 2 s of this machine's")),
        (NOW - dt.timedelta(seconds=90), ("warn", "the API server's clock is 90 s behind this machine's")),
        (NOW + dt.timedelta(minutes=7), ("warn", "the API server's clock is 420 s ahead of this machine's, more than "
                                                 "the 5 min draguard backdates certificates by")),
    ],
)
def test_clock_skew_against_the_api_server(good: Path, server: dt.datetime, expected: tuple[str, str]) -> None:
    later = NOW + dt.timedelta(days=1)
    shifted = server + dt.timedelta(days=1)
    assert _by_check(doctor(_subject(good, server_date=shifted), now=later))["clock"] == [expected]


def test_an_api_server_clock_before_not_before_fails(good: Path) -> None:
    server = NOW - dt.timedelta(minutes=10)  # the certificate was issued at NOW, backdated 5 minutes
    results = _by_check(doctor(_subject(good, server_date=server), now=NOW))
    assert results["clock"] == [("fail", "the API server's clock (2026-11-23 11:50:00 UTC) is before the serving "
                                         "certificate's notBefore (2026-11-23 11:55:00 UTC): x509: certificate has "
                                         "expired or is not yet valid; fix the clocks (NTP)")]


def test_this_machines_clock_before_not_before_fails(good: Path) -> None:
    results = _by_check(doctor(_subject(good), now=NOW - dt.timedelta(hours=1)))
    assert results["clock"] == [("fail", "this machine's clock (2026-11-23 11:00:00 UTC) is before the serving "
                                         "certificate's notBefore (2026-11-23 11:55:00 UTC): is the clock behind?")]


def test_the_date_header_is_read_as_utc() -> None:
    assert server_date({"date": "Mon, 23 Nov 2026 12:00:00 GMT"}) == NOW
    assert server_date({}) is None
    assert server_date({"Date": "yesterday"}) is None


def test_an_ip_host_is_checked_against_ip_sans(tmp_path: Path) -> None:
    generate(tmp_path, "draguard", "draguard-system", extra_ips=["127.0.0.1"], now=NOW)
    results = _by_check(doctor(_subject(tmp_path, host="127.0.0.1"), now=NOW))
    assert results["name"] == [("ok", "tls.crt covers 127.0.0.1")]
    assert results["chain"][0][0] == "ok"


def test_name_mismatch_lists_names_of_the_same_kind_in_certificate_order(tmp_path: Path) -> None:
    generate(tmp_path, "web", "ns", extra_dns=["a.example"], extra_ips=["10.0.0.7"], now=NOW)
    by_name = _by_check(doctor(_subject(tmp_path, host="other.ns.svc"), now=NOW))["name"]
    assert by_name == [("fail", "x509: certificate is valid for web, web.ns, web.ns.svc, web.ns.svc.cluster.local, "
                                "a.example, not other.ns.svc; re-issue for the Service's name")]
    by_ip = _by_check(doctor(_subject(tmp_path, host="10.0.0.8"), now=NOW))["name"]
    assert by_ip == [("fail", "x509: certificate is valid for 10.0.0.7, not 10.0.0.8; re-issue for the Service's "
                              "name")]
    generate(tmp_path / "dns-only", "web", "ns", now=NOW)
    no_ip = _by_check(doctor(_subject(tmp_path / "dns-only", host="10.0.0.8"), now=NOW))["name"]
    assert no_ip == [("fail", "x509: cannot validate certificate for 10.0.0.8 because it doesn't contain any IP SANs; "
                              "re-issue for the Service's name")]


def _odd_chain(kind: str) -> tuple[x509.Certificate, x509.Certificate]:
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519

    ca_key = ed25519.Ed25519PrivateKey.generate() if kind == "ed25519" else ec.generate_private_key(ec.SECP256R1())
    leaf_key = ed25519.Ed25519PrivateKey.generate() if kind == "ed25519" else ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(x509.NameOID.COMMON_NAME, "odd-ca")])
    digest = None if kind == "ed25519" else hashes.SHA256()
    ca = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(ca_key.public_key())
          .serial_number(1).not_valid_before(NOW - dt.timedelta(days=1)).not_valid_after(NOW + dt.timedelta(days=90))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .sign(ca_key, digest))  # type: ignore[arg-type]
    issuer = x509.Name([]) if kind == "self-signed" else name
    leaf = (x509.CertificateBuilder().subject_name(x509.Name([])).issuer_name(issuer).public_key(leaf_key.public_key())
            .serial_number(2).not_valid_before(NOW - dt.timedelta(days=1)).not_valid_after(NOW + dt.timedelta(days=30))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(HOST)]), critical=False)
            .add_extension(x509.BasicConstraints(ca=kind == "leaf-is-ca", path_length=None), critical=True))
    if kind == "self-signed":
        return (signed := leaf.sign(leaf_key, hashes.SHA256())), signed
    return leaf.sign(ca_key, digest), ca  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", ["ed25519", "no-key-usage-no-aki", "leaf-is-ca", "self-signed"])
def test_chains_go_accepts_pass(kind: str) -> None:
    """Before, these failed `chain` with cryptography's WebPKI verdicts (Ed25519 forbidden, keyUsage and authority
    key identifier required, CA:TRUE leaf refused, a self-signed leaf as its own anchor refused); the API server's
    Go client accepts every one of them."""
    leaf, ca = _odd_chain(kind)
    subject = Subject(leaf=leaf, leaf_source="tls.crt", bundle=(ca,), bundle_source="ca.crt", host=HOST)
    assert _by_check(doctor(subject, now=NOW))["chain"][0][0] == "ok"
