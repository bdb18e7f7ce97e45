"""certs/issue.py in-process and fast: name limits at limit - 1, limit and limit + 1 with their exact messages, the
validity window to the second, the renewal reasons and the plan in full. Mutation testing runs these first on
`certs.issue` (tests/mutation), before the slower CLI tables in tests/limits."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import rsa

from certs import CertsError
from certs.issue import (
    CN_MAX,
    MAX_LEAF_DAYS,
    Issued,
    Names,
    check_valid_now,
    generate,
    issue_ca,
    issue_leaf,
    leaf_renewal_reason,
    plan_generate,
    service_names,
    signing_ca,
)
from certs.material import CA_CERT, CA_KEY, TLS_CERT, TLS_KEY
from certs.pem import cert_pem, describe, key_pem, key_type_of, load_certs
from tests.limits.test_slice_limits import subdomain

NOW = dt.datetime(2026, 1, 1, 12, 0, 0, tzinfo=dt.UTC)
SERVICE_MESSAGE = ("a Service name must be a DNS-1035 label (lower case alphanumeric characters or '-', starting with "
                   "a letter, ending with an alphanumeric character, at most 63 characters)")
NAMESPACE_MESSAGE = ("a namespace must be a DNS-1123 label (lower case alphanumeric characters or '-', starting and "
                     "ending with an alphanumeric character, at most 63 characters)")


@pytest.fixture(scope="module")
def ca() -> Issued:
    return issue_ca("ecdsa", now=NOW)


def names() -> Names:
    return service_names("svc", "ns")


@pytest.mark.parametrize(("length", "ok"), [(62, True), (63, True), (64, False)])
def test_a_service_name_is_at_most_63_characters(length: int, ok: bool) -> None:
    service = "s" * length
    if ok:
        assert service_names(service, "ns").dns[0] == service
        return
    with pytest.raises(CertsError, match=f"^{re.escape(f'invalid service name {service!r}: {SERVICE_MESSAGE}')}$"):
        service_names(service, "ns")


@pytest.mark.parametrize(("length", "ok"), [(62, True), (63, True), (64, False)])
def test_a_namespace_is_at_most_63_characters(length: int, ok: bool) -> None:
    namespace = "n" * length
    if ok:
        assert service_names("svc", namespace).dns[1] == f"svc.{namespace}"
        return
    with pytest.raises(CertsError, match=f"^{re.escape(f'invalid namespace {namespace!r}: {NAMESPACE_MESSAGE}')}$"):
        service_names("svc", namespace)


def dns_name(length: int, *, prefix: str = "") -> str:
    """A DNS name of exactly `length` characters (with `prefix`) in labels of at most 63."""
    return prefix + subdomain(length - len(prefix))


@pytest.mark.parametrize(
    ("name", "ok"),
    [(dns_name(252), True), (dns_name(253), True), (dns_name(254), False),
     (dns_name(253, prefix="*."), True), (dns_name(254, prefix="*."), False),
     ("a" * 63 + ".b", True), ("a" * 64 + ".b", False), ("*." + "a" * 63, True), ("*." + "a" * 64, False),
     ("*.*.a", False), ("a.*", False), ("A.b", False)],
)
def test_an_extra_dns_name_is_a_subdomain_of_at_most_253_characters_in_labels_of_63(name: str, ok: bool) -> None:
    if ok:
        assert service_names("svc", "ns", [name]).dns[4:] == (name,)
        return
    message = f"invalid DNS name {name!r}: must be a lower-case DNS-1123 subdomain (RFC 1123)"
    with pytest.raises(CertsError, match=f"^{re.escape(message)}$"):
        service_names("svc", "ns", [name])


@pytest.mark.parametrize(("length", "has_cn"), [(CN_MAX - 1, True), (CN_MAX, True), (CN_MAX + 1, False)])
def test_the_subject_names_the_host_up_to_64_characters(ca: Issued, length: int, has_cn: bool) -> None:
    namespace = "n" * (length - len("s..svc"))
    leaf = issue_leaf(ca, service_names("s", namespace), now=NOW)
    host = f"s.{namespace}.svc"
    assert len(host) == length
    assert leaf.cert.subject.rfc4514_string() == (f"CN={host}" if has_cn else "")


@pytest.mark.parametrize(("days", "ok"), [(0, False), (1, True), (2, True), (MAX_LEAF_DAYS, True),
                                          (MAX_LEAF_DAYS + 1, False)])
def test_a_leaf_lives_1_to_365_days(ca: Issued, days: int, ok: bool) -> None:
    if ok:
        leaf = issue_leaf(ca, names(), days=days, now=NOW)
        assert leaf.cert.not_valid_after_utc == NOW + dt.timedelta(days=days)
        assert key_type_of(leaf.cert) == "ecdsa"  # the default key type
        return
    with pytest.raises(CertsError, match=f"^the serving certificate lifetime must be 1 to 365 days, not {days}$"):
        issue_leaf(ca, names(), days=days, now=NOW)


def test_a_certificate_is_valid_from_not_before_up_to_but_not_at_not_after(ca: Issued) -> None:
    cert = ca.cert
    start, end = cert.not_valid_before_utc, cert.not_valid_after_utc
    check_valid_now(cert, "ca.crt", start)
    check_valid_now(cert, "ca.crt", end - dt.timedelta(seconds=1))
    early = start - dt.timedelta(seconds=1)
    with pytest.raises(CertsError) as caught:
        check_valid_now(cert, "ca.crt", early)
    assert caught.value.message == (
        f"ca.crt: {describe(cert)} is not valid before {start:%Y-%m-%d %H:%M:%S} UTC (now {early:%Y-%m-%d %H:%M:%S} "
        "UTC): is this machine's clock behind?")
    with pytest.raises(CertsError) as caught:
        check_valid_now(cert, "ca.crt", end)
    assert caught.value.message == f"ca.crt: {describe(cert)} expired on {end:%Y-%m-%d %H:%M:%S} UTC"
    with pytest.raises(CertsError) as caught:
        check_valid_now(cert, "ca.crt", end, expired_hint="start again")
    assert caught.value.message == f"ca.crt: {describe(cert)} expired on {end:%Y-%m-%d %H:%M:%S} UTC; start again"


def test_a_ca_key_without_its_certificate_is_refused(ca: Issued) -> None:
    with pytest.raises(CertsError) as caught:
        signing_ca({CA_KEY: key_pem(ca.key)}, "dir", NOW)
    assert caught.value.message == "dir/ca.key exists but ca.crt does not (remove ca.key to start a new CA)"


def test_a_ca_file_holding_a_leaf_is_refused(ca: Issued) -> None:
    leaf = issue_leaf(ca, names(), now=NOW)
    with pytest.raises(CertsError) as caught:
        signing_ca({CA_CERT: cert_pem(leaf.cert), CA_KEY: key_pem(leaf.key)}, "dir", NOW)
    assert caught.value.message == f"dir/ca.crt: {describe(leaf.cert)} is not a CA certificate (basicConstraints)"


def material(ca: Issued, leaf: Issued | None = None) -> dict[str, bytes]:
    out = {CA_CERT: cert_pem(ca.cert), CA_KEY: key_pem(ca.key)}
    if leaf is not None:
        out.update({TLS_CERT: cert_pem(leaf.cert), TLS_KEY: key_pem(leaf.key)})
    return out


def reason(ca: Issued, files: dict[str, bytes], wanted: Names, now: dt.datetime) -> str | None:
    return leaf_renewal_reason(files, "dir", ca, wanted, key_type="ecdsa", now=now)


def test_a_missing_half_of_the_serving_pair_is_renewed(ca: Issued) -> None:
    leaf = issue_leaf(ca, names(), now=NOW)
    full = material(ca, leaf)
    for missing in (TLS_CERT, TLS_KEY):
        files = {k: v for k, v in full.items() if k != missing}
        assert reason(ca, files, names(), NOW) == "no serving certificate yet"
    assert reason(ca, full, names(), NOW) is None


def test_changed_names_are_listed_added_then_dropped(ca: Issued) -> None:
    leaf = issue_leaf(ca, service_names("svc", "ns", ["a.example", "b.example"]), now=NOW)
    wanted = service_names("svc", "ns", ["c.example", "d.example"], ["10.0.0.1"])
    assert reason(ca, material(ca, leaf), wanted, NOW) == (
        "the names change (adds 10.0.0.1, c.example, d.example; drops a.example, b.example)")


def test_renewal_starts_at_exactly_a_third_of_the_lifetime_left(ca: Issued) -> None:
    leaf = issue_leaf(ca, names(), days=30, now=NOW)
    files = material(ca, leaf)
    start, end = leaf.cert.not_valid_before_utc, leaf.cert.not_valid_after_utc
    third = (end - start) / 3
    assert reason(ca, files, names(), end - third - dt.timedelta(seconds=1)) is None
    expires = f"{end:%Y-%m-%d}"
    assert reason(ca, files, names(), end - third) == (
        f"less than a third of its lifetime is left (expires {expires})")
    assert reason(ca, files, names(), end - dt.timedelta(seconds=1)) == (
        f"less than a third of its lifetime is left (expires {expires})")
    assert reason(ca, files, names(), end) == f"it expired on {expires}"
    assert reason(ca, files, names(), end + dt.timedelta(days=2)) == f"it expired on {expires}"


def test_a_leaf_not_yet_valid_is_renewed_from_its_not_before(ca: Issued) -> None:
    leaf = issue_leaf(ca, names(), now=NOW)
    files = material(ca, leaf)
    start = leaf.cert.not_valid_before_utc
    assert reason(ca, files, names(), start) is None
    assert reason(ca, files, names(), start - dt.timedelta(seconds=1)) == (
        f"it is not valid before {start:%Y-%m-%d %H:%M:%S} UTC")


def test_an_unknown_key_type_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(CertsError) as caught:
        plan_generate({}, "dir", names(), key_type="dsa")  # type: ignore[arg-type]
    assert caught.value.message == "unknown key type 'dsa': use one of ecdsa, rsa"


def test_a_plan_in_full_for_a_new_ca_a_renewal_and_nothing_to_do(ca: Issued) -> None:
    created = plan_generate({}, "dir", names(), now=NOW)
    assert (created.ca_created, created.leaf_issued, created.reason, created.names, sorted(created.changes)) == (
        True, True, "a new CA was created", names(), [CA_CERT, CA_KEY, TLS_CERT, TLS_KEY])
    ten_years, one_year = dt.timedelta(days=365 * 10), dt.timedelta(days=365)
    assert (created.ca_not_after, created.not_after) == (NOW + ten_years, NOW + one_year)

    renewed = plan_generate(material(ca), "dir", names(), now=NOW)
    assert (renewed.ca_created, renewed.leaf_issued, renewed.reason, renewed.names, sorted(renewed.changes)) == (
        False, True, "no serving certificate yet", names(), [TLS_CERT, TLS_KEY])
    assert (renewed.ca_not_after, renewed.not_after) == (ca.cert.not_valid_after_utc, NOW + dt.timedelta(days=365))

    leaf = issue_leaf(ca, names(), days=100, now=NOW)
    kept = plan_generate(material(ca, leaf), "dir", names(), now=NOW)
    assert (kept.changes, kept.ca_created, kept.leaf_issued, kept.reason, kept.names) == (
        {}, False, False, "the serving certificate is valid and current", names())
    assert (kept.ca_not_after, kept.not_after) == (ca.cert.not_valid_after_utc, NOW + dt.timedelta(days=100))


def test_an_rsa_plan_issues_rsa_keys_of_2048_bits_that_may_encipher(tmp_path: Path) -> None:
    plan = generate(tmp_path, "svc", "ns", key_type="rsa", now=NOW)
    files = (plan.ca_file, plan.cert_file, plan.key_file)
    assert files == (tmp_path / CA_CERT, tmp_path / TLS_CERT, tmp_path / TLS_KEY)
    for name in (CA_CERT, TLS_CERT):
        cert = load_certs(tmp_path / name)[0]
        public = cert.public_key()
        assert isinstance(public, rsa.RSAPublicKey)
        assert (key_type_of(cert), public.key_size, public.public_numbers().e) == ("rsa", 2048, 65537)
    leaf = load_certs(tmp_path / TLS_CERT)[0]
    assert leaf.extensions.get_extension_for_class(x509.KeyUsage).value.key_encipherment
    assert not leaf.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).critical
    read = {name: (tmp_path / name).read_bytes() for name in (CA_CERT, CA_KEY, TLS_CERT, TLS_KEY)}
    ca = signing_ca(read, "dir", NOW)
    assert ca is not None
    assert leaf_renewal_reason(read, "dir", ca, names(), key_type="ecdsa", now=NOW) == (
        "the key type changes from rsa to ecdsa")


def test_an_ecdsa_leaf_may_not_encipher_and_one_from_another_ca_is_renewed(ca: Issued) -> None:
    leaf = issue_leaf(ca, names(), now=NOW)
    assert not leaf.cert.extensions.get_extension_for_class(x509.KeyUsage).value.key_encipherment
    other = issue_ca("ecdsa", now=NOW)
    assert reason(other, material(other, leaf), names(), NOW) == "it was not signed by the current CA"
